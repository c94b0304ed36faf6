package trace

import (
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tabhive/tabhive/internal/devtools/trace/model"
	"github.com/tabhive/tabhive/internal/jsfmt"
)

// Insight states, as DevTools names them. A passing insight is not listed.
const (
	statePass        = "pass"
	stateFail        = "fail"
	stateInformative = "informative"
)

// InsightNames are the insights tabhive computes, by DevTools' names.
var InsightNames = []string{
	"LCPBreakdown", "LCPDiscovery", "RenderBlocking", "DocumentLatency", "CLSCulprits",
	"NetworkDependencyTree", "Cache", "DOMSize", "ThirdParties", "ForcedReflow",
	"DuplicatedJavaScript", "INPBreakdown", "ImageDelivery", "FontDisplay", "Viewport", "ModernHTTP",
}

type saving struct {
	Metric string // FCP, LCP, INP or CLS
	Value  float64
}

// insight is one of DevTools' performance insights for one insight set.
type insight struct {
	Name        string
	State       string
	Savings     []saving
	WastedBytes float64
	// overlays are the windows the insight points at; their union is its
	// relevant bounds (the set's bounds when there are none).
	overlays []model.Window
	// detail writes the insight's detailed analysis.
	detail func(f *formatter) string

	// What other parts of the report read.
	lcp      *LCP
	clusters []*model.Cluster
	shifts   map[*model.Shift]*rootCauses
	longest  *model.Interaction
	requests []*model.Request // the requests the insight is about
	sites    []string         // the third parties found, by name
	// duplicated are the sources found in several scripts, worst first.
	duplicated []string
}

func (in *insight) saving(metric string) float64 {
	for _, s := range in.Savings {
		if s.Metric == metric {
			return s.Value
		}
	}
	return 0
}

func reqWindow(r *model.Request) model.Window { return model.Window{Min: r.TS, Max: r.TS + r.Dur} }

// insights computes the set's insights. One that cannot be computed (its
// frame has no metrics at all) is left out, as DevTools leaves out an
// insight whose computation throws.
func (c *context) insights() []*insight {
	gens := []func() *insight{
		c.lcpBreakdown, c.lcpDiscovery, c.renderBlocking, c.documentLatency, c.clsCulprits,
		c.networkDependencyTree, c.cache, c.domSize, c.thirdParties, c.forcedReflow,
		c.duplicatedJavaScript, c.inpBreakdown, c.imageDelivery, c.fontDisplay, c.viewport, c.modernHTTP,
	}
	var out []*insight
	for _, g := range gens {
		if in := g(); in != nil {
			out = append(out, in)
		}
	}
	return out
}

// navMetrics returns the navigation's metrics, or ok=false when DevTools
// would throw (no metrics for the frame or the navigation).
func (c *context) navMetrics() (map[string]*model.MetricScore, bool) {
	byNav, ok := c.a.Load.Scores[c.frame]
	if !ok {
		return nil, false
	}
	ms, ok := byNav[c.nav]
	return ms, ok
}

// lcpInsight starts an insight about the set's LCP, passing, and returns
// the LCP to look at. The score is nil when there is nothing to look at:
// without a navigation or an LCP the insight passes; without the
// navigation's metrics in is nil too (the insight is not computed).
func (c *context) lcpInsight(name string) (in *insight, score *model.MetricScore) {
	in = &insight{Name: name, State: statePass}
	if c.nav == nil {
		return in, nil
	}
	ms, ok := c.navMetrics()
	if !ok {
		return nil, nil
	}
	return in, ms[model.MetricLCP]
}

func (c *context) lcpBreakdown() *insight {
	in, score := c.lcpInsight("LCPBreakdown")
	if score == nil {
		return in
	}
	ev := score.Event
	lcp := &LCP{Metric: Metric{Value: score.Timing, EventKey: rawKey(ev.Index), TS: ev.TS}, NodeID: ev.NodeID, NodeName: ev.NodeName}
	req := c.a.Load.LCPRequest[c.nav.ID]
	if req != nil {
		lcp.Image, lcp.URL = true, req.URL
	}
	in.lcp = lcp
	if score.Timing <= 2_500_000 {
		in.State = stateInformative
	} else {
		in.State = stateFail
	}
	doc := c.a.Net.ByID[c.nav.ID]
	if doc == nil {
		return in
	}
	firstByte, ok := model.DocFirstByte(doc)
	if !ok {
		return in
	}
	ttfb := Subpart{Name: "TTFB", Label: "Time to first byte", Bounds: [2]float64{c.nav.TS, firstByte}}
	if req == nil {
		lcp.Parts = []Subpart{ttfb, {Name: "Render delay", Label: "Element render delay", Bounds: [2]float64{firstByte, ev.TS}}}
	} else {
		lcp.Parts = []Subpart{
			ttfb,
			{Name: "Load delay", Label: "Resource load delay", Bounds: [2]float64{firstByte, req.TS}},
			{Name: "Load duration", Label: "Resource load duration", Bounds: [2]float64{req.TS, req.FinishTime}},
			{Name: "Render delay", Label: "Element render delay", Bounds: [2]float64{req.FinishTime, ev.TS}},
		}
	}
	for _, p := range lcp.Parts {
		in.overlays = append(in.overlays, model.Window{Min: p.Bounds[0], Max: p.Bounds[1]})
	}
	if req != nil {
		in.overlays = append(in.overlays, reqWindow(req))
		in.requests = []*model.Request{req}
	}
	in.detail = func(f *formatter) string { return f.lcpBreakdown(c, lcp) }
	return in
}

func (c *context) lcpDiscovery() *insight {
	in, score := c.lcpInsight("LCPDiscovery")
	if score == nil {
		return in
	}
	doc := c.a.Net.ByID[c.nav.ID]
	req := c.a.Load.LCPRequest[c.nav.ID]
	if doc == nil || req == nil {
		return in
	}
	initiatedByDoc := req.Initiator != nil && req.Initiator.Type == "parser" && doc.URL == req.Initiator.URL
	checks := discoveryChecks{
		priorityHinted: req.FetchPriorityHint == "high",
		discoverable:   req.IsLinkPreload || initiatedByDoc,
		eager:          score.Event.LoadingAttr != "lazy" || req.IsLinkPreload,
		preload:        req.IsLinkPreload,
	}
	if !checks.priorityHinted || !checks.discoverable || !checks.eager {
		in.State = stateFail
	}
	in.requests = []*model.Request{req}
	earliest, ok := model.DocFirstByte(doc)
	if ok && req.TS-earliest != 0 {
		in.overlays = []model.Window{reqWindow(req), {Min: earliest, Max: req.TS}}
	}
	in.detail = func(f *formatter) string {
		if !ok {
			return ""
		}
		return f.lcpDiscovery(c, checks)
	}
	return in
}

type discoveryChecks struct {
	priorityHinted, discoverable, eager, preload bool
}

func (c *context) renderBlocking() *insight {
	in := &insight{Name: "RenderBlocking", State: statePass}
	in.detail = func(f *formatter) string { return f.renderBlocking(in.requests) }
	if c.nav == nil {
		return in
	}
	ms, _ := c.navMetrics()
	fp := ms[model.MetricFP]
	if fp == nil {
		return in
	}
	for _, r := range c.a.Net.ByTime {
		if r.Frame != c.frame || !r.BlocksRendering() || r.FinishTime > fp.Event.TS {
			continue
		}
		if r.RenderBlocking == "in_body_parser_blocking" {
			blockingScript := r.ResourceType == "Script" && r.Priority == "High"
			if r.Priority != "VeryHigh" && !blockingScript {
				continue
			}
		}
		if c.a.Meta.NavigationFor(r.TS, c.frame) == c.nav {
			in.requests = append(in.requests, r)
		}
	}
	if c.lantern {
		fcp := 0.0
		doc := c.a.Net.ByID[c.nav.ID]
		for _, r := range in.requests {
			if r == doc || r.FinishTime-r.SendStartTime < 50_000 {
				continue
			}
			fcp = math.Max(fcp, (r.FinishTime-doc.FinishTime)/1000)
		}
		fcp = roundTo(fcp, 10)
		lcp := fcp
		if c.a.Load.LCPRequest[c.nav.ID] != nil {
			lcp = 0
		}
		in.Savings = []saving{{"FCP", fcp}, {"LCP", lcp}}
	}
	model.SortStable(in.requests, func(a, b *model.Request) bool { return a.Dur > b.Dur })
	for _, r := range in.requests {
		in.overlays = append(in.overlays, reqWindow(r))
	}
	if len(in.requests) > 0 {
		in.State = stateFail
	}
	return in
}

