package page

import (
	"encoding/json"
	"testing"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page/internal/walker"
)

// The frame tree is kept from events alone: these tests feed it events as
// the page's sessions would deliver them, with no browser.

func event(t *testing.T, method string, params any) cdpconn.Event {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return cdpconn.Event{Method: method, Params: b}
}

func applyAll(t *testing.T, ft *frameTree, s *Session, evs ...cdpconn.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := ft.apply(s, ev); err != nil {
			t.Fatalf("apply %s: %v", ev.Method, err)
		}
	}
}

// testTree is a page whose main frame "main" holds iframe "a", drawn by
// the page's renderer, and iframe "x", out of process: session child
// reaches it.
func testTree(t *testing.T) (ft *frameTree, top, child *Session) {
	t.Helper()
	ft = newFrameTree()
	top = &Session{id: "top"}
	child = &Session{id: "child", parent: top, root: "x"}
	ft.top = top
	ft.main = "main"
	frag := "#top"
	ft.addTree(top, page.FrameTree{
		Frame: page.Frame{ID: "main", LoaderID: "L1", URL: "https://a.test/", URLFragment: &frag},
		ChildFrames: []page.FrameTree{
			{Frame: page.Frame{ID: "a", ParentID: ptr(page.FrameID("main")), LoaderID: "L2", URL: "https://a.test/a"}},
			{Frame: page.Frame{ID: "x", ParentID: ptr(page.FrameID("main")), LoaderID: "L3", URL: "https://x.test/"}},
		},
	})
	ft.addTree(child, page.FrameTree{Frame: page.Frame{ID: "x", ParentID: ptr(page.FrameID("main")), LoaderID: "L3", URL: "https://x.test/"}})
	return ft, top, child
}

func ptr[T any](v T) *T { return &v }

func TestFrameTreeAddTree(t *testing.T) {
	ft, top, child := testTree(t)
	if ft.url != "https://a.test/#top" {
		t.Errorf("url = %q, want the main frame's, fragment included", ft.url)
	}
	if got := ft.sessionOf("a"); got != top {
		t.Errorf("sessionOf(a) = %v, want the page's", got.id)
	}
	if got := ft.sessionOf("x"); got != child {
		t.Errorf("sessionOf(x) = %v, want the child's", got.id)
	}
	if got := ft.sessionOf("unknown"); got != top {
		t.Errorf("sessionOf(unknown) = %v, want the page's", got.id)
	}
	// The page's tree, read again, lists x too: x stays with the session
	// attached below the page's, which reaches it.
	ft.addTree(top, page.FrameTree{Frame: page.Frame{ID: "main", LoaderID: "L1", URL: "https://a.test/"},
		ChildFrames: []page.FrameTree{{Frame: page.Frame{ID: "x", ParentID: ptr(page.FrameID("main")), URL: "https://x.test/"}}}})
	if got := ft.sessionOf("x"); got != child {
		t.Errorf("after the page's tree, sessionOf(x) = %v, want the child's", got.id)
	}
	if hops := ft.hops("x"); len(hops) != 1 || hops[0].frameID != "x" {
		t.Errorf("hops(x) = %+v, want one step, through x's <iframe>", hops)
	}
	if hops := ft.hops("a"); len(hops) != 0 {
		t.Errorf("hops(a) = %+v, want none", hops)
	}
}

// A navigation a session reported is newer than its frame tree, read
// before and applied after.
func TestFrameTreeNavigationBeatsOlderTree(t *testing.T) {
	ft, top, child := testTree(t)
	applyAll(t, ft, child, event(t, "Page.frameNavigated", page.FrameNavigatedReply{
		Frame: page.Frame{ID: "x", ParentID: ptr(page.FrameID("main")), LoaderID: "L9", URL: "https://x.test/next"}}))
	ft.addTree(child, page.FrameTree{Frame: page.Frame{ID: "x", LoaderID: "L3", URL: "https://x.test/"}})
	if f := ft.byID["x"]; f.url != "https://x.test/next" || f.loaderID != "L9" {
		t.Errorf("x = %s %s, want the navigation's https://x.test/next L9", f.url, f.loaderID)
	}
	// The main frame navigating moves the page's URL and loader.
	applyAll(t, ft, top,
		event(t, "Page.frameNavigated", page.FrameNavigatedReply{Frame: page.Frame{ID: "main", LoaderID: "L5", URL: "https://b.test/"}}),
		event(t, "Page.navigatedWithinDocument", page.NavigatedWithinDocumentReply{FrameID: "main", URL: "https://b.test/#in"}))
	if ft.url != "https://b.test/#in" || ft.mainLoader() != "L5" {
		t.Errorf("page = %s %s, want https://b.test/#in L5", ft.url, ft.mainLoader())
	}
}

// An iframe that comes back into its parent's process is the parent's
// again once the parent reports its navigation.
func TestFrameTreeNavigationMovesFrame(t *testing.T) {
	ft, top, _ := testTree(t)
	applyAll(t, ft, top, event(t, "Page.frameNavigated", page.FrameNavigatedReply{
		Frame: page.Frame{ID: "x", ParentID: ptr(page.FrameID("main")), LoaderID: "L4", URL: "https://a.test/back"}}))
	if got := ft.sessionOf("x"); got != top {
		t.Errorf("sessionOf(x) = %v, want the page's", got.id)
	}
}

