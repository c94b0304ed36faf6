package page

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/snapshot"
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

// bothSnapshots takes a default snapshot of the page both ways, from the AX
// tree and with the walker, and returns their texts without uids.
//
// The walk is taken between two AX snapshots, and taken again while those
// two differ: a page still changing on its own (media controls laying
// themselves out after a source failed to load) is not a difference
// between the two.
func bothSnapshots(t testing.TB, a *Actor) (ax, walk string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type triple struct{ ax, walk, after *snapshot.Node }
	for try := 1; ; try++ {
		p, err := ask(ctx, a, func(ctx context.Context) (triple, error) {
			frames := a.snapshotFrames()
			ax, err := a.snapshotAX(ctx, frames, false)
			if err != nil {
				return triple{}, err
			}
			walk, err := a.snapshotWalk(ctx, frames)
			if err != nil {
				return triple{}, err
			}
			after, err := a.snapshotAX(ctx, frames, false)
			return triple{ax, walk, after}, err
		})
		if err != nil {
			t.Fatalf("snapshots: %v", err)
		}
		ax, walk = textWithoutUIDs(p.ax), textWithoutUIDs(p.walk)
		if ax == textWithoutUIDs(p.after) || try == 10 {
			return ax, walk
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the page kept changing between snapshots for 30 s:\n%s", lineDiff(ax, textWithoutUIDs(p.after)))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var uidRE = regexp.MustCompile(`uid=\S* ?`)

func textWithoutUIDs(n *snapshot.Node) string {
	if n == nil {
		return ""
	}
	return uidRE.ReplaceAllString(n.Text(false), "")
}

// lineDiff returns a unified-style diff of two texts, or "" if equal.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// LCS table.
	m, n := len(a), len(b)
	l := make([][]int, m+1)
	for i := range l {
		l[i] = make([]int, n+1)
	}
	for i := m - 1; i >= 0; i-- {
		for j := n - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out strings.Builder
	same := true
	i, j := 0, 0
	for i < m || j < n {
		switch {
		case i < m && j < n && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i++
			j++
		case j < n && (i == m || l[i][j+1] >= l[i+1][j]):
			out.WriteString("+ " + b[j] + "\n")
			same = false
			j++
		default:
			out.WriteString("- " + a[i] + "\n")
			same = false
			i++
		}
	}
	if same {
		return ""
	}
	return out.String()
}

// TestSnapshotFidelity holds the walker (default snapshots) against
// Accessibility.getFullAXTree filtered as Puppeteer filters it, on the pages
// of testdata/snapshot: every node, role, name and printed state must match.
func TestSnapshotFidelity(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, http.FileServer(http.Dir("testdata/snapshot")))
	files, err := filepath.Glob("testdata/snapshot/*.html")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture pages: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "_") {
			continue // a frame's document, loaded by another page
		}
		t.Run(strings.TrimSuffix(name, ".html"), func(t *testing.T) {
			t.Parallel()
			a := testActor(t, srv.URL+"/"+name)
			ax, walk := bothSnapshots(t, a)
			if d := lineDiff(ax, walk); d != "" {
				t.Errorf("walker snapshot differs from the AX tree's (-ax +walker):\n%s", d)
			}
		})
	}
}

// TestSnapshotFidelityGenerated holds the walker against the AX tree on the
// benchmark's pages, at a size the AX tree answers quickly.
func TestSnapshotFidelityGenerated(t *testing.T) {
	t.Parallel()
	pages := map[string]string{"/large": largeList(300), "/mixed": mixedPage(15)}
	srv := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(pages[r.URL.Path]))
	}))
	for path := range pages {
		t.Run(path[1:], func(t *testing.T) {
			t.Parallel()
			a := testActor(t, srv.URL+path)
			ax, walk := bothSnapshots(t, a)
			if d := lineDiff(ax, walk); d != "" {
				t.Errorf("walker snapshot differs from the AX tree's (-ax +walker):\n%s", d)
			}
		})
	}
}