func roundTo(v, step float64) float64 { return math.Round(v/step) * step }

// compressionSavings estimates what compressing an uncompressed response
// would save, as DevTools guesses it from the type; 0 under 1400 bytes.
func compressionSavings(r *model.Request) float64 {
	if isCompressed(r) {
		return 0
	}
	size := r.DecodedBodyLength
	var est float64
	switch r.MimeType {
	case "text/css":
		est = jsRound(size * 0.8)
	case "text/html", "text/javascript":
		est = jsRound(size * 0.67)
	case "text/plain", "text/xml", "text/x-component", "application/javascript", "application/json",
		"application/manifest+json", "application/vnd.api+json", "application/xml", "application/xhtml+xml",
		"application/rss+xml", "application/atom+xml", "application/vnd.ms-fontobject", "application/x-font-ttf",
		"application/x-font-opentype", "application/x-font-truetype", "image/svg+xml", "image/x-icon",
		"image/vnd.microsoft.icon", "font/ttf", "font/eot", "font/otf", "font/opentype":
		est = jsRound(size * 0.5)
	}
	if est < 1400 {
		return 0
	}
	return est
}

var encodingHeader = regexp.MustCompile(`(?i)^(content-encoding|x-content-encoding-over-network|x-original-content-encoding)$`)

func isCompressed(r *model.Request) bool {
	for _, h := range r.Headers {
		if encodingHeader.MatchString(h.Name) {
			switch h.Value {
			case "gzip", "br", "deflate", "zstd":
				return true
			}
		}
	}
	return false
}

type latencyChecks struct {
	noRedirects, fastServer, compressed bool
	serverResponse                      float64 // ms
	redirectDuration                    float64 // ms
	uncompressedBytes                   float64
}

func (c *context) documentLatency() *insight {
	in := &insight{Name: "DocumentLatency", State: statePass}
	if c.nav == nil {
		return in
	}
	doc := c.a.Net.ByID[c.nav.ID]
	if doc == nil {
		return in
	}
	if doc.Timing == nil {
		return nil // DevTools throws: the document has no timings
	}
	server := jsRound(doc.ServerResponseTime / 1000)
	savings := 0.0
	if server > 600 {
		savings = math.Max(server-100, 0)
	}
	redirect := jsRound(doc.RedirectionDuration / 1000)
	savings += redirect
	ch := latencyChecks{noRedirects: redirect == 0, fastServer: server <= 600, serverResponse: server,
		redirectDuration: redirect, uncompressedBytes: compressionSavings(doc)}
	ch.compressed = ch.uncompressedBytes == 0
	if !ch.noRedirects || !ch.fastServer || !ch.compressed {
		in.State = stateFail
	}
	in.Savings = []saving{{"FCP", savings}, {"LCP", savings}}
	in.WastedBytes = ch.uncompressedBytes
	in.requests = []*model.Request{doc}
	// The windows DevTools outlines. The server-response one is measured from
	// the request's sendEnd offset, not from its start, as DevTools does.
	if redirect != 0 {
		in.overlays = append(in.overlays, model.Window{Min: doc.TS, Max: doc.TS + redirect*1000})
	}
	if !ch.fastServer {
		sendEnd := doc.Timing.SendEnd * 1000
		in.overlays = append(in.overlays, model.Window{Min: sendEnd, Max: sendEnd + server*1000})
	}
	if ch.uncompressedBytes != 0 {
		download := 0.0
		if doc.Timing != nil {
			download = doc.FinishTime - doc.DownloadStart
		}
		in.overlays = append(in.overlays, model.Window{Min: doc.DownloadStart, Max: doc.DownloadStart + download})
	}
	in.overlays = append(in.overlays, reqWindow(doc))
	in.detail = func(f *formatter) string { return f.documentLatency(c, doc, ch) }
	return in
}

// rootCauses are what may have caused a layout shift.
type rootCauses struct {
	iframes       []iframeCause
	fonts         []*model.Request
	animations    []*model.Animation
	unsizedImages []*model.PaintImage
}

type iframeCause struct{ frame, url string }

func (c *context) clsCulprits() *insight {
	in := &insight{Name: "CLSCulprits", State: statePass}
	key := ""
	if c.nav != nil {
		key = c.nav.ID
	}
	clusters := c.a.Shifts.ByNav[key]
	var worst *model.Cluster
	for _, cl := range clusters {
		if worst == nil || cl.Score > worst.Score {
			worst = cl
		}
	}
	var shifts []*model.Shift
	for _, cl := range clusters {
		shifts = append(shifts, cl.Shifts...)
	}
	causes := c.shiftCauses(shifts)
	in.clusters, in.shifts = clusters, causes
	if worst != nil {
		if worst.Score < 0.1 {
			in.State = stateInformative
		} else {
			in.State = stateFail
		}
		if len(worst.Shifts) > 0 {
			first := worst.Shifts[0].TS
			in.overlays = []model.Window{{Min: worst.TS, Max: worst.TS + worst.Dur}, {Min: first, Max: first}}
		}
	}
	in.detail = func(f *formatter) string { return f.clsCulprits(c, worst, causes) }
	return in
}

// culprits is the search for the root causes of a set's layout shifts, as
// DevTools' CLSCulprits insight makes it: a cause is tied to the shifts
// that the first pre-paint after it produced.
type culprits struct {
	c          *context
	prePaints  []model.Timed
	byPrePaint map[int][]*model.Shift // the shifts each pre-paint produced
	causes     map[*model.Shift]*rootCauses
}

// shiftCauses finds the root causes of each of shifts: injected iframes,
// web fonts, unsized images and animations that could not run on the
// compositor.
func (c *context) shiftCauses(shifts []*model.Shift) map[*model.Shift]*rootCauses {
	s := &culprits{c: c, byPrePaint: map[int][]*model.Shift{}, causes: map[*model.Shift]*rootCauses{}}
	for _, p := range c.a.Shifts.PrePaints {
		if c.inSet(p) {
			s.prePaints = append(s.prePaints, p)
		}
	}
	for _, sh := range shifts {
		s.causes[sh] = &rootCauses{}
	}
	for pi, p := range s.prePaints {
		first := model.NearestFromBeginning(len(shifts), func(i int) bool { return shifts[i].TS >= p.TS })
		if first < 0 {
			continue
		}
		for _, sh := range shifts[first:] {
			if sh.TS >= p.TS && sh.TS <= p.TS+p.Dur {
				s.byPrePaint[pi] = append(s.byPrePaint[pi], sh)
			}
			if sh.TS > p.TS+p.Dur {
				break
			}
		}
	}
	s.iframes()
	s.fonts()
	s.unsizedImages()
	s.animations()
	return s.causes
}

// inSetOnly returns the items whose span overlaps the set's bounds, in
// their order.
func inSetOnly[T any](c *context, items []T, span func(T) (ts, dur float64)) []T {
	var out []T
	for _, it := range items {
		if ts, dur := span(it); model.InBounds(ts, dur, c.bounds) {
			out = append(out, it)
		}
	}
	return out
}

