package model

import (
	"bytes"
	"slices"
	"strings"
)

// Thresholds DevTools applies to main-thread work.
const (
	forcedReflowThreshold = 30_000 // µs of layout forced by script in one task
	longTaskThreshold     = 50_000 // µs
	domSizeDuration       = 40_000 // µs: a layout or style pass this long counts as large
	LayoutObjects         = 100    // dirty objects that make a layout large
	StyleElements         = 300    // elements that make a style recalculation large
)

// LayoutEvent is a Layout or UpdateLayoutTree event.
type LayoutEvent struct {
	Timed
	Name          string
	Frame         string
	DirtyObjects  float64
	TotalObjects  float64
	ElementCount  float64
	StackTop      *CallFrame // the top of its stack, zero-based
	forced        bool
	TopLevel      *CallFrame // the FunctionCall that ran it, if any
	TopLevelEvent int
}

// DOMStats is a DOMStats event: the DOM's size in a frame.
type DOMStats struct {
	Timed
	Frame         string
	TotalElements float64
	MaxDepth      *struct {
		Depth    float64 `json:"depth"`
		NodeName string  `json:"nodeName"`
		NodeID   int64   `json:"nodeId"`
	}
	MaxChildren *struct {
		NumChildren float64 `json:"numChildren"`
		NodeName    string  `json:"nodeName"`
		NodeID      int64   `json:"nodeId"`
	}
}

// ThreadEvent is a main-thread event kept for attributing time to the
// sites (entities) that caused it: a compact record, as a long trace has
// millions.
type ThreadEvent struct {
	TS, Dur float64
	Name    uint16 // index into renderer.names
	Site    uint32 // index into renderer.siteKeys; 0 for none
}

// recvEvent is a network event of a main thread that carries a transfer
// size (ResourceReceivedData, ResourceFinish, ResourceReceiveResponse).
type siteScope struct {
	end    float64
	inSite bool
}

type RecvEvent struct {
	TS       float64
	ReqID    string
	Encoded  float64
	Kind     byte // 1 ResourceReceivedData, 2 ResourceFinish, 3 ResourceReceiveResponse
	CacheHit bool
}

// Renderer follows the renderers' main threads: forced reflows and long
// tasks (DevTools' warnings handler), large layouts and style passes, DOM
// statistics, and the events that third-party time is counted from.
type Renderer struct {
	// The warnings state machine runs over every event in file order, as
	// DevTools' does.
	allStack      []Timed
	jsStack       []Timed
	taskReflows   []*LayoutEvent
	ForcedReflows []*LayoutEvent
	LongTasks     []Timed

	// funcStack tracks FunctionCall events per thread, to find the call that
	// forced a reflow.
	funcStack map[int64][]funcCall
	// TopLevelCalls are the windows of the FunctionCall events that forced
	// layouts ran in, by event index.
	TopLevelCalls map[int]Window
	// scriptStack tracks the script running on each thread (EvaluateScript
	// and FunctionCall events with a URL), and scriptOf is, per request id,
	// the URL of the script that was running when the request was sent:
	// DevTools finds a request's initiator from the JavaScript stack at
	// that moment when the request itself names none.
	scriptStack map[int64][]scriptRun
	ScriptOf    map[string]string

	LargeLayouts []*LayoutEvent // Layout/UpdateLayoutTree events over domSizeDuration
	DOMStats     map[string][]*DOMStats

	workerThreads map[int64]bool

	// Threads holds the main-thread events of renderer main threads, by pid
	// then tid, and recv their network events; pidOrder is the order in
	// which processes were first seen.
	Threads  map[int64]map[int64][]ThreadEvent
	Recv     map[int64]map[int64][]RecvEvent
	PIDOrder []int64
	seenPID  map[int64]bool
	// open holds B events waiting for their E, per thread.
	open map[int64][]ThreadEvent
	// scopes holds, per thread, the kept events still open and whether a
	// site is in scope (theirs or an ancestor's): an event outside every
	// site's scope takes no site's time, and is not kept.
	scopes map[int64][]siteScope
	// Names and siteKeys intern threadEvent's strings: a site is "u:" and
	// a URL, or "r:" and a request id whose URL is known at the end.
	Names    []string
	nameIDs  map[string]uint16
	SiteKeys []string
	siteIDs  map[string]uint32
}

