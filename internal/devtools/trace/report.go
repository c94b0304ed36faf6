package trace

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"

	"github.com/tabhive/tabhive/internal/devtools/trace/model"
)

// Options describe how a trace was recorded, for its report.
type Options struct {
	// CPUThrottling is the CPU slowdown emulated while recording; 0 or 1
	// for none. A value in the file's metadata wins over none.
	CPUThrottling float64
	// NetworkThrottling names the network conditions emulated ("Slow 3G"),
	// or "" for none.
	NetworkThrottling string
}

// Report is what a trace says about the page loads it recorded: per
// navigation, its metrics (LCP and its parts, FCP, CLS, INP), its long
// tasks, and DevTools' performance insights.
//
// A Report is immutable once [Analyze] returns it, except for
// [Report.Describe], which its owner calls before sharing it.
type Report struct {
	// URL is the main frame's URL.
	URL    string
	bounds model.Window
	opts   Options
	// Sets are the insight sets: one per navigation of the main frame
	// (NAVIGATION_0, ...), and one for the time before the first
	// navigation when anything happened then (NO_NAVIGATION).
	Sets []*InsightSet

	// nodes describes DOM nodes by backend node id, as the page's owner
	// found them after recording (see Describe).
	nodes map[int64]string

	// What the text needs from the analysis: the requests, who initiated
	// each, and the navigations.
	requests   []*model.Request
	initiators map[*model.Request]*model.Request
	meta       *model.Meta
}

// navFor returns the navigation a request belongs to.
func (r *Report) navFor(req *model.Request) *model.Navigation {
	return r.meta.NavigationFor(req.TS, req.Frame)
}

// InsightSet is the part of a trace that one navigation covers.
type InsightSet struct {
	ID     string
	URL    string
	bounds model.Window
	nav    *model.Navigation

	LCP       *LCP
	FCP       *Metric
	CLS       CLS
	INP       *INP
	TTFB      *Metric
	LongTasks []LongTask

	insights []*insight
}

// Metric is a time metric: its value in microseconds after the navigation
// started, and the key of the event that marks it.
type Metric struct {
	Value    float64 // µs
	EventKey string
	TS       float64
}

// LCP is the largest contentful paint of a navigation.
type LCP struct {
	Metric
	// NodeID is the backend DOM node id of the LCP element, 0 if unknown.
	NodeID int64
	// NodeName is the element's tag name as the trace gives it ("H1").
	NodeName string
	// Image is set when the LCP element is an image loaded over the
	// network; URL is its request's.
	Image bool
	URL   string
	// Parts are the LCP's subparts: time to first byte and render delay
	// for text; with resource load delay and duration between them for an
	// image. Nil when the trace lacks the timings.
	Parts []Subpart
}

// Subpart is one part of the LCP time.
type Subpart struct {
	Name   string // "TTFB", "Load delay", "Load duration", "Render delay"
	Label  string // as DevTools titles it: "Time to first byte", ...
	Bounds [2]float64
}

// Duration is the subpart's length in microseconds.
func (s Subpart) Duration() float64 { return s.Bounds[1] - s.Bounds[0] }

// CLS is the cumulative layout shift of a navigation: the score of its
// worst session window.
type CLS struct {
	Value    float64
	EventKey string // the worst window's worst shift, "" without shifts
	TS       float64
}

// INP is the longest interaction of a navigation.
type INP struct {
	Metric
	Type                                 string
	InputDelay, Processing, Presentation float64
}

// LongTask is a main-thread task longer than 50 ms.
type LongTask struct {
	TS, Dur  float64
	EventKey string
}

// Bounds returns the set's start and end, in trace microseconds.
func (s *InsightSet) Bounds() (min, max float64) { return s.bounds.Min, s.bounds.Max }

// Flagged lists the names of the set's insights that are not passing, as
// chrome-devtools-mcp lists them, in its order.
func (s *InsightSet) Flagged() []string {
	var out []string
	for _, in := range s.insights {
		if in.State != statePass {
			out = append(out, in.Name)
		}
	}
	return out
}

