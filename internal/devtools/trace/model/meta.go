package model

import (
	"math"
	"strings"
)

// Window is a span of trace time in microseconds.
type Window struct{ Min, Max float64 }

// Range is the window's length.
func (w Window) Range() float64 { return w.Max - w.Min }

// Navigation is a navigationStart event of a frame.
type Navigation struct {
	Index             int
	TS                float64
	PID, TID          int64
	Frame             string
	ID                string // navigationId: the document request's id
	DocumentLoaderURL string
	OutermostMain     bool
}

// frameInfo is a frame as the browser reported it.
type frameInfo struct {
	Frame, URL, Name, Parent string
	ProcessID                int64
}

// processWindow is when a renderer process showed a frame's document.
type processWindow struct {
	Frame frameInfo
	win   Window
}

// frameProcesses holds the renderer processes of one frame, in the order
// they appeared (DevTools keeps them in insertion order, and picks the
// first where it needs one).
type frameProcesses struct {
	Order []int64
	ByPID map[int64][]*processWindow
}

// Meta follows the trace's processes, frames and navigations, as DevTools'
// meta handler does: which frame is the main one, which renderer showed
// which document when, and the trace's bounds.
type Meta struct {
	boundsMin, BoundsMax float64
	tracingStarted       float64 // TracingStartedInBrowser's ts, or -1

	MainFrameID, MainFrameURL string

	processNames map[int64]string
	ThreadNames  map[int64]map[int64]string

	RendererByFrame map[string]*frameProcesses
	framesByPID     map[int64]map[string]frameInfo

	navsByFrame  map[string][]*Navigation
	navsByID     map[string]*Navigation
	navOrder     []*Navigation // navsByID in insertion order
	FinalURLByID map[string]string
	MainNavs     []*Navigation

	dpr float64 // the main frame's device pixel ratio, 0 if unknown
}

func newMeta() *Meta {
	return &Meta{
		boundsMin:       math.Inf(1),
		BoundsMax:       math.Inf(-1),
		tracingStarted:  -1,
		processNames:    map[int64]string{},
		ThreadNames:     map[int64]map[int64]string{},
		RendererByFrame: map[string]*frameProcesses{},
		framesByPID:     map[int64]map[string]frameInfo{},
		navsByFrame:     map[string][]*Navigation{},
		navsByID:        map[string]*Navigation{},
		FinalURLByID:    map[string]string{},
	}
}

func (m *Meta) updateRendererProcessByFrame(ts float64, f frameInfo) {
	byFrame := m.framesByPID[f.ProcessID]
	if byFrame == nil {
		byFrame = map[string]frameInfo{}
		m.framesByPID[f.ProcessID] = byFrame
	}
	byFrame[f.Frame] = f
	fp := m.RendererByFrame[f.Frame]
	if fp == nil {
		fp = &frameProcesses{ByPID: map[int64][]*processWindow{}}
		m.RendererByFrame[f.Frame] = fp
	}
	list, ok := fp.ByPID[f.ProcessID]
	if !ok {
		fp.Order = append(fp.Order, f.ProcessID)
	}
	if n := len(list); n > 0 && list[n-1].Frame.URL == f.URL {
		return
	}
	fp.ByPID[f.ProcessID] = append(list, &processWindow{Frame: f, win: Window{Min: ts}})
}

type frameJSON struct {
	Frame                string `json:"frame"`
	URL                  string `json:"url"`
	Name                 string `json:"name"`
	Parent               string `json:"parent"`
	ProcessID            int64  `json:"processId"`
	IsInPrimaryMainFrame *bool  `json:"isInPrimaryMainFrame"`
	IsOutermostMainFrame *bool  `json:"isOutermostMainFrame"`
}

func (f frameJSON) info() frameInfo {
	return frameInfo{Frame: f.Frame, URL: f.URL, Name: f.Name, Parent: f.Parent, ProcessID: f.ProcessID}
}

