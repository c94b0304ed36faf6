package model

// mark is a page-load event: a navigation start, a paint, an LCP
// candidate, DOMContentLoaded or load.
type mark struct {
	Index          int
	Name           string
	TS             float64
	PID, TID       int64
	Frame          string
	NavigationID   string
	CandidateIndex int
	NodeID         int64
	NodeName       string
	LoadingAttr    string
	Type           string // the LCP candidate's kind: "text" or "image"
	Size           float64
}

// Metric names, as DevTools keys them.
const (
	MetricFCP = "FCP"
	MetricFP  = "FP"
	MetricLCP = "LCP"
	metricDCL = "DCL"
	metricL   = "L"
)

// MetricScore is a metric of a navigation and the event that set it.
type MetricScore struct {
	Name   string
	Event  *mark
	Timing float64 // microseconds after the navigation start
}

// PageLoad gathers page-load events and assigns them to navigations, as
// DevTools' page load metrics handler does.
type PageLoad struct {
	events []*mark
	// Scores: frame → navigation → metric name → score.
	Scores map[string]map[*Navigation]map[string]*MetricScore

	// imagePaints: pid → DOM node id → the last LargestImagePaint::Candidate.
	imagePaints map[int64]map[int64]imagePaint
	// textPaints: DOM node id → seen (LargestTextPaint::Candidate).
	LCPRequest map[string]*Request // navigation id → the LCP image's request
}

type imagePaint struct {
	TS       float64
	ImageURL string
}

func newPageLoad() *PageLoad {
	return &PageLoad{
		Scores:      map[string]map[*Navigation]map[string]*MetricScore{},
		imagePaints: map[int64]map[int64]imagePaint{},
		LCPRequest:  map[string]*Request{},
	}
}

func (p *PageLoad) handle(ev *event) {
	switch ev.Name {
	case "LargestImagePaint::Candidate":
		var a struct {
			Data *struct {
				DOMNodeID int64  `json:"DOMNodeId"`
				ImageURL  string `json:"imageUrl"`
			} `json:"data"`
		}
		if !ev.unmarshalArgs(&a) || a.Data == nil {
			return
		}
		byNode := p.imagePaints[ev.PID]
		if byNode == nil {
			byNode = map[int64]imagePaint{}
			p.imagePaints[ev.PID] = byNode
		}
		byNode[a.Data.DOMNodeID] = imagePaint{TS: ev.TS, ImageURL: a.Data.ImageURL}
		return
	case "firstContentfulPaint", "firstPaint", "largestContentfulPaint::Candidate",
		"largestContentfulPaint::CandidateForSoftNavigation", "MarkDOMContent", "MarkLoad",
		"InteractiveTime":
	default:
		return
	}
	var a struct {
		Frame string `json:"frame"`
		Data  struct {
			Frame          string  `json:"frame"`
			NavigationID   string  `json:"navigationId"`
			CandidateIndex int     `json:"candidateIndex"`
			NodeID         int64   `json:"nodeId"`
			NodeName       string  `json:"nodeName"`
			LoadingAttr    string  `json:"loadingAttr"`
			Type           string  `json:"type"`
			Size           float64 `json:"size"`
		} `json:"data"`
	}
	ev.unmarshalArgs(&a)
	m := &mark{Index: ev.Index, Name: ev.Name, TS: ev.TS, PID: ev.PID, TID: ev.TID,
		NavigationID: a.Data.NavigationID, CandidateIndex: a.Data.CandidateIndex, NodeID: a.Data.NodeID,
		NodeName: a.Data.NodeName, LoadingAttr: a.Data.LoadingAttr, Type: a.Data.Type, Size: a.Data.Size}
	switch ev.Name {
	case "MarkDOMContent", "MarkLoad":
		m.Frame = a.Data.Frame
	default:
		m.Frame = a.Frame
	}
	p.events = append(p.events, m)
}

func (p *PageLoad) metrics(frame string, nav *Navigation) map[string]*MetricScore {
	byNav := p.Scores[frame]
	if byNav == nil {
		byNav = map[*Navigation]map[string]*MetricScore{}
		p.Scores[frame] = byNav
	}
	ms := byNav[nav]
	if ms == nil {
		ms = map[string]*MetricScore{}
		byNav[nav] = ms
	}
	return ms
}

// Score returns a navigation's metric, or nil.
func (p *PageLoad) Score(frame string, nav *Navigation, name string) *MetricScore {
	return p.Scores[frame][nav][name]
}

func (p *PageLoad) finalize(m *Meta, n *Network) {
	SortStable(p.events, func(a, b *mark) bool { return a.TS < b.TS })
	for _, e := range p.events {
		var nav *Navigation
		switch e.Name {
		case "firstContentfulPaint", "firstPaint", "largestContentfulPaint::Candidate":
			nav = m.navsByID[e.NavigationID]
		case "MarkDOMContent", "MarkLoad", "InteractiveTime":
			nav = m.NavigationFor(e.TS, e.Frame)
		}
		if nav == nil || !m.HasRenderer(e.Frame, e.PID) {
			continue
		}
		t := e.TS - nav.TS
		switch e.Name {
		case "firstContentfulPaint":
			p.metrics(e.Frame, nav)[MetricFCP] = &MetricScore{Name: MetricFCP, Event: e, Timing: t}
		case "firstPaint":
			p.metrics(e.Frame, nav)[MetricFP] = &MetricScore{Name: MetricFP, Event: e, Timing: t}
		case "MarkDOMContent":
			p.metrics(e.Frame, nav)[metricDCL] = &MetricScore{Name: metricDCL, Event: e, Timing: t}
		case "MarkLoad":
			p.metrics(e.Frame, nav)[metricL] = &MetricScore{Name: metricL, Event: e, Timing: t}
		case "largestContentfulPaint::Candidate":
			if e.CandidateIndex == 0 {
				continue // DevTools fails the whole trace here; skip the odd event instead
			}
			ms := p.metrics(e.Frame, nav)
			last := ms[MetricLCP]
			if last == nil || (last.Event.CandidateIndex != 0 && last.Event.CandidateIndex < e.CandidateIndex) {
				ms[MetricLCP] = &MetricScore{Name: MetricLCP, Event: e, Timing: t}
			}
		}
	}
	// The LCP image's request: the first request for its URL between the
	// navigation and the paint.
	for _, nav := range m.navOrder {
		lcp := p.Score(nav.Frame, nav, MetricLCP)
		if lcp == nil || lcp.Event.NodeID == 0 {
			continue
		}
		paint, ok := p.imagePaints[lcp.Event.PID][lcp.Event.NodeID]
		if !ok || paint.ImageURL == "" {
			continue
		}
		start, end := nav.TS, paint.TS
		for _, r := range n.ByTime {
			if r.TS < start {
				continue
			}
			if r.TS >= end {
				break
			}
			match := r.URL == paint.ImageURL
			for _, rd := range r.Redirects {
				match = match || rd.URL == paint.ImageURL
			}
			if match {
				p.LCPRequest[nav.ID] = r
				break
			}
		}
	}
}