type scriptRun struct {
	end float64
	url string
}

type funcCall struct {
	Timed
	frame CallFrame
	has   bool
}

func newRenderer() *Renderer {
	return &Renderer{
		funcStack:     map[int64][]funcCall{},
		TopLevelCalls: map[int]Window{},
		scriptStack:   map[int64][]scriptRun{},
		ScriptOf:      map[string]string{},
		DOMStats:      map[string][]*DOMStats{},
		workerThreads: map[int64]bool{},
		Threads:       map[int64]map[int64][]ThreadEvent{},
		Recv:          map[int64]map[int64][]RecvEvent{},
		nameIDs:       map[string]uint16{},
		SiteKeys:      []string{""},
		siteIDs:       map[string]uint32{},
		seenPID:       map[int64]bool{},
		open:          map[int64][]ThreadEvent{},
		scopes:        map[int64][]siteScope{},
	}
}

func isJSInvocation(name string) bool {
	switch name {
	case "RunMicrotasks", "FunctionCall", "EvaluateScript", "v8.evaluateModule", "EventDispatch", "V8.Execute", "V8Console::runTask":
		return true
	}
	return strings.HasPrefix(name, "v8") || strings.HasPrefix(name, "V8")
}

// accommodate pops the events of stack that ended before ev, then pushes ev.
func accommodate(stack []Timed, t Timed, push bool) []Timed {
	for n := len(stack); n > 0 && t.TS > stack[n-1].TS+stack[n-1].Dur; n = len(stack) {
		stack = stack[:n-1]
	}
	if push {
		stack = append(stack, t)
	}
	return stack
}

func (r *Renderer) handle(ev *event, m *Meta) {
	t := Timed{Index: ev.Index, TS: ev.TS, Dur: ev.Dur, PID: ev.PID, TID: ev.TID}
	if !r.seenPID[ev.PID] && (ev.Ph == "B" || ev.Ph == "E" || ev.Ph == "X" || ev.Ph == "I" || ev.Ph == "i") {
		r.seenPID[ev.PID] = true
		r.PIDOrder = append(r.PIDOrder, ev.PID)
	}

	var layout *LayoutEvent
	if (ev.Name == "Layout" || ev.Name == "UpdateLayoutTree") && ev.Ph == "X" {
		layout = r.layoutEvent(ev, t)
	}
	layout = r.forcedReflows(ev, t, layout)
	if ev.Name == "RunTask" && ev.Dur > longTaskThreshold {
		r.LongTasks = append(r.LongTasks, t)
	}
	r.followScripts(ev)
	switch ev.Name {
	case "TracingSessionIdForWorker":
		var a struct {
			Data *struct {
				WorkerThreadID int64 `json:"workerThreadId"`
			} `json:"data"`
		}
		if ev.unmarshalArgs(&a) && a.Data != nil {
			r.workerThreads[a.Data.WorkerThreadID] = true
		}
	case "DOMStats":
		r.domStats(ev, t)
	case "FunctionCall":
		if ev.Ph == "X" {
			r.functionCall(ev, t)
		}
	}
	if layout != nil && ev.Ph == "X" {
		r.layoutInCall(ev, t, layout)
	}
	r.keepThreadEvent(ev, m)
}