// inSet reports whether t overlaps the set's bounds.
func (c *context) inSet(t model.Timed) bool { return model.InBounds(t.TS, t.Dur, c.bounds) }

// nextPrePaint returns the index of the first pre-paint after an event
// that starts at ts and lasts dur, or -1.
func (s *culprits) nextPrePaint(ts, dur float64) int {
	return model.NearestFromBeginning(len(s.prePaints), func(i int) bool { return s.prePaints[i].TS > ts+dur })
}

// blame adds a cause to the shifts an event (from ts, lasting dur) may
// have caused: those of the next pre-paint, when the event ended within
// rootCauseWindow before it.
func (s *culprits) blame(ts, dur float64, add func(*rootCauses)) {
	pi := s.nextPrePaint(ts, dur)
	if pi < 0 {
		return
	}
	if target := s.prePaints[pi]; ts+dur >= target.TS || ts+dur < target.TS-model.RootCauseWindow {
		return
	}
	for _, shift := range s.byPrePaint[pi] {
		add(s.causes[shift])
	}
}

// iframes blames the shifts after an iframe was injected on it.
func (s *culprits) iframes() {
	sh := s.c.a.Shifts
	for _, f := range sh.ChildFrames {
		if !s.c.inSet(f) {
			continue
		}
		pi := s.nextPrePaint(f.TS, f.Dur)
		if pi < 0 {
			continue
		}
		for _, shift := range s.byPrePaint[pi] {
			for _, d := range sh.DOMLoading {
				if !s.c.inSet(d.Timed) {
					continue
				}
				if d.TS >= f.TS && d.TS <= f.TS+f.Dur {
					if d.Frame != "" {
						s.causes[shift].iframes = append(s.causes[shift].iframes, iframeCause{frame: d.Frame, url: s.c.frameURL(d.Frame)})
					}
					break
				}
			}
		}
	}
}

// frameURL returns the URL of a frame as its first renderer process first
// showed it, or "".
func (c *context) frameURL(frame string) string {
	if fp := c.a.Meta.RendererByFrame[frame]; fp != nil && len(fp.Order) > 0 {
		if ws := fp.ByPID[fp.Order[0]]; len(ws) > 0 {
			return ws[0].Frame.URL
		}
	}
	return ""
}

// fonts blames shifts on the web fonts that finished loading just before.
func (s *culprits) fonts() {
	for _, r := range s.c.a.Net.ByTime {
		if !model.InBounds(r.TS, r.Dur, s.c.bounds) || r.ResourceType != "Font" || !strings.HasPrefix(r.MimeType, "font") {
			continue
		}
		s.blame(r.TS, r.Dur, func(rc *rootCauses) { rc.fonts = append(rc.fonts, r) })
	}
}

// unsizedImages blames a pre-paint's shifts on the image painted next
// when that image has no explicit size.
func (s *culprits) unsizedImages() {
	sh := s.c.a.Shifts
	var paints []*model.PaintImage
	for _, p := range sh.PaintImages {
		if s.c.inSet(p.Timed) {
			paints = append(paints, p)
		}
	}
	for pi := range s.prePaints {
		shifts, ok := s.byPrePaint[pi]
		if !ok {
			continue
		}
		p := s.prePaints[pi]
		ni := model.NearestFromBeginning(len(paints), func(i int) bool { return paints[i].TS > p.TS+p.Dur })
		if ni < 0 {
			continue
		}
		img := paints[ni]
		matched := false
		for _, u := range sh.Unsized {
			if s.c.inSet(u.Timed) && u.NodeID == img.NodeID {
				matched = true
				break
			}
		}
		if !matched {
			continue
		}
		for _, shift := range shifts {
			s.causes[shift].unsizedImages = append(s.causes[shift].unsizedImages, img)
		}
	}
}

// animations blames shifts on animations that could not run on the
// compositor and ended just before.
func (s *culprits) animations() {
	for _, an := range s.c.a.Shifts.Anims {
		if !s.c.inSet(an.Timed) {
			continue
		}
		failed := false
		for _, f := range an.Failures {
			if f.Mask != 0 {
				failed = true
			}
		}
		if !failed {
			continue
		}
		s.blame(an.TS, an.Dur, func(rc *rootCauses) { rc.animations = append(rc.animations, an) })
	}
}

// chainNode is a node of the critical request tree.
type chainNode struct {
	req      *model.Request
	time     float64 // from the first request of the chain to this one's end
	children []*chainNode
	longest  bool
	copy     bool // a redirect hop: DevTools' copy of the request, with no event key
}

func (c *context) networkDependencyTree() *insight {
	in := &insight{Name: "NetworkDependencyTree", State: statePass}
	var roots []*chainNode
	maxTime := 0.0
	if c.nav != nil && c.lantern {
		roots, maxTime = c.criticalChains(in)
	}
	in.detail = func(f *formatter) string { return f.networkDependencyTree(c, roots, maxTime, in.State == stateFail) }
	var walk func([]*chainNode)
	walk = func(ns []*chainNode) {
		for _, n := range ns {
			in.overlays = append(in.overlays, reqWindow(n.req))
			walk(n.children)
		}
	}
	walk(roots)
	return in
}

// criticalChains builds the tree of critical request chains: requests
// DevTools deems critical (the document; render-blocking or high-priority
// scripts, styles and fonts), each under the request that initiated it.
// DevTools builds it from its page dependency graph; this follows the
// initiators, which that graph is made from.
func (c *context) criticalChains(in *insight) ([]*chainNode, float64) {
	doc := c.a.Net.ByID[c.nav.ID]
	end := c.a.Meta.BoundsMax
	if c.bounds.Max < end {
		end = c.bounds.Max
	}
	critical := func(r *model.Request) bool {
		if r.ID == c.nav.ID {
			return true
		}
		if r.IsLinkPreload {
			return false
		}
		switch r.ResourceType {
		case "Image", "XHR", "Fetch", "EventSource":
			return false
		}
		if (r.ResourceType == "Document" && r.Frame != c.frame) || strings.HasPrefix(r.MimeType, "image/") {
			return false
		}
		if initiatorURL(r) == "" {
			return false
		}
		return r.HighPriority() || r.BlocksRendering()
	}
	var roots []*chainNode
	maxTime := 0.0
	var longest []*chainNode
	for _, r := range c.a.Net.ByTime {
		if r.TS < c.nav.TS || r.TS >= end || !critical(r) {
			continue
		}
		// The path from the document down to r, each request repeated once
		// per redirect it went through (DevTools' graph has a node per hop).
		var chain []*model.Request
		ok := true
		seen := map[*model.Request]bool{}
		for cur := r; cur != nil; cur = c.a.Net.InitiatorOf[cur] {
			if seen[cur] || !critical(cur) {
				ok = false
				break
			}
			seen[cur] = true
			chain = append(chain, cur)
			if cur == doc {
				break
			}
		}
		if !ok {
			continue
		}
		if chain[len(chain)-1] != doc {
			chain = append(chain, doc)
		}
		// DevTools' graph has a node per redirect hop, each carrying a copy
		// of the request; a hop has no event of its own.
		type hop struct {
			req  *model.Request
			copy bool
		}
		var path []hop
		for i := len(chain) - 1; i >= 0; i-- {
			for range chain[i].Redirects {
				path = append(path, hop{chain[i], true})
			}
			path = append(path, hop{chain[i], false})
		}
		// Its traversal reaches each hop of r in turn, and adds the chain
		// to each.
		for end := len(path) - len(r.Redirects); end <= len(path); end++ {
			sub := path[:end]
			if len(sub) >= 2 {
				in.State = stateFail
			}
			first, last := sub[0].req, sub[len(sub)-1].req
			total := last.TS + last.Dur - first.TS
			nodes := &roots
			var pathNodes []*chainNode
			for depth, h := range sub {
				var found *chainNode
				for _, n := range *nodes {
					if n.req == h.req && n.copy == h.copy && (depth == 0 || pathNodes[depth-1] != n) {
						found = n
						break
					}
				}
				if found == nil {
					found = &chainNode{req: h.req, copy: h.copy, time: h.req.TS + h.req.Dur - first.TS}
					*nodes = append(*nodes, found)
				}
				pathNodes = append(pathNodes, found)
				nodes = &found.children
			}
			if total > maxTime {
				maxTime, longest = total, pathNodes
			}
		}
	}
	for _, n := range longest {
		n.longest = true
	}
	var maxLeaf func(n *chainNode) float64
	maxLeaf = func(n *chainNode) float64 {
		if len(n.children) == 0 {
			return n.time
		}
		best := maxLeaf(n.children[0])
		for _, ch := range n.children {
			if t := maxLeaf(ch); t > best {
				best = t
			}
		}
		return best
	}
	var sortRec func([]*chainNode)
	sortRec = func(ns []*chainNode) {
		for _, n := range ns {
			model.SortStable(n.children, func(a, b *chainNode) bool { return maxLeaf(a) > maxLeaf(b) })
			sortRec(n.children)
		}
	}
	sortRec(roots)
	return roots, maxTime
}

