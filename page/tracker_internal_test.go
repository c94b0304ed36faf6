package page

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/internal/sabotage"
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
