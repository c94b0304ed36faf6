package model

import (
	"net/url"
	"strings"
)

// timing is a response's resource timing (Chrome's ResourceTiming): a
// request time in seconds, the rest in milliseconds after it, -1 when a
// phase did not happen.
type timing struct {
	RequestTime         float64  `json:"requestTime"`
	ProxyStart          float64  `json:"proxyStart"`
	ProxyEnd            float64  `json:"proxyEnd"`
	DNSStart            float64  `json:"dnsStart"`
	DNSEnd              float64  `json:"dnsEnd"`
	ConnectStart        float64  `json:"connectStart"`
	ConnectEnd          float64  `json:"connectEnd"`
	SSLStart            float64  `json:"sslStart"`
	SSLEnd              float64  `json:"sslEnd"`
	SendStart           float64  `json:"sendStart"`
	SendEnd             float64  `json:"sendEnd"`
	ReceiveHeadersStart *float64 `json:"receiveHeadersStart"`
	ReceiveHeadersEnd   float64  `json:"receiveHeadersEnd"`
}

func (t *timing) headersStart() float64 {
	if t.ReceiveHeadersStart != nil {
		return *t.ReceiveHeadersStart
	}
	return t.ReceiveHeadersEnd
}

type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type CallFrame struct {
	FunctionName string  `json:"functionName"`
	URL          string  `json:"url"`
	ScriptID     any     `json:"scriptId"`
	LineNumber   float64 `json:"lineNumber"`
	ColumnNumber float64 `json:"columnNumber"`
}

type initiator struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// sendRequest is a ResourceSendRequest's data.
type sendRequest struct {
	index, pid, tid   int64
	ts                float64
	RequestID         string      `json:"requestId"`
	URL               string      `json:"url"`
	Priority          string      `json:"priority"`
	RequestMethod     string      `json:"requestMethod"`
	ResourceType      *string     `json:"resourceType"`
	Frame             string      `json:"frame"`
	RenderBlocking    *string     `json:"renderBlocking"`
	IsLinkPreload     bool        `json:"isLinkPreload"`
	FetchPriorityHint *string     `json:"fetchPriorityHint"`
	Initiator         *initiator  `json:"initiator"`
	StackTrace        []CallFrame `json:"stackTrace"`
}

type receiveResponse struct {
	ts                float64
	RequestID         string   `json:"requestId"`
	FromCache         bool     `json:"fromCache"`
	FromServiceWorker bool     `json:"fromServiceWorker"`
	Timing            *timing  `json:"timing"`
	MimeType          string   `json:"mimeType"`
	Protocol          string   `json:"protocol"`
	StatusCode        int      `json:"statusCode"`
	Headers           []Header `json:"headers"`
	EncodedDataLength float64  `json:"encodedDataLength"`
}

type resourceFinish struct {
	ts                float64
	RequestID         string  `json:"requestId"`
	EncodedDataLength float64 `json:"encodedDataLength"`
	DecodedBodyLength float64 `json:"decodedBodyLength"`
	DidFail           bool    `json:"didFail"`
	FinishTime        float64 `json:"finishTime"`
}

// rawRequest gathers the events of one request id.
type rawRequest struct {
	willSend       []float64 // ResourceWillSendRequest timestamps
	send           []*sendRequest
	response       *receiveResponse
	finish         *resourceFinish
	markedCached   bool
	changePriority string // last ResourceChangePriority's priority
	preloadBlock   *string
}

// Request is one network request as DevTools' synthetic network request
// models it: the final URL after redirects, its timings and its response.
type Request struct {
	Index    int // the final ResourceSendRequest's index: the event key's number
	TS, Dur  float64
	PID, TID int64

	ID, URL           string
	Frame             string
	Redirects         []redirect
	Priority          string
	InitialPriority   string
	ResourceType      string
	MimeType          string
	Protocol          string
	StatusCode        int
	Headers           []Header // nil without a response
	RenderBlocking    string
	IsLinkPreload     bool
	FetchPriorityHint string
	Initiator         *initiator
	StackTop          *CallFrame
	Timing            *timing
	FromServiceWorker bool
	EncodedDataLength float64
	DecodedBodyLength float64
	Failed, Finished  bool
	HasResponse       bool
	RequestMethod     string

	SendStartTime       float64
	DownloadStart       float64
	FinishTime          float64
	ServerResponseTime  float64
	RedirectionDuration float64
}

type redirect struct {
	URL      string
	TS, Dur  float64
	Priority string
}

// Network gathers network events by request id, as DevTools' network
// requests handler does, and builds the requests at the end.
type Network struct {
	raw        map[string]*rawRequest
	order      []string // request ids in order of first event
	Preconnect []linkPreconnect

	ByTime []*Request // in order of first event (not sorted: DevTools' byTime)
	ByID   map[string]*Request
	// InitiatorOf maps a request to the request whose URL is its initiator's.
	InitiatorOf map[*Request]*Request
}

