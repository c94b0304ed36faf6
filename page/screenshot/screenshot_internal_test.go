package screenshot

// An internal test: the device pixel ratio is emulated through the page's
// own DevTools session (its Host), as an emulate tool does; an override set
// from another session changes devicePixelRatio but not the pixels that
// session captures.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg"
	"image/png"
	"math"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/emulation"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/pagetest"
)

// tallPage is 3000 CSS pixels tall; its "Green box" button is a 200×50 green
// rectangle at (100, 1500), far below the fold of the test viewport. It has
// no scrollbar: a capture beyond the viewport removes a page's classic
// scrollbar until it next loads (a Chrome quirk), which would change its
// width between captures.
const tallPage = `<style>html { scrollbar-width: none } body { margin: 0 } button { position: absolute; border: 0; padding: 0 }</style>
<div style="height: 3000px; background: linear-gradient(#fdd, #ddf)"></div>
<button aria-label="Green box" style="top: 1500px; left: 100px; width: 200px; height: 50px; background: green"></button>
<button aria-label="Tall box" style="top: 2000px; left: 400px; width: 100px; height: 900px; background: green"></button>
<iframe style="position: absolute; top: 1200px; left: 300px; width: 200px; height: 100px; border: 0"
  srcdoc="<body style='margin: 0'><button aria-label='Framed box' style='margin: 20px 0 0 30px; width: 60px; height: 30px; border: 0; background: green'></button>"></iframe>
<button id=vanish aria-label="Vanishing" style="top: 10px; left: 10px; width: 20px; height: 20px"></button>
<button id=gone aria-label="Leaving" style="top: 10px; left: 40px; width: 20px; height: 20px"></button>
<button onclick="vanish.style.display = 'none'; gone.remove()" style="top: 40px; left: 10px">Hide them</button>
<button onclick="alert('shot dialog')" style="top: 70px; left: 10px">Alert</button>`

// The viewport of the test pages, in CSS pixels.
const vpWidth, vpHeight = 800, 600

func shotCtx(t *testing.T) context.Context {
	// Generous: full-page captures render in software, and a loaded 2-core
	// machine can take many seconds for three at once (a 65,500-pixel JPEG
	// took over a minute at load 50).
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return c
}

// shotPage opens the tall page on a fresh tab, with an 800×600 viewport at
// device pixel ratio 1.
func shotPage(t *testing.T) *page.Actor {
	t.Helper()
	srv := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		browsertest.HTML("Tall", tallPage).ServeHTTP(w, r)
	}))
	return metricsPage(t, srv.URL+"/")
}

// metricsPage opens url on a fresh tab, with an 800×600 viewport at device
// pixel ratio 1.
func metricsPage(t *testing.T, url string) *page.Actor {
	t.Helper()
	a := pagetest.Open(t, "")
	shotMetrics(t, a, 1)
	if _, err := a.Navigate(shotCtx(t), page.Navigation{Kind: page.NavigateURL, URL: url}); err != nil {
		t.Fatalf("Navigate = %v", err)
	}
	return a
}

// shotMetrics emulates the test viewport at a device pixel ratio, through
// the actor's session.
func shotMetrics(t *testing.T, a *page.Actor, dpr float64) {
	t.Helper()
	setMetrics(t, a, vpWidth, vpHeight, dpr)
}

// setMetrics emulates a viewport of w×h CSS pixels at a device pixel
// ratio, through the page's own session.
func setMetrics(t *testing.T, a *page.Actor, w, h int, dpr float64) {
	t.Helper()
	hst := hosts.Of(a)
	_, err := page.Do(shotCtx(t), hst, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, hst.Call(ctx, func(ctx context.Context) error {
			return hst.Client().Emulation.SetDeviceMetricsOverride(ctx, emulation.NewSetDeviceMetricsOverrideArgs(w, h, dpr, false))
		})
	})
	if err != nil {
		t.Fatalf("setDeviceMetricsOverride: %v", err)
	}
}

