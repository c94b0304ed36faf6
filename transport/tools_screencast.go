package transport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/screencast"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// ScreencastConfig sets how screencasts are recorded (--screencast-fps,
// --experimental-screencast, --experimental-ffmpeg-path). The zero value
// records MP4 at [screencast.DefaultFPS] with ffmpeg from PATH.
type ScreencastConfig struct {
	// FPS is the videos' frame rate; if zero, [screencast.DefaultFPS].
	FPS int
	// FFmpeg is the ffmpeg binary; if empty, "ffmpeg" on PATH.
	FFmpeg string
	// Experimental lets filePath name a WebM file as well as an MP4 one,
	// as chrome-devtools-mcp's --experimentalScreencast does; without it
	// the file is always MP4. tabhive records with ffmpeg either way.
	Experimental bool
	// MaxDuration ends a recording on its own once its video is this long
	// (--screencast-max-duration). If zero, no bound.
	MaxDuration time.Duration
	// MaxBytes ends a recording on its own before its file passes this
	// many bytes (--screencast-max-bytes); a recording is also bounded by
	// what remains of its session's --max-session-disk. If zero, only by
	// that. Else at least [screencast.MinBytes].
	MaxBytes int64
}

// screencastStartBudget covers reading the viewport, starting ffmpeg and
// Chrome's screencast; screencastStopBudget, ffmpeg encoding what is left
// and finishing the file, which takes a while on a loaded machine.
const (
	screencastStartBudget = 30 * time.Second
	screencastStopBudget  = 2 * time.Minute
)

// screencastFormats are the file extensions a recording may have, with
// --experimental-screencast.
var screencastFormats = []string{".webm", ".mp4"}

func (s *Server) screencastTools() []*tool {
	const desc = `Starts recording a screencast (video) of the target page.`
	start := define(tool{name: "screencast_start", page: true, description: desc},
		fixed[screencastStartArgs](screencastStartBudget), s.runScreencastStart)
	if s.cfg.Screencast.Experimental {
		// The same argument, described as chrome-devtools-mcp describes it
		// under --experimentalScreencast.
		start = define(tool{name: "screencast_start", page: true, description: desc},
			fixed[screencastStartWebMArgs](screencastStartBudget),
			func(ctx context.Context, c *call, a *screencastStartWebMArgs) error {
				return s.runScreencastStart(ctx, c, (*screencastStartArgs)(a))
			})
	}
	return []*tool{
		start,
		define(tool{name: "screencast_stop", page: true, description: `Stops the active screencast recording on the target page.`},
			fixed[screencastStopArgs](screencastStopBudget), s.runScreencastStop),
	}
}

type screencastStartArgs struct {
	FilePath string `json:"filePath" desc:"Output file path (.mp4). Uses mkdtemp to generate a unique path if not provided."`
}

type screencastStartWebMArgs struct {
	FilePath string `json:"filePath" desc:"Output file path (.webm,.mp4 are supported). Uses mkdtemp to generate a unique path if not provided."`
}

type screencastStopArgs struct{}

// screencastExt is the extension the video gets: with
// --experimental-screencast the one filePath names (.webm or .mp4, any
// case; .mp4 when it names none), else .mp4, as chrome-devtools-mcp does.
func (s *Server) screencastExt(filePath string) (string, error) {
	if !s.cfg.Screencast.Experimental {
		return ".mp4", nil
	}
	ext := filepath.Ext(filePath)
	if ext == "" || strings.HasPrefix(filepath.Base(filePath), ext) {
		return ".mp4", nil
	}
	for _, e := range screencastFormats {
		if strings.EqualFold(ext, e) {
			return e, nil
		}
	}
	return "", fmt.Errorf("Unsupported screencast file extension %q. Supported formats: %s (case-insensitive).", ext, strings.Join(screencastFormats, ", "))
}