func TestFrameTreeDetach(t *testing.T) {
	ft, top, child := testTree(t)
	applyAll(t, ft, top,
		event(t, "Page.frameDetached", page.FrameDetachedReply{FrameID: "x", Reason: "swap"}),
		event(t, "Page.frameDetached", page.FrameDetachedReply{FrameID: "a", Reason: "remove"}))
	if ft.byID["x"] == nil {
		t.Error("a frame swapped into another process was forgotten")
	}
	if ft.byID["a"] != nil {
		t.Error("a removed frame is still known")
	}
	ft.forget(child)
	if ft.byID["x"] != nil || ft.byID["main"] == nil {
		t.Errorf("after its session went: x %v, main %v; want x gone, main kept", ft.byID["x"] != nil, ft.byID["main"] != nil)
	}
}

// Context ids are per renderer: one session's context going away leaves
// another's frame holding the same id alone.
func TestFrameTreeContexts(t *testing.T) {
	ft, top, child := testTree(t)
	created := func(id int, frame string) cdpconn.Event {
		return event(t, "Runtime.executionContextCreated", map[string]any{"context": map[string]any{
			"id": id, "origin": "", "name": "", "uniqueId": "", "auxData": map[string]any{"isDefault": true, "frameId": frame}}})
	}
	applyAll(t, ft, top, created(1, "main"), created(2, "a"))
	applyAll(t, ft, child, created(1, "x"))
	applyAll(t, ft, top, event(t, "Runtime.executionContextDestroyed", map[string]any{"executionContextId": 1}))
	if ft.byID["main"].context != 0 || ft.byID["x"].context != 1 || ft.byID["a"].context != 2 {
		t.Errorf("contexts main %d x %d a %d, want 0 1 2", ft.byID["main"].context, ft.byID["x"].context, ft.byID["a"].context)
	}
	applyAll(t, ft, child, event(t, "Runtime.executionContextsCleared", struct{}{}))
	if ft.byID["x"].context != 0 || ft.byID["a"].context != 2 {
		t.Errorf("after the child's were cleared: x %d a %d, want 0 2", ft.byID["x"].context, ft.byID["a"].context)
	}
	applyAll(t, ft, top, event(t, "Runtime.executionContextCreated", map[string]any{"context": map[string]any{
		"id": 7, "origin": "", "name": "", "uniqueId": "", "auxData": map[string]any{"isDefault": false, "frameId": "a"}}}))
	if ft.byID["a"].context != 2 {
		t.Errorf("an isolated world replaced frame a's default context: %d", ft.byID["a"].context)
	}
}

// TestFrameTreeWalkerWorld: the walker's isolated world is known from the
// event that announces it, on the session that reaches the frame, and
// forgotten with its context or its document; another isolated world is
// not the walker's.
func TestFrameTreeWalkerWorld(t *testing.T) {
	ft, top, child := testTree(t)
	world := func(id int, frame, name string) cdpconn.Event {
		return event(t, "Runtime.executionContextCreated", map[string]any{"context": map[string]any{
			"id": id, "origin": "", "name": name, "uniqueId": "", "auxData": map[string]any{"isDefault": false, "type": "isolated", "frameId": frame}}})
	}
	applyAll(t, ft, top, world(5, "main", walker.World), world(6, "a", "__other"), world(9, "x", walker.World))
	applyAll(t, ft, child, world(8, "x", walker.World))
	if w := [3]runtime.ExecutionContextID{ft.byID["main"].world, ft.byID["a"].world, ft.byID["x"].world}; w != [3]runtime.ExecutionContextID{5, 0, 8} {
		t.Errorf("worlds main, a, x = %v, want [5 0 8] (a's is not the walker's; x's comes from its own session)", w)
	}
	applyAll(t, ft, child, event(t, "Runtime.executionContextDestroyed", map[string]any{"executionContextId": 8}))
	applyAll(t, ft, top, world(4, "a", walker.World))
	if ft.byID["x"].world != 0 || ft.byID["main"].world != 5 {
		t.Errorf("after x's world went: x %d main %d, want 0 5", ft.byID["x"].world, ft.byID["main"].world)
	}
	applyAll(t, ft, top, event(t, "Page.frameNavigated", map[string]any{"frame": page.Frame{ID: "main", LoaderID: "L9", URL: "https://a.test/next"}, "type": "Navigation"}))
	if ft.byID["main"].world != 0 {
		t.Errorf("after main's navigation: main's world %d, want 0", ft.byID["main"].world)
	}
	// The old document's iframe went with it; the one in a process of its
	// own stays with its session until that session goes.
	if ft.byID["a"] != nil || ft.byID["x"] == nil {
		t.Errorf("after main's navigation: frame a kept %v, frame x kept %v; want a gone, x kept", ft.byID["a"] != nil, ft.byID["x"] != nil)
	}
	applyAll(t, ft, top, world(10, "main", walker.World), event(t, "Runtime.executionContextsCleared", struct{}{}))
	if ft.byID["main"].world != 0 {
		t.Errorf("after the page's contexts were cleared: main %d, want 0", ft.byID["main"].world)
	}
}