// shotUIDs takes a snapshot and returns the uid of each named button.
func shotUIDs(t *testing.T, a *page.Actor, names ...string) []string {
	t.Helper()
	s, err := axsnapshot.Take(shotCtx(t), a, false)
	if err != nil {
		t.Fatalf("Snapshot = %v", err)
	}
	var uids []string
	for _, name := range names {
		m := regexp.MustCompile(`uid=(\S+) button "` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(s.Text)
		if m == nil {
			t.Fatalf("no button %q in snapshot:\n%s", name, s.Text)
		}
		uids = append(uids, m[1])
	}
	return uids
}

func shoot(t *testing.T, a *page.Actor, opts Options) Image {
	t.Helper()
	s, err := Take(shotCtx(t), a, opts)
	if err != nil {
		t.Fatalf("Screenshot(%+v) = %v", opts, err)
	}
	return s
}

// shotDecode decodes a PNG or JPEG screenshot.
func shotDecode(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	return img
}

// shotSize returns an image's size as "WxH".
func shotSize(t *testing.T, data []byte) string {
	t.Helper()
	b := shotDecode(t, data).Bounds()
	return fmt.Sprintf("%dx%d", b.Dx(), b.Dy())
}

func isGreen(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 < 20 && g>>8 > 100 && b>>8 < 20
}

func TestScreenshotFormats(t *testing.T) {
	t.Parallel()
	a := shotPage(t)
	tests := []struct {
		format string
		magic  string
	}{
		{"", "\x89PNG\r\n\x1a\n"},
		{FormatPNG, "\x89PNG\r\n\x1a\n"},
		{FormatJPEG, "\xff\xd8\xff"},
		{FormatWebP, "RIFF"},
	}
	for _, tt := range tests {
		s := shoot(t, a, Options{Format: tt.format})
		if !bytes.HasPrefix(s.Data, []byte(tt.magic)) {
			t.Errorf("Screenshot(%q) starts % x, want % x", tt.format, s.Data[:min(len(s.Data), 12)], tt.magic)
		}
		if want := tt.format; want != "" && s.Format != want {
			t.Errorf("Screenshot(%q).Format = %q", tt.format, s.Format)
		}
	}
	if s := shoot(t, a, Options{}); shotSize(t, s.Data) != fmt.Sprint(vpWidth, "x", vpHeight) {
		t.Errorf("viewport screenshot is %s, want %dx%d", shotSize(t, s.Data), vpWidth, vpHeight)
	}
	low, high := 5, 100
	small := shoot(t, a, Options{Format: FormatJPEG, Quality: &low})
	big := shoot(t, a, Options{Format: FormatJPEG, Quality: &high})
	if len(small.Data) >= len(big.Data) {
		t.Errorf("jpeg at quality 5 is %d bytes, at 100 %d: quality not applied", len(small.Data), len(big.Data))
	}
	// PNG ignores quality rather than failing.
	shoot(t, a, Options{Format: FormatPNG, Quality: &low})
}

// TestScreenshotFullPage: the whole 3000 px page at device pixel ratios 1
// and 2, and the emulated viewport is as it was afterwards.
func TestScreenshotFullPage(t *testing.T) {
	t.Parallel()
	a := shotPage(t)
	for _, dpr := range []int{1, 2} {
		shotMetrics(t, a, float64(dpr))
		img := shotDecode(t, shoot(t, a, Options{FullPage: true}).Data)
		if b := img.Bounds(); b.Dx() != vpWidth*dpr || b.Dy() != 3000*dpr {
			t.Errorf("full page screenshot at device pixel ratio %d is %dx%d, want %dx%d", dpr, b.Dx(), b.Dy(), vpWidth*dpr, 3000*dpr)
		}
		if c := img.At(150*dpr, 1525*dpr); !isGreen(c) {
			t.Errorf("full page screenshot at the green box is %v", c)
		}
		want := fmt.Sprintf("%dx%d", vpWidth*dpr, vpHeight*dpr)
		if got := shotSize(t, shoot(t, a, Options{}).Data); got != want {
			t.Errorf("viewport after a full page screenshot is %s, want %s", got, want)
		}
	}
}

// TestScreenshotElement: an element is scrolled to and captured alone, at
// the device pixel ratio: one below the fold, one taller than the viewport,
// one inside an iframe.
func TestScreenshotElement(t *testing.T) {
	t.Parallel()
	a := shotPage(t)
	uids := shotUIDs(t, a, "Green box", "Tall box", "Framed box")
	tests := []struct {
		name string
		uid  string
		w, h int
	}{
		{"below the fold", uids[0], 200, 50},
		{"taller than the viewport", uids[1], 100, 900},
		{"in an iframe", uids[2], 60, 30},
	}
	for _, dpr := range []int{1, 2} {
		shotMetrics(t, a, float64(dpr))
		for _, tt := range tests {
			img := shotDecode(t, shoot(t, a, Options{UID: tt.uid}).Data)
			if b := img.Bounds(); b.Dx() != tt.w*dpr || b.Dy() != tt.h*dpr {
				t.Errorf("%s at device pixel ratio %d: %dx%d, want %dx%d", tt.name, dpr, b.Dx(), b.Dy(), tt.w*dpr, tt.h*dpr)
			}
			for _, p := range []image.Point{{1, 1}, {tt.w * dpr / 2, tt.h * dpr / 2}, {tt.w*dpr - 2, tt.h*dpr - 2}} {
				if c := img.At(p.X, p.Y); !isGreen(c) {
					t.Errorf("%s at device pixel ratio %d: pixel %v is %v, want green", tt.name, dpr, p, c)
				}
			}
		}
	}
}

func TestScreenshotErrors(t *testing.T) {
	t.Parallel()
	a := shotPage(t)
	if _, err := Take(shotCtx(t), a, Options{UID: "1_1"}); !errors.Is(err, page.ErrNoSnapshot) {
		t.Errorf("Screenshot(uid) before any snapshot = %v, want ErrNoSnapshot", err)
	}
	uids := shotUIDs(t, a, "Green box", "Vanishing", "Leaving", "Hide them")
	box, vanishing, leaving, hide := uids[0], uids[1], uids[2], uids[3]
	var se *Error
	if _, err := Take(shotCtx(t), a, Options{UID: box, FullPage: true}); !errors.As(err, &se) || !se.Conflict {
		t.Errorf("Screenshot(uid and fullPage) = %v, want Error{Conflict}", err)
	}
	if _, err := input.Click(shotCtx(t), a, hide, false, page.InputOptions{}); err != nil {
		t.Fatalf("Click = %v", err)
	}
	if _, err := Take(shotCtx(t), a, Options{UID: vanishing}); !errors.As(err, &se) || se.Conflict || se.UID != vanishing {
		t.Errorf("Screenshot(hidden element) = %v, want Error{UID: %s}", err, vanishing)
	}
	var ue *page.UIDError
	if _, err := Take(shotCtx(t), a, Options{UID: leaving}); !errors.As(err, &ue) || !ue.Gone {
		t.Errorf("Screenshot(removed element) = %v, want UIDError{Gone}", err)
	}
	if _, err := Take(shotCtx(t), a, Options{Format: "gif"}); err == nil {
		t.Error("Screenshot(gif) succeeded")
	}
}

// TestScreenshotDownscale: MaxWidth and MaxHeight bound the image's pixels,
// at device pixel ratios 1 and 2, for the viewport, the full page and an
// element; what already fits is left alone.
func TestScreenshotDownscale(t *testing.T) {
	t.Parallel()
	a := shotPage(t)
	uid := shotUIDs(t, a, "Green box")[0]
	tests := []struct {
		name string
		opts Options
		want [2]string // at device pixel ratio 1, 2
	}{
		{"viewport width", Options{MaxWidth: 400}, [2]string{"400x300", "400x300"}},
		{"viewport height", Options{MaxHeight: 150}, [2]string{"200x150", "200x150"}},
		{"viewport both", Options{MaxWidth: 400, MaxHeight: 150}, [2]string{"200x150", "200x150"}},
		{"viewport fits", Options{MaxWidth: 1000, MaxHeight: 1000}, [2]string{"800x600", "1000x750"}},
		{"full page", Options{FullPage: true, MaxHeight: 500}, [2]string{"133x500", "133x500"}},
		{"element", Options{UID: uid, MaxWidth: 300}, [2]string{"200x50", "300x75"}},
		{"element jpeg", Options{UID: uid, MaxWidth: 100, Format: FormatJPEG}, [2]string{"100x25", "100x25"}},
	}
	for i, dpr := range []float64{1, 2} {
		shotMetrics(t, a, dpr)
		for _, tt := range tests {
			if got := shotSize(t, shoot(t, a, tt.opts).Data); got != tt.want[i] {
				t.Errorf("%s at device pixel ratio %v: %s, want %s", tt.name, dpr, got, tt.want[i])
			}
		}
	}
	// The element captures scrolled the green box into view: a scaled
	// viewport capture shows the page where it is scrolled to, not its top.
	img := shotDecode(t, shoot(t, a, Options{MaxWidth: 400}).Data)
	green := 0
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			if isGreen(img.At(x, y)) {
				green++
			}
		}
	}
	if want := 100 * 25 * 9 / 10; green < want { // the 200×50 box at half scale, and maybe more
		t.Errorf("scaled viewport capture of the scrolled page has %d green pixels, want at least %d", green, want)
	}
}

