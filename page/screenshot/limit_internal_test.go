package screenshot

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"net/http"
	"strconv"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/pagetest"
)

// heightPage serves /?px=N: a page N CSS pixels tall without a scrollbar,
// whose "Tall" button is N-100 pixels tall.
var heightPage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	px, _ := strconv.Atoi(r.URL.Query().Get("px"))
	browsertest.HTML("Height", fmt.Sprintf(`<style>html { scrollbar-width: none } body { margin: 0 }</style>
<div style="height: %dpx; background: linear-gradient(#fdd, #ddf)"></div>
<button aria-label="Tall" style="position: absolute; top: 50px; left: 0; width: 100px; height: %dpx; border: 0; background: green"></button>`, px, px-100)).ServeHTTP(w, r)
})

// imageHeight returns the height an encoded PNG, JPEG or WebP declares.
func imageHeight(t *testing.T, data []byte) int {
	t.Helper()
	if bytes.HasPrefix(data, []byte("RIFF")) && len(data) >= 30 && string(data[12:16]) == "VP8X" {
		// Extended WebP, which Chrome writes: canvas height - 1 in 24 bits.
		b := data[27:30]
		return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 + 1
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode screenshot header (% x): %v", data[:min(len(data), 32)], err)
	}
	return cfg.Height
}

// TestScreenshotEncoderLimits: a JPEG or WebP capture larger than the
// format allows is refused with a sentence instead of succeeding with an
// empty image (Chrome's answer); one at the limit succeeds and has the
// height asked for; PNG has no such limit.
func TestScreenshotEncoderLimits(t *testing.T) {
	t.Parallel()
	base := browsertest.Serve(t, heightPage).URL
	a := pagetest.Open(t, "")
	shotMetrics(t, a, 1)
	load := func(px int) {
		t.Helper()
		if _, err := a.Navigate(shotCtx(t), page.Navigation{Kind: page.NavigateURL, URL: fmt.Sprintf("%s/?px=%d", base, px)}); err != nil {
			t.Fatalf("Navigate = %v", err)
		}
	}
	refused := func(opts Options, want string) {
		t.Helper()
		s, err := Take(shotCtx(t), a, opts)
		var se *Error
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("Screenshot(%+v) = %d bytes, %v\nwant error %q", opts, len(s.Data), err, want)
		}
	}
	fits := func(opts Options, height int) {
		t.Helper()
		s := shoot(t, a, opts)
		if got := imageHeight(t, s.Data); got != height {
			t.Errorf("Screenshot(%+v) is %d pixels tall, want %d", opts, got, height)
		}
	}

	load(16383)
	fits(Options{Format: FormatWebP, FullPage: true}, 16383)
	load(16384)
	refused(Options{Format: FormatWebP, FullPage: true},
		"The page is 16384 pixels tall; a webp screenshot can be at most 16383 pixels tall. Use format png, or take a screenshot of the viewport or of one element (uid).")
	fits(Options{Format: FormatJPEG, FullPage: true}, 16384)
	// Scaled down to fit --screenshot-max-height, it fits the format too.
	fits(Options{Format: FormatWebP, FullPage: true, MaxHeight: 1000}, 1000)

	load(65500)
	fits(Options{Format: FormatJPEG, FullPage: true}, 65500)
	load(65501)
	refused(Options{Format: FormatJPEG, FullPage: true},
		"The page is 65501 pixels tall; a jpeg screenshot can be at most 65500 pixels tall. Use format png, or take a screenshot of the viewport or of one element (uid).")
	load(100000)
	refused(Options{Format: FormatJPEG, FullPage: true},
		"The page is 100000 pixels tall; a jpeg screenshot can be at most 65500 pixels tall. Use format png, or take a screenshot of the viewport or of one element (uid).")
	fits(Options{Format: FormatPNG, FullPage: true}, 100000)
	uid := shotUIDs(t, a, "Tall")[0]
	refused(Options{Format: FormatWebP, UID: uid},
		"The element is 99900 pixels tall; a webp screenshot can be at most 16383 pixels tall. Use format png.")

	// The limit is on image pixels: at device pixel ratio 2 a page of
	// 8192 CSS pixels is 16384 pixels tall.
	load(8192)
	shotMetrics(t, a, 2)
	refused(Options{Format: FormatWebP, FullPage: true},
		"The page is 16384 pixels tall; a webp screenshot can be at most 16383 pixels tall. Use format png, or take a screenshot of the viewport or of one element (uid).")

	// A viewport taller than the format allows is not checked before the
	// capture; Chrome's empty image is an error, never a success.
	setMetrics(t, a, vpWidth, 17000, 1)
	refused(Options{Format: FormatWebP},
		"Chrome returned an empty webp image, as it does when a capture is too large for the format. Use format png, or capture less (one element with uid, or the viewport).")
}

// TestScreenshotErrorText: the sentence for each side and subject.
func TestScreenshotErrorText(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Format: FormatWebP, Width: 20000, Height: 600, Limit: 16383, FullPage: true},
			"The page is 20000 pixels wide; a webp screenshot can be at most 16383 pixels wide. Use format png, or take a screenshot of the viewport or of one element (uid)."},
		{Error{UID: "1_2", Format: FormatJPEG, Width: 70000, Height: 70001, Limit: 65500},
			"The element is 70001 pixels tall; a jpeg screenshot can be at most 65500 pixels tall. Use format png."},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q\nwant %q", tt.err, got, tt.want)
		}
	}
}
