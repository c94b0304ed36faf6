package trace

import (
	"math"
	"strings"
)

// window is a span of trace time in microseconds.
type window struct{ Min, Max float64 }

// Range is the window's length.
func (w window) Range() float64 { return w.Max - w.Min }

// navigation is a navigationStart event of a frame.
type navigation struct {
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
	frame frameInfo
	win   window
}

// frameProcesses holds the renderer processes of one frame, in the order
// they appeared (DevTools keeps them in insertion order, and picks the
// first where it needs one).
type frameProcesses struct {
	order []int64
	byPID map[int64][]*processWindow
}

// meta follows the trace's processes, frames and navigations, as DevTools'
// meta handler does: which frame is the main one, which renderer showed
// which document when, and the trace's bounds.
type meta struct {
	boundsMin, boundsMax float64
	tracingStarted       float64 // TracingStartedInBrowser's ts, or -1

	mainFrameID, mainFrameURL string

	processNames map[int64]string
	threadNames  map[int64]map[int64]string

	rendererByFrame map[string]*frameProcesses
	framesByPID     map[int64]map[string]frameInfo

	navsByFrame  map[string][]*navigation
	navsByID     map[string]*navigation
	navOrder     []*navigation // navsByID in insertion order
	finalURLByID map[string]string
	mainNavs     []*navigation

	dpr float64 // the main frame's device pixel ratio, 0 if unknown
}

func newMeta() *meta {
	return &meta{
		boundsMin:       math.Inf(1),
		boundsMax:       math.Inf(-1),
		tracingStarted:  -1,
		processNames:    map[int64]string{},
		threadNames:     map[int64]map[int64]string{},
		rendererByFrame: map[string]*frameProcesses{},
		framesByPID:     map[int64]map[string]frameInfo{},
		navsByFrame:     map[string][]*navigation{},
		navsByID:        map[string]*navigation{},
		finalURLByID:    map[string]string{},
	}
}

func (m *meta) updateRendererProcessByFrame(ts float64, f frameInfo) {
	byFrame := m.framesByPID[f.ProcessID]
	if byFrame == nil {
		byFrame = map[string]frameInfo{}
		m.framesByPID[f.ProcessID] = byFrame
	}
	byFrame[f.Frame] = f
	fp := m.rendererByFrame[f.Frame]
	if fp == nil {
		fp = &frameProcesses{byPID: map[int64][]*processWindow{}}
		m.rendererByFrame[f.Frame] = fp
	}
	list, ok := fp.byPID[f.ProcessID]
	if !ok {
		fp.order = append(fp.order, f.ProcessID)
	}
	if n := len(list); n > 0 && list[n-1].frame.URL == f.URL {
		return
	}
	fp.byPID[f.ProcessID] = append(list, &processWindow{frame: f, win: window{Min: ts}})
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

// handle applies ev; it reports whether ev was fully handled here (the
// meta handler returns early for some events, but others see every event).
func (m *meta) handle(ev *event) {
	switch ev.Ph {
	case "B", "E", "X", "I":
		if ev.TS != 0 && !strings.HasSuffix(ev.Name, "::UMA") {
			m.boundsMin = math.Min(m.boundsMin, ev.TS)
			m.boundsMax = math.Max(m.boundsMax, ev.TS+ev.Dur)
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
			t := m.threadNames[ev.PID]
			if t == nil {
				t = map[int64]string{}
				m.threadNames[ev.PID] = t
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
					m.mainFrameID, m.mainFrameURL = f.Frame, f.URL
				}
			case f.IsOutermostMainFrame != nil:
				if *f.IsOutermostMainFrame {
					m.mainFrameID, m.mainFrameURL = f.Frame, f.URL
				}
			case f.Parent == "" && f.URL != "":
				m.mainFrameID, m.mainFrameURL = f.Frame, f.URL
			}
		}
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
		n := &navigation{Index: ev.Index, TS: ev.TS, PID: ev.PID, TID: ev.TID, Frame: a.Frame,
			ID: a.Data.NavigationID, DocumentLoaderURL: url, OutermostMain: a.Data.IsOutermostMainFrame}
		m.navsByID[n.ID] = n
		m.navOrder = append(m.navOrder, n)
		m.finalURLByID[n.ID] = url
		m.navsByFrame[a.Frame] = append(m.navsByFrame[a.Frame], n)
		if a.Frame == m.mainFrameID {
			m.mainNavs = append(m.mainNavs, n)
		}
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
			m.finalURLByID[a.Data.RequestID] = a.Data.URL
		}
	case "RenderFrameHostImpl::DidCommitSameDocumentNavigation":
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
		if n := len(m.mainNavs); n > 0 {
			key = m.mainNavs[n-1].ID
		}
		m.finalURLByID[key] = a.URL
	}
}

func (m *meta) finalize() {
	if m.tracingStarted >= 0 {
		m.boundsMin = m.tracingStarted
	}
	for _, fp := range m.rendererByFrame {
		var all []*processWindow
		for _, pid := range fp.order {
			all = append(all, fp.byPID[pid]...)
		}
		sortStable(all, func(a, b *processWindow) bool { return a.win.Min < b.win.Min })
		for i, w := range all {
			if i+1 < len(all) {
				w.win.Max = all[i+1].win.Min - 1
			} else {
				w.win.Max = m.boundsMax
			}
		}
	}
	for frame, navs := range m.navsByFrame {
		if _, ok := m.rendererByFrame[frame]; ok {
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
	if len(m.mainNavs) > 0 {
		first := m.mainNavs[0]
		if first.OutermostMain && first.DocumentLoaderURL != "" && first.TS-m.boundsMin < 500_000 {
			m.mainFrameURL = first.DocumentLoaderURL
		}
	}
}

// bounds is the trace's time span.
func (m *meta) bounds() window { return window{Min: m.boundsMin, Max: m.boundsMax} }

// navigationFor returns the navigation of frame in force at ts: the last one
// that started at or before it.
func (m *meta) navigationFor(ts float64, frame string) *navigation {
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

// activeURL returns the URL frame showed at ts.
func (m *meta) activeURL(frame string, ts float64) string {
	fp := m.rendererByFrame[frame]
	if fp == nil {
		return ""
	}
	for _, pid := range fp.order {
		for _, w := range fp.byPID[pid] {
			if w.win.Min > ts || w.win.Max < ts {
				continue
			}
			return w.frame.URL
		}
	}
	return ""
}

// hasRenderer reports whether process pid showed frame at some point.
func (m *meta) hasRenderer(frame string, pid int64) bool {
	fp := m.rendererByFrame[frame]
	if fp == nil {
		return false
	}
	_, ok := fp.byPID[pid]
	return ok
}
