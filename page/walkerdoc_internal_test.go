package page

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
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
	// The page learnt the world's context from Chrome's event as the
	// document started: a walk needs no call to find it.
	main := a.mainFrame(t)
	known := a.knownWorld(t, main)
	w, err := a.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(main)).SetWorldName(walker.World))
	if err != nil {
		t.Fatal(err)
	}
	if known != w.ExecutionContextID {
		t.Errorf("the frame tree's walker world is %d, want %d (the world made at document start)", known, w.ExecutionContextID)
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

// mainFrame returns the id of the page's main frame.
func (a *Actor) mainFrame(t *testing.T) string {
	t.Helper()
	id, err := ask(trackerCtx(t), a, func(context.Context) (string, error) { return a.frames.main, nil })
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// knownWorld returns the walker world the frame tree holds for frame id,
// once the events Chrome sent so far are applied.
func (a *Actor) knownWorld(t *testing.T, id string) runtime.ExecutionContextID {
	t.Helper()
	w, err := ask(trackerCtx(t), a, func(context.Context) (runtime.ExecutionContextID, error) {
		a.drainEvents()
		if f := a.frames.byID[id]; f != nil {
			return f.world, nil
		}
		return 0, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestWalkerWorldKnownAfterNavigation: after a navigation, and in an
// iframe's document, the frame tree holds the new document's walker
// world, the one Page.createIsolatedWorld answers with, and never the old
// document's: the order of Chrome's events (the new document's contexts
// and its frameNavigated) does not leave it stale or empty.
func TestWalkerWorldKnownAfterNavigation(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("One", `<p>one</p><iframe srcdoc="<p>inside</p>"></iframe>`))
	ctx := trackerCtx(t)
	a := testActor(t, site.URL+"/")
	main := a.mainFrame(t) // the same for every document of the tab
	before := a.knownWorld(t, main)
	if before == 0 {
		t.Fatal("the first document's walker world is not known")
	}
	oldFrames := map[string]bool{}
	for _, f := range a.frameList(t) {
		oldFrames[f.ID] = true
	}
	r, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(`location.href = '/two'`))
	if err != nil || r.ExceptionDetails != nil {
		t.Fatalf("navigate: %v %+v", err, r)
	}
	// The next document's frames, once the page knows their worlds.
	var known map[string]runtime.ExecutionContextID
	testwait.Until(t, "the walker worlds of the next document and its iframe", func() bool {
		known = map[string]runtime.ExecutionContextID{}
		for _, f := range a.frameList(t) {
			if f.ID != main && oldFrames[f.ID] {
				return false // the old document's iframe, still listed
			}
			known[f.ID] = f.World
		}
		if len(known) != 2 || known[main] == before {
			return false
		}
		for _, w := range known {
			if w == 0 {
				return false
			}
		}
		return true
	})
	for id, world := range known {
		w, err := a.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(id)).SetWorldName(walker.World))
		if err != nil {
			t.Fatal(err)
		}
		if w.ExecutionContextID != world {
			t.Errorf("after the navigation the frame tree holds world %d for frame %s, Chrome's is %d", world, id, w.ExecutionContextID)
		}
	}
}

// frameList is the page's frames as a snapshot sees them, once the events
// Chrome sent so far are applied.
func (a *Actor) frameList(t *testing.T) []FrameInfo {
	t.Helper()
	fs, err := ask(trackerCtx(t), a, func(context.Context) ([]FrameInfo, error) {
		a.drainEvents()
		return (&Host{a: a}).Frames(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}