func initiatorURL(r *model.Request) string {
	if r.Initiator != nil && r.Initiator.URL != "" {
		return r.Initiator.URL
	}
	if r.StackTop != nil {
		return r.StackTop.URL
	}
	return ""
}

// cacheable reports whether a request could have been cached: a static
// resource with a status a cache keeps, fetched over the network.
func cacheable(r *model.Request) bool {
	switch r.Protocol {
	case "blob", "data", "intent", "file", "filesystem", "chrome-extension":
		return false
	}
	switch r.StatusCode {
	case 200, 203, 206:
	default:
		return false
	}
	switch r.ResourceType {
	case "Font", "Image", "Media", "Script", "Stylesheet":
		return true
	}
	return false
}

type cacheEntry struct {
	req    *model.Request
	ttl    float64
	wasted float64
}

func (c *context) cache() *insight {
	in := &insight{Name: "Cache", State: statePass}
	var entries []cacheEntry
	for _, r := range c.a.Net.ByTime {
		if !model.InBounds(r.TS, r.Dur, c.bounds) || r.Headers == nil || !cacheable(r) {
			continue
		}
		combined := map[string]string{}
		for _, h := range r.Headers {
			n := strings.ToLower(h.Name)
			if v, ok := combined[n]; ok && v != "" {
				combined[n] = v + ", " + h.Value
			} else {
				combined[n] = h.Value
			}
		}
		cc, hasCC := combined["cache-control"]
		directives := parseCacheControl(cc, hasCC && cc != "")
		if (cc == "" && strings.Contains(combined["pragma"], "no-cache")) ||
			(directives != nil && (directives["must-revalidate"] || directives["no-cache"] || directives["no-store"] || directives["private"])) {
			continue
		}
		ttl, known := cacheLifetime(r.Headers, directives, combined)
		if known && (math.IsInf(ttl, 0) || math.IsNaN(ttl) || ttl <= 0) {
			continue
		}
		if !known {
			ttl = 0
		}
		if ttl/86400 >= 30 {
			continue
		}
		p := cacheHitProbability(ttl)
		if p > 0.925 {
			continue
		}
		wasted := (1 - p) * r.EncodedDataLength
		entries = append(entries, cacheEntry{req: r, ttl: ttl, wasted: wasted})
		in.WastedBytes += wasted
	}
	model.SortStable(entries, func(a, b cacheEntry) bool {
		if a.req.DecodedBodyLength != b.req.DecodedBodyLength {
			return a.req.DecodedBodyLength > b.req.DecodedBodyLength
		}
		return a.ttl < b.ttl
	})
	for _, e := range entries {
		in.requests = append(in.requests, e.req)
		in.overlays = append(in.overlays, reqWindow(e.req))
	}
	if len(entries) > 0 {
		in.State = stateFail
	}
	in.Savings = c.wastedBytesSavings(in.WastedBytes)
	in.detail = func(f *formatter) string { return f.cache(entries) }
	return in
}

// parseCacheControl reads the directives DevTools looks at; nil without a
// header.
func parseCacheControl(h string, present bool) map[string]bool {
	if !present {
		return nil
	}
	out := map[string]bool{}
	for _, d := range strings.Split(h, ",") {
		k, _, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch k = strings.TrimSpace(k); k {
		case "no-cache", "no-store", "must-revalidate", "private":
			out[k] = true
		}
	}
	return out
}

var maxAgeExp = regexp.MustCompile(`^\s*max-age\s*=\s*(.*)$`)

// cacheLifetime returns a response's cache lifetime in seconds from its
// max-age or expires header; known is false when it has neither.
func cacheLifetime(headers []model.Header, directives map[string]bool, combined map[string]string) (float64, bool) {
	if directives != nil {
		for _, d := range strings.Split(combined["cache-control"], ",") {
			d = strings.TrimSpace(d)
			k, v, _ := strings.Cut(d, "=")
			if strings.TrimSpace(k) != "max-age" {
				continue
			}
			if n, ok := parseIntPrefix(strings.TrimSpace(v)); ok {
				return n, true
			}
		}
	}
	for _, h := range headers {
		if h.Name != "expires" {
			continue
		}
		if h.Value == "" {
			break
		}
		t, err := time.Parse(time.RFC1123, h.Value)
		if err != nil {
			return 0, true
		}
		return math.Ceil(float64(time.Until(t).Milliseconds()) / 1000), true
	}
	return 0, false
}

// parseIntPrefix parses a leading integer as JavaScript's parseInt does.
func parseIntPrefix(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, false
	}
	n, err := strconv.ParseFloat(s[:j], 64)
	return n, err == nil
}

func cacheHitProbability(maxAge float64) float64 {
	deciles := []float64{0, 0.2, 1, 3, 8, 12, 24, 48, 72, 168, 8760, math.Inf(1)}
	hours := maxAge / 3600
	upper := -1
	for i, d := range deciles {
		if d >= hours {
			upper = i
			break
		}
	}
	if upper == len(deciles)-1 {
		return 1
	}
	if upper == 0 {
		return 0
	}
	x0, x1 := deciles[upper-1], deciles[upper]
	y0, y1 := float64(upper-1)/10, float64(upper)/10
	return y0 + (hours-x0)*(y1-y0)/(x1-x0)
}

// wastedBytesSavings estimates what fetching fewer bytes would save. DevTools
// simulates the page load with the bytes removed; tabhive divides them by
// the throughput the trace's own downloads reached, rounded as DevTools
// rounds (to 50 ms). Without a page load to measure, none.
func (c *context) wastedBytesSavings(wasted float64) []saving {
	if c.nav == nil || !c.lantern {
		return nil
	}
	if wasted == 0 {
		return []saving{{"FCP", 0}, {"LCP", 0}}
	}
	// The throughput is the bytes downloaded over the time during which
	// at least one download was under way, as DevTools' network analysis
	// estimates it.
	type span struct{ start, end float64 }
	var spans []span
	bytes := 0.0
	for _, r := range c.a.Net.ByTime {
		if r.Timing == nil || r.EncodedDataLength <= 0 || !model.InBounds(r.TS, r.Dur, c.bounds) {
			continue
		}
		if r.FinishTime > r.DownloadStart {
			bytes += r.EncodedDataLength
			spans = append(spans, span{r.DownloadStart, r.FinishTime})
		}
	}
	model.SortStable(spans, func(a, b span) bool { return a.start < b.start })
	micros, end := 0.0, math.Inf(-1)
	for _, sp := range spans {
		if sp.start > end {
			micros += sp.end - sp.start
			end = sp.end
		} else if sp.end > end {
			micros += sp.end - end
			end = sp.end
		}
	}
	if bytes == 0 || micros == 0 {
		return []saving{{"FCP", 0}, {"LCP", 0}}
	}
	ms := roundTo(wasted/(bytes/micros)/1000, 50)
	return []saving{{"FCP", ms}, {"LCP", ms}}
}

