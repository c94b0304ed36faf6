package page

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/cdpconn"
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
	if err := callResult(ctx, a.c, *objs.Objects.ObjectID, "function () { return this.length }", &n); err != nil {
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
	tab := browsertest.Chromium(t).NewTab(t)
	a := Start(Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	ctx := trackerCtx(t)
	if _, err := a.Navigate(ctx, Navigation{Kind: NavigateURL, URL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	s, err := snapshotOf(ctx, a, false)
	if err != nil {
		t.Fatal(err)
	}
	gone, alert, late := uidIn(t, s.Text, "button", "Gone"), uidIn(t, s.Text, "button", "Alert"), uidIn(t, s.Text, "button", "Late")
	if _, err := a.Click(ctx, late, false, InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if st, n := stateOf(t, a); st.Active || st.Observing || n != 0 {
		t.Fatalf("after a click that settled: tracker %+v, %d MutationObservers", st, n)
	}
	// The button no longer has a box: each click fails after the
	// actionability timeout.
	if _, err := a.Evaluate(ctx, Script{Source: `() => { document.getElementById('gone').style.display = 'none' }`}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, err := a.Click(ctx, gone, false, InputOptions{})
		if !errors.Is(err, errNotInteractive) {
			t.Fatalf("click on a button without a box = %v, want %v", err, errNotInteractive)
		}
	}
	if st, n := stateOf(t, a); st.Active || st.Observing || n != 0 {
		t.Errorf("after three failed clicks: tracker %+v, %d MutationObservers", st, n)
	}
	res, err := a.Click(ctx, alert, false, InputOptions{})
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

// predating opens a tab on url before any actor attaches, so that its
// document has no tracker from its start, then starts an actor on it.
func predating(t *testing.T, url string) *Actor {
	t.Helper()
	tab := browsertest.Chromium(t).NewTab(t)
	ctx := trackerCtx(t)
	conn, err := tab.Attach(ctx, cdpconn.Options{Keep: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Client.Page.Navigate(ctx, page.NewNavigateArgs(url)); err != nil {
		t.Fatal(err)
	}
	for {
		r, err := conn.Client.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(`location.href + ' ' + document.readyState`).SetReturnByValue(true))
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Result.Value) == `"`+url+` complete"` {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s did not load", url)
		case <-time.After(20 * time.Millisecond):
		}
	}
	conn.Close()
	a := Start(Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	return a
}

// sabotage is a page's script that breaks what a tracker installed after
// it needs, and what evaluate_script's wrapper used to use.
const sabotage = `<p id=out>none</p><button onclick="setTimeout(() => { out.textContent = 'done' }, 50)">Go</button>
<script>
delete window.MessageChannel;
window.MutationObserver = function () { throw new TypeError('no observers here'); };
window.Response = function () {};
const big = 'x'.repeat(1 << 20);
JSON.stringify = () => ({ length: 0, big });
</script>`

// TestTrackerLateOnSabotagedPage: in a document that predates the actor,
// whose scripts deleted MessageChannel and replaced MutationObserver,
// Response and JSON.stringify, a click returns after a short window and
// says the page could not be followed; evaluate_script says in words that
// its result could not be read. The click used to be retried every second
// until its deadline and reported a success; evaluate_script answered
// with a Go decoding error.
func TestTrackerLateOnSabotagedPage(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Sabotage", sabotage))
	a := predating(t, site.URL+"/")
	ctx := trackerCtx(t)
	s, err := snapshotOf(ctx, a, false)
	if err != nil {
		t.Fatal(err)
	}
	// The old retry ran to the click's deadline: the click must return
	// before it passes (the deadline is the event; 10 s is generous for a
	// loaded machine, where the short window takes a second or two).
	clickCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := a.Click(clickCtx, uidIn(t, s.Text, "button", "Go"), false, InputOptions{})
	if err != nil {
		t.Fatalf("click = %v", err)
	}
	if clickCtx.Err() != nil {
		t.Errorf("the click ran to its deadline")
	}
	if !strings.Contains(res.Unfollowed, "no observers here") {
		t.Errorf("click on a page that cannot be followed: Unfollowed = %q", res.Unfollowed)
	}
	_, err = a.Evaluate(ctx, Script{Source: `() => 1`})
	if !errors.Is(err, ErrUnreadable) {
		t.Errorf("evaluate on a page whose JSON.stringify returns an object = %v, want %v", err, ErrUnreadable)
	}
}

// TestTrackerAtDocumentStart: the same page opened by the actor has the
// tracker from its start, so its sabotage changes nothing: the click's
// effect is waited for, and evaluate_script serialises with the
// browser's own JSON.stringify, even once the page deleted JSON (the
// tracker named the global JSON when it serialised, which then threw).
func TestTrackerAtDocumentStart(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Sabotage", sabotage))
	tab := browsertest.Chromium(t).NewTab(t)
	a := Start(Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	ctx := trackerCtx(t)
	if _, err := a.Navigate(ctx, Navigation{Kind: NavigateURL, URL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	s, err := snapshotOf(ctx, a, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Click(ctx, uidIn(t, s.Text, "button", "Go"), false, InputOptions{})
	if err != nil || res.Unfollowed != "" {
		t.Fatalf("click = %+v, %v", res, err)
	}
	if s, _ := snapshotOf(ctx, a, false); !strings.Contains(s.Text, `"done"`) {
		t.Errorf("the click's effect is not in the snapshot taken after it:\n%s", s.Text)
	}
	r, err := a.Evaluate(ctx, Script{Source: `() => ({ one: 1 })`})
	if err != nil || r.JSON != `{"one":1}` {
		t.Errorf("evaluate = %q, %v", r.JSON, err)
	}
	if _, err := a.Evaluate(ctx, Script{Source: `() => { delete window.JSON; }`}); err != nil {
		t.Fatal(err)
	}
	r, err = a.Evaluate(ctx, Script{Source: `() => ({ two: 2 })`})
	if err != nil || r.JSON != `{"two":2}` {
		t.Errorf("evaluate after the page deleted JSON = %q, %v", r.JSON, err)
	}
	if st, _ := stateOf(t, a); st.Missing != "" {
		t.Errorf("a tracker installed at document start missed %q", st.Missing)
	}
}
