package input_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/input"
)

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
	a := open(t, top.URL+"/")
	s0, err := axsnapshot.Take(ctx(t), a, false)
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
	if _, err := input.Hover(ctx(t), a, uids[0], page.InputOptions{}); err != nil {
		t.Fatalf("Hover = %v", err)
	}
	if _, err := input.Fill(ctx(t), a, uids[1], "typed", page.InputOptions{}); err != nil {
		t.Fatalf("Fill = %v", err)
	}
	if _, err := input.PressKey(ctx(t), a, "Enter", page.InputOptions{}); err != nil {
		t.Fatalf("PressKey = %v", err)
	}
	if _, err := input.Drag(ctx(t), a, uids[2], uids[3], page.InputOptions{}); err != nil {
		t.Fatalf("Drag = %v", err)
	}
	s, err := axsnapshot.Take(ctx(t), a, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`button "Hovered"`, `value="typed!"`, `"Dropped"`} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, s.Text)
		}
	}
}