func (c *context) domSize() *insight {
	in := &insight{Name: "DOMSize", State: statePass}
	var layouts, styles []*model.LayoutEvent
	mainTID := int64(-1)
	if c.nav != nil {
		mainTID = c.nav.TID
	}
	for _, l := range c.a.Rend.LargeLayouts {
		if c.nav != nil && l.TID != mainTID {
			continue
		}
		if c.nav == nil && !c.isMainFrameMainThread(l.PID, l.TID) {
			continue
		}
		if !model.InBounds(l.TS, l.Dur, c.bounds) {
			continue
		}
		if l.Name == "Layout" && l.DirtyObjects > model.LayoutObjects {
			layouts = append(layouts, l)
		}
		if l.Name == "UpdateLayoutTree" && l.ElementCount > model.StyleElements {
			styles = append(styles, l)
		}
	}
	var maxStats *model.DOMStats
	for _, d := range c.a.Rend.DOMStats[c.frame] {
		if !model.InBounds(d.TS, d.Dur, c.bounds) {
			continue
		}
		if c.nav != nil && c.nav.PID != 0 && d.PID != c.nav.PID {
			continue
		}
		if maxStats == nil || d.TotalElements > maxStats.TotalElements {
			maxStats = d
		}
	}
	if len(layouts)+len(styles) > 0 {
		in.State = stateInformative
	}
	for _, l := range append(append([]*model.LayoutEvent{}, styles...), layouts...) {
		in.overlays = append(in.overlays, model.Window{Min: l.TS, Max: l.TS + l.Dur})
	}
	in.detail = func(f *formatter) string { return f.domSize(in.State, maxStats, layouts, styles) }
	return in
}

func (c *context) isMainFrameMainThread(pid, tid int64) bool {
	if c.a.Meta.ThreadNames[pid][tid] != "CrRendererMain" {
		return false
	}
	return c.a.Meta.HasRenderer(c.a.Meta.MainFrameID, pid)
}

// entitySummary is one site's share of the page load.
type entitySummary struct {
	entity   *model.Entity
	transfer float64 // bytes
	mainTime float64 // ms
	events   []model.Window
}

func (c *context) thirdParties() *insight {
	in := &insight{Name: "ThirdParties", State: statePass}
	firstURL := c.a.Meta.MainFrameURL
	if c.nav != nil && c.nav.DocumentLoaderURL != "" {
		firstURL = c.nav.DocumentLoaderURL
	}
	first := c.a.Entities.ForURL(firstURL)
	summaries := c.summarizeByEntity()
	for _, s := range summaries {
		if s.entity != first {
			in.State = stateInformative
			in.overlays = append(in.overlays, s.events...)
			in.sites = append(in.sites, s.entity.Name)
		}
	}
	in.detail = func(f *formatter) string { return f.thirdParties(summaries, first) }
	return in
}

// mainFrameThread returns the events of the main frame's renderer main
// thread, as DevTools picks it for third-party attribution, and its
// network events.
func (c *context) mainFrameThread() ([]model.ThreadEvent, []model.RecvEvent) {
	m := c.a.Meta
	fp := m.RendererByFrame[m.MainFrameID]
	if fp == nil {
		return nil, nil
	}
	for _, pid := range c.a.Rend.PIDOrder {
		ws, ok := fp.ByPID[pid]
		if !ok {
			continue
		}
		u := ""
		for _, w := range ws {
			if (u == "" || u == "about:blank") && strings.Contains(w.Frame.URL, ":") {
				u = w.Frame.URL
			}
		}
		if strings.HasPrefix(u, "about:") || strings.HasPrefix(u, "chrome:") {
			continue
		}
		for tid, name := range m.ThreadNames[pid] {
			if name == "CrRendererMain" {
				return c.a.Rend.Threads[pid][tid], c.a.Rend.Recv[pid][tid]
			}
		}
		return nil, nil
	}
	return nil, nil
}

// summarizeByEntity attributes the main thread's time and the bytes of its
// network events to sites, as DevTools' bottom-up tree grouped by entity
// does (without CPU samples: a script's time is its events' own).
func (c *context) summarizeByEntity() []*entitySummary {
	events, recv := c.mainFrameThread() // in time order (renderer.finalize)
	t := &entityTally{
		c:          c,
		siteEntity: map[uint32]*model.Entity{},
		self:       map[entityNode]float64{},
		transfer:   map[entityNode]float64{},
		windows:    map[*model.Entity][]model.Window{},
	}
	t.startMs, t.endMs = c.bounds.Min/1000, c.bounds.Max/1000
	t.start, t.end = t.startMs*1000, t.endMs*1000
	t.mainThread(events)
	t.bytes(append([]model.RecvEvent(nil), recv...))
	return t.summaries()
}

// entityTally is DevTools' bottom-up tree grouped by entity, for one set:
// the self time of each node (a function name on a site) and the bytes of
// each request, kept in the order the nodes first appear.
type entityTally struct {
	c          *context
	siteEntity map[uint32]*model.Entity // memo of entityOfSite
	self       map[entityNode]float64   // ms
	transfer   map[entityNode]float64   // bytes
	order      []entityNode
	windows    map[*model.Entity][]model.Window // the events outlined per site

	startMs, endMs float64 // the set's bounds, in ms
	start, end     float64 // the same, back in µs
}

// entityNode is a node of the tree: a function name or a request, on a
// site (nil when unknown).
type entityNode struct {
	id string
	e  *model.Entity
}

func (t *entityTally) entityOfSite(site uint32) *model.Entity {
	if site == 0 {
		return nil
	}
	if e, ok := t.siteEntity[site]; ok {
		return e
	}
	key := t.c.a.Rend.SiteKeys[site]
	u := key[2:]
	if strings.HasPrefix(key, "r:") {
		u = ""
		if r := t.c.a.Net.ByID[key[2:]]; r != nil {
			u = r.URL
		}
	}
	var e *model.Entity
	if u != "" {
		e = t.c.a.Entities.ForURL(u)
	}
	t.siteEntity[site] = e
	return e
}

func (t *entityTally) entityOfRequest(id string) *model.Entity {
	if r := t.c.a.Net.ByID[id]; r != nil {
		return t.c.a.Entities.ForURL(r.URL)
	}
	return nil
}

// note records the node's first appearance.
func (t *entityTally) note(k entityNode) {
	if _, ok := t.self[k]; !ok {
		if _, ok := t.transfer[k]; !ok {
			t.order = append(t.order, k)
		}
	}
}

