package page

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/snapshot"
)

// TestWalkerLazyWorld: a document no snapshot has looked at has no walker
// world in any of its frames (Chromium made none); the first walk makes
// the world and installs the walker there, and the page learns the
// world's context from Chrome's event, for the next walks. The page's own
// scripts neither see the walker nor reach it by planting a global of the
// same name or a getter on Object.prototype; the walk is the page's.
func TestWalkerLazyWorld(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Start", `<button>Go</button><iframe srcdoc="<p>inside</p>"></iframe><script>
document.body.dataset.seen = typeof globalThis.__tabhiveWalker;
globalThis.__tabhiveWalker = () => 'the page';
Object.defineProperty(Object.prototype, '__tabhiveWalker', { get() { document.title = 'reached'; } });
</script>`))
	a := testActor(t, site.URL+"/")
	ctx := trackerCtx(t)
	// frames reads the frames' default contexts and walker worlds once the
	// events Chrome sent so far are applied.
	frames := func() map[string][2]runtime.ExecutionContextID {
		t.Helper()
		m, err := ask(ctx, a, func(context.Context) (map[string][2]runtime.ExecutionContextID, error) {
			a.drainEvents()
			m := map[string][2]runtime.ExecutionContextID{}
			for id, f := range a.frames.byID {
				m[id] = [2]runtime.ExecutionContextID{f.context, f.world}
			}
			return m, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := frames()
	if len(before) != 2 {
		t.Fatalf("frames %v, want the page and its iframe", before)
	}
	for id, c := range before {
		if c[0] == 0 || c[1] != 0 {
			t.Errorf("before any snapshot, frame %s has default context %d and walker world %d, want a context and no world", id, c[0], c[1])
		}
	}
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
	if got := eval("document.body.dataset.seen", 0); got != "undefined" {
		t.Errorf("the page's script saw a walker of type %q, want undefined", got)
	}
	w, err := a.top.SnapshotWorld(ctx, a.frames.main)
	if err != nil {
		t.Fatal(err)
	}
	if got := eval("typeof globalThis.__tabhiveWalker", w); got != "undefined" {
		t.Errorf("before any walk, the isolated world's walker is %q, want none", got)
	}
	r, err := walker.Call(ctx, a.c, w, "", true, "walk")
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
	if got := eval("typeof globalThis.__tabhiveWalker", w); got != "function" {
		t.Errorf("after the walk, the isolated world's walker is %q, want the installed function", got)
	}
	if got := eval("document.title", 0); got != "Start" {
		t.Errorf("title = %q: the page's getter was reached", got)
	}
	after := frames()
	for id, c := range after {
		want := runtime.ExecutionContextID(0)
		if id == a.frames.main {
			want = w
		}
		if c[1] != want {
			t.Errorf("after the walk, frame %s's walker world is %d, want %d", id, c[1], want)
		}
	}
}
