package axsnapshot

// The differential test of the walker against Chrome's own tree on real
// documents: the HTML shipped with Go ($GOROOT/doc) and under /usr/share/doc,
// served locally. Each page's default snapshot is taken both ways (the
// walker, and Accessibility.getFullAXTree filtered as Puppeteer filters it,
// which is what chrome-devtools-mcp prints) and compared line by line, uids
// aside.
//
// In the suite a bounded subset runs (pages with and without scripts, each
// must match exactly). The whole corpus runs with -corpus:
//
//	go test -run TestSnapshotCorpus -timeout 60m ./page/axsnapshot/ -args -corpus=all -corpusout=/tmp/corpus
//
// which logs lines identical per page and in total, and with -corpusout
// writes each page's two texts (NAME.ax, NAME.walk) and a summary (SUMMARY.md)
// there for inspection with diff(1). -corpus also takes a substring of the
// pages' paths to run only those.

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/snapshot"
)

var (
	corpusFlag = flag.String("corpus", "", `run the snapshot corpus test on every page ("all") or the pages whose path contains this`)
	corpusOut  = flag.String("corpusout", "", "directory to write each corpus page's two snapshot texts and the summary to")
	corpusRoot = flag.String("corpusroot", "", "one more document tree for the corpus, as name=dir (e.g. rust=$(rustc --print sysroot)/share/doc/rust/html); its pages are name/path")
)

// corpusRoots are the offline document trees of the corpus, by the URL
// prefix they are served under.
func corpusRoots() map[string]string {
	roots := map[string]string{
		"go":  filepath.Join(goroot(), "doc"),
		"usr": "/usr/share/doc",
	}
	if name, dir, ok := strings.Cut(*corpusRoot, "="); ok && name != "" {
		roots[name] = dir
	}
	return roots
}

// goroot is `go env GOROOT`, or the GOROOT the test was built with.
var goroot = sync.OnceValue(func() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	return runtime.GOROOT()
})

// corpusSubset is the part of the corpus the suite runs: small and mid-sized
// pages of each generator, with scripts (nodejs, python) and without. Pages
// missing on a machine are skipped.
var corpusSubset = []string{
	"go/go_mem.html",
	"usr/nodejs/api/tty.html",
	"usr/nodejs/api/punycode.html",
	"usr/valgrind/html/manual-intro.html",
	"usr/libffi8/html/Types.html",
	"usr/libxslt1-dev/html/xsltproc.html",
	"usr/libxslt1-dev/html/EXSLT/index.html",
	"usr/libexpat1-dev/expat.html/index.html",
	"usr/bzip2/manual.html",
	"usr/python3/python-policy.html",
	"usr/shared-mime-info/shared-mime-info-spec.html/index.html",
}

// corpusPages lists the HTML pages of the corpus as "root/path".
func corpusPages(t testing.TB) []string {
	var pages []string
	for prefix, dir := range corpusRoots() {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if !strings.HasSuffix(p, ".html") && !strings.HasSuffix(p, ".htm") {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			pages = append(pages, prefix+"/"+filepath.ToSlash(rel))
			return nil
		})
	}
	slices.Sort(pages)
	if len(pages) == 0 {
		t.Skip("no corpus documents on this machine")
	}
	return pages
}

func corpusServer(t testing.TB) string {
	mux := http.NewServeMux()
	for prefix, dir := range corpusRoots() {
		mux.Handle("/"+prefix+"/", http.StripPrefix("/"+prefix, http.FileServer(http.Dir(dir))))
	}
	return browsertest.Serve(t, mux).URL
}

// corpusResult is the comparison of one page's two snapshots.
type corpusResult struct {
	page               string
	axLines, walkLines int
	same               int // lines in common, in order (longest common subsequence)
	scripts            bool
	axTime, walkTime   time.Duration
	err                error
}

func (r corpusResult) total() int { return max(r.axLines, r.walkLines) }

// TestSnapshotCorpus compares the walker's snapshot with Chrome's tree on
// real documents (see the top of this file).
//
// It does not run in parallel with the other tests: its pages keep Chromium
// busy for tens of seconds, which would slow the tests that time the page
// (CPU throttling, settle bounds) on a loaded machine.
func TestSnapshotCorpus(t *testing.T) {
	all := corpusPages(t)
	base := corpusServer(t)
	if *corpusFlag == "" {
		for _, p := range corpusSubset {
			if !slices.Contains(all, p) {
				continue
			}
			t.Run(p, func(t *testing.T) {
				r, ax, walk := compareCorpusPage(t, base, p)
				if r.err != nil {
					t.Fatal(r.err)
				}
				if ax != walk {
					t.Errorf("%d of %d lines identical; walker differs from Chrome's tree (-ax +walker):\n%s",
						r.same, r.total(), shortDiff(ax, walk, 60))
				}
			})
		}
		return
	}
	var pages []string
	for _, p := range all {
		if *corpusFlag == "all" || strings.Contains(p, *corpusFlag) {
			pages = append(pages, p)
		}
	}
	var results []corpusResult
	for _, p := range pages {
		r, ax, walk := compareCorpusPage(t, base, p)
		results = append(results, r)
		if r.err != nil {
			t.Logf("%s: %v", p, r.err)
			continue
		}
		t.Logf("%s: %d/%d lines identical (ax %d, walker %d; %v / %v)", p, r.same, r.total(), r.axLines, r.walkLines,
			r.axTime.Round(time.Millisecond), r.walkTime.Round(time.Millisecond))
		if *corpusOut != "" {
			name := filepath.Join(*corpusOut, strings.ReplaceAll(p, "/", "_"))
			os.MkdirAll(*corpusOut, 0o755)
			os.WriteFile(name+".ax", []byte(ax), 0o644)
			os.WriteFile(name+".walk", []byte(walk), 0o644)
		}
	}
	summary := corpusSummary(results)
	t.Log("\n" + summary)
	if *corpusOut != "" {
		os.WriteFile(filepath.Join(*corpusOut, "SUMMARY.md"), []byte(summary), 0o644)
	}
}