// handle applies ev.
func (m *Meta) handle(ev *event) {
	switch ev.Ph {
	case "B", "E", "X", "I":
		if ev.TS != 0 && !strings.HasSuffix(ev.Name, "::UMA") {
			m.boundsMin = math.Min(m.boundsMin, ev.TS)
			m.BoundsMax = math.Max(m.BoundsMax, ev.TS+ev.Dur)
		}
	}
	switch ev.Name {
	case "process_name":
		var a struct {
			Name string `json:"name"`
		}
		if ev.Ph == "M" && ev.unmarshalArgs(&a) {
			m.processNames[ev.PID] = a.Name
		}
	case "thread_name":
		var a struct {
			Name string `json:"name"`
		}
		if ev.Ph == "M" && ev.unmarshalArgs(&a) {
			t := m.ThreadNames[ev.PID]
			if t == nil {
				t = map[int64]string{}
				m.ThreadNames[ev.PID] = t
			}
			t[ev.TID] = a.Name
		}
	case "PaintTimingVisualizer::Viewport":
		if m.dpr == 0 {
			var a struct {
				Data struct {
					DPR float64 `json:"dpr"`
				} `json:"data"`
			}
			if ev.unmarshalArgs(&a) {
				m.dpr = a.Data.DPR
			}
		}
	case "TracingStartedInBrowser":
		m.tracingStartedInBrowser(ev)
	case "FrameCommittedInBrowser":
		var a struct {
			Data *frameJSON `json:"data"`
		}
		if ev.unmarshalArgs(&a) && a.Data != nil {
			m.updateRendererProcessByFrame(ev.TS, a.Data.info())
		}
	case "CommitLoad":
		var a struct {
			Data *frameJSON `json:"data"`
		}
		if ev.unmarshalArgs(&a) && a.Data != nil {
			m.updateRendererProcessByFrame(ev.TS, frameInfo{ProcessID: ev.PID, Frame: a.Data.Frame, Name: a.Data.Name, URL: a.Data.URL})
		}
	case "navigationStart":
		m.navigationStart(ev)
	case "ResourceSendRequest":
		var a struct {
			Data struct {
				ResourceType string `json:"resourceType"`
				RequestID    string `json:"requestId"`
				URL          string `json:"url"`
			} `json:"data"`
		}
		if !ev.unmarshalArgs(&a) || a.Data.ResourceType != "Document" {
			return
		}
		if _, ok := m.navsByID[a.Data.RequestID]; ok {
			m.FinalURLByID[a.Data.RequestID] = a.Data.URL
		}
	case "RenderFrameHostImpl::DidCommitSameDocumentNavigation":
		m.sameDocumentNavigation(ev)
	}
}

// tracingStartedInBrowser notes the frames the trace started with, and
// which of them is the main frame.
func (m *Meta) tracingStartedInBrowser(ev *event) {
	m.tracingStarted = ev.TS
	var a struct {
		Data struct {
			Frames []frameJSON `json:"frames"`
		} `json:"data"`
	}
	ev.unmarshalArgs(&a)
	for _, f := range a.Data.Frames {
		m.updateRendererProcessByFrame(ev.TS, f.info())
		switch {
		case f.IsInPrimaryMainFrame != nil && f.IsOutermostMainFrame != nil:
			if *f.IsInPrimaryMainFrame && *f.IsOutermostMainFrame {
				m.MainFrameID, m.MainFrameURL = f.Frame, f.URL
			}
		case f.IsOutermostMainFrame != nil:
			if *f.IsOutermostMainFrame {
				m.MainFrameID, m.MainFrameURL = f.Frame, f.URL
			}
		case f.Parent == "" && f.URL != "":
			m.MainFrameID, m.MainFrameURL = f.Frame, f.URL
		}
	}
}