// TestSnapshotDump prints the AX tree's default snapshot of the pages in
// $DUMPDIR (default testdata/snapshot) whose name contains $DUMP ("all" for
// every page), with the walker's differences, or with $VERBOSE set the
// verbose AX tree: a tool for growing the corpus.
//
//	DUMP=forms go test -run TestSnapshotDump -v ./page/
func TestSnapshotDump(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip("set DUMP to a page name")
	}
	dir := "testdata/snapshot"
	if d := os.Getenv("DUMPDIR"); d != "" {
		dir = d
	}
	srv := browsertest.Serve(t, http.FileServer(http.Dir(dir)))
	files, _ := filepath.Glob(dir + "/*.html")
	for _, f := range files {
		name := filepath.Base(f)
		if !strings.Contains(name, os.Getenv("DUMP")) && os.Getenv("DUMP") != "all" {
			continue
		}
		a := testActor(t, srv.URL+"/"+name)
		if os.Getenv("VERBOSE") != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			n, err := ask(ctx, a, func(ctx context.Context) (*snapshot.Node, error) {
				return a.snapshotAX(ctx, a.snapshotFrames(), true)
			})
			cancel()
			if err != nil || n == nil {
				t.Fatalf("verbose snapshot: %v", err)
			}
			t.Logf("=== %s (verbose AX tree)\n%s", name, uidRE.ReplaceAllString(n.Text(true), ""))
			continue
		}
		ax, walk := bothSnapshots(t, a)
		t.Logf("=== %s (AX tree)\n%s", name, ax)
		if d := lineDiff(ax, walk); d != "" {
			t.Logf("=== %s walker differs (-ax +walker):\n%s", name, d)
		}
	}
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
		if _, err := a.Click(ctxT(t), uidIn(t, s1, c.role, c.name), false, InputOptions{}); err != nil {
			t.Fatalf("Click(%s %q) = %v", c.role, c.name, err)
		}
		if c.after != "" && !strings.Contains(snapText(t, a, false), c.after) {
			t.Errorf("Click(%s %q) had no effect", c.role, c.name)
		}
	}
	if _, err := a.Fill(ctxT(t), uidIn(t, s1, "textbox", "Field"), "typed", InputOptions{}); err != nil {
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
	if _, err := a.Click(ctxT(t), gone, false, InputOptions{}); !errors.As(err, &ue) || !ue.Gone {
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
	if _, err := a.Click(ctxT(t), uidIn(t, v, "button", "Clicked"), false, InputOptions{}); err != nil {
		t.Fatalf("Click(uid of a verbose snapshot) = %v", err)
	}
}

func snapText(t *testing.T, a *Actor, verbose bool) string {
	t.Helper()
	s, err := a.Snapshot(ctxT(t), verbose)
	if err != nil {
		t.Fatalf("Snapshot(verbose=%v) = %v", verbose, err)
	}
	return s.Text
}

func ctxT(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestSnapshotCrossSiteFrame: a cross-site iframe runs in another renderer
// process, reached through a session of its own; both paths
// show its document under its <iframe>, named or not.
func TestSnapshotCrossSiteFrame(t *testing.T) {
	t.Parallel()
	var base string
	srv := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/inner" {
			w.Write([]byte(`<!doctype html><title>Inner</title><p>Cross-site text</p><button>Inner button</button>`))
			return
		}
		other := strings.Replace(base, "127.0.0.1", "localhost", 1)
		w.Write([]byte(`<!doctype html><title>Outer</title><p>Before</p><iframe title="Other site" src="` + other +
			`/inner"></iframe><iframe src="` + other + `/inner"></iframe><p>After</p>`))
	}))
	base = srv.URL
	a := testActor(t, srv.URL+"/")
	ax, walk := bothSnapshots(t, a)
	if d := lineDiff(ax, walk); d != "" {
		t.Errorf("walker snapshot differs from the AX tree's (-ax +walker):\n%s", d)
	}
	if !strings.Contains(walk, `Iframe "Other site"`) {
		t.Errorf("the named cross-site iframe is missing:\n%s", walk)
	}
	for _, s := range []string{ax, walk} {
		if n := strings.Count(s, `button "Inner button"`); n != 2 {
			t.Errorf("the cross-site iframes' buttons appear %d times, want 2:\n%s", n, s)
		}
	}
}