// mainThread adds the self time of the main thread's events (in time
// order) within the set's bounds, clipped to them.
func (t *entityTally) mainThread(events []model.ThreadEvent) {
	type frame struct {
		k    entityNode
		self float64
		end  float64
	}
	var stack []frame
	pop := func() {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t.note(f.k)
		t.self[f.k] += f.self
	}
	for _, te := range events {
		evEnd := te.TS + te.Dur
		if evEnd < t.start {
			continue
		}
		if te.TS > t.end {
			break
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= te.TS {
			pop()
		}
		e := t.entityOfSite(te.Site)
		if e != nil && te.Dur >= 1000 {
			t.windows[e] = append(t.windows[e], model.Window{Min: te.TS, Max: evEnd})
		}
		d := math.Min(evEnd/1000, t.endMs) - math.Max(te.TS/1000, t.startMs)
		if len(stack) > 0 {
			stack[len(stack)-1].self -= d
		}
		stack = append(stack, frame{k: entityNode{t.c.a.Rend.Names[te.Name], e}, self: d, end: evEnd})
	}
	for len(stack) > 0 {
		pop()
	}
}

// bytes adds each request's network events, in time order, as DevTools
// tallies them (received data adds up; the finish or the response, when
// it carries a size, replaces the tally; a cache hit counts nothing).
func (t *entityTally) bytes(recv []model.RecvEvent) {
	model.SortStable(recv, func(a, b model.RecvEvent) bool { return a.TS < b.TS })
	cacheHit := map[string]bool{}
	for _, re := range recv {
		if re.Kind == 3 {
			cacheHit[re.ReqID] = re.CacheHit
		}
	}
	for _, re := range recv {
		if re.TS < t.start || re.TS > t.end {
			continue
		}
		k := entityNode{"req:" + re.ReqID, t.entityOfRequest(re.ReqID)}
		t.note(k)
		switch {
		case re.Kind == 1:
			if cacheHit[re.ReqID] {
				t.transfer[k] = 0
			} else {
				t.transfer[k] += re.Encoded
			}
		case re.Kind == 2 && re.Encoded == 0 && cacheHit[re.ReqID]:
			t.transfer[k] = 0
		case re.Encoded > 0:
			t.transfer[k] = re.Encoded
		}
	}
}

// summaries sums the nodes by site, in the order the sites first appear,
// with the events to outline for each.
func (t *entityTally) summaries() []*entitySummary {
	var out []*entitySummary
	byEntity := map[*model.Entity]*entitySummary{}
	for _, k := range t.order {
		if t.self[k] <= 0 && t.transfer[k] <= 0 {
			continue
		}
		if k.e == nil {
			continue
		}
		s := byEntity[k.e]
		if s == nil {
			s = &entitySummary{entity: k.e}
			byEntity[k.e] = s
			out = append(out, s)
		}
		s.mainTime += t.self[k]
		s.transfer += t.transfer[k]
	}
	// Network requests count toward their site's outlined events too.
	for _, r := range t.c.a.Net.ByTime {
		if r.Dur < 1000 {
			continue
		}
		if e := t.c.a.Entities.ForURL(r.URL); e != nil {
			t.windows[e] = append(t.windows[e], reqWindow(r))
		}
	}
	for _, s := range out {
		s.events = t.windows[s.entity]
	}
	return out
}

// reflowData is the forced reflows of one call frame.
type reflowData struct {
	frame  *model.CallFrame // nil when no script is known
	total  float64
	events []model.Window // the top-level calls, for a top-level frame
}

// sumByFrame sums the reflows' durations by the call frame frameOf gives
// each, in the order the frames first appear. Reflows without a frame are
// summed under no frame when unattributed is true, else left out; add, if
// not nil, sees each reflow with its frame's sum.
func sumByFrame(events []*model.LayoutEvent, frameOf func(*model.LayoutEvent) *model.CallFrame, unattributed bool, add func(*reflowData, *model.LayoutEvent)) []*reflowData {
	var out []*reflowData
	byID := map[string]*reflowData{}
	for _, l := range events {
		fr := frameOf(l)
		id := "UNATTRIBUTED"
		if fr != nil {
			id = callFrameID(fr)
		} else if !unattributed {
			continue
		}
		d := byID[id]
		if d == nil {
			d = &reflowData{frame: fr}
			byID[id] = d
			out = append(out, d)
		}
		d.total += l.Dur
		if add != nil {
			add(d, l)
		}
	}
	return out
}

func (c *context) forcedReflow() *insight {
	in := &insight{Name: "ForcedReflow", State: statePass}
	var events []*model.LayoutEvent
	for _, l := range c.a.Rend.ForcedReflows {
		if l.Frame == c.frame && model.InBounds(l.TS, l.Dur, c.bounds) {
			events = append(events, l)
		}
	}
	aggregated := sumByFrame(events, func(l *model.LayoutEvent) *model.CallFrame { return l.StackTop }, true, nil)
	// The top-level function that spent the most time forcing reflows.
	calls := c.a.Rend.TopLevelCalls
	tops := sumByFrame(events, func(l *model.LayoutEvent) *model.CallFrame { return l.TopLevel }, false, func(d *reflowData, l *model.LayoutEvent) {
		if w, ok := calls[l.TopLevelEvent]; ok {
			d.events = append(d.events, w)
		}
	})
	var top *reflowData
	for _, t := range tops {
		if top == nil || t.total > top.total {
			top = t
		}
	}
	if len(aggregated) > 0 {
		in.State = stateFail
	}
	if top != nil {
		in.overlays = append(in.overlays, top.events...)
		for _, l := range events {
			in.overlays = append(in.overlays, model.Window{Min: l.TS, Max: l.TS + l.Dur})
		}
	}
	in.detail = func(f *formatter) string {
		var topFrame *model.CallFrame
		topTotal := 0.0
		if top != nil {
			topFrame, topTotal = top.frame, top.total
		}
		return f.forcedReflow(top != nil, topFrame, topTotal, aggregated)
	}
	return in
}

func callFrameID(f *model.CallFrame) string {
	return model.JSString(f.ScriptID) + ":" + jsfmt.Number(f.LineNumber) + ":" + jsfmt.Number(f.ColumnNumber)
}

type duplicate struct {
	script *model.Script
	size   float64
}

type duplication struct {
	source     string
	duplicates []duplicate
	bytes      float64
}

func (c *context) duplicatedJavaScript() *insight {
	in := &insight{Name: "DuplicatedJavaScript", State: statePass}
	var scripts []*model.Script
	for _, s := range c.a.Scripts.Order {
		if s.Frame != c.frame || strings.HasPrefix(s.URL, "chrome-extension://") {
			continue
		}
		if s.TS >= c.bounds.Min && s.TS <= c.bounds.Max {
			scripts = append(scripts, s)
		}
	}
	type sourceData struct {
		source string
		size   int
	}
	bySource := map[string]*duplication{}
	var order []*duplication
	for _, s := range scripts {
		if s.Content == nil || s.Content.Len() == 0 || s.SourceMap == nil {
			continue
		}
		files, ok := s.GeneratedSizes()
		if !ok {
			continue
		}
		ratio := compressionRatio(s)
		for _, src := range s.SourceMap.Sources {
			if strings.Contains(src, "webpack/bootstrap") || strings.Contains(src, "(webpack)/buildin") || strings.Contains(src, "external ") {
				continue
			}
			n := normalizeSource(src)
			d := bySource[n]
			if d == nil {
				d = &duplication{source: n}
				bySource[n] = d
				order = append(order, d)
			}
			d.duplicates = append(d.duplicates, duplicate{script: s, size: jsRound(float64(files[src]) * ratio)})
		}
	}
	grouped := groupByNodeModules(order)
	dup := normalizeDuplication(order)
	groupedDup := normalizeDuplication(grouped)
	wasted := map[*model.Request]float64{}
	var wastedOrder []*model.Request
	seenScript := map[*model.Script]bool{}
	for _, d := range dup {
		for i, x := range d.duplicates {
			if !seenScript[x.script] && x.script.Request != nil {
				seenScript[x.script] = true
				in.requests = append(in.requests, x.script.Request)
				in.overlays = append(in.overlays, reqWindow(x.script.Request))
			}
			if i == 0 || x.script.Request == nil {
				continue
			}
			if _, ok := wasted[x.script.Request]; !ok {
				wastedOrder = append(wastedOrder, x.script.Request)
			}
			wasted[x.script.Request] += x.size
		}
	}
	for _, r := range wastedOrder {
		in.WastedBytes += wasted[r]
	}
	if len(dup) > 0 {
		in.State = stateFail
	}
	for _, d := range dup {
		in.duplicated = append(in.duplicated, d.source)
	}
	in.Savings = c.wastedBytesSavings(in.WastedBytes)
	in.detail = func(f *formatter) string { return f.duplicatedJavaScript(in.WastedBytes, groupedDup) }
	return in
}

func normalizeSource(s string) string {
	s = strings.TrimSuffix(s, "?")
	if i := strings.LastIndex(s, "node_modules"); i >= 0 {
		s = s[i:]
	}
	return s
}

func nodeModuleName(s string) string {
	parts := strings.Split(s, "node_modules/")
	s = parts[len(parts)-1]
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		slash = len(s)
	}
	if strings.HasPrefix(s, "@") {
		next := strings.IndexByte(s[slash+1:], '/')
		if next < 0 {
			return s
		}
		return s[:slash+1+next]
	}
	return s[:slash]
}

