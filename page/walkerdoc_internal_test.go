package page

import (
	"encoding/json"
	"testing"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/snapshot"
)

// TestWalkerAtDocumentStart: a new document has the snapshot walker in its
// isolated world before anything asks for a snapshot (it was installed as
// the document started, not sent with the first call), while the page's
// own scripts, which run after it, neither see it nor reach it by planting
// a global of the same name or a getter on Object.prototype; the walk
// is the page's.
func TestWalkerAtDocumentStart(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Start", `<button>Go</button><script>
document.body.dataset.seen = typeof globalThis.__tabhiveWalker;
globalThis.__tabhiveWalker = () => 'the page';
Object.defineProperty(Object.prototype, '__tabhiveWalker', { get() { document.title = 'reached'; } });
</script>`))
	a := testActor(t, site.URL+"/")
	ctx := trackerCtx(t)
	eval := func(expr string, ec runtime.ExecutionContextID) string {
		t.Helper()
		args := runtime.NewEvaluateArgs(expr).SetReturnByValue(true)
		if ec != 0 {
			args.SetContextID(ec)
		}
		r, err := a.c.Runtime.Evaluate(ctx, args)
		if err != nil || r.ExceptionDetails != nil {
			t.Fatalf("evaluate %s: %v %+v", expr, err, r)
		}
		var s string
		json.Unmarshal(r.Result.Value, &s)
		return s
	}
	w, err := a.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(a.frames.main)).SetWorldName(walker.World))
	if err != nil {
		t.Fatal(err)
	}
	if got := eval("typeof globalThis.__tabhiveWalker", w.ExecutionContextID); got != "function" {
		t.Errorf("before any snapshot, the isolated world's walker is %q, want a function installed at document start", got)
	}
	if got := eval("document.body.dataset.seen", 0); got != "undefined" {
		t.Errorf("the page's script saw a walker of type %q, want undefined", got)
	}
	r, err := walker.Call(ctx, a.c, w.ExecutionContextID, "", true, "walk")
	if err != nil {
		t.Fatal(err)
	}
	var text string
	if err := json.Unmarshal(r.Result.Value, &text); err != nil {
		t.Fatalf("walk result %s: %v", r.Result.Value, err)
	}
	walk, err := snapshot.DecodeWalk(text)
	if err != nil {
		t.Fatalf("the walk is not the walker's: %v\n%.300s", err, text)
	}
	found := false
	for _, n := range walk.Nodes {
		found = found || n.Role == "button" && n.Name == "Go"
	}
	if !found {
		t.Errorf("the walk lacks the page's button:\n%.2000s", text)
	}
	if got := eval("document.title", 0); got != "Start" {
		t.Errorf("title = %q: the page's getter was reached", got)
	}
}
