package screenshot

// Where a screenshot goes as the browser sends it.

import (
	"bytes"
	"fmt"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// A screenshot is streamed from the browser to where it goes, never held
// whole: to the agent's filePath, or, without one, to memory while it is
// small enough to be sent inline and to a file in the session's private
// directory from there on. A capture of a long page can be tens of
// megabytes, and held whole it passed through memory several times (its
// base64 text, the decoded image, their copies): 125 MB of resident
// memory for a 22 MB image.

// maxScreenshotFile bounds what one screenshot may write: 256 MiB, as
// evaluate_script's filePath, a bound on the disk one call can fill.
const maxScreenshotFile = 256 << 20

// shotSink receives a screenshot as the browser sends it.
type shotSink struct {
	sb   *sandbox.Sandbox
	ext  string            // ".png", ".jpeg", ".webp"
	file *sandbox.LazyFile // the agent's filePath, or the private file once spilled
	mem  bytes.Buffer
	n    int64
}

// newShotSink returns a sink writing to filePath, or, if it is "", to
// memory up to inlineLimit and then to a private file.
func newShotSink(sb *sandbox.Sandbox, filePath, ext string) *shotSink {
	w := &shotSink{sb: sb, ext: ext}
	if filePath != "" {
		w.file = sb.Lazy(sandbox.LazyOptions{Path: filePath, Ext: ext})
	}
	return w
}

func (w *shotSink) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > maxScreenshotFile {
		return 0, fmt.Errorf("The screenshot is larger than %d MiB, the most one screenshot may write. Capture less: the viewport, one element (uid), or set --screenshot-max-width/--screenshot-max-height.", maxScreenshotFile>>20)
	}
	w.n += int64(len(p))
	if w.file == nil && w.mem.Len()+len(p) < inlineLimit {
		return w.mem.Write(p)
	}
	if w.file == nil {
		// Too big to send inline: from here on it goes to a file of the
		// session's, under a fresh name.
		path, err := w.sb.TempFile("screenshot"+w.ext, nil)
		if err != nil {
			return 0, err
		}
		w.file = w.sb.Lazy(sandbox.LazyOptions{Path: path, Ext: w.ext})
		if _, err := w.file.Write(w.mem.Bytes()); err != nil {
			return 0, err
		}
		w.mem = bytes.Buffer{}
	}
	return w.file.Write(p)
}

// finish ends the screenshot that wrote to w with err: a file it wrote is
// closed, and removed if the screenshot failed. It returns the path
// written ("" when the image is in memory) and the screenshot's error, or
// the close's.
func (w *shotSink) finish(err error) (string, error) {
	if w.file == nil {
		return "", err
	}
	err = w.file.Finish(err)
	return w.file.Name(), err
}

// inline returns the image held in memory.
func (w *shotSink) inline() []byte { return w.mem.Bytes() }
