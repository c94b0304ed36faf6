package trace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The shape test holds tabhive's replies to chrome-devtools-mcp 1.11's,
// for the traces of testdata/traces: testdata/cdm/NAME.shape.json is what
// bench/trace/cdm-replies.mjs kept of chrome-devtools-mcp's own replies
// (made by its bundled DevTools formatters): the summary's labelled lines,
// and per insight its headings and the data it names. tabhive's prose is
// its own; the labels and the data must be the same:
//
//   - every labelled line of the summary (URL, bounds, throttling, each
//     insight set, its LCP with its event and node, the LCP breakdown, INP,
//     CLS) is in tabhive's, in the same order; tabhive adds FCP, TTFB and
//     long tasks;
//   - each insight set lists the same insights, each with the same relevant
//     trace bounds and estimated wasted bytes (the estimated time savings
//     are tabhive's own estimate: see the package doc); tabhive may list
//     DuplicatedJavaScript where upstream, which resolves no source maps,
//     cannot;
//   - each insight's analysis has the same title and headings, names every
//     event and URL upstream's names, and lists the same network request
//     rows.

type cdmShape struct {
	Summary  []string `json:"summary"`
	Insights map[string]struct {
		Headings []string `json:"headings"`
		Title    string   `json:"title"`
		Refs     []string `json:"refs"`
		URLs     []string `json:"urls"`
		Rows     []string `json:"rows"`
	} `json:"insights"`
}

var (
	insightLine = regexp.MustCompile(`^  - insight name: (\w+)$`)
	setLine     = regexp.MustCompile(`^## insight set id: (\w+)$`)
)

func TestRepliesHaveUpstreamsShape(t *testing.T) {
	files, err := filepath.Glob("testdata/cdm/*.shape.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("found %d shapes in testdata/cdm, want one per trace", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".shape.json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want cdmShape
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join("testdata/traces", name+".json.gz"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := Analyze(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range compareShape(rep, &want) {
				t.Error(d)
			}
		})
	}
}

// summaryBlocks splits labelled summary lines into the header, and per
// insight set its own lines and, per insight, its lines.
type summaryBlock struct {
	lines    []string
	insights map[string][]string
	order    []string
}

func parseSummary(lines []string) (header []string, sets map[string]*summaryBlock, order []string) {
	sets = map[string]*summaryBlock{}
	var cur *summaryBlock
	insight := ""
	for _, l := range lines {
		if m := setLine.FindStringSubmatch(l); m != nil {
			cur = &summaryBlock{insights: map[string][]string{}}
			sets[m[1]] = cur
			order = append(order, m[1])
			insight = ""
			continue
		}
		if cur == nil {
			header = append(header, l)
			continue
		}
		if m := insightLine.FindStringSubmatch(l); m != nil {
			insight = m[1]
			cur.order = append(cur.order, insight)
			continue
		}
		if insight != "" && strings.HasPrefix(l, "    ") {
			cur.insights[insight] = append(cur.insights[insight], strings.TrimSpace(l))
			continue
		}
		insight = ""
		cur.lines = append(cur.lines, l)
	}
	return header, sets, order
}

// keepLabelled keeps the lines of a summary the shape file keeps.
func keepLabelled(summary string) []string {
	keep := regexp.MustCompile(`^(URL|Trace bounds|CPU throttling|Network throttling|Bounds|Metrics \(lab|Metrics \(field|Available insights):|^## insight set id: |^  - (LCP|INP|CLS)|^    - (TTFB|Load delay|Load duration|Render delay):|^  - insight name: |^    (relevant trace bounds|estimated wasted bytes):`)
	var out []string
	for _, l := range strings.Split(summary, "\n") {
		if keep.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

func compareShape(rep *Report, want *cdmShape) []string {
	var diffs []string
	bad := func(format string, a ...any) { diffs = append(diffs, fmt.Sprintf(format, a...)) }
	wantHeader, wantSets, wantOrder := parseSummary(want.Summary)
	gotHeader, gotSets, gotOrder := parseSummary(keepLabelled(rep.Summary()))
	if !slices.Equal(gotHeader, wantHeader) {
		bad("summary header = %q, want %q", gotHeader, wantHeader)
	}
	if !slices.Equal(gotOrder, wantOrder) {
		bad("insight sets = %v, want %v", gotOrder, wantOrder)
		return diffs
	}
	for _, id := range wantOrder {
		w, g := wantSets[id], gotSets[id]
		// Every line upstream's summary has, in order (tabhive adds lines).
		i := 0
		for _, wl := range w.lines {
			for i < len(g.lines) && g.lines[i] != wl {
				i++
			}
			if i == len(g.lines) {
				bad("%s: the summary lacks %q (it has %q)", id, wl, g.lines)
				break
			}
		}
		// chrome-devtools-mcp resolves no source maps, so it never finds
		// duplicated JavaScript; tabhive reads maps the trace carries.
		if !slices.Contains(w.order, "DuplicatedJavaScript") {
			g.order = slices.DeleteFunc(g.order, func(n string) bool { return n == "DuplicatedJavaScript" })
		}
		if !slices.Equal(sorted(g.order), sorted(w.order)) {
			bad("%s: insights listed = %v, want %v", id, g.order, w.order)
		}
		for name, wl := range w.insights {
			if gl := g.insights[name]; !slices.Equal(gl, wl) {
				bad("%s %s: summary lines = %q, want %q", id, name, gl, wl)
			}
		}
	}
	for key, w := range want.Insights {
		setID, name, _ := strings.Cut(key, " ")
		text, _, ok := rep.Insight(setID, name)
		if !ok {
			bad("%s: no analysis", key)
			continue
		}
		lines := strings.Split(text, "\n")
		var headings []string
		for _, l := range lines {
			if strings.HasPrefix(l, "## ") {
				headings = append(headings, regexp.MustCompile(`:.*$`).ReplaceAllString(l, ":"))
			}
		}
		if !slices.Equal(headings, w.Headings) {
			bad("%s: headings = %q, want %q", key, headings, w.Headings)
		}
		if lines[0] != w.Title {
			bad("%s: title = %q, want %q", key, lines[0], w.Title)
		}
		for _, ref := range w.Refs {
			if !strings.Contains(text, ref) {
				bad("%s: the analysis does not name %s", key, ref)
			}
		}
		for _, u := range w.URLs {
			if !strings.Contains(text, u) {
				bad("%s: the analysis does not name %s", key, u)
			}
		}
		var rows []string
		for _, l := range lines {
			if regexp.MustCompile(`^\d+;s-\d+;`).MatchString(l) || strings.HasPrefix(l, "allUrls = ") {
				rows = append(rows, l)
			}
		}
		if !slices.Equal(rows, nonNil(w.Rows)) && !(len(rows) == 0 && len(w.Rows) == 0) {
			bad("%s: network rows =\n%s\nwant\n%s", key, strings.Join(rows, "\n"), strings.Join(w.Rows, "\n"))
		}
	}
	return diffs
}