// forcedReflows finds layout or style work inside script, per top-level
// task, as DevTools' warnings handler does. It returns the layout event of
// ev, made here for the B or E half of one.
func (r *Renderer) forcedReflows(ev *event, t Timed, layout *LayoutEvent) *LayoutEvent {
	r.allStack = accommodate(r.allStack, t, true)
	r.jsStack = accommodate(r.jsStack, t, isJSInvocation(ev.Name))
	if len(r.jsStack) > 0 && (ev.Name == "Layout" || ev.Name == "UpdateLayoutTree") {
		if layout == nil {
			layout = r.layoutEvent(ev, t) // a B or E half: DevTools counts it too
		}
		r.taskReflows = append(r.taskReflows, layout)
		return layout
	}
	if len(r.allStack) == 1 {
		total := 0.0
		for _, l := range r.taskReflows {
			total += l.Dur
		}
		if total >= forcedReflowThreshold {
			for _, l := range r.taskReflows {
				l.forced = true
				r.ForcedReflows = append(r.ForcedReflows, l)
			}
		}
		r.taskReflows = r.taskReflows[:0]
	}
	return layout
}

// followScripts keeps the scripts running on each thread, and notes which
// one was running when a request was sent.
func (r *Renderer) followScripts(ev *event) {
	if ev.Name == "ResourceSendRequest" {
		st := r.scripts(ev.TID, ev.TS)
		if len(st) == 0 {
			return
		}
		d, ok := eventData[requestIDOnly](ev)
		if !ok {
			return
		}
		if _, ok := r.ScriptOf[d.RequestID]; !ok {
			u := ""
			for i := len(st) - 1; i >= 0 && u == ""; i-- {
				u = st[i].url
			}
			// "" still says script was running: its document's,
			// then (see displayInitiators).
			r.ScriptOf[d.RequestID] = u
		}
		return
	}
	if ev.Ph == "X" && (isJSInvocation(ev.Name) || ev.Name == "TimerFire") {
		u := ""
		if ev.Name == "EvaluateScript" || ev.Name == "FunctionCall" {
			u, _ = eventURL(ev)
		}
		st := r.scripts(ev.TID, ev.TS)
		r.scriptStack[ev.TID] = append(st, scriptRun{end: ev.TS + ev.Dur, url: u})
	}
}

// domStats records a DOMStats event: the size of a frame's DOM.
func (r *Renderer) domStats(ev *event, t Timed) {
	var a struct {
		Data struct {
			Frame         string  `json:"frame"`
			TotalElements float64 `json:"totalElements"`
			MaxDepth      *struct {
				Depth    float64 `json:"depth"`
				NodeName string  `json:"nodeName"`
				NodeID   int64   `json:"nodeId"`
			} `json:"maxDepth"`
			MaxChildren *struct {
				NumChildren float64 `json:"numChildren"`
				NodeName    string  `json:"nodeName"`
				NodeID      int64   `json:"nodeId"`
			} `json:"maxChildren"`
		} `json:"data"`
	}
	if ev.unmarshalArgs(&a) {
		d := a.Data
		r.DOMStats[d.Frame] = append(r.DOMStats[d.Frame], &DOMStats{Timed: t, Frame: d.Frame,
			TotalElements: d.TotalElements, MaxDepth: d.MaxDepth, MaxChildren: d.MaxChildren})
	}
}

// functionCall pushes a FunctionCall (an X event) on its thread's stack of
// calls, with its call frame.
func (r *Renderer) functionCall(ev *event, t Timed) {
	fc := funcCall{Timed: t}
	var a struct {
		Data *CallFrame `json:"data"`
	}
	if ev.unmarshalArgs(&a) && a.Data != nil {
		fc.frame, fc.has = *a.Data, true
		if !ev.urlDone && a.Data.URL != "" && !containsAny(ev.Args, `"stackTrace"`) {
			ev.url, ev.urlDone = a.Data.URL, true
		}
	}
	r.funcStack[ev.TID] = append(r.openCalls(ev.TID, t.TS), fc)
}

// openCalls returns the FunctionCalls of thread tid still running at ts,
// dropping those that ended.
func (r *Renderer) openCalls(tid int64, ts float64) []funcCall {
	st := r.funcStack[tid]
	for n := len(st); n > 0 && ts >= st[n-1].TS+st[n-1].Dur; n = len(st) {
		st = st[:n-1]
	}
	r.funcStack[tid] = st
	return st
}

