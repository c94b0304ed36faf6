package axsnapshot

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/pagetest"
	"github.com/tabhive/tabhive/page/snapshot"
)

// open starts a page actor on a fresh tab and navigates it to url, under
// a generous bound: TestSnapshotFidelity opens its thirty pages at once,
// and at a load of 30 on 2 cores one took over 20 s to load.
func open(t testing.TB, url string) *page.Actor {
	t.Helper()
	a := pagetest.Open(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := a.Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: url}); err != nil {
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
func bothSnapshots(t testing.TB, a *page.Actor) (ax, walk string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type triple struct{ ax, walk, after *snapshot.Node }
	for try := 1; ; try++ {
		s := key.Of(a)
		p, err := page.Do(ctx, s.h, func(ctx context.Context) (triple, error) {
			frames := s.h.Frames()
			ax, err := s.readAX(ctx, frames, false)
			if err != nil {
				return triple{}, err
			}
			walk, err := s.walk(ctx, frames)
			if err != nil {
				return triple{}, err
			}
			after, err := s.readAX(ctx, frames, false)
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
			a := open(t, srv.URL+"/"+name)
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
			a := open(t, srv.URL+path)
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
//	DUMP=forms go test -run TestSnapshotDump -v ./page/axsnapshot/
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
		a := open(t, srv.URL+"/"+name)
		if os.Getenv("VERBOSE") != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			s := key.Of(a)
			n, err := page.Do(ctx, s.h, func(ctx context.Context) (*snapshot.Node, error) {
				return s.readAX(ctx, s.h.Frames(), true)
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
	a := open(t, srv.URL+"/")
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
