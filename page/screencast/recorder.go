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
//
// A recording may be bounded ([Options.MaxDuration], [Options.MaxBytes],
// [Options.Room]): it then ends on its own when it reaches its bound, as if
// stopped, so that the file is finished and plays, and [Recorder.Cut] says
// why. Fragments of the file are kept small (1 MiB), so that what ffmpeg
// holds back and writes at the end stays within the room a bound keeps.
//
// Goroutines: each [Recorder] has one, which paces frames into ffmpeg and
// waits for it to exit; it ends when the recording ends (Stop, a bound, or
// ffmpeg exiting), and Stop waits for it.
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
	"syscall"
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
	// MaxDuration, if above zero, ends the recording once the video is
	// that long, or that long after Start if the page sent fewer frames
	// ([CutDuration]).
	MaxDuration time.Duration
	// MaxBytes, if above zero, ends the recording before the file passes
	// it: once it is within [Slack] of it, and ffmpeg stops on its own
	// ([Options.BytesCut]) at MaxBytes less half of Slack. At least
	// [MinBytes].
	MaxBytes int64
	// BytesCut is why MaxBytes ends a recording: [CutSize] (the default)
	// or [CutDisk].
	BytesCut Cut
	// Room, if not nil, says how many more bytes the file may take as it
	// grows (-1: no bound); the recording ends ([CutDisk]) when that is
	// less than Slack. It is called from the recorder's goroutine as
	// frames are written and must not block for long.
	Room func() int64
}

// Cut says why a recording ended on its own.
type Cut int

const (
	// NotCut: the recording runs, or was stopped by [Recorder.Stop].
	NotCut Cut = iota
	// CutDuration: it reached [Options.MaxDuration].
	CutDuration
	// CutSize: its file reached [Options.MaxBytes].
	CutSize
	// CutDisk: the room [Options.Room] gave ran out.
	CutDisk
)

// Slack is the room a bounded recording keeps below its bound for what
// follows the decision to end it: frames on their way through ffmpeg, the
// fragment it holds back (1 MiB at most) and the end of the file.
const Slack = 4 << 20

// MinBytes is the least [Options.MaxBytes] may be: twice [Slack].
const MinBytes = 2 * Slack