// layoutInCall ties a layout (an X event) to the innermost FunctionCall
// around it, if any, and keeps it if it was large.
func (r *Renderer) layoutInCall(ev *event, t Timed, layout *LayoutEvent) {
	st := r.openCalls(ev.TID, t.TS)
	if n := len(st); n > 0 && st[n-1].has {
		f := st[n-1].frame
		layout.TopLevel, layout.TopLevelEvent = &f, st[n-1].Index
		r.TopLevelCalls[st[n-1].Index] = Window{Min: st[n-1].TS, Max: st[n-1].TS + st[n-1].Dur}
	}
	if layout.Dur >= domSizeDuration {
		r.LargeLayouts = append(r.LargeLayouts, layout)
	}
}

// scripts returns the scripts still running on thread tid at ts.
func (r *Renderer) scripts(tid int64, ts float64) []scriptRun {
	st := r.scriptStack[tid]
	for n := len(st); n > 0 && ts >= st[n-1].end; n = len(st) {
		st = st[:n-1]
	}
	r.scriptStack[tid] = st
	return st
}

func (r *Renderer) layoutEvent(ev *event, t Timed) *LayoutEvent {
	var a struct {
		BeginData *struct {
			Frame        string      `json:"frame"`
			DirtyObjects float64     `json:"dirtyObjects"`
			TotalObjects float64     `json:"totalObjects"`
			StackTrace   []CallFrame `json:"stackTrace"`
		} `json:"beginData"`
		ElementCount float64 `json:"elementCount"`
		Data         *struct {
			Frame      string      `json:"frame"`
			StackTrace []CallFrame `json:"stackTrace"`
		} `json:"data"`
		StackTrace []CallFrame `json:"stackTrace"`
	}
	ev.unmarshalArgs(&a)
	l := &LayoutEvent{Timed: t, Name: ev.Name, ElementCount: a.ElementCount}
	var stack []CallFrame
	switch {
	case a.Data != nil && a.Data.StackTrace != nil:
		stack = a.Data.StackTrace
	case a.StackTrace != nil:
		stack = a.StackTrace
	case a.BeginData != nil:
		stack = a.BeginData.StackTrace
	}
	if a.BeginData != nil {
		l.Frame, l.DirtyObjects, l.TotalObjects = a.BeginData.Frame, a.BeginData.DirtyObjects, a.BeginData.TotalObjects
	}
	if l.Frame == "" && a.Data != nil {
		l.Frame = a.Data.Frame
	}
	if len(stack) > 0 {
		top := stack[0]
		// Layout and style events carry one-based positions.
		if top.LineNumber != 0 {
			top.LineNumber--
		}
		if top.ColumnNumber != 0 {
			top.ColumnNumber--
		}
		l.StackTop = &top
	}
	return l
}

// visibleEvents are the events DevTools shows in its timeline, the only
// ones its bottom-up tree counts time for.
var visibleEvents = map[string]bool{}