type linkPreconnect struct {
	URL, Frame string
}

func newNetwork() *Network {
	return &Network{raw: map[string]*rawRequest{}, ByID: map[string]*Request{}, InitiatorOf: map[*Request]*Request{}}
}

func (n *Network) get(id string) *rawRequest {
	r := n.raw[id]
	if r == nil {
		r = &rawRequest{}
		n.raw[id] = r
		n.order = append(n.order, id)
	}
	return r
}

func (n *Network) handle(ev *event) {
	switch ev.Name {
	case "ResourceChangePriority":
		if d, ok := eventData[priorityChange](ev); ok {
			n.get(d.RequestID).changePriority = d.Priority
		}
	case "ResourceWillSendRequest":
		if d, ok := eventData[requestIDOnly](ev); ok {
			r := n.get(d.RequestID)
			r.willSend = append(r.willSend, ev.TS)
		}
	case "ResourceSendRequest":
		if s, ok := eventData[sendRequest](ev); ok {
			s.index, s.pid, s.tid, s.ts = int64(ev.Index), ev.PID, ev.TID, ev.TS
			r := n.get(s.RequestID)
			r.send = append(r.send, &s)
		}
	case "ResourceReceiveResponse":
		if d, ok := eventData[receiveResponse](ev); ok {
			d.ts = ev.TS
			n.get(d.RequestID).response = &d
		}
	case "ResourceReceivedData":
		if d, ok := eventData[requestIDOnly](ev); ok {
			n.get(d.RequestID)
		}
	case "ResourceFinish":
		if d, ok := eventData[resourceFinish](ev); ok {
			d.ts = ev.TS
			n.get(d.RequestID).finish = &d
		}
	case "ResourceMarkAsCached":
		if d, ok := eventData[requestIDOnly](ev); ok {
			n.get(d.RequestID).markedCached = true
		}
	case "PreloadRenderBlockingStatusChange":
		if d, ok := eventData[renderBlockingChange](ev); ok {
			rb := d.RenderBlocking
			n.get(d.RequestID).preloadBlock = &rb
		}
	case "LinkPreconnect":
		if d, ok := eventData[linkPreconnect](ev); ok {
			n.Preconnect = append(n.Preconnect, d)
		}
	}
}

// The data of the network events that carry little more than their
// request's id.
type (
	requestIDOnly struct {
		RequestID string `json:"requestId"`
	}
	priorityChange struct {
		RequestID string `json:"requestId"`
		Priority  string `json:"priority"`
	}
	renderBlockingChange struct {
		RequestID      string `json:"requestId"`
		RenderBlocking string `json:"renderBlocking"`
	}
)