// fragment bounds the fragments (MP4) and clusters (WebM) ffmpeg writes.
const fragment = 1 << 20

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
	// out is the recorder's own descriptor of the video, to see its size;
	// the writer closes it.
	out         *os.File
	maxDuration time.Duration
	maxBytes    int64
	bytesCut    Cut
	room        func() int64
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
	cut    Cut // why the recording ended on its own; written before done is closed
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
	if opts.Format == FormatWebM {
		args = append(args, "-cluster_size_limit", strconv.Itoa(fragment), "-cluster_time_limit", "1000")
	} else {
		args = append(args, "-frag_size", strconv.Itoa(fragment))
	}
	if opts.MaxBytes > 0 {
		if opts.MaxBytes < MinBytes {
			return nil, fmt.Errorf("screencast: MaxBytes %d is under MinBytes", opts.MaxBytes)
		}
		// ffmpeg's own stop, should the recorder's come late: it ends
		// the file cleanly once it has written this much.
		args = append(args, "-fs", strconv.FormatInt(opts.MaxBytes-Slack/2, 10))
	}
	// The file is ffmpeg's descriptor 3, opened by the caller (through
	// its sandbox); ffmpeg reopens it as /dev/fd/3, which is the same
	// file, seekable, so that WebM gets its duration and cues.
	args = append(args, "-y", "file:/dev/fd/3")
	fd, err := syscall.Dup(int(opts.Out.Fd()))
	if err != nil {
		return nil, fmt.Errorf("screencast: %w", err)
	}
	syscall.CloseOnExec(fd)
	own := os.NewFile(uintptr(fd), opts.Out.Name())
	cmd := exec.Command(path, args...)
	cmd.ExtraFiles = []*os.File{opts.Out}
	stderr := &limitedBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		own.Close()
		return nil, fmt.Errorf("ffmpeg stdin: %w", err)
	}
	if err := cmd.Start(); err != nil {
		own.Close()
		stdin.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrNoFFmpeg, path, err)
	}
	r := &Recorder{
		fps:         fps,
		cmd:         cmd,
		stdin:       stdin,
		out:         own,
		maxDuration: opts.MaxDuration,
		maxBytes:    opts.MaxBytes,
		bytesCut:    opts.BytesCut,
		room:        opts.Room,
		stderr:      stderr,
		wake:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
	if r.bytesCut == NotCut {
		r.bytesCut = CutSize
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

// Cut returns why the recording ended on its own, or [NotCut] while it
// runs and when Stop ended it.
func (r *Recorder) Cut() Cut {
	select {
	case <-r.done:
		return r.cut
	default:
		return NotCut
	}
}

// Done is closed when the recording has ended and its file is finished:
// after Stop, or on its own (see [Recorder.Cut]).
func (r *Recorder) Done() <-chan struct{} { return r.done }

// Frames returns how many frames the video has. Valid after Stop.
func (r *Recorder) Frames() int {
	<-r.done
	return r.frames
}

func now() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// write is the recorder's goroutine: it paces the frames onto ffmpeg's
// input until Stop or a bound, then waits for ffmpeg.
func (r *Recorder) write() {
	defer close(r.done)
	defer r.out.Close()
	var (
		start, last float64 // capture times of the first and the latest frame
		prev        []byte  // the latest frame, written until the next one's time
		werr        error
		cut         Cut
	)
	maxFrames := math.MaxInt
	if r.maxDuration > 0 {
		maxFrames = max(int(r.maxDuration.Seconds()*float64(r.fps)), 1)
	}
	// put writes prev until the video reaches time t, or its longest.
	put := func(t float64) {
		want := min(int(math.Round((t-start)*float64(r.fps))), maxFrames)
		for ; r.frames < want && werr == nil; r.frames++ {
			_, werr = r.stdin.Write(prev)
		}
		if r.frames >= maxFrames && cut == NotCut {
			cut = CutDuration
		}
	}
	var timeout <-chan time.Time
	if r.maxDuration > 0 {
		t := time.NewTimer(r.maxDuration)
		defer t.Stop()
		timeout = t.C
	}
	for {
		timedOut := false
		select {
		case <-r.wake:
		case <-timeout:
			timedOut, timeout = true, nil
		}
		r.mu.Lock()
		batch, stopped, end := r.pending, r.stopped, r.end
		r.pending = nil
		r.begun = r.begun || len(batch) > 0
		r.mu.Unlock()
		for _, f := range batch {
			if !stopped && cut == NotCut {
				// Looked at before each frame, not each batch: a
				// batch is up to maxPending frames, megabytes of
				// video when the page is busy and ffmpeg behind.
				cut = r.full()
			}
			if cut != NotCut {
				break
			}
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
		if cut == NotCut && !stopped {
			cut = r.full()
			if timedOut && cut == NotCut {
				cut = CutDuration
			}
		}
		if cut != NotCut && !stopped {
			// Ended on its own: from here on as if stopped now, the
			// last frame held to its time if the page sent too few.
			stopped, end = true, math.Max(now(), last)
			switch {
			case cut == CutDuration && prev != nil:
				end = start + r.maxDuration.Seconds()
			case cut != CutDuration:
				// Out of room: the last frame is shown once, not held
				// to now, which would add to the file.
				end = last + 1/float64(r.fps)
			}
			r.mu.Lock()
			r.stopped, r.end, r.pending = true, end, nil
			r.mu.Unlock()
		}
		if werr != nil && !stopped {
			// ffmpeg went away: at its -fs bound, or failing.
			stopped, end = true, last
			r.mu.Lock()
			r.stopped, r.end, r.pending = true, end, nil
			r.mu.Unlock()
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
	case werr != nil && r.maxBytes > 0 && cut == NotCut:
		// ffmpeg ended the file at its -fs bound and exited, closing
		// its input: the recording reached MaxBytes.
		cut = r.bytesCut
	case werr != nil && cut == NotCut:
		r.err = fmt.Errorf("write to ffmpeg: %w", werr)
	}
	r.cut = cut
}

// full says whether the file has come within Slack of a bound.
func (r *Recorder) full() Cut {
	if r.maxBytes > 0 {
		if fi, err := r.out.Stat(); err == nil && fi.Size()+Slack >= r.maxBytes {
			return r.bytesCut
		}
	}
	if r.room != nil {
		if room := r.room(); room >= 0 && room < Slack {
			return CutDisk
		}
	}
	return NotCut
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
