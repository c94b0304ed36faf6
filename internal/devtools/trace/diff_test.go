package trace

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The differential test holds tabhive's analysis against DevTools' own
// trace engine (@paulirish/trace_engine, the package DevTools publishes
// its Performance panel's engine as), run by bench/trace/oracle.mjs over
// the traces in testdata/traces: the fixture pages of package tracetest and
// offline documents of the machine that recorded them, each recorded
// through the tabhive binary by bench/trace/record. The engine's findings
// are committed beside each trace (NAME.expected.json), so this test needs
// no Node.
//
// Tolerance: each time metric (LCP, FCP, TTFB, each LCP subpart, INP) must
// be within 5% of DevTools' value or within 10 ms of it, whichever is
// larger; CLS within 5% or 0.001. Everything else must be equal: the LCP
// element, whether it is an image and its URL, the set of insights that
// are flagged (not passing) and the state of each, the render-blocking
// requests, the elements that layout shifts moved, the causes found for
// each shift, and the requests each request-listing insight names.

type expectedTrace struct {
	Engine string        `json:"engine"`
	URL    string        `json:"url"`
	Bounds [2]float64    `json:"bounds"`
	Sets   []expectedSet `json:"sets"`
}

type expectedSet struct {
	ID     string     `json:"id"`
	URL    string     `json:"url"`
	Bounds [2]float64 `json:"bounds"`
	LCP    *struct {
		Value    float64            `json:"value"`
		EventKey string             `json:"eventKey"`
		NodeID   *int64             `json:"nodeId"`
		NodeName *string            `json:"nodeName"`
		Image    bool               `json:"image"`
		URL      *string            `json:"url"`
		Subparts map[string]float64 `json:"subparts"`
	} `json:"lcp"`
	FCP         *float64 `json:"fcp"`
	TTFB        *float64 `json:"ttfb"`
	CLS         float64  `json:"cls"`
	CLSEventKey *string  `json:"clsEventKey"`
	INP         *struct {
		Value    float64 `json:"value"`
		EventKey string  `json:"eventKey"`
		Type     string  `json:"type"`
	} `json:"inp"`
	States         map[string]string `json:"states"`
	RenderBlocking []string          `json:"renderBlocking"`
	Shifting       []int64           `json:"shifting"`
	RootCauses     []struct {
		Shift         string   `json:"shift"`
		Iframes       int      `json:"iframes"`
		Fonts         []string `json:"fonts"`
		UnsizedImages []int64  `json:"unsizedImages"`
		Animations    int      `json:"animations"`
	} `json:"rootCauses"`
	Cache         []string `json:"cache"`
	Images        []string `json:"images"`
	Fonts         []string `json:"fonts"`
	HTTP1         []string `json:"http1"`
	ForcedReflows int      `json:"forcedReflows"`
	ThirdParties  []string `json:"thirdParties"`
	Duplicated    []string `json:"duplicated"`
}

// within reports whether got is within 5% of want, or within abs of it.
func within(got, want, abs float64) bool {
	return math.Abs(got-want) <= math.Max(0.05*math.Abs(want), abs)
}

