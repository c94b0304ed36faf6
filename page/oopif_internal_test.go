package page

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// shotCtx is a call's context in the tests that drive a page at length:
// three minutes at most, cancelled when the test ends.
func shotCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return c
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
	s0, err := snapshotOf(shotCtx(t), a, false)
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
	s, err := snapshotOf(shotCtx(t), a, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`button "Hovered"`, `value="typed!"`, `"Dropped"`} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, s.Text)
		}
	}
}
