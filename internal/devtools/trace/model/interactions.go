package model

// longInteraction is where an interaction starts to count against INP:
// more than 200 ms from input to the next paint.
const LongInteraction = 200_000 // µs

// eventTiming is an EventTiming begin or end event.
type eventTiming struct {
	Index     int
	TS        float64
	PID, TID  int64
	ID        string
	Begin     bool
	Frame     string
	Type      string
	Duration  float64
	InterID   int64
	TimeStamp float64 // ms
	ProcStart float64 // ms
	ProcEnd   float64 // ms
	hasData   bool
}

// Interaction is a user interaction: an event (click, keydown, ...) from
// input to the next paint, split into input delay, processing and
// presentation delay.
type Interaction struct {
	Index        int // the begin event's index
	TS, Dur      float64
	PID, TID     int64
	Type         string
	InterID      int64
	Frame        string
	NavigationID string
	ProcStart    float64 // trace time
	ProcEnd      float64
	InputDelay   float64
	Processing   float64
	Presentation float64
	begin, end   *eventTiming
}

func (it *Interaction) writeSpans() {
	it.InputDelay = it.ProcStart - it.begin.TS
	it.Processing = it.ProcEnd - it.ProcStart
	it.Presentation = it.end.TS - it.ProcEnd
}

// Category is how DevTools groups interactions when it removes nested ones.
func (it *Interaction) Category() string {
	switch it.Type {
	case "pointerdown", "touchstart", "pointerup", "touchend", "mousedown", "mouseup", "click":
		return "POINTER"
	case "keydown", "keypress", "keyup":
		return "KEYBOARD"
	}
	return "OTHER"
}

// CompositorFrame is a BeginCommitCompositorFrame: whether the page was
// laid out for mobile.
type CompositorFrame struct {
	TS              float64
	Frame           string
	MobileOptimized bool
}

// MetaViewport is a ParseMetaViewport event.
type MetaViewport struct {
	Index   int
	TS      float64
	Frame   string
	Content string
}

// Interactions gathers user interactions and viewport events, as DevTools'
// user interactions handler does.
type Interactions struct {
	starts, ends []*eventTiming
	Frames       []CompositorFrame
	Viewports    []MetaViewport

	all       []*Interaction
	NoNesting []*Interaction
}

func (u *Interactions) handle(ev *event) {
	switch ev.Name {
	case "BeginCommitCompositorFrame":
		var a struct {
			Frame           string `json:"frame"`
			MobileOptimized bool   `json:"is_mobile_optimized"`
		}
		ev.unmarshalArgs(&a)
		u.Frames = append(u.Frames, CompositorFrame{TS: ev.TS, Frame: a.Frame, MobileOptimized: a.MobileOptimized})
	case "ParseMetaViewport":
		var a struct {
			Data struct {
				Frame   string `json:"frame"`
				Content string `json:"content"`
			} `json:"data"`
		}
		ev.unmarshalArgs(&a)
		u.Viewports = append(u.Viewports, MetaViewport{Index: ev.Index, TS: ev.TS, Frame: a.Data.Frame, Content: a.Data.Content})
	case "EventTiming":
		et := &eventTiming{Index: ev.Index, TS: ev.TS, PID: ev.PID, TID: ev.TID, ID: ev.ID}
		if ev.Ph == "e" {
			u.ends = append(u.ends, et)
		}
		if ev.Ph != "b" {
			return
		}
		var a struct {
			Frame string `json:"frame"`
			Data  *struct {
				Type            string   `json:"type"`
				Duration        float64  `json:"duration"`
				InteractionID   *int64   `json:"interactionId"`
				TimeStamp       float64  `json:"timeStamp"`
				ProcessingStart float64  `json:"processingStart"`
				ProcessingEnd   float64  `json:"processingEnd"`
				Frame           string   `json:"frame"`
				_               struct{} `json:"-"`
			} `json:"data"`
		}
		if !ev.unmarshalArgs(&a) || a.Data == nil {
			return
		}
		d := a.Data
		if d.Duration < 1 || d.InteractionID == nil || *d.InteractionID == 0 {
			return
		}
		et.Begin, et.hasData = true, true
		et.Type, et.Duration, et.InterID = d.Type, d.Duration, *d.InteractionID
		et.TimeStamp, et.ProcStart, et.ProcEnd = d.TimeStamp, d.ProcessingStart, d.ProcessingEnd
		et.Frame = a.Frame
		if et.Frame == "" {
			et.Frame = d.Frame
		}
		u.starts = append(u.starts, et)
	}
}

