package screencast

// The page's side of a recording, this capability's [page.Slice]:
// Page.startScreencast's frames are acknowledged on arrival on the page's
// run goroutine and handed to a [Recorder], whose goroutine paces them
// into ffmpeg. The page goes on answering other calls while it records:
// nothing of the recording runs on the run goroutine but queueing a frame.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	pg "github.com/mafredri/cdp/protocol/page"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
)

// slices finds a page's recording state.
var slices = page.Register(page.Capability[*Slice]{
	Name:   "screencast",
	Events: []string{"Page.screencastFrame"},
	New:    func(h *page.Host) *Slice { return &Slice{h: h} },
})

// Of returns page a's screencast slice.
func Of(a *page.Actor) *Slice { return slices.Of(a) }

// Slice is a page's screencast: at most one recording at a time. Its
// methods may be called from any goroutine; each runs on the page's run
// goroutine, which owns rec and path.
type Slice struct {
	h    *page.Host
	rec  *Recorder // the recording, if any
	path string    // its file
}

// ErrActive is returned by [Slice.Start] while the page is already
// recording.
var ErrActive = errors.New("a screencast is already recording on this page")

// ErrNotRecording is returned by [Slice.Stop] when the page is not
// recording.
var ErrNotRecording = errors.New("no screencast is recording on this page")

// CutError is returned by [Slice.Start] when the page's recording ended on
// its own (a bound of [StartOptions]) and has not been collected with
// [Slice.Stop] yet.
type CutError struct {
	Path string
	Cut  Cut
}

func (e *CutError) Error() string {
	return fmt.Sprintf("the screencast %s ended on its own (%d)", e.Path, e.Cut)
}

// FinishError is returned by [Slice.Stop] when the recording stopped but
// its file could not be finished.
type FinishError struct {
	Path string
	Err  error
}

func (e *FinishError) Error() string {
	return fmt.Sprintf("finish the screencast %s: %v", e.Path, e.Err)
}

func (e *FinishError) Unwrap() error { return e.Err }

// StartOptions say how [Slice.Start] records.
type StartOptions struct {
	// FFmpeg is the ffmpeg binary; if empty, "ffmpeg" on PATH.
	FFmpeg string
	// FPS is the video's frame rate; if zero, [DefaultFPS].
	FPS int
	// Format is [FormatMP4] or [FormatWebM].
	Format string
	// Open creates the file the video is written to and returns it with
	// its path. It is called once the page is known not to be recording
	// and ffmpeg to be there, so that a refused call creates no file.
	Open func() (*os.File, string, error)
	// MaxDuration and Room bound the recording, as [Options] says: it
	// ends on its own at a bound, the file finished, and [Recording.Cut]
	// says why.
	MaxDuration time.Duration
	Room        func() int64
	// Bytes, if not nil, gives the most the file may hold and which bound
	// that is ([Options.MaxBytes] and BytesCut), or an error that refuses
	// the recording. It is called just before Open, once the page is
	// known not to be recording.
	Bytes func() (int64, Cut, error)
}

// Recording is what a stopped screencast produced.
type Recording struct {
	// Path is the video file.
	Path string
	// Duration is the video's length and Frames its frame count.
	Duration time.Duration
	Frames   int
	// Cut says why the recording ended before it was stopped, if it did.
	Cut Cut
}

// maxSide bounds the video's size, in device pixels.
const maxSide = 3840

// Start starts recording the page into the file opts.Open makes. It fails
// with [ErrActive] while a recording runs, and with an error wrapping
// [ErrNoFFmpeg] when ffmpeg cannot be run. It returns the video's path.
func (sl *Slice) Start(ctx context.Context, opts StartOptions) (string, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (string, error) {
		if sl.rec != nil {
			if cut := sl.rec.Cut(); cut != NotCut {
				return "", &CutError{Path: sl.path, Cut: cut}
			}
			return "", ErrActive
		}
		if err := h.NeedRenderer(); err != nil {
			return "", err
		}
		// The video has the viewport's size in device pixels, as the
		// frames do unless the page is resized meanwhile.
		var m *pg.GetLayoutMetricsReply
		if err := h.Call(ctx, func(ctx context.Context) (err error) {
			m, err = h.Client().Page.GetLayoutMetrics(ctx)
			return err
		}); err != nil {
			return "", fmt.Errorf("read the viewport's size: %w", err)
		}
		w := min(max(m.LayoutViewport.ClientWidth, 2), maxSide)
		ht := min(max(m.LayoutViewport.ClientHeight, 2), maxSide)
		rec, path, err := sl.startRecorder(ctx, opts, w, ht)
		if err != nil {
			return "", err
		}
		if ctx.Err() != nil { // the caller gave up meanwhile
			sl.finish(rec)
			return "", context.Cause(ctx)
		}
		sl.rec, sl.path = rec, path
		err = h.Call(ctx, func(ctx context.Context) error {
			return h.Client().Page.StartScreencast(ctx, pg.NewStartScreencastArgs().
				SetFormat("jpeg").SetQuality(90).SetMaxWidth(w).SetMaxHeight(ht).SetEveryNthFrame(1))
		})
		if err != nil {
			sl.rec = nil
			sl.finish(rec)
			return "", fmt.Errorf("start the screencast: %w", err)
		}
		// Chrome sends a frame only when the page paints: the video of a
		// still page starts from a capture of it, taken now.
		began := float64(time.Now().UnixNano()) / 1e9
		var shot *pg.CaptureScreenshotReply
		if err := h.Call(ctx, func(ctx context.Context) (err error) {
			shot, err = h.Client().Page.CaptureScreenshot(ctx, pg.NewCaptureScreenshotArgs().SetFormat("jpeg").SetQuality(90))
			return err
		}); err != nil {
			h.Log().Debug().Err(err).Msg("first screencast frame")
		} else {
			rec.AddFirst(Frame{Data: base64.StdEncoding.EncodeToString(shot.Data), Time: began})
		}
		return path, nil
	})
}