// TestScreenshotDialog: with a dialog open the screenshot fails at once
// with the dialog, and works again once it is handled.
func TestScreenshotDialog(t *testing.T) {
	t.Parallel()
	a := shotPage(t)
	res, err := input.Click(shotCtx(t), a, shotUIDs(t, a, "Alert")[0], false, page.InputOptions{})
	if err != nil || !res.Dialog {
		t.Fatalf("Click(Alert) = %+v, %v; want a dialog", res, err)
	}
	start := time.Now()
	_, err = Take(shotCtx(t), a, Options{})
	var de *page.DialogError
	if !errors.As(err, &de) || de.Dialog.Message != "shot dialog" {
		t.Errorf("Screenshot with a dialog open = %v, want DialogError", err)
	}
	// A guard, not a measurement: a capture the dialog held would run to
	// the call's minutes; a loaded machine takes seconds for the refusal.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Screenshot with a dialog open took %v, want an immediate failure", took)
	}
	if _, err := a.HandleDialog(shotCtx(t), true, ""); err != nil {
		t.Fatalf("HandleDialog = %v", err)
	}
	shoot(t, a, Options{})
}

// oopifShotPage opens a page whose cross-site iframe, below the fold and
// off the left edge, holds a green box 60×30 at (30, 20) in the frame, and
// a nested cross-site iframe holding another.
func oopifShotPage(t *testing.T) *page.Actor {
	t.Helper()
	box := func(label string) string {
		return `<body style='margin: 0'><button aria-label='` + label + `' style='margin: 20px 0 0 30px; width: 60px; height: 30px; border: 0; background: green'></button>`
	}
	deep := browsertest.ServeOwnSite(t, browsertest.HTML("Deep", box("Deep box")))
	mid := browsertest.ServeOwnSite(t, browsertest.HTML("Mid", box("Mid box")+
		`<iframe style='position: absolute; top: 100px; left: 40px; width: 200px; height: 100px; border: 0' src='`+deep.URL+`/'></iframe>`))
	top := browsertest.Serve(t, browsertest.HTML("Top", `<style>html { scrollbar-width: none } body { margin: 0 }</style>
<div style="height: 3000px; background: linear-gradient(#fdd, #ddf)"></div>
<iframe style="position: absolute; top: 1200px; left: 300px; width: 300px; height: 250px; border: 0" src="`+mid.URL+`/"></iframe>
<input aria-label="Top field" style="position: absolute; top: 10px; left: 10px">`))
	return metricsPage(t, top.URL+"/")
}

