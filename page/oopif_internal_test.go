package page

import (
	"context"
	"image"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// oopifShotPage opens a page whose cross-site iframe, below the fold and
// off the left edge, holds a green box 60×30 at (30, 20) in the frame, and
// a nested cross-site iframe holding another.
func oopifShotPage(t *testing.T) *Actor {
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
	tab := browsertest.Chromium(t).NewTab(t)
	a := Start(Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	shotMetrics(t, a, 1)
	if _, err := a.Navigate(shotCtx(t), Navigation{Kind: NavigateURL, URL: top.URL + "/"}); err != nil {
		t.Fatalf("Navigate = %v", err)
	}
	return a
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
		img := shotDecode(t, shoot(t, a, ScreenshotOptions{UID: uids[i]}).Data)
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

// TestOOPIFEvaluateElement: evaluate_script with an element of an
// out-of-process iframe runs in that frame.
func TestOOPIFEvaluateElement(t *testing.T) {
	t.Parallel()
	a := oopifShotPage(t)
	uids := shotUIDs(t, a, "Deep box")
	res, err := a.Evaluate(shotCtx(t), Script{Source: `(el) => el.getAttribute('aria-label') + ' in ' + document.title + ' at ' + location.host`, Args: uids})
	if err != nil {
		t.Fatalf("Evaluate = %v", err)
	}
	if !strings.HasPrefix(res.JSON, `"Deep box in Deep at 127.0.1.`) {
		t.Errorf("Evaluate = %s, want it run in the deep frame", res.JSON)
	}
}

// TestOOPIFHoverKeysDrag: hover, a key pressed into a focused field, and
// a drag inside an out-of-process iframe reach it.
func TestOOPIFHoverKeysDrag(t *testing.T) {
	t.Parallel()
	inner := browsertest.ServeOwnSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		browsertest.HTML("Inner", `<style>div { width: 80px; height: 40px; margin: 10px; background: #ccc }</style>
<button onmouseover="this.textContent='Hovered'">Hover me</button>
<input aria-label="Keys" onkeydown="if (event.key === 'Enter') this.value += '!'">
<div draggable=true ondragstart="event.dataTransfer.setData('text/plain', 'x')" role=button aria-label="Source">src</div>
<div role=button aria-label="Target" ondragover="event.preventDefault()" ondrop="event.preventDefault(); this.textContent='Dropped'; this.setAttribute('aria-label', 'Dropped')">dst</div>`).ServeHTTP(w, r)
	}))
	top := browsertest.Serve(t, browsertest.HTML("Top", `<div style="height: 150px"></div><iframe title=Cross style="margin-left: 70px" width=400 height=400 src="`+inner.URL+`/"></iframe>`))
	tab := browsertest.Chromium(t).NewTab(t)
	a := Start(Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	if _, err := a.Navigate(shotCtx(t), Navigation{Kind: NavigateURL, URL: top.URL + "/"}); err != nil {
		t.Fatalf("Navigate = %v", err)
	}
	s0, err := a.Snapshot(shotCtx(t), false)
	if err != nil {
		t.Fatal(err)
	}
	var uids []string
	for _, name := range []string{"Hover me", "Keys", "Source", "Target"} {
		m := regexp.MustCompile(`uid=(\S+) \S+ "` + name + `"`).FindStringSubmatch(s0.Text)
		if m == nil {
			t.Fatalf("no %q in snapshot:\n%s", name, s0.Text)
		}
		uids = append(uids, m[1])
	}
	if _, err := a.Hover(shotCtx(t), uids[0], InputOptions{}); err != nil {
		t.Fatalf("Hover = %v", err)
	}
	if _, err := a.Fill(shotCtx(t), uids[1], "typed", InputOptions{}); err != nil {
		t.Fatalf("Fill = %v", err)
	}
	if _, err := a.PressKey(shotCtx(t), "Enter", InputOptions{}); err != nil {
		t.Fatalf("PressKey = %v", err)
	}
	if _, err := a.Drag(shotCtx(t), uids[2], uids[3], InputOptions{}); err != nil {
		t.Fatalf("Drag = %v", err)
	}
	s, err := a.Snapshot(shotCtx(t), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`button "Hovered"`, `value="typed!"`, `"Dropped"`} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, s.Text)
		}
	}
}
