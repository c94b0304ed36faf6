// Package screencast turns the frames of Page.startScreencast into a video
// file with ffmpeg.
//
// Chrome sends a frame only when the page repaints, so a still page yields
// one frame and an animation dozens a second. A [Recorder] paces them onto
// a constant frame rate: each frame is repeated until the next one's
// capture time, and the last one until [Recorder.Stop], so that the
// video lasts as long as the recording did and plays at its real speed.
// The frames (JPEG) go to ffmpeg's standard input; ffmpeg encodes H.264 in
// MP4, or VP9 in WebM, into a file the caller opened.
package screencast

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultFPS is the frame rate when none is given, as Puppeteer's
// recorder, which chrome-devtools-mcp uses, defaults to.
const DefaultFPS = 30

// Formats a recording can be written in.
const (
	FormatMP4  = "mp4"
	FormatWebM = "webm"
)

// Options say how to record.
type Options struct {
	// FFmpeg is the ffmpeg binary, a path or a name looked up on PATH. If
	// empty, "ffmpeg".
	FFmpeg string
	// Out receives the video: ffmpeg gets a descriptor of its own, so the
	// caller closes Out once Start returns.
	Out *os.File
	// Format is [FormatMP4] or [FormatWebM].
	Format string
	// FPS is the video's frame rate. If zero, [DefaultFPS].
	FPS int
	// Width and Height are the video's size in pixels; frames of another
	// size are scaled to fit and padded. They are rounded up to even
	// numbers, as the encoders need.
	Width, Height int
}

// ErrNoFFmpeg is returned by [Start] when the ffmpeg binary cannot be run.
var ErrNoFFmpeg = errors.New("ffmpeg not found")

// A Frame is one screencast frame: base64 JPEG data, as Chrome sends it,
// and its capture time in seconds since the epoch (0 if Chrome gave none).
type Frame struct {
	Data string
	Time float64
}

// Recorder feeds one ffmpeg process. [Recorder.Add] may be called from any
// goroutine and never blocks; [Recorder.Stop] finishes the file. A
// Recorder's goroutine ends when Stop returns.
type Recorder struct {
	fps   int
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// stderr keeps ffmpeg's complaints, for the error of a failed run.
	stderr *limitedBuffer

	mu      sync.Mutex
	pending []Frame
	stopped bool
	begun   bool    // the writer has taken frames
	end     float64 // the recording's end, set by Stop

	wake chan struct{} // a frame or Stop arrived; buffered, sends never block
	done chan struct{} // closed when the writer goroutine has ended
	err  error         // the writer's error; read after done

	frames int // frames written; the writer's own
}

// Find returns the path of the ffmpeg binary bin (a path, or a name on
// PATH; if empty, "ffmpeg"), or an error wrapping [ErrNoFFmpeg].
func Find(bin string) (string, error) {
	if bin == "" {
		bin = "ffmpeg"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrNoFFmpeg, bin)
	}
	return path, nil
}

// Start runs ffmpeg and the goroutine that feeds it. It fails with an
// error wrapping [ErrNoFFmpeg] when the binary cannot be run.
func Start(opts Options) (*Recorder, error) {
	path, err := Find(opts.FFmpeg)
	if err != nil {
		return nil, err
	}
	fps := opts.FPS
	if fps <= 0 {
		fps = DefaultFPS
	}
	w, h := even(opts.Width), even(opts.Height)
	args := []string{
		"-hide_banner", "-loglevel", "error", "-nostdin",
		"-f", "image2pipe", "-c:v", "mjpeg", "-framerate", strconv.Itoa(fps), "-i", "pipe:0",
		"-an", "-threads", "1",
		// Every frame at the video's size, letterboxed when the page was
		// resized during the recording.
		"-vf", fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease,pad=%d:%d:(ow-iw)/2:(oh-ih)/2,format=yuv420p", w, h, w, h),
	}
	switch opts.Format {
	case FormatWebM:
		args = append(args, "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "0", "-crf", "35", "-f", "webm")
	default:
		// Fragmented, so that a recording cut short (ffmpeg killed) still
		// plays up to its last fragment; every common player opens it.
		args = append(args, "-c:v", "libx264", "-preset", "ultrafast", "-crf", "28",
			"-movflags", "frag_keyframe+empty_moov+default_base_moof", "-f", "mp4")
	}
	// The file is ffmpeg's descriptor 3, opened by the caller (through
	// its sandbox); ffmpeg reopens it as /dev/fd/3, which is the same
	// file, seekable, so that WebM gets its duration and cues.
	args = append(args, "-y", "file:/dev/fd/3")
	cmd := exec.Command(path, args...)
	cmd.ExtraFiles = []*os.File{opts.Out}
	stderr := &limitedBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("ffmpeg stdin: %w", err)
	}
	if err := cmd.Start(); err != nil {
		stdin.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrNoFFmpeg, path, err)
	}
	r := &Recorder{
		fps:    fps,
		cmd:    cmd,
		stdin:  stdin,
		stderr: stderr,
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	go r.write()
	return r, nil
}