func (u *Interactions) finalize(m *Meta) {
	// DevTools merges the begin and end lists as if each were sorted (they
	// are in file order), dropping the second of two equal items.
	var merged []*eventTiming
	i, j := 0, 0
	for i < len(u.starts) && j < len(u.ends) {
		c := byTime(u.starts[i].TS, 0, u.ends[j].TS, 0)
		if c <= 0 {
			merged = append(merged, u.starts[i])
		} else {
			merged = append(merged, u.ends[j])
		}
		if c <= 0 {
			i++
		}
		if c >= 0 {
			j++
		}
	}
	merged = append(merged, u.starts[i:]...)
	merged = append(merged, u.ends[j:]...)

	open := map[string][]*eventTiming{}
	for _, e := range merged {
		if e.Begin {
			open[e.ID] = append(open[e.ID], e)
			continue
		}
		list := open[e.ID]
		if len(list) == 0 {
			continue
		}
		b := list[len(list)-1]
		open[e.ID] = list[:len(list)-1]
		if b.Type == "" || b.InterID == 0 || b.TimeStamp == 0 || b.ProcStart == 0 || b.ProcEnd == 0 {
			continue
		}
		it := &Interaction{
			Index: b.Index, TS: b.TS, Dur: e.TS - b.TS, PID: b.PID, TID: b.TID,
			Type: b.Type, InterID: b.InterID, Frame: b.Frame,
			ProcStart: b.ProcStart*1000 - b.TimeStamp*1000 + b.TS,
			ProcEnd:   (b.ProcEnd*1000 - b.TimeStamp*1000) + b.TS,
			begin:     b, end: e,
		}
		if nav := m.NavigationFor(b.TS, it.Frame); nav != nil {
			it.NavigationID = nav.ID
		}
		it.writeSpans()
		u.all = append(u.all, it)
	}
	SortStable(u.all, func(a, b *Interaction) bool { return byTime(a.TS, a.Dur, b.TS, b.Dur) < 0 })
	u.NoNesting = removeNested(u.all)
}

// removeNested keeps, for each category and end time, the interaction
// that started first, and widens its processing to cover the others', as
// DevTools does.
func removeNested(all []*Interaction) []*Interaction {
	type key struct {
		cat string
		end float64
	}
	earliest := map[key]*Interaction{}
	var order []key
	for _, it := range all {
		k := key{it.Category(), it.TS + it.Dur}
		cur, ok := earliest[k]
		if !ok {
			earliest[k] = it
			order = append(order, k)
			continue
		}
		if it.TS < cur.TS {
			earliest[k] = it
		} else if it.TS == cur.TS && it.InterID == cur.InterID {
			if it.ProcEnd-it.ProcStart > cur.ProcEnd-cur.ProcStart {
				earliest[k] = it
			}
		}
		if it.ProcStart < cur.ProcStart {
			cur.ProcStart = it.ProcStart
			cur.writeSpans()
		}
		if it.ProcEnd > cur.ProcEnd {
			cur.ProcEnd = it.ProcEnd
			cur.writeSpans()
		}
	}
	// DevTools lists POINTER, then KEYBOARD, then OTHER, each in insertion
	// order, then sorts by start.
	var kept []*Interaction
	for _, cat := range []string{"POINTER", "KEYBOARD", "OTHER"} {
		for _, k := range order {
			if k.cat == cat {
				kept = append(kept, earliest[k])
			}
		}
	}
	SortStable(kept, func(a, b *Interaction) bool { return a.TS < b.TS })
	return kept
}

// OverThreshold lists the interactions longer than 200 ms.
func (u *Interactions) OverThreshold() []*Interaction {
	var out []*Interaction
	for _, it := range u.all {
		if it.Dur > LongInteraction {
			out = append(out, it)
		}
	}
	return out
}