// States maps each insight computed for the set to its state: "pass",
// "fail" or "informative".
func (s *InsightSet) States() map[string]string {
	out := map[string]string{}
	for _, in := range s.insights {
		out[in.Name] = in.State
	}
	return out
}

// Set returns the insight set with id, or nil.
func (r *Report) Set(id string) *InsightSet {
	for _, s := range r.Sets {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// LCPNodes lists the backend node ids of the sets' LCP elements, for the
// page's owner to describe while the page still has them.
func (r *Report) LCPNodes() []int64 {
	var out []int64
	for _, s := range r.Sets {
		if s.LCP != nil && s.LCP.NodeID != 0 {
			out = append(out, s.LCP.NodeID)
		}
	}
	return out
}

// Describe records descriptions of DOM nodes by backend node id (what an
// agent finds in a snapshot, such as `heading "Welcome"`), shown beside
// the node ids in the report's text. Call it before sharing the report.
func (r *Report) Describe(nodes map[int64]string) { r.nodes = nodes }

// Analyze reads a trace file (the JSON trace-event format, as Chrome
// writes it and DevTools saves it, plain or gzip-compressed) as a stream
// and returns its report. Only what the report needs is kept: memory
// grows with the number of requests, layout shifts and long tasks, not
// with the file's size. It fails with an error wrapping
// [model.ErrNotTrace] for a file that is not a trace.
func Analyze(r io.Reader, opts Options) (*Report, error) {
	t, err := model.Parse(r)
	if err != nil {
		return nil, err
	}
	if opts.CPUThrottling == 0 && t.CPUThrottling != nil {
		opts.CPUThrottling = *t.CPUThrottling
	}
	if opts.NetworkThrottling == "" && t.NetworkThrottling != nil {
		opts.NetworkThrottling = *t.NetworkThrottling
	}
	a := &analyzer{t}
	return a.report(opts), nil
}

// analyzer builds the report of one parsed trace; it is used by one
// goroutine.
type analyzer struct {
	*model.Trace
}

// report builds the insight sets, as DevTools' trace processor does.
func (a *analyzer) report(opts Options) *Report {
	m := a.Meta
	r := &Report{URL: m.MainFrameURL, bounds: m.Bounds(), opts: opts,
		requests: a.Net.ByTime, initiators: a.displayInitiators(), meta: m}
	var navs []*model.Navigation
	for _, n := range m.MainNavs {
		if n.Frame != "" && n.ID != "" {
			navs = append(navs, n)
		}
	}
	initial := m.Bounds()
	if len(navs) > 0 {
		initial.Max = navs[0].TS
	}
	if s := a.insightSet(r, nil, initial, m.MainFrameID); s != nil {
		r.Sets = append(r.Sets, s)
	}
	for i, n := range navs {
		w := model.Window{Min: n.TS, Max: m.BoundsMax}
		if i+1 < len(navs) {
			w.Max = navs[i+1].TS
		}
		if s := a.insightSet(r, n, w, n.Frame); s != nil {
			r.Sets = append(r.Sets, s)
		}
	}
	return r
}

// displayInitiators returns, per request, the request the text names as
// its initiator, as DevTools' getNetworkInitiator finds it: a stylesheet
// that asked for it; else the last request, sent before it, of the script
// that was running when it was sent; else the request its initiator names.
func (a *analyzer) displayInitiators() map[*model.Request]*model.Request {
	out := map[*model.Request]*model.Request{}
	for _, r := range a.Net.ByTime {
		init := a.Net.InitiatorOf[r]
		if init != nil && init.MimeType == "text/css" {
			out[r] = init
			continue
		}
		if u, ok := a.Rend.ScriptOf[r.ID]; ok && (r.Initiator == nil || r.Initiator.URL == "") {
			if u == "" {
				// Script of unknown origin was running: the frame's
				// document is the nearest thing to its stack.
				u = a.Meta.ActiveURL(r.Frame, r.TS)
			}
			var last *model.Request
			for _, c := range a.Net.ByTime {
				if c.URL == u && c.TS < r.TS {
					last = c
				}
			}
			if last != nil {
				out[r] = last
				continue
			}
		}
		if init != nil {
			out[r] = init
		}
	}
	return out
}

// context is what every insight of a set is computed from.
type context struct {
	a      *analyzer
	nav    *model.Navigation // nil for the time before any navigation
	bounds model.Window
	frame  string
	// lantern is whether DevTools could model this page load: it needs a
	// document request, an FCP and an LCP. Without it DevTools computes no
	// network dependency tree and no estimated savings.
	lantern bool
}

func (a *analyzer) insightSet(r *Report, nav *model.Navigation, w model.Window, frame string) *InsightSet {
	c := &context{a: a, nav: nav, bounds: w, frame: frame}
	id := "NO_NAVIGATION"
	urlStr := ""
	if nav != nil {
		id = fmt.Sprintf("NAVIGATION_%d", len(r.Sets))
		urlStr = a.Meta.FinalURLByID[nav.ID]
		c.lantern = len(a.Net.ByTime) > 0 && a.Net.ByID[nav.ID] != nil &&
			a.Load.Score(frame, nav, model.MetricFCP) != nil && a.Load.Score(frame, nav, model.MetricLCP) != nil
	} else {
		urlStr = a.Meta.FinalURLByID[""]
	}
	if urlStr == "" {
		urlStr = a.Meta.MainFrameURL
	}
	set := &InsightSet{ID: id, URL: urlStr, bounds: w, nav: nav}
	set.insights = c.insights()
	set.fillMetrics(c)

	if nav == nil {
		trivial := w.Range() < 5_000_000 && set.LCP == nil && set.INP == nil
		for _, in := range set.insights {
			if in.State != statePass {
				trivial = false
			}
		}
		if cls := c.insight(set, "CLSCulprits"); cls != nil && len(cls.shifts) != 0 {
			trivial = false
		}
		if trivial {
			return nil
		}
	}
	if _, err := url.Parse(urlStr); err != nil || !strings.Contains(urlStr, ":") {
		return nil
	}
	sortInsights(set)
	return set
}

// fillMetrics sets the set's metrics from its insights, as DevTools' trace
// summary reads them.
func (s *InsightSet) fillMetrics(c *context) {
	if lcp := c.insight(s, "LCPBreakdown"); lcp != nil && lcp.lcp != nil {
		s.LCP = lcp.lcp
	}
	if nav := c.nav; nav != nil {
		if fcp := c.a.Load.Score(c.frame, nav, model.MetricFCP); fcp != nil {
			s.FCP = &Metric{Value: fcp.Timing, EventKey: rawKey(fcp.Event.Index), TS: fcp.Event.TS}
		}
		if doc := c.a.Net.ByID[nav.ID]; doc != nil {
			if fb, ok := model.DocFirstByte(doc); ok {
				s.TTFB = &Metric{Value: fb - nav.TS, EventKey: syntheticKey(doc.Index), TS: doc.TS}
			}
		}
		for _, t := range c.a.Rend.LongTasks {
			if t.PID == nav.PID && t.TID == nav.TID && model.InBounds(t.TS, t.Dur, c.bounds) {
				s.LongTasks = append(s.LongTasks, LongTask{TS: t.TS, Dur: t.Dur, EventKey: rawKey(t.Index)})
			}
		}
	}
	if in := c.insight(s, "CLSCulprits"); in != nil {
		for _, cl := range in.clusters {
			if cl.Score > s.CLS.Value {
				s.CLS.Value = cl.Score
				if cl.Worst != nil {
					s.CLS.EventKey, s.CLS.TS = syntheticKey(cl.Worst.Index), cl.TS
				}
			}
		}
	}
	if in := c.insight(s, "INPBreakdown"); in != nil && in.longest != nil && in.longest.Dur != 0 {
		it := in.longest
		s.INP = &INP{Metric: Metric{Value: it.Dur, EventKey: syntheticKey(it.Index), TS: it.TS},
			Type: it.Type, InputDelay: it.InputDelay, Processing: it.Processing, Presentation: it.Presentation}
	}
}

func (c *context) insight(s *InsightSet, name string) *insight {
	for _, in := range s.insights {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// rawKey and syntheticKey are DevTools' event keys: "r-N" for a trace
// event, "s-N" for one DevTools made from the trace event N (a network
// request, a layout shift, an interaction).
func rawKey(i int) string       { return fmt.Sprintf("r-%d", i) }
func syntheticKey(i int) string { return fmt.Sprintf("s-%d", i) }

// logNormalScore is the Lighthouse scoring curve DevTools ranks insights
// with: 0.9 at p10, 0.5 at the median.
func logNormalScore(p10, median, value float64) float64 {
	if value <= 0 {
		return 1
	}
	const invErfcOneFifth = 0.9061938024368232
	xRatio := math.Max(math.SmallestNonzeroFloat64, value/median)
	xLogRatio := math.Log(xRatio)
	p10Ratio := math.Max(math.SmallestNonzeroFloat64, p10/median)
	p10LogRatio := -math.Log(p10Ratio)
	standardizedX := xLogRatio * invErfcOneFifth / p10LogRatio
	complementaryPercentile := (1 - erf(standardizedX)) / 2
	var score float64
	if value <= p10 {
		score = math.Max(0.9, math.Min(1, complementaryPercentile))
	} else if value <= median {
		score = math.Max(0.5, math.Min(0.8999999999999999, complementaryPercentile))
	} else {
		score = math.Max(0, math.Min(0.49999999999999994, complementaryPercentile))
	}
	return score
}

// erf is the approximation Lighthouse's statistics use (Abramowitz and
// Stegun 7.1.26), not math.Erf: the ranking must be DevTools'.
func erf(x float64) float64 {
	if x == 0 {
		return 0
	}
	sign := math.Copysign(1, x)
	x = math.Abs(x)
	a1, a2, a3, a4, a5 := 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429
	p := 0.3275911
	t := 1 / (1 + p*x)
	y := t * (a1 + t*(a2+t*(a3+t*(a4+t*a5))))
	return sign * (1 - y*math.Exp(-x*x))
}

// baselineOrder is DevTools' grouping of insights before ranking by impact.
var baselineOrder = []string{
	"INPBreakdown", "LCPBreakdown", "LCPDiscovery", "CLSCulprits", "RenderBlocking", "NetworkDependencyTree",
	"ImageDelivery", "DocumentLatency", "FontDisplay", "Viewport", "DOMSize", "ThirdParties",
	"DuplicatedJavaScript", "SlowCSSSelector", "ForcedReflow", "Cache", "CharacterSet", "ModernHTTP", "LegacyJavaScript",
}

// sortInsights orders a set's insights as DevTools does: by how much their
// estimated savings would improve LCP, INP and CLS scores, then by the
// baseline order.
func sortInsights(s *InsightSet) {
	lcp := 0.0
	if s.LCP != nil {
		lcp = s.LCP.Value / 1000
	}
	inp := 200.0
	if s.INP != nil {
		inp = s.INP.Value / 1000
	}
	cls := s.CLS.Value
	lcpScore := logNormalScore(2500, 4000, lcp)
	inpScore := logNormalScore(200, 500, inp)
	clsScore := logNormalScore(0.1, 0.25, cls)
	rank := map[string]float64{}
	for _, in := range s.insights {
		score := 0.0
		if v := in.saving("LCP"); v != 0 {
			score += (logNormalScore(2500, 4000, math.Max(0, lcp-v)) - lcpScore) / 3
		}
		if v := in.saving("INP"); v != 0 {
			score += (logNormalScore(200, 500, math.Max(0, inp-v)) - inpScore) / 3
		}
		if v := in.saving("CLS"); v != 0 {
			score += (logNormalScore(0.1, 0.25, math.Max(0, cls-v)) - clsScore) / 3
		}
		rank[in.Name] = score
	}
	pos := map[string]int{}
	for i, n := range baselineOrder {
		pos[n] = i
	}
	model.SortStable(s.insights, func(a, b *insight) bool { return pos[a.Name] < pos[b.Name] })
	model.SortStable(s.insights, func(a, b *insight) bool { return rank[a.Name] > rank[b.Name] })
}
