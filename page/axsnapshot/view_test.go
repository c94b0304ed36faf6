package axsnapshot_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/pagetest"
	"github.com/tabhive/tabhive/page/snapshot"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestSnapshotView takes parts of a real page's snapshot: a subtree by
// uid, a depth, a query, and what is in the viewport (a tall page: its
// top section is, its bottom one is not, nor is an iframe scrolled away).
func TestSnapshotView(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("View", `<nav aria-label=Top><a href=#a>First</a> <a href=#b>Second</a></nav>
<main>
<h2>Alpha section</h2><p>Alpha text</p><button>Near</button>
<div style="height: 3000px"></div>
<h2>Omega section</h2><p>Omega text</p><button>Far</button>
<iframe srcdoc="<button>In far frame</button>"></iframe>
</main>`))
	a := pagetest.Open(t, srv.URL)
	s, err := axsnapshot.Take(pagetest.Ctx(t), a, false)
	if err != nil {
		t.Fatal(err)
	}
	full := s.Text
	view := func(opts axsnapshot.Options) string {
		t.Helper()
		s, err := axsnapshot.TakeView(pagetest.Ctx(t), a, opts)
		if err != nil {
			t.Fatalf("SnapshotView(%+v) = %v", opts, err)
		}
		if s.Full == "" || !strings.Contains(s.Full, `button "In far frame"`) {
			t.Errorf("SnapshotView(%+v).Full is not the whole snapshot:\n%s", opts, s.Full)
		}
		return s.Text
	}
	if got := view(axsnapshot.Options{Depth: -1}); got != full {
		t.Errorf("SnapshotView() =\n%s\nwant the whole snapshot\n%s", got, full)
	}
	nav := transporttest.UIDOf(t, full, "navigation", "Top")
	got := view(axsnapshot.Options{UID: nav, Depth: -1})
	if !strings.HasPrefix(got, "Path: uid=") || !strings.Contains(got, `link "Second"`) || strings.Contains(got, "Alpha") {
		t.Errorf("SnapshotView(uid=nav) =\n%s", got)
	}
	got = view(axsnapshot.Options{Depth: 1})
	if !strings.Contains(got, "nodes below: take_snapshot with uid") || strings.Contains(got, "Alpha") {
		t.Errorf("SnapshotView(depth=1) =\n%s", got)
	}
	q, _ := snapshot.ParseQuery("/^Omega/")
	got = view(axsnapshot.Options{Query: q, Depth: 0})
	if !strings.Contains(got, `heading "Omega section"`) || !strings.Contains(got, `"Omega text"`) || strings.Contains(got, "Alpha") {
		t.Errorf("SnapshotView(query) =\n%s", got)
	}
	got = view(axsnapshot.Options{InViewport: true, Depth: -1})
	for _, want := range []string{`button "Near"`, `"Alpha text"`, `navigation "Top"`, "main"} {
		if !strings.Contains(got, want) {
			t.Errorf("SnapshotView(inViewport) lacks %s:\n%s", want, got)
		}
	}
	for _, not := range []string{"Far", "Omega", "In far frame"} {
		if strings.Contains(got, not) {
			t.Errorf("SnapshotView(inViewport) shows %s, outside the viewport:\n%s", not, got)
		}
	}
	_, err = axsnapshot.TakeView(pagetest.Ctx(t), a, axsnapshot.Options{UID: "999_1", Depth: -1})
	var re *axsnapshot.ViewRootError
	if !errors.As(err, &re) || re.UID != "999_1" {
		t.Errorf("SnapshotView(unknown uid) = %v, want a ViewRootError", err)
	}
	if _, err := axsnapshot.TakeView(pagetest.Ctx(t), a, axsnapshot.Options{InViewport: true, Verbose: true, Depth: -1}); !errors.Is(err, axsnapshot.ErrViewportVerbose) {
		t.Errorf("SnapshotView(inViewport, verbose) = %v", err)
	}
}