func (s *Server) runScreencastStart(ctx context.Context, c *call, a *screencastStartArgs) error {
	ext, err := s.screencastExt(a.FilePath)
	if err != nil {
		return err
	}
	box := c.sandbox(ctx)
	// A path the sandbox refuses fails before anything starts.
	if a.FilePath != "" {
		if _, err := box.Resolve(a.FilePath); err != nil {
			return err
		}
	}
	format := screencast.FormatMP4
	if ext == ".webm" {
		format = screencast.FormatWebM
	}
	path, err := c.page.StartScreencast(ctx, page.ScreencastOptions{
		FFmpeg:      s.cfg.Screencast.FFmpeg,
		FPS:         s.cfg.Screencast.FPS,
		Format:      format,
		MaxDuration: s.cfg.Screencast.MaxDuration,
		Room:        box.Room,
		// The file may take what the session's disk bound leaves, at
		// most --screencast-max-bytes.
		Bytes: func() (int64, screencast.Cut, error) {
			maxBytes, cut := s.cfg.Screencast.MaxBytes, screencast.CutSize
			if room := box.Room(); room >= 0 && (maxBytes == 0 || room < maxBytes) {
				maxBytes, cut = room, screencast.CutDisk
				if room < screencast.MinBytes {
					return 0, 0, badArgs("Not started: the files this session wrote leave %s of its bound of %s (--max-session-disk), and a recording needs at least %s. Delete files the session wrote and no longer needs, or ask the operator for a larger --max-session-disk.",
						sandbox.FormatBytes(room), sandbox.FormatBytes(s.cfg.MaxSessionDisk), sandbox.FormatBytes(screencast.MinBytes))
				}
			}
			return maxBytes, cut, nil
		},
		Open: func() (*os.File, string, error) {
			var (
				f   *sandbox.File
				err error
			)
			if a.FilePath == "" {
				f, err = box.CreateTemp("screencast" + ext)
			} else {
				f, err = box.Create(a.FilePath, ext)
			}
			if err != nil {
				return nil, "", err
			}
			// ffmpeg writes the video: the session's bound counts the
			// file as the file system sizes it. The recorder and ffmpeg
			// hold descriptors of their own.
			return f.ForProcess(), f.Name(), nil
		},
	})
	var ce *page.ScreencastCutError
	switch {
	case errors.As(err, &ce):
		return badArgs("The screencast recording on this page has ended on its own: %s. Its video is saved to %s. Call screencast_stop to close it, then screencast_start to record again.", s.cutReason(ce.Cut), ce.Path)
	case errors.Is(err, page.ErrScreencastActive):
		// chrome-devtools-mcp's sentence, uncapitalised as it is.
		return badArgs("Error: a screencast recording is already in progress. Use screencast_stop to stop it before starting a new one.")
	case errors.Is(err, screencast.ErrNoFFmpeg):
		where := "install it (https://ffmpeg.org/; on Debian, apt-get install ffmpeg) and make sure it is on the server's PATH, or give its path with --experimental-ffmpeg-path"
		if s.cfg.Screencast.FFmpeg != "" {
			where = fmt.Sprintf("--experimental-ffmpeg-path %q cannot be run: give the path of an ffmpeg binary, or install ffmpeg on the server's PATH (https://ffmpeg.org/) and drop the flag", s.cfg.Screencast.FFmpeg)
		}
		return badArgs("Error: ffmpeg is required for screencast recording but was not found: %s.", where)
	case err != nil:
		return err
	}
	c.r.line("Screencast recording started. The recording will be saved to %s. Use screencast_stop to stop recording.", path)
	return nil
}

// cutReason says why a recording ended on its own, naming the flag that
// bounds it.
func (s *Server) cutReason(cut screencast.Cut) string {
	switch cut {
	case screencast.CutDuration:
		return fmt.Sprintf("it reached %v, the longest a recording may last (--screencast-max-duration)", s.cfg.Screencast.MaxDuration)
	case screencast.CutSize:
		return fmt.Sprintf("its file neared %s, the largest a recording may be (--screencast-max-bytes)", sandbox.FormatBytes(s.cfg.Screencast.MaxBytes))
	case screencast.CutDisk:
		return fmt.Sprintf("the files this session wrote neared their bound of %s (--max-session-disk); delete files the session no longer needs to record more", sandbox.FormatBytes(s.cfg.MaxSessionDisk))
	}
	return "it was stopped"
}

func (s *Server) runScreencastStop(ctx context.Context, c *call, _ *screencastStopArgs) error {
	rec, err := c.page.StopScreencast(ctx)
	var se *page.ScreencastError
	switch {
	case errors.Is(err, page.ErrNoScreencast):
		// chrome-devtools-mcp's sentence, uncapitalised as it is.
		return badArgs("Error: no active screencast recording to stop.")
	case errors.As(err, &se):
		return fmt.Errorf("the screencast recording has been stopped, but its file %s may be incomplete: %s", se.Path, strings.TrimSuffix(uncapitalize(sentence(se.Err)), "."))
	case err != nil:
		return err
	}
	c.r.line("The screencast recording has been stopped and saved to %s.", rec.Path)
	if rec.Cut != screencast.NotCut {
		c.r.line("It had ended on its own, %v long: %s.", rec.Duration.Round(time.Millisecond), s.cutReason(rec.Cut))
	}
	return nil
}

func uncapitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
