package page

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
)

func testActor(t testing.TB, url string) *Actor {
	t.Helper()
	b := browsertest.Chromium(t)
	tab := b.NewTab(t)
	a := Start(Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	// Generous: TestSnapshotFidelity opens its thirty pages at once, and at
	// a load of 30 on 2 cores one took over 20 s to load.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := a.Navigate(ctx, Navigation{Kind: NavigateURL, URL: url}); err != nil {
		t.Fatalf("Navigate(%s) = %v", url, err)
	}
	return a
}

// uidIn finds the uid of the first line of a snapshot with role and name.
func uidIn(t *testing.T, text, role, name string) string {
	t.Helper()
	prefix := ""
	if role != "" {
		prefix = regexp.QuoteMeta(role) + " "
	}
	m := regexp.MustCompile(`uid=(\S+) ` + prefix + `"` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s %q in snapshot:\n%s", role, name, text)
	}
	return m[1]
}

// evalJS runs a script in the page's main world.
func evalJS(t *testing.T, a *Actor, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := ask(ctx, a, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, a.call(ctx, func(ctx context.Context) error {
			_, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(expr))
			return err
		})
	})
	if err != nil {
		t.Fatalf("evaluate %q: %v", expr, err)
	}
}

// TestSnapshotUIDsAct checks that the nodes of a default snapshot, known to
// the walker only, resolve to their DOM nodes when acted on: in the page, in
// an iframe, in a closed shadow root, text and generated content; that a
// node keeps its uid while it stays; and that a node gone from the page
// reports so.
func TestSnapshotUIDsAct(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Act", `<style>.gen::before{content:"Gen "}</style>
<button onclick="this.textContent='Clicked'">Press</button>
<p class=gen>Plain text</p>
<input aria-label=Field>
<iframe srcdoc="<button onclick=&quot;this.textContent='Frame clicked'&quot;>In frame</button>"></iframe>
<div id=host></div>
<button id=gone>Gone soon</button>
<select aria-label=Pick><option>One</option><option>Two</option><option>Three</option></select>
<script>host.attachShadow({mode: 'closed'}).innerHTML = '<button onclick="this.textContent=\'Shadow clicked\'">In shadow</button>';</script>`))
	a := testActor(t, srv.URL)
	s1 := snapText(t, a, false)
	press := uidIn(t, s1, "button", "Press")
	for _, c := range []struct{ role, name, after string }{
		{"button", "Press", `button "Clicked"`},
		{"button", "In frame", `button "Frame clicked"`},
		{"button", "In shadow", `button "Shadow clicked"`},
		{"", "Plain text", ""},
		{"", "Gen ", ""},
	} {
		if _, err := click(ctxT(t), a, uidIn(t, s1, c.role, c.name)); err != nil {
			t.Fatalf("Click(%s %q) = %v", c.role, c.name, err)
		}
		if c.after != "" && !strings.Contains(snapText(t, a, false), c.after) {
			t.Errorf("Click(%s %q) had no effect", c.role, c.name)
		}
	}
	if _, err := fillText(ctxT(t), a, uidIn(t, s1, "textbox", "Field"), "typed"); err != nil {
		t.Fatalf("Fill = %v", err)
	}
	s2 := snapText(t, a, false)
	if !strings.Contains(s2, `textbox "Field" focusable focused value="typed"`) {
		t.Errorf("fill not in snapshot:\n%s", s2)
	}
	if got := uidIn(t, s2, "button", "Clicked"); got != press {
		t.Errorf("a button whose text changed got uid %s, want %s (same node)", got, press)
	}
	gone := uidIn(t, s2, "button", "Gone soon")
	evalJS(t, a, "document.getElementById('gone').remove()")
	var ue *UIDError
	if _, err := click(ctxT(t), a, gone); !errors.As(err, &ue) || !ue.Gone {
		t.Fatalf("Click(removed node) = %v, want UIDError{Gone}", err)
	}
	// The options of a combobox resolve at once, to the nodes they resolve
	// to one by one.
	ctx := ctxT(t)
	pick := uidIn(t, s2, "combobox", "Pick")
	ids, err := ask(ctx, a, func(ctx context.Context) ([]int, error) {
		n, err := a.resolve(pick)
		if err != nil {
			return nil, err
		}
		batch, err := a.nodeIDs(ctx, n.Children)
		if err != nil {
			return nil, err
		}
		var out []int
		for i, c := range n.Children {
			c.BackendNodeID = 0 // forget it: look it up alone
			one, err := a.nodeID(ctx, c)
			if err != nil {
				return nil, err
			}
			if one != batch[i] {
				return nil, fmt.Errorf("option %d: nodeIDs gave %d, nodeID %d", i, batch[i], one)
			}
			out = append(out, int(one))
		}
		return out, nil
	})
	if err != nil || len(ids) != 3 || ids[0] == ids[1] || ids[0] == 0 {
		t.Fatalf("nodeIDs(options) = %v, %v; want 3 distinct ids", ids, err)
	}
	// A verbose snapshot is the AX tree's: its uids resolve too.
	v := snapText(t, a, true)
	if _, err := click(ctxT(t), a, uidIn(t, v, "button", "Clicked")); err != nil {
		t.Fatalf("Click(uid of a verbose snapshot) = %v", err)
	}
}

// testSnapshot is a snapshot's text, as the core's tests read it.
type testSnapshot struct{ Text string }

// snapshotOf takes a snapshot of a and makes it the latest, through the
// snapshot capability, which page_test.go's import of page/axsnapshot
// registers in this test binary.
func snapshotOf(ctx context.Context, a *Actor, verbose bool) (testSnapshot, error) {
	text, err := ask(ctx, a, func(ctx context.Context) (string, error) {
		return a.takeSnapshot(ctx, verbose)
	})
	return testSnapshot{text}, err
}

func snapText(t *testing.T, a *Actor, verbose bool) string {
	t.Helper()
	s, err := snapshotOf(ctxT(t), a, verbose)
	if err != nil {
		t.Fatalf("snapshot (verbose=%v) = %v", verbose, err)
	}
	return s.Text
}

func ctxT(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}
