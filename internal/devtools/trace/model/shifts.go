package model

import (
	"math"
	"strconv"
	"strings"
)

// Session windows of layout shifts, as DevTools (and the CLS metric)
// define them: a window ends after 1 s without a shift, or 5 s after it
// began, or at a navigation.
const (
	maxClusterDuration = 5_000_000 // µs
	maxShiftGap        = 1_000_000 // µs
	// RootCauseWindow is how long before a paint a font load or an
	// animation may end and still be blamed for the paint's shifts.
	RootCauseWindow = 500_000 // µs
)

// impactedNode is a node a layout shift moved.
type impactedNode struct {
	NodeID    int64  `json:"node_id"`
	DebugName string `json:"debug_name"`
}

// Shift is a LayoutShift event.
type Shift struct {
	Index    int
	TS       float64
	PID, TID int64
	Frame    string
	Score    float64 // weighted_score_delta
	Impacted []impactedNode
	// cluster is the window the shift belongs to.
	cluster *Cluster
}

// Cluster is a session window of layout shifts.
type Cluster struct {
	Shifts       []*Shift
	Win          Window
	Score        float64
	NavigationID string // "" when before any navigation
	TS, Dur      float64
	Worst        *Shift
}

// Timed is an event with a start and a duration.
type Timed struct {
	Index    int
	TS, Dur  float64
	PID, TID int64
}

func (t Timed) end() float64 { return t.TS + t.Dur }

// PaintImage is a PaintImage event.
type PaintImage struct {
	Timed
	URL                    string
	NodeID                 int64
	NodeName               string
	Frame                  string
	Width, Height          float64
	SrcWidth, SrcHeight    float64
	IsCSS, IsPicture       bool
	SrcsetAttribute        string
	CorrectedW, CorrectedH float64 // display size corrected for the host's DPR, when known
	Corrected              bool
}

// remoteFont is a web font load.
type remoteFont struct {
	Display, URL, Name string
	Begin              Timed
	RequestID          string // "<pid>.<id>", the font request's id
}

// Animation is a CSS animation, from its begin and end events.
type Animation struct {
	Timed
	DisplayName string
	Failures    []animationFailure
}

type animationFailure struct {
	Mask                  int64
	UnsupportedProperties []string
}

// Shifts gathers layout shifts and what can cause them, as DevTools' layout
// shifts handler does.
type Shifts struct {
	events      []*Shift
	PrePaints   []Timed
	ChildFrames []Timed // RenderFrameImpl::createChildFrame
	DOMLoading  []struct {
		Timed
		Frame string
	}
	Unsized []struct {
		Timed
		NodeID int64
	}
	Fonts       []*remoteFont
	PaintImages []*PaintImage

	animBegin map[string]*Animation // by id, open animations
	Anims     []*Animation

	clusters []*Cluster
	ByNav    map[string][]*Cluster
}

func newShifts() *Shifts {
	return &Shifts{animBegin: map[string]*Animation{}, ByNav: map[string][]*Cluster{}}
}