// even rounds n up to an even number of at least 2.
func even(n int) int {
	if n < 2 {
		return 2
	}
	return n + n%2
}

// maxPending bounds the frames waiting for ffmpeg. Past it, a new frame
// takes the place of the latest waiting one: the frame before it then
// shows a little longer, and memory stays bounded when ffmpeg falls
// behind a page that repaints all the time.
const maxPending = 64

// Add queues a frame. It never blocks; frames after Stop are dropped.
func (r *Recorder) Add(f Frame) {
	r.mu.Lock()
	switch {
	case r.stopped:
	case len(r.pending) >= maxPending:
		r.pending[len(r.pending)-1] = f
	default:
		r.pending = append(r.pending, f)
	}
	r.mu.Unlock()
	r.poke()
}

// AddFirst queues f before every frame queued so far, unless frames have
// already been written: a capture of the page as the recording starts,
// for a page that does not paint.
func (r *Recorder) AddFirst(f Frame) {
	r.mu.Lock()
	if !r.stopped && !r.begun {
		r.pending = append([]Frame{f}, r.pending...)
	}
	r.mu.Unlock()
	r.poke()
}

func (r *Recorder) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Stop ends the recording at the current time: the last frame is repeated
// up to now, ffmpeg's input is closed and the file finished. It returns
// ffmpeg's failure, if any, and how long the video is. If ctx ends first,
// ffmpeg is killed, and the file may be unplayable. Stop may be called
// more than once; later calls wait for the first.
func (r *Recorder) Stop(ctx context.Context) (time.Duration, error) {
	r.mu.Lock()
	if !r.stopped {
		r.stopped = true
		r.end = now()
	}
	r.mu.Unlock()
	r.poke()
	select {
	case <-r.done:
	case <-ctx.Done():
		r.cmd.Process.Kill()
		<-r.done
	}
	return time.Duration(float64(r.frames) / float64(r.fps) * float64(time.Second)), r.err
}

// Frames returns how many frames the video has. Valid after Stop.
func (r *Recorder) Frames() int {
	<-r.done
	return r.frames
}

func now() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// write is the recorder's goroutine: it paces the frames onto ffmpeg's
// input until Stop, then waits for ffmpeg.
func (r *Recorder) write() {
	defer close(r.done)
	var (
		start, last float64 // capture times of the first and the latest frame
		prev        []byte  // the latest frame, written until the next one's time
		werr        error
	)
	// put writes prev until the video reaches time t.
	put := func(t float64) {
		want := int(math.Round((t - start) * float64(r.fps)))
		for ; r.frames < want && werr == nil; r.frames++ {
			_, werr = r.stdin.Write(prev)
		}
	}
	for {
		<-r.wake
		r.mu.Lock()
		batch, stopped, end := r.pending, r.stopped, r.end
		r.pending = nil
		r.begun = r.begun || len(batch) > 0
		r.mu.Unlock()
		for _, f := range batch {
			data, err := base64.StdEncoding.DecodeString(f.Data)
			if err != nil || len(data) == 0 {
				continue
			}
			t := f.Time
			if t <= 0 || t < last {
				t = math.Max(last, now())
			}
			if prev == nil {
				start = t
			} else {
				put(t)
			}
			prev, last = data, t
		}
		if stopped {
			if prev != nil {
				put(math.Max(end, last))
				if r.frames == 0 && werr == nil { // one frame at least
					_, werr = r.stdin.Write(prev)
					r.frames++
				}
			}
			break
		}
	}
	r.stdin.Close()
	err := r.cmd.Wait()
	switch {
	case prev == nil:
		r.err = errors.New("the page sent no frame to record")
	case err != nil:
		msg := strings.TrimSpace(r.stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		r.err = fmt.Errorf("ffmpeg failed: %s", msg)
	case werr != nil:
		r.err = fmt.Errorf("write to ffmpeg: %w", werr)
	}
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