func init() {
	for _, n := range strings.Split("AbortPostTaskCallback,Animation,AsyncTask,v8.deserializeOnBackground,v8.produceModuleCache,v8.produceCache,CancelAnimationFrame,CancelIdleCallback,Commit,V8.CompileCode,V8.CompileModule,v8.compile,CompositeLayers,ComputeIntersections,ConsoleTime,CppGC.IncrementalSweep,DoDecryptReply,DoDecrypt,DoDigestReply,DoDigest,DoEncryptReply,DoEncrypt,DoSignReply,DoSign,DoVerifyReply,DoVerify,Decode Image,EmbedderCallback,v8.evaluateModule,EvaluateScript,EventDispatch,EventTiming,V8.FinalizeDeserialization,FireAnimationFrame,FireIdleCallback,FunctionCall,BlinkGC.AtomicPhase,GCEvent,GPUTask,HandlePostMessage,HitTest,JSSample,Layerize,Layout,MajorGC,MinorGC,V8.OptimizeCode,PaintSetup,Paint,ParseAuthorStyleSheet,ParseHTML,PrePaint,ProfileCall,Program,RasterTask,RequestAnimationFrame,RequestIdleCallback,ResourceFinish,ResourceReceivedData,ResourceReceiveResponse,ResourceSendRequest,ResourceWillSendRequest,RunMicrotasks,RunPostTaskCallback,RunTask,SchedulePostMessage,SchedulePostTaskCallback,ScheduleStyleRecalculation,ScrollLayer,CpuProfiler::StartProfiling,v8.parseOnBackgroundParsing,v8.parseOnBackgroundWaiting,v8.parseOnBackground,SyntheticLayoutShiftCluster,SyntheticLayoutShift,TimeStamp,TimerFire,TimerInstall,TimerRemove,UpdateLayerTree,UpdateLayoutTree,UserTiming,V8Console::runTask,v8.wasm.cachedModule,v8.wasm.compiledModule,v8.wasm.moduleCacheHit,v8.wasm.moduleCacheInvalid,v8.wasm.streamFromResponseCallback,WebSocketCreate,WebSocketDestroy,WebSocketReceiveHandshakeResponse,WebSocketReceive,WebSocketSendHandshakeRequest,WebSocketSend,XHRLoad,XHRReadyStateChange", ",") {
		visibleEvents[n] = true
	}
}

func visibleType(ev *event) string {
	switch {
	case strings.Contains(ev.Cat, "blink.console"):
		return "ConsoleTime"
	case strings.Contains(ev.Cat, "blink.user_timing"):
		return "UserTiming"
	}
	return ev.Name
}

// keepThreadEvent keeps what third-party attribution needs of an event of
// a renderer main thread: its time, and the URL it concerns.
func (r *Renderer) keepThreadEvent(ev *event, m *Meta) {
	if m.ThreadNames[ev.PID][ev.TID] != "CrRendererMain" {
		return
	}
	switch ev.Ph {
	case "X", "I", "i", "n", "B", "E":
	default:
		return
	}
	if ev.Ph == "E" {
		st := r.open[ev.TID]
		if len(st) == 0 {
			return
		}
		te := st[len(st)-1]
		r.open[ev.TID] = st[:len(st)-1]
		te.Dur = ev.TS - te.TS
		if te.Name != 0 && te.Dur > 0 {
			r.addThreadEvent(ev.PID, ev.TID, te)
		}
		return
	}
	if !visibleEvents[visibleType(ev)] {
		if ev.Ph == "B" {
			// Still paired with its E so that the pairing stays right.
			r.open[ev.TID] = append(r.open[ev.TID], ThreadEvent{TS: ev.TS})
		}
		return
	}
	if ev.Name == "ResourceReceivedData" || ev.Name == "ResourceFinish" || ev.Name == "ResourceReceiveResponse" {
		var a struct {
			Data struct {
				RequestID         string  `json:"requestId"`
				EncodedDataLength float64 `json:"encodedDataLength"`
				FromCache         bool    `json:"fromCache"`
			} `json:"data"`
		}
		ev.unmarshalArgs(&a)
		re := RecvEvent{TS: ev.TS, ReqID: a.Data.RequestID, Encoded: a.Data.EncodedDataLength, CacheHit: a.Data.FromCache,
			Kind: map[string]byte{"ResourceReceivedData": 1, "ResourceFinish": 2, "ResourceReceiveResponse": 3}[ev.Name]}
		byTID := r.Recv[ev.PID]
		if byTID == nil {
			byTID = map[int64][]RecvEvent{}
			r.Recv[ev.PID] = byTID
		}
		byTID[ev.TID] = append(byTID[ev.TID], re)
		if ev.Ph != "X" && ev.Ph != "B" {
			return
		}
	}
	if ev.Ph != "X" && ev.Ph != "B" {
		return // an instant event takes no time
	}
	te := ThreadEvent{TS: ev.TS, Dur: ev.Dur, Name: r.nameID(ev.Name)}
	if ev.Args != nil {
		if u, req := eventURL(ev); u != "" {
			te.Site = r.siteID("u:" + u)
		} else if req != "" {
			te.Site = r.siteID("r:" + req)
		}
	}
	if ev.Ph == "B" {
		r.open[ev.TID] = append(r.open[ev.TID], te)
		return
	}
	if te.Dur <= 0 {
		return
	}
	sc := r.scopes[ev.TID]
	for n := len(sc); n > 0 && sc[n-1].end <= te.TS; n = len(sc) {
		sc = sc[:n-1]
	}
	inSite := te.Site != 0 || (len(sc) > 0 && sc[len(sc)-1].inSite)
	r.scopes[ev.TID] = append(sc, siteScope{end: te.TS + te.Dur, inSite: inSite})
	if inSite {
		r.addThreadEvent(ev.PID, ev.TID, te)
	}
}

