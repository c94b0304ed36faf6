package page

// Screencasts: Page.startScreencast's frames, acknowledged on arrival on
// the run goroutine and handed to a recorder (package page/screencast)
// whose goroutine paces them into ffmpeg. The page goes on answering other
// calls while it records: nothing of the recording runs on the run
// goroutine but queueing a frame.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	pg "github.com/mafredri/cdp/protocol/page"

	"github.com/tabhive/tabhive/page/screencast"
)

// ErrScreencastActive is returned by [Actor.StartScreencast] while the page
// is already recording.
var ErrScreencastActive = errors.New("a screencast is already recording on this page")

// ErrNoScreencast is returned by [Actor.StopScreencast] when the page is not
// recording.
var ErrNoScreencast = errors.New("no screencast is recording on this page")

// ScreencastCutError is returned by [Actor.StartScreencast] when the
// page's recording ended on its own (a bound of [ScreencastOptions]) and
// has not been collected with [Actor.StopScreencast] yet.
type ScreencastCutError struct {
	Path string
	Cut  screencast.Cut
}

func (e *ScreencastCutError) Error() string {
	return fmt.Sprintf("the screencast %s ended on its own (%d)", e.Path, e.Cut)
}

// ScreencastError is returned by [Actor.StopScreencast] when the recording
// stopped but its file could not be finished.
type ScreencastError struct {
	Path string
	Err  error
}

func (e *ScreencastError) Error() string {
	return fmt.Sprintf("finish the screencast %s: %v", e.Path, e.Err)
}

func (e *ScreencastError) Unwrap() error { return e.Err }

// ScreencastOptions say how [Actor.StartScreencast] records.
type ScreencastOptions struct {
	// FFmpeg is the ffmpeg binary; if empty, "ffmpeg" on PATH.
	FFmpeg string
	// FPS is the video's frame rate; if zero, [screencast.DefaultFPS].
	FPS int
	// Format is [screencast.FormatMP4] or [screencast.FormatWebM].
	Format string
	// Open creates the file the video is written to and returns it with
	// its path. It is called once the page is known not to be recording
	// and ffmpeg to be there, so that a refused call creates no file.
	Open func() (*os.File, string, error)
	// MaxDuration and Room bound the recording, as [screencast.Options]
	// says: it ends on its own at a bound, the file finished, and
	// [Recording.Cut] says why.
	MaxDuration time.Duration
	Room        func() int64
	// Bytes, if not nil, gives the most the file may hold and which
	// bound that is ([screencast.Options.MaxBytes] and BytesCut), or an
	// error that refuses the recording. It is called just before Open,
	// once the page is known not to be recording.
	Bytes func() (int64, screencast.Cut, error)
}

// Recording is what a stopped screencast produced.
type Recording struct {
	// Path is the video file.
	Path string
	// Duration is the video's length and Frames its frame count.
	Duration time.Duration
	Frames   int
	// Cut says why the recording ended before it was stopped, if it did.
	Cut screencast.Cut
}

// maxScreencastSide bounds the video's size, in device pixels.
const maxScreencastSide = 3840