// navigationStart records a navigation of a frame.
func (m *Meta) navigationStart(ev *event) {
	var a struct {
		Frame string `json:"frame"`
		Data  *struct {
			DocumentLoaderURL    *string `json:"documentLoaderURL"`
			NavigationID         string  `json:"navigationId"`
			IsOutermostMainFrame bool    `json:"isOutermostMainFrame"`
		} `json:"data"`
	}
	if !ev.unmarshalArgs(&a) || a.Data == nil {
		return
	}
	if a.Data.DocumentLoaderURL != nil && *a.Data.DocumentLoaderURL == "" {
		return // not a valid navigation (DevTools' isNavigationStart)
	}
	if _, ok := m.navsByID[a.Data.NavigationID]; ok {
		return
	}
	url := ""
	if a.Data.DocumentLoaderURL != nil {
		url = *a.Data.DocumentLoaderURL
	}
	n := &Navigation{Index: ev.Index, TS: ev.TS, PID: ev.PID, TID: ev.TID, Frame: a.Frame,
		ID: a.Data.NavigationID, DocumentLoaderURL: url, OutermostMain: a.Data.IsOutermostMainFrame}
	m.navsByID[n.ID] = n
	m.navOrder = append(m.navOrder, n)
	m.FinalURLByID[n.ID] = url
	m.navsByFrame[a.Frame] = append(m.navsByFrame[a.Frame], n)
	if a.Frame == m.MainFrameID {
		m.MainNavs = append(m.MainNavs, n)
	}
}

// sameDocumentNavigation notes the URL a same-document navigation of the
// main frame moved to.
func (m *Meta) sameDocumentNavigation(ev *event) {
	if ev.Ph != "X" {
		return
	}
	var a struct {
		URL string `json:"url"`
		RFH struct {
			FrameType string `json:"frame_type"`
		} `json:"render_frame_host"`
	}
	if !ev.unmarshalArgs(&a) || a.RFH.FrameType != "PRIMARY_MAIN_FRAME" {
		return
	}
	key := ""
	if n := len(m.MainNavs); n > 0 {
		key = m.MainNavs[n-1].ID
	}
	m.FinalURLByID[key] = a.URL
}

func (m *Meta) finalize() {
	if m.tracingStarted >= 0 {
		m.boundsMin = m.tracingStarted
	}
	for _, fp := range m.RendererByFrame {
		var all []*processWindow
		for _, pid := range fp.Order {
			all = append(all, fp.ByPID[pid]...)
		}
		SortStable(all, func(a, b *processWindow) bool { return a.win.Min < b.win.Min })
		for i, w := range all {
			if i+1 < len(all) {
				w.win.Max = all[i+1].win.Min - 1
			} else {
				w.win.Max = m.BoundsMax
			}
		}
	}
	for frame, navs := range m.navsByFrame {
		if _, ok := m.RendererByFrame[frame]; ok {
			continue
		}
		delete(m.navsByFrame, frame)
		for _, n := range navs {
			delete(m.navsByID, n.ID)
		}
	}
	kept := m.navOrder[:0]
	for _, n := range m.navOrder {
		if m.navsByID[n.ID] == n {
			kept = append(kept, n)
		}
	}
	m.navOrder = kept
	if len(m.MainNavs) > 0 {
		first := m.MainNavs[0]
		if first.OutermostMain && first.DocumentLoaderURL != "" && first.TS-m.boundsMin < 500_000 {
			m.MainFrameURL = first.DocumentLoaderURL
		}
	}
}

// Bounds is the trace's time span.
func (m *Meta) Bounds() Window { return Window{Min: m.boundsMin, Max: m.BoundsMax} }

// NavigationFor returns the navigation of frame in force at ts: the last one
// that started at or before it.
func (m *Meta) NavigationFor(ts float64, frame string) *Navigation {
	navs := m.navsByFrame[frame]
	if len(navs) == 0 || frame == "" {
		return nil
	}
	i := nearestFromEnd(len(navs), func(i int) bool { return navs[i].TS <= ts })
	if i < 0 {
		return nil
	}
	return navs[i]
}

// ActiveURL returns the URL frame showed at ts.
func (m *Meta) ActiveURL(frame string, ts float64) string {
	fp := m.RendererByFrame[frame]
	if fp == nil {
		return ""
	}
	for _, pid := range fp.Order {
		for _, w := range fp.ByPID[pid] {
			if w.win.Min > ts || w.win.Max < ts {
				continue
			}
			return w.Frame.URL
		}
	}
	return ""
}

// HasRenderer reports whether process pid showed frame at some point.
func (m *Meta) HasRenderer(frame string, pid int64) bool {
	fp := m.RendererByFrame[frame]
	if fp == nil {
		return false
	}
	_, ok := fp.ByPID[pid]
	return ok
}