func (s *Shifts) handle(ev *event) {
	t := Timed{Index: ev.Index, TS: ev.TS, Dur: ev.Dur, PID: ev.PID, TID: ev.TID}
	switch ev.Name {
	case "LayoutShift":
		var a struct {
			Frame string `json:"frame"`
			Data  *struct {
				Score          float64        `json:"weighted_score_delta"`
				HadRecentInput bool           `json:"had_recent_input"`
				Impacted       []impactedNode `json:"impacted_nodes"`
			} `json:"data"`
		}
		ev.unmarshalArgs(&a)
		if a.Data != nil && a.Data.HadRecentInput {
			return
		}
		sh := &Shift{Index: ev.Index, TS: ev.TS, PID: ev.PID, TID: ev.TID, Frame: a.Frame}
		if a.Data != nil {
			sh.Score, sh.Impacted = a.Data.Score, a.Data.Impacted
		} else {
			sh.Score = math.NaN() // no data: counted as 0, never a shift of its own
		}
		s.events = append(s.events, sh)
	case "PrePaint":
		s.PrePaints = append(s.PrePaints, t)
	case "RenderFrameImpl::createChildFrame":
		s.ChildFrames = append(s.ChildFrames, t)
	case "domLoading":
		var a struct {
			Frame string `json:"frame"`
		}
		ev.unmarshalArgs(&a)
		s.DOMLoading = append(s.DOMLoading, struct {
			Timed
			Frame string
		}{t, a.Frame})
	case "LayoutImageUnsized":
		var a struct {
			Data struct {
				NodeID int64 `json:"nodeId"`
			} `json:"data"`
		}
		ev.unmarshalArgs(&a)
		s.Unsized = append(s.Unsized, struct {
			Timed
			NodeID int64
		}{t, a.Data.NodeID})
	case "BeginRemoteFontLoad":
		var a struct {
			Display string `json:"display"`
			URL     string `json:"url"`
			ID      any    `json:"id"`
		}
		ev.unmarshalArgs(&a)
		s.Fonts = append(s.Fonts, &remoteFont{Display: a.Display, URL: a.URL, Begin: t,
			RequestID: strconv.FormatInt(ev.PID, 10) + "." + JSString(a.ID)})
	case "RemoteFontLoaded":
		var a struct {
			URL  string `json:"url"`
			Name string `json:"name"`
		}
		ev.unmarshalArgs(&a)
		for _, f := range s.Fonts {
			if f.URL == a.URL {
				f.Name = a.Name
			}
		}
	case "PaintImage":
		if ev.Ph != "X" {
			return
		}
		var a struct {
			Data struct {
				URL             string  `json:"url"`
				NodeID          int64   `json:"nodeId"`
				NodeName        string  `json:"nodeName"`
				Frame           string  `json:"frame"`
				Width           float64 `json:"width"`
				Height          float64 `json:"height"`
				SrcWidth        float64 `json:"srcWidth"`
				SrcHeight       float64 `json:"srcHeight"`
				IsCSS           bool    `json:"isCSS"`
				IsPicture       bool    `json:"isPicture"`
				SrcsetAttribute string  `json:"srcsetAttribute"`
			} `json:"data"`
		}
		ev.unmarshalArgs(&a)
		d := a.Data
		s.PaintImages = append(s.PaintImages, &PaintImage{Timed: t, URL: d.URL, NodeID: d.NodeID, NodeName: d.NodeName,
			Frame: d.Frame, Width: d.Width, Height: d.Height, SrcWidth: d.SrcWidth, SrcHeight: d.SrcHeight,
			IsCSS: d.IsCSS, IsPicture: d.IsPicture, SrcsetAttribute: d.SrcsetAttribute})
	case "Animation":
		if !strings.Contains(ev.Cat, "devtools.timeline") {
			return
		}
		s.handleAnimation(ev, t)
	}
}

// handleAnimation pairs an animation's begin and end events (by id), with
// the instant events between them that report why it could not run on
// the compositor.
func (s *Shifts) handleAnimation(ev *event, t Timed) {
	key := ev.Cat + ":" + ev.ID
	switch ev.Ph {
	case "b":
		var a struct {
			Data struct {
				DisplayName string `json:"displayName"`
			} `json:"data"`
		}
		ev.unmarshalArgs(&a)
		an := &Animation{Timed: t, DisplayName: a.Data.DisplayName}
		s.animBegin[key] = an
	case "n":
		an := s.animBegin[key]
		if an == nil {
			return
		}
		var a struct {
			Data struct {
				CompositeFailed       int64    `json:"compositeFailed"`
				UnsupportedProperties []string `json:"unsupportedProperties"`
			} `json:"data"`
		}
		ev.unmarshalArgs(&a)
		an.Failures = append(an.Failures, animationFailure{Mask: a.Data.CompositeFailed, UnsupportedProperties: a.Data.UnsupportedProperties})
	case "e":
		an := s.animBegin[key]
		if an == nil {
			return
		}
		delete(s.animBegin, key)
		an.Dur = ev.TS - an.TS
		s.Anims = append(s.Anims, an)
	}
}