// TestOOPIFScreenshotElement: an element inside an out-of-process iframe,
// and inside one nested in it, is scrolled to and captured alone, placed
// by the iframes above it.
func TestOOPIFScreenshotElement(t *testing.T) {
	t.Parallel()
	a := oopifShotPage(t)
	// In front: a tab behind another test's gets its iframes drawn late in
	// headless Chromium, and the screenshot shows what they last drew.
	fctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := a.BringToFront(fctx); err != nil {
		t.Fatal(err)
	}
	uids := shotUIDs(t, a, "Mid box", "Deep box")
	for i, name := range []string{"Mid box", "Deep box"} {
		img := shotDecode(t, shoot(t, a, Options{UID: uids[i]}).Data)
		if b := img.Bounds(); b.Dx() != 60 || b.Dy() != 30 {
			t.Errorf("%s: %dx%d, want 60x30", name, b.Dx(), b.Dy())
		}
		for _, p := range []image.Point{{1, 1}, {30, 15}, {58, 28}} {
			if c := img.At(p.X, p.Y); !isGreen(c) {
				t.Errorf("%s: pixel %v is %v, want green", name, p, c)
			}
		}
	}
}

// TestScreenshotParallelPages: screenshots of several pages at once all
// succeed; nothing serialises them across pages.
func TestScreenshotParallelPages(t *testing.T) {
	t.Parallel()
	actors := []*page.Actor{}
	for range 3 {
		a := shotPage(t)
		actors = append(actors, a)
	}
	errs := make(chan error, len(actors))
	for _, a := range actors {
		go func() {
			s, err := Take(shotCtx(t), a, Options{FullPage: true})
			if err == nil {
				_, err = png.DecodeConfig(bytes.NewReader(s.Data))
			}
			errs <- err
		}()
	}
	for range actors {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestScreenshotScaleFits checks the scale given to Chrome, which sizes the
// image at round(CSS size × device pixel ratio × scale).
func TestScreenshotScaleFits(t *testing.T) {
	tests := []struct {
		name       string
		src        rect
		dpr        float64
		maxW, maxH int
		want       string // image size after scaling, as Chrome rounds it
	}{
		{"no bound", rect{w: 800, h: 600}, 1, 0, 0, "800x600"},
		{"fits", rect{w: 800, h: 600}, 1, 800, 600, "800x600"},
		{"width", rect{w: 800, h: 600}, 1, 400, 0, "400x300"},
		{"height", rect{w: 800, h: 600}, 1, 0, 150, "200x150"},
		{"both, height decides", rect{w: 800, h: 600}, 1, 400, 150, "200x150"},
		{"odd bounds", rect{w: 781, h: 493}, 1, 333, 211, "333x210"},
		{"device pixels", rect{w: 800, h: 600}, 2, 1000, 1000, "1000x750"},
		{"fractional ratio", rect{w: 201, h: 51}, 1.5, 97, 0, "97x25"},
		{"tall page", rect{w: 800, h: 3000}, 1, 0, 500, "133x500"},
		{"would vanish", rect{w: 10, h: 100000}, 1, 0, 100, "10x100000"},
	}
	for _, tt := range tests {
		s := downscale(tt.src, tt.dpr, tt.maxW, tt.maxH)
		got := fmt.Sprintf("%vx%v", math.Round(tt.src.w*tt.dpr*s), math.Round(tt.src.h*tt.dpr*s))
		if got != tt.want {
			t.Errorf("%s: downscale(%v, %v, %d, %d) = %v, giving %s, want %s", tt.name, tt.src, tt.dpr, tt.maxW, tt.maxH, s, got, tt.want)
		}
	}
}
