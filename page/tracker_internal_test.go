package page

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/debugger"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page/internal/sabotage"
	"github.com/tabhive/tabhive/page/js"
)

func trackerCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// trackerState is what the document's tracker says of itself.
type trackerState struct {
	Active    bool   `json:"active"`
	Observing bool   `json:"observing"`
	Missing   string `json:"missing"`
}

// stateOf reads the tracker's state in a's main frame, and how many
// MutationObservers the page's heap holds (Runtime.queryObjects collects
// garbage first).
func stateOf(t *testing.T, a *Actor) (trackerState, int) {
	t.Helper()
	ctx := trackerCtx(t)
	group := newGroup("test")
	defer releaseGroup(a.c, ctx, group)
	id, _, err := trackerOf(ctx, a.c, 0, group)
	if err != nil {
		t.Fatalf("tracker: %v", err)
	}
	var st trackerState
	if err := trackerCall(ctx, a.c, id, "function () { return this.state() }", &st); err != nil {
		t.Fatalf("state: %v", err)
	}
	proto, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs("MutationObserver.prototype").SetObjectGroup(group))
	if err != nil || proto.Result.ObjectID == nil {
		t.Fatalf("MutationObserver.prototype: %v", err)
	}
	objs, err := a.c.Runtime.QueryObjects(ctx, runtime.NewQueryObjectsArgs(*proto.Result.ObjectID).SetObjectGroup(group))
	if err != nil {
		t.Fatalf("queryObjects: %v", err)
	}
	var n int
	if err := trackerCall(ctx, a.c, *objs.Objects.ObjectID, "function () { return this.length }", &n); err != nil {
		t.Fatalf("count: %v", err)
	}
	return st, n
}