func groupByNodeModules(dups []*duplication) []*duplication {
	var out []*duplication
	byKey := map[string]*duplication{}
	for _, d := range dups {
		if !strings.Contains(d.source, "node_modules") {
			cp := &duplication{source: d.source, duplicates: append([]duplicate(nil), d.duplicates...)}
			out = append(out, cp)
			byKey[d.source] = cp
			continue
		}
		key := "node_modules/" + nodeModuleName(d.source)
		g := byKey[key]
		if g == nil {
			g = &duplication{source: key}
			byKey[key] = g
			out = append(out, g)
		}
		for _, x := range d.duplicates {
			found := false
			for i := range g.duplicates {
				if g.duplicates[i].script == x.script {
					g.duplicates[i].size += x.size
					found = true
					break
				}
			}
			if !found {
				g.duplicates = append(g.duplicates, duplicate{script: x.script, size: x.size})
			}
		}
	}
	return out
}

// normalizeDuplication keeps the sources found in more than one script,
// ignoring copies under 10% of the largest or under 512 bytes, sorted by
// the bytes the copies waste.
func normalizeDuplication(dups []*duplication) []*duplication {
	var out []*duplication
	for _, d := range dups {
		list := append([]duplicate(nil), d.duplicates...)
		model.SortStable(list, func(a, b duplicate) bool { return a.size > b.size })
		if len(list) > 1 {
			largest := list[0].size
			kept := list[:0]
			for _, x := range list {
				if x.size/largest >= 0.1 {
					kept = append(kept, x)
				}
			}
			list = kept
		}
		kept := list[:0]
		for _, x := range list {
			if x.size >= 512 {
				kept = append(kept, x)
			}
		}
		list = kept
		if len(list) <= 1 {
			continue
		}
		n := &duplication{source: d.source, duplicates: list}
		for _, x := range list[1:] {
			n.bytes += x.size
		}
		out = append(out, n)
	}
	model.SortStable(out, func(a, b *duplication) bool { return a.bytes > b.bytes })
	return out
}

// compressionRatio estimates how much a script shrank on the wire.
func compressionRatio(s *model.Script) float64 {
	r := s.Request
	if r == nil {
		return 1
	}
	length := r.DecodedBodyLength
	if length == 0 && s.Content != nil {
		length = float64(jsfmt.Length(s.Content.String()))
	}
	compressed := estimateCompressedSize(r, length, "Script")
	if length == 0 || compressed == 0 {
		return 1
	}
	return compressed / length
}

// servedFromCache reports whether a response came from the browser's
// cache, as DevTools guesses it.
func servedFromCache(r *model.Request) bool {
	if r.Headers == nil || r.Failed {
		return false
	}
	if r.StatusCode == 304 {
		return true
	}
	ratio := 0.0
	if r.DecodedBodyLength != 0 {
		ratio = r.EncodedDataLength / r.DecodedBodyLength
	}
	return ratio < 0.01
}

func estimateCompressedSize(r *model.Request, total float64, resourceType string) float64 {
	if r == nil || servedFromCache(r) {
		switch resourceType {
		case "Stylesheet":
			return jsRound(total * 0.2)
		case "Script", "Document":
			return jsRound(total * 0.33)
		}
		return jsRound(total * 0.5)
	}
	size := r.EncodedDataLength
	if !isCompressed(r) {
		size = r.DecodedBodyLength
	}
	if r.ResourceType == resourceType {
		return size
	}
	ratio := 1.0
	if r.DecodedBodyLength > 0 {
		ratio = size / r.DecodedBodyLength
	}
	return jsRound(total * ratio)
}

func (c *context) inpBreakdown() *insight {
	in := &insight{Name: "INPBreakdown", State: statePass}
	events := inSetOnly(c, c.a.Inter.NoNesting, func(it *model.Interaction) (float64, float64) { return it.TS, it.Dur })
	if len(events) > 0 {
		longest := map[int64]*model.Interaction{}
		var order []int64
		for _, it := range events {
			cur, ok := longest[it.InterID]
			if !ok {
				order = append(order, it.InterID)
			}
			if !ok || it.Dur > cur.Dur {
				longest[it.InterID] = it
			}
		}
		var norm []*model.Interaction
		for _, id := range order {
			norm = append(norm, longest[id])
		}
		model.SortStable(norm, func(a, b *model.Interaction) bool { return a.Dur > b.Dur })
		in.longest = norm[0]
		if norm[0].Dur <= model.LongInteraction {
			in.State = stateInformative
		} else {
			in.State = stateFail
		}
		it := norm[0]
		p1 := model.Window{Min: it.TS, Max: it.TS + it.InputDelay}
		p2 := model.Window{Min: p1.Max, Max: p1.Max + it.Processing}
		p3 := model.Window{Min: p2.Max, Max: p2.Max + it.Presentation}
		in.overlays = []model.Window{p1, p2, p3, {Min: it.TS, Max: it.TS + it.Dur}}
	}
	in.detail = func(f *formatter) string { return f.inpBreakdown(in.longest) }
	return in
}

// imageOptimization is one way an image could be smaller.
type imageOptimization struct {
	kind             string // ADJUST_COMPRESSION, MODERN_FORMAT_OR_COMPRESSION, VIDEO_FORMAT, RESPONSIVE_SIZE
	savings          float64
	fileW, fileH     float64
	displayW, displa float64
}

type optimizableImage struct {
	req           *model.Request
	optimizations []imageOptimization
	savings       float64
}