func TestDifferentialAgainstDevTools(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/*.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("found %d traces in testdata/traces, want at least 8", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json.gz")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(strings.TrimSuffix(file, ".json.gz") + ".expected.json")
			if err != nil {
				t.Fatalf("no expected values (run bench/trace/oracle.mjs): %v", err)
			}
			var want expectedTrace
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := Analyze(f, Options{})
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			for _, d := range compareReport(rep, &want) {
				t.Error(d)
			}
			t.Log(agreement(rep, &want))
		})
	}
}

// compareReport lists how rep differs from DevTools' findings.
func compareReport(rep *Report, want *expectedTrace) []string {
	var diffs []string
	bad := func(format string, a ...any) { diffs = append(diffs, fmt.Sprintf(format, a...)) }
	if rep.URL != want.URL {
		bad("URL = %q, want %q", rep.URL, want.URL)
	}
	if rep.bounds.Min != want.Bounds[0] || rep.bounds.Max != want.Bounds[1] {
		bad("bounds = %v, want %v", rep.bounds, want.Bounds)
	}
	var ids, wantIDs []string
	for _, s := range rep.Sets {
		ids = append(ids, s.ID)
	}
	for _, s := range want.Sets {
		wantIDs = append(wantIDs, s.ID)
	}
	if !slices.Equal(ids, wantIDs) {
		bad("insight sets = %v, want %v", ids, wantIDs)
		return diffs
	}
	for i, w := range want.Sets {
		s := rep.Sets[i]
		p := s.ID + ": "
		if s.URL != w.URL {
			bad(p+"URL = %q, want %q", s.URL, w.URL)
		}
		if s.bounds.Min != w.Bounds[0] || s.bounds.Max != w.Bounds[1] {
			bad(p+"bounds = %v, want %v", s.bounds, w.Bounds)
		}
		bad := func(format string, a ...any) { bad(p+format, a...) }
		compareMetrics(bad, s, w)
		compareInsights(bad, s, w)
	}
	return diffs
}

// ms is 10 ms, in µs: how far a time may be from DevTools' and still
// count as equal.
const ms = 10_000

// compareMetrics reports with bad how the metrics of the insight set s
// differ from w's: LCP and its subparts, FCP, TTFB, CLS and INP.
func compareMetrics(bad func(format string, a ...any), s *InsightSet, w expectedSet) {
	switch {
	case (s.LCP == nil) != (w.LCP == nil):
		bad("LCP = %v, want %v", s.LCP, w.LCP)
	case w.LCP != nil:
		l := s.LCP
		if !within(l.Value, w.LCP.Value, ms) {
			bad("LCP = %v µs, want %v µs", l.Value, w.LCP.Value)
		}
		if l.EventKey != w.LCP.EventKey {
			bad("LCP event = %s, want %s", l.EventKey, w.LCP.EventKey)
		}
		if w.LCP.NodeID != nil && l.NodeID != *w.LCP.NodeID {
			bad("LCP element = node %d, want node %d", l.NodeID, *w.LCP.NodeID)
		}
		if w.LCP.NodeName != nil && l.NodeName != *w.LCP.NodeName {
			bad("LCP element = %s, want %s", l.NodeName, *w.LCP.NodeName)
		}
		if l.Image != w.LCP.Image || (w.LCP.URL != nil && l.URL != *w.LCP.URL) {
			bad("LCP image = %v %q, want %v %v", l.Image, l.URL, w.LCP.Image, w.LCP.URL)
		}
		names := map[string]string{"ttfb": "TTFB", "loadDelay": "Load delay", "loadDuration": "Load duration", "renderDelay": "Render delay"}
		got := map[string]float64{}
		for _, part := range l.Parts {
			got[part.Name] = part.Duration()
		}
		if len(got) != len(w.LCP.Subparts) {
			bad("LCP has %d subparts, want %d", len(got), len(w.LCP.Subparts))
		}
		for k, v := range w.LCP.Subparts {
			if g, ok := got[names[k]]; !ok || !within(g, v, ms) {
				bad("LCP %s = %v µs, want %v µs", names[k], g, v)
			}
		}
	}
	if (s.FCP == nil) != (w.FCP == nil) || (w.FCP != nil && !within(s.FCP.Value, *w.FCP, ms)) {
		bad("FCP = %v, want %v", s.FCP, w.FCP)
	}
	if (s.TTFB == nil) != (w.TTFB == nil) || (w.TTFB != nil && !within(s.TTFB.Value, *w.TTFB, ms)) {
		bad("TTFB = %v, want %v", s.TTFB, w.TTFB)
	}
	if !within(s.CLS.Value, w.CLS, 0.001) {
		bad("CLS = %v, want %v", s.CLS.Value, w.CLS)
	}
	if w.CLSEventKey != nil && s.CLS.EventKey != *w.CLSEventKey {
		bad("CLS event = %q, want %q", s.CLS.EventKey, *w.CLSEventKey)
	}
	switch {
	case (s.INP == nil) != (w.INP == nil):
		bad("INP = %v, want %v", s.INP, w.INP)
	case w.INP != nil:
		if !within(s.INP.Value, w.INP.Value, ms) || s.INP.EventKey != w.INP.EventKey || s.INP.Type != w.INP.Type {
			bad("INP = %v %s %s, want %v %s %s", s.INP.Value, s.INP.EventKey, s.INP.Type, w.INP.Value, w.INP.EventKey, w.INP.Type)
		}
	}
}

// compareInsights reports with bad how the insights of the insight set s
// differ from w's: their states, the requests, sites and modules they
// name, the layout shifts and their causes, and forced reflows.
func compareInsights(bad func(format string, a ...any), s *InsightSet, w expectedSet) {
	states := s.States()
	for _, name := range InsightNames {
		got, ok := states[name]
		if !ok {
			got = "missing"
		}
		if got != w.States[name] {
			bad("%s is %s, want %s", name, got, w.States[name])
		}
	}
	byName := map[string]*insight{}
	for _, in := range s.insights {
		byName[in.Name] = in
	}
	urls := func(name string) []string {
		var out []string
		if in := byName[name]; in != nil {
			for _, r := range in.requests {
				out = append(out, r.URL)
			}
		}
		return out
	}
	sameList := func(what string, got, want []string, ordered bool) {
		if !ordered {
			got, want = sorted(got), sorted(want)
		}
		if !slices.Equal(nonNil(got), nonNil(want)) {
			bad("%s = %q, want %q", what, got, want)
		}
	}
	sameList("render-blocking requests", urls("RenderBlocking"), w.RenderBlocking, true)
	sameList("uncached requests", urls("Cache"), w.Cache, true)
	sameList("images to optimize", urls("ImageDelivery"), w.Images, true)
	sameList("fonts hiding text", urls("FontDisplay"), w.Fonts, true)
	sameList("HTTP/1 requests", urls("ModernHTTP"), w.HTTP1, false)

	shifting := map[int64]bool{}
	var gotCauses []string
	if in := byName["CLSCulprits"]; in != nil {
		for _, c := range in.clusters {
			for _, sh := range c.Shifts {
				for _, n := range sh.Impacted {
					shifting[n.NodeID] = true
				}
			}
		}
		for sh, rc := range in.shifts {
			var fonts []string
			for _, r := range rc.fonts {
				fonts = append(fonts, r.URL)
			}
			var imgs []string
			for _, img := range rc.unsizedImages {
				imgs = append(imgs, fmt.Sprint(img.NodeID))
			}
			gotCauses = append(gotCauses, fmt.Sprintf("%s iframes=%d fonts=%v images=%v animations=%d",
				syntheticKey(sh.Index), len(rc.iframes), fonts, imgs, len(rc.animations)))
		}
	}
	var gotShifting []int64
	for id := range shifting {
		gotShifting = append(gotShifting, id)
	}
	slices.Sort(gotShifting)
	if !slices.Equal(gotShifting, w.Shifting) && !(len(gotShifting) == 0 && len(w.Shifting) == 0) {
		bad("shifting elements = %v, want %v", gotShifting, w.Shifting)
	}
	var wantCauses []string
	for _, rc := range w.RootCauses {
		var imgs []string
		for _, id := range rc.UnsizedImages {
			imgs = append(imgs, fmt.Sprint(id))
		}
		wantCauses = append(wantCauses, fmt.Sprintf("%s iframes=%d fonts=%v images=%v animations=%d",
			rc.Shift, rc.Iframes, nonNil(rc.Fonts), imgs, rc.Animations))
	}
	sameList("layout shift causes", gotCauses, wantCauses, false)

	forced := 0
	if in := byName["ForcedReflow"]; in != nil && in.State != statePass {
		forced = 1
	}
	if (forced > 0) != (w.ForcedReflows > 0) {
		bad("forced reflows found = %v, want %v", forced > 0, w.ForcedReflows > 0)
	}
	var sites []string
	if in := byName["ThirdParties"]; in != nil {
		sites = in.sites
	}
	sameList("third parties", sites, w.ThirdParties, false)
	var dups []string
	if in := byName["DuplicatedJavaScript"]; in != nil {
		dups = in.duplicated
	}
	sameList("duplicated modules", dups, w.Duplicated, true)
}

// agreement describes how far rep's times are from DevTools' where both
// have them: the largest difference, in milliseconds and as a share of
// DevTools' value, for the record (go test -v -run TestDifferential).
func agreement(rep *Report, want *expectedTrace) string {
	var worstMs, worstRel float64
	var n int
	note := func(got, want float64) {
		n++
		d := math.Abs(got - want)
		worstMs = max(worstMs, d/1000)
		if want != 0 {
			worstRel = max(worstRel, d/math.Abs(want))
		}
	}
	names := map[string]string{"ttfb": "TTFB", "loadDelay": "Load delay", "loadDuration": "Load duration", "renderDelay": "Render delay"}
	for i, w := range want.Sets {
		if i >= len(rep.Sets) {
			break
		}
		s := rep.Sets[i]
		if w.LCP != nil && s.LCP != nil {
			note(s.LCP.Value, w.LCP.Value)
			for k, v := range w.LCP.Subparts {
				for _, part := range s.LCP.Parts {
					if part.Name == names[k] {
						note(part.Duration(), v)
					}
				}
			}
		}
		if w.FCP != nil && s.FCP != nil {
			note(s.FCP.Value, *w.FCP)
		}
		if w.TTFB != nil && s.TTFB != nil {
			note(s.TTFB.Value, *w.TTFB)
		}
		if w.INP != nil && s.INP != nil {
			note(s.INP.Value, w.INP.Value)
		}
	}
	return fmt.Sprintf("agreement: %d times compared, the largest difference %.3f ms, %.2f%% of DevTools' value at most", n, worstMs, 100*worstRel)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
