package screencast

// The capability's MCP tools: screencast_start and screencast_stop, with
// chrome-devtools-mcp's names, arguments and reply text.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// Config sets how screencasts are recorded (--screencast-fps,
// --experimental-screencast, --experimental-ffmpeg-path,
// --screencast-max-duration, --screencast-max-bytes). The zero value
// records MP4 at [DefaultFPS] with ffmpeg from PATH, unbounded.
type Config struct {
	// FPS is the videos' frame rate; if zero, [DefaultFPS].
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
	// that. Else at least [MinBytes].
	MaxBytes int64
}

// startBudget covers reading the viewport, starting ffmpeg and Chrome's
// screencast; stopBudget, ffmpeg encoding what is left and finishing the
// file, which takes a while on a loaded machine.
const (
	startBudget = 30 * time.Second
	stopBudget  = 2 * time.Minute
)

// formats are the file extensions a recording may have, with
// --experimental-screencast.
var formats = []string{".webm", ".mp4"}

// tools are the screencast tools of one server.
type tools struct {
	cfg Config
	// sessionDisk is --max-session-disk, which the sentences name.
	sessionDisk int64
}

// Tools returns the screencast tools, recording as cfg says; sessionDisk is
// the server's --max-session-disk, named in the sentences of recordings it
// cuts short.
func Tools(cfg Config, sessionDisk int64) []*tool.Tool {
	t := &tools{cfg: cfg, sessionDisk: sessionDisk}
	const desc = `Starts recording a screencast (video) of the target page.`
	start := tool.Define(tool.Tool{Name: "screencast_start", Page: true, Description: desc},
		tool.Fixed[startArgs](startBudget), t.runStart)
	if cfg.Experimental {
		// The same argument, described as chrome-devtools-mcp describes it
		// under --experimentalScreencast.
		start = tool.Define(tool.Tool{Name: "screencast_start", Page: true, Description: desc},
			tool.Fixed[startWebMArgs](startBudget),
			func(ctx context.Context, c tool.Call, a *startWebMArgs) error {
				return t.runStart(ctx, c, (*startArgs)(a))
			})
	}
	return []*tool.Tool{
		start,
		tool.Define(tool.Tool{Name: "screencast_stop", Page: true, Description: `Stops the active screencast recording on the target page.`},
			tool.Fixed[stopArgs](stopBudget), t.runStop),
	}
}

type startArgs struct {
	FilePath string `json:"filePath" desc:"Output file path (.mp4). Uses mkdtemp to generate a unique path if not provided."`
}

type startWebMArgs struct {
	FilePath string `json:"filePath" desc:"Output file path (.webm,.mp4 are supported). Uses mkdtemp to generate a unique path if not provided."`
}

type stopArgs struct{}

// ext is the extension the video gets: with --experimental-screencast the
// one filePath names (.webm or .mp4, any case; .mp4 when it names none),
// else .mp4, as chrome-devtools-mcp does.
func (t *tools) ext(filePath string) (string, error) {
	if !t.cfg.Experimental {
		return ".mp4", nil
	}
	ext := filepath.Ext(filePath)
	if ext == "" || strings.HasPrefix(filepath.Base(filePath), ext) {
		return ".mp4", nil
	}
	for _, e := range formats {
		if strings.EqualFold(ext, e) {
			return e, nil
		}
	}
	return "", fmt.Errorf("Unsupported screencast file extension %q. Supported formats: %s (case-insensitive).", ext, strings.Join(formats, ", "))
}