func (c *context) imageDelivery() *insight {
	in := &insight{Name: "ImageDelivery", State: statePass}
	const avifBytesPerPixel = 2.0 * 1 / 12
	paintsByURL := map[string][]*model.PaintImage{}
	for _, p := range c.a.Shifts.PaintImages {
		if p.URL != "" {
			paintsByURL[p.URL] = append(paintsByURL[p.URL], p)
		}
	}
	// The paint events by URL are kept in file order by DevTools.
	for u := range paintsByURL {
		model.SortStable(paintsByURL[u], func(a, b *model.PaintImage) bool { return a.Index < b.Index })
	}
	display := func(p *model.PaintImage) (float64, float64) {
		if p.Corrected {
			return p.CorrectedW, p.CorrectedH
		}
		return p.Width, p.Height
	}
	var images []*optimizableImage
	for _, r := range c.a.Net.ByTime {
		if !model.InBounds(r.TS, r.Dur, c.bounds) || r.ResourceType != "Image" || r.MimeType == "image/svg+xml" {
			continue
		}
		u := r.URL
		if len(r.Redirects) > 0 {
			u = r.Redirects[0].URL
		}
		paints := inSetOnly(c, paintsByURL[u], func(p *model.PaintImage) (float64, float64) { return p.TS, p.Dur })
		if len(paints) == 0 {
			continue
		}
		largest := paints[0]
		for _, p := range paints[1:] {
			lw, lh := display(largest)
			pw, ph := display(p)
			if !(lw*lh > pw*ph) {
				largest = p
			}
		}
		filePixels := largest.SrcWidth * largest.SrcHeight
		dw, dh := display(largest)
		imageBytes := math.Min(r.DecodedBodyLength, r.EncodedDataLength)
		bpp := imageBytes / filePixels
		var opts []imageOptimization
		if r.MimeType == "image/gif" {
			if imageBytes > 100*1024 {
				pct := jsRound(29.1*math.Log10(r.DecodedBodyLength)-100.7) / 100
				opts = append(opts, imageOptimization{kind: "VIDEO_FORMAT", savings: jsRound(imageBytes * pct)})
			}
		} else if bpp > avifBytesPerPixel {
			ideal := jsRound(avifBytesPerPixel * filePixels)
			kind := "MODERN_FORMAT_OR_COMPRESSION"
			if r.MimeType == "image/webp" || r.MimeType == "image/avif" {
				kind = "ADJUST_COMPRESSION"
			}
			opts = append(opts, imageOptimization{kind: kind, savings: imageBytes - ideal})
		}
		fromFormat := 0.0
		for _, o := range opts {
			fromFormat = math.Max(fromFormat, o.savings)
		}
		total := fromFormat
		wastedRatio := 1 - dw*dh/filePixels
		if wastedRatio > 0 && !largest.IsCSS {
			saving := jsRound(wastedRatio * imageBytes)
			breakpoints := largest.IsPicture || largest.SrcsetAttribute != ""
			if !breakpoints || saving > 12288 {
				total += jsRound(wastedRatio * (imageBytes - fromFormat))
				opts = append(opts, imageOptimization{kind: "RESPONSIVE_SIZE", savings: saving,
					fileW: jsRound(largest.SrcWidth), fileH: jsRound(largest.SrcHeight),
					displayW: jsRound(dw), displa: jsRound(dh)})
			}
		}
		kept := opts[:0]
		for _, o := range opts {
			if o.savings > 4096 {
				kept = append(kept, o)
			}
		}
		if len(kept) > 0 {
			images = append(images, &optimizableImage{req: r, optimizations: kept, savings: total})
		}
	}
	model.SortStable(images, func(a, b *optimizableImage) bool {
		if a.savings != b.savings {
			return a.savings > b.savings
		}
		return a.req.DecodedBodyLength > b.req.DecodedBodyLength
	})
	for _, img := range images {
		in.WastedBytes += img.savings
		in.requests = append(in.requests, img.req)
		in.overlays = append(in.overlays, reqWindow(img.req))
	}
	if len(images) > 0 {
		in.State = stateFail
	}
	in.Savings = c.wastedBytesSavings(in.WastedBytes)
	in.detail = func(f *formatter) string { return f.imageDelivery(in.WastedBytes, images) }
	return in
}

type fontIssue struct {
	name, display string
	req           *model.Request
	wasted        float64 // ms
}

func (c *context) fontDisplay() *insight {
	in := &insight{Name: "FontDisplay", State: statePass}
	var fonts []fontIssue
	display := regexp.MustCompile(`^(block|fallback|auto)$`)
	for _, f := range c.a.Shifts.Fonts {
		if !model.InBounds(f.Begin.TS, f.Begin.Dur, c.bounds) {
			continue
		}
		r := c.a.Net.ByID[f.RequestID]
		if r == nil || !display.MatchString(f.Display) {
			continue
		}
		wasted := math.Floor((r.FinishTime-r.SendStartTime)/1000*5) / 5
		if wasted == 0 {
			continue
		}
		wasted = math.Min(wasted, 3000)
		fonts = append(fonts, fontIssue{name: f.Name, display: f.Display, req: r, wasted: wasted})
	}
	model.SortStable(fonts, func(a, b fontIssue) bool { return a.wasted > b.wasted })
	savings := 0.0
	for _, f := range fonts {
		savings = math.Max(savings, f.wasted)
		in.requests = append(in.requests, f.req)
		in.overlays = append(in.overlays, reqWindow(f.req))
	}
	if len(fonts) > 0 {
		in.State = stateFail
		in.Savings = []saving{{"FCP", savings}}
	}
	in.detail = func(f *formatter) string { return f.fontDisplay(fonts) }
	return in
}

func (c *context) viewport() *insight {
	in := &insight{Name: "Viewport", State: statePass}
	var vp *model.MetaViewport
	for i := range c.a.Inter.Viewports {
		v := &c.a.Inter.Viewports[i]
		if v.Frame == c.frame && model.InBounds(v.TS, 0, c.bounds) {
			vp = v
			break
		}
	}
	var frames []model.CompositorFrame
	for _, f := range c.a.Inter.Frames {
		if f.Frame != c.frame || (vp != nil && f.TS < vp.TS) || !model.InBounds(f.TS, 0, c.bounds) {
			continue
		}
		frames = append(frames, f)
	}
	optimized := (*bool)(nil)
	if len(frames) > 0 {
		t := true
		optimized = &t
		for _, f := range frames {
			if !f.MobileOptimized {
				no := false
				optimized = &no
				var delays []float64
				for _, it := range c.a.Inter.OverThreshold() {
					if it.Category() == "POINTER" && it.InputDelay >= 50_000 {
						delays = append(delays, it.InputDelay)
						d := math.Min(it.InputDelay, 300_000)
						in.overlays = append(in.overlays, model.Window{Min: it.TS, Max: it.TS + d}, model.Window{Min: it.TS, Max: it.TS + it.Dur})
					}
				}
				maxDelay := 0.0
				for _, d := range delays {
					maxDelay = math.Max(maxDelay, d)
				}
				in.Savings = []saving{{"INP", math.Min(math.Max(maxDelay/1000, 0), 300)}}
				in.State = stateFail
				break
			}
		}
	}
	in.detail = func(f *formatter) string { return f.viewport(optimized, vp) }
	return in
}

func (c *context) modernHTTP() *insight {
	in := &insight{Name: "ModernHTTP", State: statePass}
	reqs := inSetOnly(c, c.a.Net.ByTime, func(r *model.Request) (float64, float64) { return r.TS, r.Dur })
	byOrigin := map[string]int{}
	for _, r := range reqs {
		u, err := url.Parse(r.URL)
		if err != nil {
			continue
		}
		switch r.ResourceType {
		case "Font", "Image", "Media", "Script", "Stylesheet":
		default:
			continue
		}
		// A tiny resource of a known third party would not count, but every
		// entity tabhive knows is one it made up from a domain, which
		// DevTools treats as unrecognized: it counts.
		if r.IsLocalhost() {
			continue
		}
		byOrigin[model.Origin(u.String())]++
	}
	seen := map[string]bool{}
	old := regexp.MustCompile(`(?i)HTTP/[01][.\d]?`)
	for _, r := range reqs {
		if seen[r.URL] || r.FromServiceWorker || !old.MatchString(r.Protocol) {
			continue
		}
		if byOrigin[model.Origin(r.URL)] < 6 {
			continue
		}
		seen[r.URL] = true
		in.requests = append(in.requests, r)
		in.overlays = append(in.overlays, reqWindow(r))
	}
	if len(in.requests) > 0 {
		in.State = stateFail
	}
	in.detail = func(f *formatter) string { return f.modernHTTP(in.requests) }
	return in
}

// relevantBounds is the union of an insight's windows, or the set's bounds.
func (in *insight) relevantBounds(set model.Window) model.Window {
	if len(in.overlays) == 0 {
		return set
	}
	w := in.overlays[0]
	for _, o := range in.overlays[1:] {
		w.Min = math.Min(w.Min, o.Min)
		w.Max = math.Max(w.Max, o.Max)
	}
	return w
}