func (s *Shifts) finalize(m *Meta) {
	SortStable(s.events, func(a, b *Shift) bool { return a.TS < b.TS })
	SortStable(s.PrePaints, func(a, b Timed) bool { return a.TS < b.TS })
	SortStable(s.ChildFrames, func(a, b Timed) bool { return a.TS < b.TS })
	SortStable(s.DOMLoading, func(a, b struct {
		Timed
		Frame string
	}) bool {
		return a.TS < b.TS
	})
	SortStable(s.Unsized, func(a, b struct {
		Timed
		NodeID int64
	}) bool {
		return a.TS < b.TS
	})
	SortStable(s.Fonts, func(a, b *remoteFont) bool { return a.Begin.TS < b.Begin.TS })
	SortStable(s.PaintImages, func(a, b *PaintImage) bool { return a.TS < b.TS })
	SortStable(s.Anims, func(a, b *Animation) bool { return byTime(a.TS, a.Dur, b.TS, b.Dur) < 0 })
	s.buildClusters(m)
}

// buildClusters groups the shifts into session windows.
func (s *Shifts) buildClusters(m *Meta) {
	if len(s.events) == 0 {
		return
	}
	navs := m.navsByFrame[m.MainFrameID]
	bounds := m.Bounds()
	firstShift, lastShift := s.events[0].TS, s.events[0].TS
	lastNav := -2 // no shift seen yet
	for _, ev := range s.events {
		durationExceeded := ev.TS-firstShift > maxClusterDuration
		gapExceeded := ev.TS-lastShift > maxShiftGap
		curNav := nearestFromEnd(len(navs), func(i int) bool { return navs[i].TS < ev.TS })
		navigated := lastNav != curNav && curNav != -1
		if durationExceeded || gapExceeded || navigated || len(s.clusters) == 0 {
			endByDuration, endByGap, endByNav := math.Inf(1), math.Inf(1), math.Inf(1)
			if durationExceeded {
				endByDuration = firstShift + maxClusterDuration
			}
			if gapExceeded {
				endByGap = lastShift + maxShiftGap
			}
			if navigated {
				endByNav = navs[curNav].TS
			}
			if n := len(s.clusters); n > 0 {
				s.clusters[n-1].Win.Max = math.Min(endByDuration, math.Min(endByGap, endByNav))
			}
			c := &Cluster{Win: Window{Min: ev.TS, Max: ev.TS}, TS: ev.TS, Dur: -1}
			if curNav >= 0 {
				c.NavigationID = navs[curNav].ID
			}
			s.clusters = append(s.clusters, c)
			firstShift = ev.TS
		}
		c := s.clusters[len(s.clusters)-1]
		if !math.IsNaN(ev.Score) {
			c.Score += ev.Score
		}
		if math.IsNaN(ev.Score) {
			continue
		}
		ev.cluster = c
		c.Shifts = append(c.Shifts, ev)
		c.Win.Max = ev.TS
		lastShift = ev.TS
		lastNav = curNav
	}
	for i, c := range s.clusters {
		if i == len(s.clusters)-1 {
			endByDuration := maxClusterDuration + c.Win.Min
			endByGap := c.Win.Max + maxShiftGap
			next := NearestFromBeginning(len(navs), func(i int) bool { return navs[i].TS > c.Win.Max })
			nextNav := math.Inf(1)
			// DevTools tests the index for truth, so the first navigation
			// (index 0) never ends the last window.
			if next > 0 {
				nextNav = navs[next].TS
			}
			c.Win.Max = math.Min(math.Min(endByDuration, endByGap), math.Min(bounds.Max, nextNav))
		}
		largest := 0.0
		for _, sh := range c.Shifts {
			if sh.Score > largest {
				largest = sh.Score
				c.Worst = sh
			}
		}
		if len(c.Shifts) > 0 {
			c.TS = c.Shifts[0].TS
			last := c.Shifts[len(c.Shifts)-1]
			c.Dur = last.TS - c.Shifts[0].TS + maxShiftGap
		}
		if c.NavigationID != "" {
			s.ByNav[c.NavigationID] = append(s.ByNav[c.NavigationID], c)
		}
	}
}