func (t *tools) runStart(ctx context.Context, c tool.Call, a *startArgs) error {
	ext, err := t.ext(a.FilePath)
	if err != nil {
		return err
	}
	box := c.Sandbox(ctx)
	// A path the sandbox refuses fails before anything starts.
	if a.FilePath != "" {
		if _, err := box.Resolve(a.FilePath); err != nil {
			return err
		}
	}
	format := FormatMP4
	if ext == ".webm" {
		format = FormatWebM
	}
	path, err := Of(c.Page()).Start(ctx, StartOptions{
		FFmpeg:      t.cfg.FFmpeg,
		FPS:         t.cfg.FPS,
		Format:      format,
		MaxDuration: t.cfg.MaxDuration,
		Room:        box.Room,
		// The file may take what the session's disk bound leaves, at
		// most --screencast-max-bytes.
		Bytes: func() (int64, Cut, error) {
			maxBytes, cut := t.cfg.MaxBytes, CutSize
			if room := box.Room(); room >= 0 && (maxBytes == 0 || room < maxBytes) {
				maxBytes, cut = room, CutDisk
				if room < MinBytes {
					return 0, 0, tool.BadArgs("Not started: the files this session wrote leave %s of its bound of %s (--max-session-disk), and a recording needs at least %s. Delete files the session wrote and no longer needs, or ask the operator for a larger --max-session-disk.",
						sandbox.FormatBytes(room), sandbox.FormatBytes(t.sessionDisk), sandbox.FormatBytes(MinBytes))
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
	var ce *CutError
	switch {
	case errors.As(err, &ce):
		return tool.BadArgs("The screencast recording on this page has ended on its own: %s. Its video is saved to %s. Call screencast_stop to close it, then screencast_start to record again.", t.cutReason(ce.Cut), ce.Path)
	case errors.Is(err, ErrActive):
		// chrome-devtools-mcp's sentence, uncapitalised as it is.
		return tool.BadArgs("Error: a screencast recording is already in progress. Use screencast_stop to stop it before starting a new one.")
	case errors.Is(err, ErrNoFFmpeg):
		where := "install it (https://ffmpeg.org/; on Debian, apt-get install ffmpeg) and make sure it is on the server's PATH, or give its path with --experimental-ffmpeg-path"
		if t.cfg.FFmpeg != "" {
			where = fmt.Sprintf("--experimental-ffmpeg-path %q cannot be run: give the path of an ffmpeg binary, or install ffmpeg on the server's PATH (https://ffmpeg.org/) and drop the flag", t.cfg.FFmpeg)
		}
		return tool.BadArgs("Error: ffmpeg is required for screencast recording but was not found: %s.", where)
	case err != nil:
		return err
	}
	c.Reply().Line("Screencast recording started. The recording will be saved to %s. Use screencast_stop to stop recording.", path)
	return nil
}

// cutReason says why a recording ended on its own, naming the flag that
// bounds it.
func (t *tools) cutReason(cut Cut) string {
	switch cut {
	case CutDuration:
		return fmt.Sprintf("it reached %v, the longest a recording may last (--screencast-max-duration)", t.cfg.MaxDuration)
	case CutSize:
		return fmt.Sprintf("its file neared %s, the largest a recording may be (--screencast-max-bytes)", sandbox.FormatBytes(t.cfg.MaxBytes))
	case CutDisk:
		return fmt.Sprintf("the files this session wrote neared their bound of %s (--max-session-disk); delete files the session no longer needs to record more", sandbox.FormatBytes(t.sessionDisk))
	}
	return "it was stopped"
}

func (t *tools) runStop(ctx context.Context, c tool.Call, _ *stopArgs) error {
	rec, err := Of(c.Page()).Stop(ctx)
	var fe *FinishError
	switch {
	case errors.Is(err, ErrNotRecording):
		// chrome-devtools-mcp's sentence, uncapitalised as it is.
		return tool.BadArgs("Error: no active screencast recording to stop.")
	case errors.As(err, &fe):
		return fmt.Errorf("the screencast recording has been stopped, but its file %s may be incomplete: %s", fe.Path, strings.TrimSuffix(uncapitalize(c.Sentence(fe.Err)), "."))
	case err != nil:
		return err
	}
	c.Reply().Line("The screencast recording has been stopped and saved to %s.", rec.Path)
	if rec.Cut != NotCut {
		c.Reply().Line("It had ended on its own, %v long: %s.", rec.Duration.Round(time.Millisecond), t.cutReason(rec.Cut))
	}
	return nil
}

func uncapitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