// compareCorpusPage takes both snapshots of one corpus page in a new tab.
func compareCorpusPage(t *testing.T, base, p string) (corpusResult, string, string) {
	r := corpusResult{page: p}
	r.scripts = pageHasScripts(p)
	a := open(t, base+"/"+p)
	defer a.Stop(nil)
	ax, walk, axTime, walkTime, err := timedSnapshots(a)
	if err != nil {
		r.err = err
		return r, "", ""
	}
	r.axTime, r.walkTime = axTime, walkTime
	al, wl := strings.Split(ax, "\n"), strings.Split(walk, "\n")
	r.axLines, r.walkLines = len(al), len(wl)
	r.same = commonLines(al, wl)
	return r, ax, walk
}

// pageHasScripts reports whether a corpus page's HTML has a <script>.
func pageHasScripts(p string) bool {
	prefix, rel, _ := strings.Cut(p, "/")
	b, err := os.ReadFile(filepath.Join(corpusRoots()[prefix], filepath.FromSlash(rel)))
	return err == nil && strings.Contains(strings.ToLower(string(b)), "<script")
}

// corpusSummary renders the per-page figures and the totals as Markdown.
func corpusSummary(results []corpusResult) string {
	var b strings.Builder
	var same, total, sameNS, totalNS, pagesSame, failed int
	b.WriteString("| page | scripts | lines identical | of | % |\n|---|---|---:|---:|---:|\n")
	for _, r := range results {
		if r.err != nil {
			failed++
			fmt.Fprintf(&b, "| %s | | error: %v | | |\n", r.page, r.err)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %.2f |\n", r.page, yesNo(r.scripts), r.same, r.total(),
			100*float64(r.same)/float64(r.total()))
		same += r.same
		total += r.total()
		if !r.scripts {
			sameNS += r.same
			totalNS += r.total()
		}
		if r.same == r.total() {
			pagesSame++
		}
	}
	fmt.Fprintf(&b, "\n%d pages (%d identical, %d failed): %d of %d lines identical (%.3f%%); pages without scripts: %d of %d (%.3f%%)\n",
		len(results), pagesSame, failed, same, total, 100*float64(same)/float64(max(total, 1)),
		sameNS, totalNS, 100*float64(sameNS)/float64(max(totalNS, 1)))
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// commonLines returns the length of the longest common subsequence of a and
// b, by Myers' O((N+M)D) algorithm: fast when the texts are nearly equal,
// as they should be.
func commonLines(a, b []string) int {
	n, m := len(a), len(b)
	maxD := n + m
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return (n + m - d) / 2
			}
		}
	}
	return 0
}

// shortDiff is lineDiff of two texts cut to at most limit changed lines
// with a line of context each, for texts too long to print whole.
func shortDiff(want, got string, limit int) string {
	if strings.Count(want, "\n")*strings.Count(got, "\n") > 4e7 {
		return "(texts too long to diff here; run with -corpusout and diff(1))"
	}
	d := lineDiff(want, got)
	lines := strings.Split(d, "\n")
	var out []string
	changed := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "- ") {
			if changed == limit {
				out = append(out, "...")
				break
			}
			changed++
			if i > 0 && strings.HasPrefix(lines[i-1], "  ") {
				out = append(out, lines[i-1])
			}
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// timedSnapshots takes a default snapshot of the page from the AX tree and
// with the walker, and returns their texts without uids and how long each
// took.
func timedSnapshots(a *page.Actor) (ax, walk string, axTime, walkTime time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type pair struct {
		ax, walk         *snapshot.Node
		axTime, walkTime time.Duration
	}
	s := key.Of(a)
	p, err := page.Do(ctx, s.h, func(ctx context.Context) (pair, error) {
		frames := s.h.Frames()
		start := time.Now()
		ax, err := s.readAX(ctx, frames, false)
		if err != nil {
			return pair{}, err
		}
		mid := time.Now()
		walk, err := s.walk(ctx, frames)
		return pair{ax, walk, mid.Sub(start), time.Since(mid)}, err
	})
	if err != nil {
		return "", "", 0, 0, err
	}
	return textWithoutUIDs(p.ax), textWithoutUIDs(p.walk), p.axTime, p.walkTime, nil
}