func (r *Renderer) nameID(n string) uint16 {
	if id, ok := r.nameIDs[n]; ok {
		return id
	}
	if len(r.Names) == 0 {
		r.Names = append(r.Names, "") // 0: none
	}
	id := uint16(len(r.Names))
	r.Names = append(r.Names, n)
	r.nameIDs[n] = id
	return id
}

func (r *Renderer) siteID(key string) uint32 {
	if id, ok := r.siteIDs[key]; ok {
		return id
	}
	id := uint32(len(r.SiteKeys))
	r.SiteKeys = append(r.SiteKeys, key)
	r.siteIDs[key] = id
	return id
}

func (r *Renderer) addThreadEvent(pid, tid int64, te ThreadEvent) {
	byTID := r.Threads[pid]
	if byTID == nil {
		byTID = map[int64][]ThreadEvent{}
		r.Threads[pid] = byTID
	}
	byTID[tid] = append(byTID[tid], te)
}

// eventURL returns the URL an event concerns, as DevTools' getNonResolvedURL
// finds it, or the id of the request it concerns.
func eventURL(ev *event) (url, reqID string) {
	if !ev.urlDone {
		ev.url, ev.reqID = findEventURL(ev)
		ev.urlDone = true
	}
	return ev.url, ev.reqID
}

func findEventURL(ev *event) (url, reqID string) {
	if !containsAny(ev.Args, `"url"`, `"stylesheetUrl"`, `"stackTrace"`, `"requestId"`) {
		return "", ""
	}
	var a struct {
		Data *struct {
			StylesheetURL string      `json:"stylesheetUrl"`
			StackTrace    []CallFrame `json:"stackTrace"`
			URL           string      `json:"url"`
			RequestID     string      `json:"requestId"`
		} `json:"data"`
		BeginData *struct {
			URL string `json:"url"`
		} `json:"beginData"`
	}
	ev.unmarshalArgs(&a)
	if ev.Name == "ParseAuthorStyleSheet" && a.Data != nil {
		return a.Data.StylesheetURL, ""
	}
	if a.Data != nil && len(a.Data.StackTrace) > 0 {
		return a.Data.StackTrace[0].URL, ""
	}
	if ev.Name == "ParseHTML" && a.BeginData != nil {
		return a.BeginData.URL, ""
	}
	if a.Data != nil && a.Data.URL != "" {
		return a.Data.URL, ""
	}
	if a.Data != nil {
		return "", a.Data.RequestID
	}
	return "", ""
}

func containsAny(b []byte, subs ...string) bool {
	for _, sub := range subs {
		if bytes.Contains(b, []byte(sub)) {
			return true
		}
	}
	return false
}

func (r *Renderer) finalize() {
	// The main threads' events in time order, once for every insight set.
	for _, byTID := range r.Threads {
		for tid, evs := range byTID {
			SortStable(evs, func(a, b ThreadEvent) bool { return byTime(a.TS, a.Dur, b.TS, b.Dur) < 0 })
			byTID[tid] = slices.Clip(evs)
		}
	}
	r.scopes, r.open = nil, nil
	kept := r.LongTasks[:0]
	for _, t := range r.LongTasks {
		if !r.workerThreads[t.TID] {
			kept = append(kept, t)
		}
	}
	r.LongTasks = kept
}