// finalize builds the requests, as DevTools' network handler does.
func (n *Network) finalize() {
	for _, id := range n.order {
		raw := n.raw[id]
		if len(raw.send) == 0 {
			continue
		}
		var redirects []redirect
		for i := 0; i+1 < len(raw.send); i++ {
			s, next := raw.send[i], raw.send[i+1]
			ts, dur := s.ts, next.ts-s.ts
			if i+1 < len(raw.willSend) {
				ts, dur = raw.willSend[i], raw.willSend[i+1]-raw.willSend[i]
			}
			redirects = append(redirects, redirect{URL: s.URL, Priority: s.Priority, TS: ts, Dur: dur})
		}
		first, final := raw.send[0], raw.send[len(raw.send)-1]
		if strings.HasPrefix(final.URL, "data:") {
			continue
		}
		allowed := false
		for _, p := range []string{"blob:", "file:", "filesystem:", "http:", "https:"} {
			if strings.HasPrefix(first.URL, p) {
				allowed = true
				break
			}
		}
		if !allowed {
			continue
		}
		isMemoryCached := raw.markedCached
		var tm *timing
		if !isMemoryCached && raw.response != nil {
			tm = raw.response.Timing
		}
		initialPriority := final.Priority
		finalPriority := initialPriority
		if raw.changePriority != "" {
			finalPriority = raw.changePriority
		}
		startTime := first.ts
		endRedirectTime := final.ts
		if len(raw.willSend) > 0 {
			startTime = raw.willSend[0]
			endRedirectTime = raw.willSend[len(raw.willSend)-1]
		}
		endTime := endRedirectTime
		if raw.finish != nil {
			endTime = raw.finish.ts
		}
		finishTime := endTime
		if raw.finish != nil && raw.finish.FinishTime != 0 {
			finishTime = raw.finish.FinishTime * 1e6
		}
		sendStart := startTime
		downloadStart := startTime
		serverResponse := 0.0
		if tm != nil {
			sendStart = tm.RequestTime*1e6 + tm.SendStart*1000
			downloadStart = tm.RequestTime*1e6 + tm.ReceiveHeadersEnd*1000
			serverResponse = (tm.headersStart() - tm.SendEnd) * 1000
		}
		rb := "non_blocking"
		if final.RenderBlocking != nil {
			rb = *final.RenderBlocking
		}
		if raw.preloadBlock != nil {
			rb = *raw.preloadBlock
		}
		rt := "Other"
		if final.ResourceType != nil {
			rt = *final.ResourceType
		}
		hint := "auto"
		if final.FetchPriorityHint != nil {
			hint = *final.FetchPriorityHint
		}
		req := &Request{
			Index: int(final.index), TS: startTime, Dur: endTime - startTime, PID: final.pid, TID: final.tid,
			ID: id, URL: final.URL, Frame: final.Frame, Redirects: redirects,
			Priority: finalPriority, InitialPriority: initialPriority, ResourceType: rt,
			Protocol: "unknown", RenderBlocking: rb, IsLinkPreload: final.IsLinkPreload,
			FetchPriorityHint: hint, Initiator: final.Initiator, Timing: tm,
			RequestMethod:       final.RequestMethod,
			SendStartTime:       sendStart,
			DownloadStart:       downloadStart,
			FinishTime:          finishTime,
			ServerResponseTime:  serverResponse,
			RedirectionDuration: endRedirectTime - startTime,
			Finished:            raw.finish != nil,
			HasResponse:         raw.response != nil,
		}
		if len(final.StackTrace) > 0 {
			req.StackTop = &final.StackTrace[0]
		}
		if r := raw.response; r != nil {
			req.MimeType, req.Protocol, req.StatusCode = r.MimeType, r.Protocol, r.StatusCode
			if r.Protocol == "" {
				req.Protocol = "unknown"
			}
			req.Headers = r.Headers
			if req.Headers == nil {
				req.Headers = []Header{}
			}
			req.FromServiceWorker = r.FromServiceWorker
		}
		if f := raw.finish; f != nil {
			req.EncodedDataLength, req.DecodedBodyLength, req.Failed = f.EncodedDataLength, f.DecodedBodyLength, f.DidFail
		}
		n.ByTime = append(n.ByTime, req)
		n.ByID[id] = req
	}
	byInitiatorURL := map[string][]*Request{}
	for _, r := range n.ByTime {
		u := ""
		if r.Initiator != nil {
			u = r.Initiator.URL
		}
		if u == "" && r.StackTop != nil {
			u = r.StackTop.URL
		}
		if u != "" {
			byInitiatorURL[u] = append(byInitiatorURL[u], r)
		}
	}
	for _, r := range n.ByTime {
		for _, initiated := range byInitiatorURL[r.URL] {
			n.InitiatorOf[initiated] = r
		}
	}
}

// BlocksRendering reports whether the request blocked rendering, as DevTools
// reads Chrome's renderBlocking field.
func (r *Request) BlocksRendering() bool {
	switch r.RenderBlocking {
	case "non_blocking", "dynamically_injected_non_blocking", "potentially_blocking":
		return false
	}
	return true
}

func (r *Request) HighPriority() bool {
	switch r.Priority {
	case "VeryHigh", "High", "Medium":
		return true
	}
	return false
}

// Origin returns the origin of u as the URL standard serializes it, or
// "null".
func Origin(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https" && p.Scheme != "ws" && p.Scheme != "wss" && p.Scheme != "ftp") {
		return "null"
	}
	host := strings.ToLower(p.Host)
	port := p.Port()
	if (p.Scheme == "http" && port == "80") || (p.Scheme == "https" && port == "443") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return p.Scheme + "://" + host
}

// DocFirstByte is when the document's first byte arrived (DevTools'
// calculateDocFirstByteTs), or ok=false for a trace without timings.
func DocFirstByte(doc *Request) (float64, bool) {
	if doc.Protocol == "file" {
		return doc.TS, true
	}
	if doc.Timing == nil {
		return 0, false
	}
	// DevTools converts seconds to microseconds in two steps; so does this,
	// so that bounds print the same digits.
	return doc.Timing.RequestTime*1000*1000 + doc.Timing.headersStart()*1000, true
}

// headerValue returns the value of the first header called name (any case).
func (r *Request) header(name string) (string, bool) {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value, true
		}
	}
	return "", false
}

// IsLocalhost reports whether the request went to localhost, as DevTools
// decides which servers developers cannot change.
func (r *Request) IsLocalhost() bool {
	p, err := url.Parse(r.URL)
	if err != nil {
		return false
	}
	h := p.Hostname()
	return h == "localhost" || h == "127.0.0.1" || strings.HasSuffix(h, ".localhost")
}
