package screencast

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tabhive/tabhive/page/screencast/probe"
)

// jpegFrame is a w×h JPEG of one colour, base64 as Chrome sends frames.
func jpegFrame(t *testing.T, w, h int, c color.Color) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestPacing: frames are repeated up to the next one's capture time, the
// last up to Stop, so the video lasts as long as the frames' times span,
// at the frame rate asked for; a frame of another size is fitted in.
func TestPacing(t *testing.T) {
	for _, format := range []string{FormatMP4, FormatWebM} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out."+format)
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Start(Options{Out: out, Format: format, FPS: 10, Width: 63, Height: 40})
			out.Close()
			if err != nil {
				t.Fatal(err)
			}
			// Capture times in the past: frames at 0 s, 0.5 s and 1.2 s
			// before now, the size changing at the second.
			base := now() - 1.5
			r.Add(Frame{Data: jpegFrame(t, 63, 40, color.White), Time: base})
			r.Add(Frame{Data: jpegFrame(t, 100, 40, color.Black), Time: base + 0.5})
			r.Add(Frame{Data: "not base64!", Time: base + 0.6})
			r.Add(Frame{Data: jpegFrame(t, 63, 40, color.White), Time: base + 1.2})
			d, err := r.Stop(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// Stop came at least 1.5 s after the first frame; the test
			// gives it generous room on a loaded machine.
			if d < 1500*time.Millisecond || d > time.Minute {
				t.Errorf("Stop says the video lasts %v, want at least 1.5s", d)
			}
			info, err := probe.File(context.Background(), "", path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Width != 64 || info.Height != 40 || info.FPS != 10 {
				t.Errorf("video is %dx%d at %v fps, want 64x40 at 10", info.Width, info.Height, info.FPS)
			}
			if info.Frames != r.Frames() {
				t.Errorf("video has %d frames, recorder wrote %d", info.Frames, r.Frames())
			}
			if got, want := info.Duration, d; got < want-150*time.Millisecond || got > want+150*time.Millisecond {
				t.Errorf("video lasts %v, recorder says %v", got, want)
			}
		})
	}
}

// TestNoFFmpeg: a binary that is not there is ErrNoFFmpeg.
func TestNoFFmpeg(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "x.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := Start(Options{FFmpeg: "/nonexistent/ffmpeg", Out: out, Width: 2, Height: 2}); !errors.Is(err, ErrNoFFmpeg) {
		t.Errorf("Start with a missing ffmpeg: %v, want ErrNoFFmpeg", err)
	}
}

// TestNoFrames: a recording that got no frame says so.
func TestNoFrames(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "x.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	r, err := Start(Options{Out: out, Width: 2, Height: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Stop(context.Background()); err == nil {
		t.Error("Stop without frames: no error")
	}
}

// noiseFrames are n different w×h JPEGs of random pixels, which no encoder
// can make small: a video of them grows fast.
func noiseFrames(t *testing.T, n, w, h int) []string {
	t.Helper()
	rnd := rand.New(rand.NewPCG(1, 2))
	var frames []string
	for range n {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = byte(rnd.UintN(256))
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, base64.StdEncoding.EncodeToString(b.Bytes()))
	}
	return frames
}

// TestBounds: a recording ends on its own at MaxDuration, and before its
// file passes MaxBytes; either way the file is finished and plays, and Cut
// says why (screencasts had no bound).
func TestBounds(t *testing.T) {
	t.Run("duration", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "d.mp4")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Start(Options{Out: out, FPS: 10, Width: 64, Height: 48, MaxDuration: time.Second})
		out.Close()
		if err != nil {
			t.Fatal(err)
		}
		// One frame, and the page paints no more: the bound ends it
		// all the same.
		r.Add(Frame{Data: jpegFrame(t, 64, 48, color.White), Time: now()})
		select {
		case <-r.Done():
		case <-time.After(time.Minute):
			t.Fatal("a recording bounded to 1s still ran after a minute")
		}
		if r.Cut() != CutDuration {
			t.Errorf("Cut = %v, want CutDuration", r.Cut())
		}
		d, err := r.Stop(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		info, err := probe.File(context.Background(), "", path)
		if err != nil {
			t.Fatal(err)
		}
		if d > time.Second || info.Frames > 10 || info.Frames != r.Frames() {
			t.Errorf("video of %d frames (recorder: %d, %v), want at most 10 (1s at 10 fps)", info.Frames, r.Frames(), d)
		}
	})
	t.Run("size", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "s.mp4")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Start(Options{Out: out, FPS: 10, Width: 640, Height: 360, MaxBytes: MinBytes})
		out.Close()
		if err != nil {
			t.Fatal(err)
		}
		frames := noiseFrames(t, 8, 640, 360)
		at := now()
		for i := 0; ; i++ {
			at += 0.1
			r.Add(Frame{Data: frames[i%len(frames)], Time: at})
			select {
			case <-r.Done():
			case <-time.After(10 * time.Millisecond): // the pace of a busy page
				if i < 10000 {
					continue
				}
				t.Fatal("10000 frames of noise did not reach 8 MiB")
			}
			break
		}
		if r.Cut() != CutSize {
			t.Errorf("Cut = %v, want CutSize", r.Cut())
		}
		if _, err := r.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > MinBytes || fi.Size() < MinBytes/4 {
			t.Errorf("the video holds %d bytes, want at most MaxBytes (%d), and not far below it", fi.Size(), MinBytes)
		}
		info, err := probe.File(context.Background(), "", path)
		if err != nil {
			t.Fatal(err)
		}
		// When ffmpeg's own bound ends the file, the frames it had not
		// encoded yet are not in it.
		if info.Frames == 0 || info.Frames > r.Frames() {
			t.Errorf("video has %d frames, recorder wrote %d", info.Frames, r.Frames())
		}
		t.Logf("%d frames (%d sent), %d bytes", info.Frames, r.Frames(), fi.Size())
	})
}