// TestTrackerStopsOnEveryPath: a click that fails, and one that opens a
// dialog, leave the document's tracker dormant, with no MutationObserver
// of its left in the page, once the dialog is handled; a click retried
// three times leaves no more than one. The tracker once outlived failed
// actions for five minutes, wrapping the page's timers with a
// document-wide observer, and each retry stacked another.
func TestTrackerStopsOnEveryPath(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Paths", `<button id=gone>Gone</button>
<button onclick="setTimeout(() => {}, 50); alert('hello')">Alert</button>
<button onclick="setTimeout(() => { document.title = 'late' }, 80)">Late</button>`))
	a := testActor(t, site.URL+"/")
	ctx := trackerCtx(t)
	s, err := snapshotOf(ctx, a, false)
	if err != nil {
		t.Fatal(err)
	}
	gone, alert, late := uidIn(t, s.Text, "button", "Gone"), uidIn(t, s.Text, "button", "Alert"), uidIn(t, s.Text, "button", "Late")
	if _, err := click(ctx, a, late); err != nil {
		t.Fatal(err)
	}
	if st, n := stateOf(t, a); st.Active || st.Observing || n != 0 {
		t.Fatalf("after a click that settled: tracker %+v, %d MutationObservers", st, n)
	}
	// The button no longer has a box: each click fails after the
	// actionability timeout.
	if r, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(`document.getElementById('gone').style.display = 'none'`)); err != nil || r.ExceptionDetails != nil {
		t.Fatalf("hide the button: %v", err)
	}
	for range 3 {
		_, err := click(ctx, a, gone)
		if !errors.Is(err, errNotInteractive) {
			t.Fatalf("click on a button without a box = %v, want %v", err, errNotInteractive)
		}
	}
	if st, n := stateOf(t, a); st.Active || st.Observing || n != 0 {
		t.Errorf("after three failed clicks: tracker %+v, %d MutationObservers", st, n)
	}
	res, err := click(ctx, a, alert)
	if err != nil || !res.Dialog {
		t.Fatalf("click that opens an alert = %+v, %v", res, err)
	}
	if _, err := a.HandleDialog(ctx, true, ""); err != nil {
		t.Fatal(err)
	}
	if st, n := stateOf(t, a); st.Active || st.Observing || n != 0 {
		t.Errorf("after a click that opened a dialog, once handled: tracker %+v, %d MutationObservers", st, n)
	}
}

// TestTrackerAtDocumentStart: the same page opened by the actor has the
// tracker from its start, so its sabotage changes nothing: the click's
// effect is waited for, and the tracker missed nothing (evaluate_script
// on it: TestEvaluateAtDocumentStart in page/script).
func TestTrackerAtDocumentStart(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Sabotage", sabotage.HTML))
	a := testActor(t, site.URL+"/")
	ctx := trackerCtx(t)
	s, err := snapshotOf(ctx, a, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := click(ctx, a, uidIn(t, s.Text, "button", "Go"))
	if err != nil || res.Unfollowed != "" {
		t.Fatalf("click = %+v, %v", res, err)
	}
	if s, _ := snapshotOf(ctx, a, false); !strings.Contains(s.Text, `"done"`) {
		t.Errorf("the click's effect is not in the snapshot taken after it:\n%s", s.Text)
	}
	if st, _ := stateOf(t, a); st.Missing != "" {
		t.Errorf("a tracker installed at document start missed %q", st.Missing)
	}
}

// TestTrackerInstallThrowsNothing: in a document that is not a secure
// context (a data: URL, which has no crypto.subtle), the tracker installs
// at its start without throwing, even an exception it catches: V8 words
// each exception's message by parsing the whole script again, and twelve
// such throws once cost every document of an http: site 10 ms or more.
func TestTrackerInstallThrowsNothing(t *testing.T) {
	t.Parallel()
	tab := browsertest.Chromium(t).NewTab(t)
	ctx := trackerCtx(t)
	conn, err := tab.Attach(ctx, cdpconn.Options{Keep: func(m string) bool { return m == "Debugger.paused" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := conn.Client
	if err := c.Page.Enable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Debugger.Enable(ctx, debugger.NewEnableArgs()); err != nil {
		t.Fatal(err)
	}
	if err := c.Debugger.SetPauseOnExceptions(ctx, debugger.NewSetPauseOnExceptionsArgs("all")); err != nil {
		t.Fatal(err)
	}
	if err := installTracker(ctx, c); err != nil {
		t.Fatal(err)
	}
	// Every exception pauses the page: count them and let it go on.
	paused := make(chan int, 1)
	go func() {
		n := 0
		defer func() { paused <- n }()
		for {
			select {
			case <-conn.Ready():
			case <-ctx.Done():
				return
			case <-conn.Done():
				return
			}
			for _, e := range conn.Take() {
				if e.Method == "Debugger.paused" {
					n++
					c.Debugger.Resume(ctx, debugger.NewResumeArgs())
				}
			}
		}
	}()
	if _, err := c.Page.Navigate(ctx, page.NewNavigateArgs("data:text/html,<title>Insecure</title>")); err != nil {
		t.Fatal(err)
	}
	secure, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(
		"new Promise((r) => { const t = () => document.title === 'Insecure' ? r(isSecureContext) : setTimeout(t, 10); t(); })").
		SetAwaitPromise(true).SetReturnByValue(true))
	if err != nil || secure.ExceptionDetails != nil || string(secure.Result.Value) != "false" {
		t.Fatalf("the data: document is not an insecure context: %+v, %v", secure, err)
	}
	group := newGroup("test")
	defer releaseGroup(c, ctx, group)
	if _, late, err := trackerOf(ctx, c, 0, group); err != nil || late {
		t.Fatalf("the tracker is not installed at document start: late %v, %v", late, err)
	}
	conn.Close()
	if n := <-paused; n != 0 {
		t.Errorf("the tracker's install threw %d exception(s)", n)
	}
}

// TestTrackerLeftWithItsDocument: a pagehide the page dispatches itself
// does not end the tracker's following (the browser's own, as the document
// is left, does); and once the browser has left the document, its
// tracker's reference no longer reaches anything, so that tabhive, which
// saw the document replaced, has no stop call to make (forgetLeft).
func TestTrackerLeftWithItsDocument(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("A", `<p>a</p>`))
	mux.Handle("/b", browsertest.HTML("B", `<p>b</p>`))
	site := browsertest.Serve(t, mux)
	a := testActor(t, site.URL+"/")
	ctx := trackerCtx(t)
	group := newGroup("test")
	defer releaseGroup(a.c, ctx, group)
	id, _, err := trackerOf(ctx, a.c, 0, group)
	if err != nil {
		t.Fatal(err)
	}
	if err := trackerCall(ctx, a.c, id, js.TrackerBegin, nil, true, 60_000); err != nil {
		t.Fatal(err)
	}
	if r, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(`dispatchEvent(new PageTransitionEvent('pagehide'))`)); err != nil || r.ExceptionDetails != nil {
		t.Fatalf("forge a pagehide: %v %+v", err, r)
	}
	var st trackerState
	if err := trackerCall(ctx, a.c, id, "function () { return this.state() }", &st); err != nil || !st.Active || !st.Observing {
		t.Fatalf("after a pagehide the page dispatched: tracker %+v, %v; want it still following", st, err)
	}
	if _, err := a.Navigate(ctx, Navigation{Kind: NavigateURL, URL: site.URL + "/b"}); err != nil {
		t.Fatal(err)
	}
	if err := trackerCall(ctx, a.c, id, js.TrackerStop, nil); err == nil {
		t.Error("a stop call on the tracker of a document left succeeded; want it to reach nothing")
	}
}

// TestForgetLeft: the trackers begun in another context of the probe's
// world are dropped from those to stop; those of the same context, and
// ids of another shape, are kept.
func TestForgetLeft(t *testing.T) {
	p := &causalProbe{begun: []runtime.RemoteObjectID{"-1.3.1", "-1.4.2", "odd", "-1.3.7"}}
	got := p.forgetLeft(4)
	want := []runtime.RemoteObjectID{"-1.4.2", "odd"}
	if !slices.Equal(got, want) {
		t.Errorf("forgetLeft(4) = %q, want %q", got, want)
	}
	p = &causalProbe{begun: []runtime.RemoteObjectID{"-1.3.1"}}
	if got := p.forgetLeft(0); len(got) != 1 {
		t.Errorf("forgetLeft(0) = %q, want all kept", got)
	}
}

// TestNavigationTitleFromSettle: a navigation's result carries the title
// the new document has once it settled, a title its script set after the
// load included.
func TestNavigationTitleFromSettle(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Early", `<script>addEventListener('load', () => setTimeout(() => { document.title = 'Late' }, 30))</script>`))
	a := testActor(t, "about:blank")
	res, err := a.Navigate(trackerCtx(t), Navigation{Kind: NavigateURL, URL: site.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "Late" {
		t.Errorf("navigation result title = %q, want %q", res.Title, "Late")
	}
}
