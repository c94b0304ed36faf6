package page_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
)

// otherSite serves routes on a loopback address of its own (127.0.1.N):
// another site than the 127.0.0.1 of serve, so Chromium renders its pages
// in an out-of-process iframe when another site embeds them.
func otherSite(t *testing.T, routes map[string]http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.Handle(p, h)
	}
	return browsertest.ServeOwnSite(t, mux).URL
}

// innerPage is the body of a cross-site frame's page: text, a button that
// renames itself, a field, a console message and a request.
const innerPage = `<p>Inner text</p>
<button onclick="this.textContent='Inner clicked'">Inner button</button>
<input aria-label="Inner field">
<script>console.log('hello from the frame'); fetch('/inner-data');</script>`

func TestOOPIFSnapshotClickFill(t *testing.T) {
	t.Parallel()
	inner := otherSite(t, map[string]http.Handler{
		"/inner":      browsertest.HTML("Inner", innerPage),
		"/inner-data": browsertest.HTML("data", "data"),
	})
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<p>Outer text</p><div style="height:200px"></div>
<iframe title="Cross" src="`+inner+`/inner" style="margin-left:120px" width=400 height=250></iframe><p>After</p>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	for _, want := range []string{`Iframe "Cross"`, `button "Inner button"`, `"Inner text"`} {
		if !strings.Contains(s, want) {
			t.Fatalf("snapshot lacks %s:\n%s", want, s)
		}
	}
	if strings.Index(s, "Inner text") > strings.Index(s, "After") {
		t.Errorf("the frame's nodes are not at the iframe's place:\n%s", s)
	}
	if _, err := a.Click(ctx(t), uidOf(t, s, "button", "Inner button"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click = %v", err)
	}
	if _, err := a.Fill(ctx(t), uidOf(t, s, "textbox", "Inner field"), "typed in", page.InputOptions{}); err != nil {
		t.Fatalf("Fill = %v", err)
	}
	got := snap(t, a)
	if !strings.Contains(got, `button "Inner clicked"`) {
		t.Errorf("click did not reach the button inside the frame:\n%s", got)
	}
	if !strings.Contains(got, `value="typed in"`) {
		t.Errorf("fill did not reach the field inside the frame:\n%s", got)
	}
}