// StartScreencast starts recording the page into opts.Out. It fails with
// [ErrScreencastActive] while a recording runs, and with an error wrapping
// [screencast.ErrNoFFmpeg] when ffmpeg cannot be run.
// It returns the video's path.
func (a *Actor) StartScreencast(ctx context.Context, opts ScreencastOptions) (string, error) {
	return ask(ctx, a, func(ctx context.Context) (string, error) {
		if a.rec != nil {
			if cut := a.rec.Cut(); cut != screencast.NotCut {
				return "", &ScreencastCutError{Path: a.recPath, Cut: cut}
			}
			return "", ErrScreencastActive
		}
		if err := a.needRenderer(); err != nil {
			return "", err
		}
		// The video has the viewport's size in device pixels, as the
		// frames do unless the page is resized meanwhile.
		var m *pg.GetLayoutMetricsReply
		if err := a.call(ctx, func(ctx context.Context) (err error) {
			m, err = a.c.Page.GetLayoutMetrics(ctx)
			return err
		}); err != nil {
			return "", fmt.Errorf("read the viewport's size: %w", err)
		}
		w := min(max(m.LayoutViewport.ClientWidth, 2), maxScreencastSide)
		h := min(max(m.LayoutViewport.ClientHeight, 2), maxScreencastSide)
		var (
			rec  *screencast.Recorder
			path string
		)
		// Files and a process take a moment on a loaded machine: the run
		// goroutine keeps applying events meanwhile. The wait ignores the
		// caller's deadline: these steps are local and short, and a
		// recorder started after an early return would be nobody's.
		if err := a.act.Await(context.WithoutCancel(ctx), func(context.Context) error {
			bin, err := screencast.Find(opts.FFmpeg)
			if err != nil {
				return err
			}
			var (
				maxBytes int64
				bytesCut screencast.Cut
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
			rec, err = screencast.Start(screencast.Options{FFmpeg: bin, Out: out, Format: opts.Format, FPS: opts.FPS, Width: w, Height: h,
				MaxDuration: opts.MaxDuration, MaxBytes: maxBytes, BytesCut: bytesCut, Room: opts.Room})
			return err
		}, nil); err != nil {
			return "", err
		}
		if ctx.Err() != nil { // the caller gave up meanwhile
			a.finishRecorder(rec)
			return "", context.Cause(ctx)
		}
		a.rec, a.recPath = rec, path
		err := a.call(ctx, func(ctx context.Context) error {
			return a.c.Page.StartScreencast(ctx, pg.NewStartScreencastArgs().
				SetFormat("jpeg").SetQuality(90).SetMaxWidth(w).SetMaxHeight(h).SetEveryNthFrame(1))
		})
		if err != nil {
			a.rec = nil
			a.finishRecorder(rec)
			return "", fmt.Errorf("start the screencast: %w", err)
		}
		// Chrome sends a frame only when the page paints: the video of a
		// still page starts from a capture of it, taken now.
		began := float64(time.Now().UnixNano()) / 1e9
		var shot *pg.CaptureScreenshotReply
		if err := a.call(ctx, func(ctx context.Context) (err error) {
			shot, err = a.c.Page.CaptureScreenshot(ctx, pg.NewCaptureScreenshotArgs().SetFormat("jpeg").SetQuality(90))
			return err
		}); err != nil {
			a.log.Debug().Err(err).Msg("first screencast frame")
		} else {
			rec.AddFirst(screencast.Frame{Data: base64.StdEncoding.EncodeToString(shot.Data), Time: began})
		}
		return path, nil
	})
}

// StopScreencast stops the recording and waits for ffmpeg to finish the
// file. It fails with [ErrNoScreencast] when the page is not recording.
func (a *Actor) StopScreencast(ctx context.Context) (Recording, error) {
	return ask(ctx, a, func(ctx context.Context) (Recording, error) {
		rec := a.rec
		if rec == nil {
			return Recording{}, ErrNoScreencast
		}
		rc := Recording{Path: a.recPath}
		a.rec = nil
		// Chrome stops in the browser process; a dialog does not hold it
		// up. Whatever it answers, the file is finished.
		if err := a.act.Await(ctx, func(ctx context.Context) error {
			return a.c.Page.StopScreencast(ctx)
		}, a.crashCheck); err != nil && ctx.Err() == nil {
			a.log.Debug().Err(err).Msg("stop screencast")
		}
		err := a.act.Await(ctx, func(ctx context.Context) (err error) {
			rc.Duration, err = rec.Stop(ctx)
			rc.Frames = rec.Frames()
			rc.Cut = rec.Cut()
			return err
		}, nil)
		if ctx.Err() != nil {
			a.finishRecorder(rec) // the caller gave up: do not leave ffmpeg behind
		}
		if err != nil {
			return rc, &ScreencastError{Path: rc.Path, Err: err}
		}
		return rc, nil
	})
}

// screencastFrame applies Page.screencastFrame: the frame is acknowledged
// at once, so that Chrome sends the next, and queued for the recorder.
func (a *Actor) screencastFrame(s *session, params json.RawMessage) error {
	var e struct {
		Data      string `json:"data"`
		SessionID int    `json:"sessionId"`
		Metadata  struct {
			Timestamp float64 `json:"timestamp"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	if err := s.conn.Send("Page.screencastFrameAck", map[string]int{"sessionId": e.SessionID}); err != nil {
		return err
	}
	if a.rec != nil && s == a.top {
		if a.rec.Cut() != screencast.NotCut {
			// The recording reached a bound and ended: Chrome need not
			// go on capturing. (A frame or two more may be on their way.)
			return s.conn.Send("Page.stopScreencast", map[string]any{})
		}
		a.rec.Add(screencast.Frame{Data: e.Data, Time: e.Metadata.Timestamp})
	}
	return nil
}

// finishBudget bounds finishing a recording nobody waits for: a page
// closing while it records, a start the caller gave up on.
const finishBudget = 10 * time.Second

// finishRecorder ends rec under finishBudget, waiting for ffmpeg, so that
// no process or goroutine outlives the actor.
func (a *Actor) finishRecorder(rec *screencast.Recorder) {
	ctx, cancel := context.WithTimeout(context.Background(), finishBudget)
	defer cancel()
	if _, err := rec.Stop(ctx); err != nil {
		a.log.Debug().Err(err).Msg("screencast ended with the page")
	}
}

// endScreencast finishes a recording still running as the actor exits:
// the file keeps what was recorded.
func (a *Actor) endScreencast() {
	if a.rec != nil {
		a.finishRecorder(a.rec)
		a.rec = nil
	}
}