// startRecorder finds ffmpeg, opens the file and starts the recorder of a
// w×h video. Files and a process take a moment on a loaded machine: the
// run goroutine keeps applying events meanwhile. The wait ignores the
// caller's deadline: these steps are local and short, and a recorder
// started after an early return would be nobody's.
func (sl *Slice) startRecorder(ctx context.Context, opts StartOptions, w, h int) (rec *Recorder, path string, err error) {
	err = sl.h.Await(context.WithoutCancel(ctx), func(context.Context) error {
		bin, err := Find(opts.FFmpeg)
		if err != nil {
			return err
		}
		var (
			maxBytes int64
			bytesCut Cut
		)
		if opts.Bytes != nil {
			if maxBytes, bytesCut, err = opts.Bytes(); err != nil {
				return err
			}
		}
		out, p, err := opts.Open()
		if err != nil {
			return err
		}
		defer out.Close() // ffmpeg has its own descriptor
		path = p
		rec, err = Start(Options{FFmpeg: bin, Out: out, Format: opts.Format, FPS: opts.FPS, Width: w, Height: h,
			MaxDuration: opts.MaxDuration, MaxBytes: maxBytes, BytesCut: bytesCut, Room: opts.Room})
		return err
	}, nil)
	return rec, path, err
}

// Stop stops the recording and waits for ffmpeg to finish the file. It
// fails with [ErrNotRecording] when the page is not recording.
func (sl *Slice) Stop(ctx context.Context) (Recording, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (Recording, error) {
		rec := sl.rec
		if rec == nil {
			return Recording{}, ErrNotRecording
		}
		rc := Recording{Path: sl.path}
		sl.rec = nil
		// Chrome stops in the browser process; a dialog does not hold it
		// up. Whatever it answers, the file is finished.
		if err := h.Await(ctx, func(ctx context.Context) error {
			return h.Client().Page.StopScreencast(ctx)
		}, h.Crashed); err != nil && ctx.Err() == nil {
			h.Log().Debug().Err(err).Msg("stop screencast")
		}
		// The wait may end (the caller's deadline) while ffmpeg still
		// finishes: what it reports comes back through a channel, read only
		// if it has.
		stopped := make(chan Recording, 1)
		err := h.Await(ctx, func(ctx context.Context) error {
			d, err := rec.Stop(ctx)
			stopped <- Recording{Duration: d, Frames: rec.Frames(), Cut: rec.Cut()}
			return err
		}, nil)
		select {
		case st := <-stopped:
			rc.Duration, rc.Frames, rc.Cut = st.Duration, st.Frames, st.Cut
		default:
		}
		if ctx.Err() != nil {
			sl.finish(rec) // the caller gave up: do not leave ffmpeg behind
		}
		if err != nil {
			return rc, &FinishError{Path: rc.Path, Err: err}
		}
		return rc, nil
	})
}

// Apply applies Page.screencastFrame: the frame is acknowledged at once,
// so that Chrome sends the next, and queued for the recorder.
func (sl *Slice) Apply(s *page.Session, ev cdpconn.Event) error {
	var e struct {
		Data      string `json:"data"`
		SessionID int    `json:"sessionId"`
		Metadata  struct {
			Timestamp float64 `json:"timestamp"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(ev.Params, &e); err != nil {
		return err
	}
	if err := s.Send("Page.screencastFrameAck", map[string]int{"sessionId": e.SessionID}); err != nil {
		return err
	}
	if sl.rec != nil && s.IsTop() {
		if sl.rec.Cut() != NotCut {
			// The recording reached a bound and ended: Chrome need not
			// go on capturing. (A frame or two more may be on their way.)
			return s.Send("Page.stopScreencast", map[string]any{})
		}
		sl.rec.Add(Frame{Data: e.Data, Time: e.Metadata.Timestamp})
	}
	return nil
}

// finishBudget bounds finishing a recording nobody waits for: a page
// closing while it records, a start the caller gave up on.
const finishBudget = 10 * time.Second

// finish ends rec under finishBudget, waiting for ffmpeg, so that no
// process or goroutine outlives the page.
func (sl *Slice) finish(rec *Recorder) {
	ctx, cancel := context.WithTimeout(context.Background(), finishBudget)
	defer cancel()
	if _, err := rec.Stop(ctx); err != nil {
		sl.h.Log().Debug().Err(err).Msg("screencast ended with the page")
	}
}

// Close finishes a recording still running as the page's actor exits: the
// file keeps what was recorded.
func (sl *Slice) Close() {
	if sl.rec != nil {
		sl.finish(sl.rec)
		sl.rec = nil
	}
}
