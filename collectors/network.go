package collectors

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// resourceDocument is the CDP resource type of a document load.
const resourceDocument = "Document"

// A Request is one hop of a network request: a redirect makes a new Request
// with its own id for the next hop.
//
// Times are wall-clock: Sent comes from CDP's wallTime; Responded and Ended are
// Sent plus the monotonic time elapsed since the request was sent, so they
// are zero if Sent is unknown or the event has not happened.
//
// Headers, RedirectChain and *Response are never modified once stored, so a
// copy of a Request stays valid while the collector updates the original.
type Request struct {
	// ID is the reqid: stamped on collection, per page, from 1.
	ID int
	// RequestID is the CDP Network.RequestId. All hops of a redirect chain
	// share it.
	RequestID string
	// LoaderID is the CDP loader id of the document the request belongs to
	// (for a navigation request, of the document it loads).
	LoaderID string
	// FrameID is the id of the frame that made the request.
	FrameID string
	// Type is the CDP resource type: Document, Stylesheet, Image, Media, Font,
	// Script, TextTrack, XHR, Fetch, Prefetch, EventSource, WebSocket,
	// Manifest, SignedExchange, Ping, CSPViolationReport, Preflight, FedCM or
	// Other.
	Type string
	// IsNavigation reports whether this request loads a document into its
	// frame: a Document request whose CDP request id equals its loader id.
	IsNavigation bool

	// Method, URL, Headers, PostData and HasPostData describe the request as
	// sent.
	Method string
	URL    string
	// Headers are the request headers, names in lower case: those CDP
	// reported with the request, updated and completed by the raw headers
	// sent on the wire (Network.requestWillBeSentExtraInfo: cookies and
	// the like) as Puppeteer merges them.
	Headers []Header
	// PostData is the request body if CDP sent it inline and it is at most
	// 32 KiB; a longer body is left for the owner to read from the page.
	PostData    string
	HasPostData bool // whether the request has a body, even if PostData is empty

	// Response is the response, or the redirect response of an earlier hop;
	// nil until one is received.
	Response *Response

	// Finished reports whether loading ended: CDP loadingFinished, or for an
	// earlier hop, the redirect to the next one.
	Finished bool
	// Failed reports whether CDP loadingFailed arrived; Failure holds its
	// errorText and Canceled its canceled flag.
	Failed   bool
	Failure  string
	Canceled bool
	// EncodedDataLength is the number of bytes received, from loadingFinished.
	EncodedDataLength int64

	Sent      time.Time // when the request was sent
	Responded time.Time // when the response headers arrived
	Ended     time.Time // when loading finished, failed or redirected

	// RedirectChain lists the earlier hops of this request, oldest first, as
	// they were when they redirected. The hops' own RedirectChain is nil.
	RedirectChain []Request

	// Mocked says how a route of the page answered this hop, such as
	// "fulfilled by route 1" or "aborted by route 2"; "" for a hop no
	// route answered (see [Network.Mocked]).
	Mocked string

	sentTimestamp time.Duration // monotonic time of Sent, see timeAt

	// gotRequestExtra reports whether the raw request headers were applied.
	gotRequestExtra bool
	// prev is the hop this one was redirected from, or nil. Only raw
	// header matching follows it; a chain has at most Chrome's 20 hops.
	prev *Request
}

// A Header is one HTTP header.
type Header struct {
	Name, Value string
}

// A Response is what a request got back.
type Response struct {
	Status     int    // HTTP status code
	StatusText string // HTTP status text
	// Headers are the response headers, names in lower case: the raw
	// headers received (Network.responseReceivedExtraInfo) when CDP sent
	// them, else those of the response event. A header received several
	// times is one entry whose values are joined with ", " ("\n " for
	// set-cookie), as Puppeteer shows them.
	Headers       []Header
	MIMEType      string
	RemoteAddress string // "ip:port" of the server, if known
	FromCache     bool   // served from the memory, disk or prefetch cache
}

// Status returns what a request list shows for r: the HTTP status code as
// text if a response arrived, else the failure text, else "pending".
func (r Request) Status() string {
	switch {
	case r.Response != nil:
		return strconv.Itoa(r.Response.Status)
	case r.Failed:
		if r.Failure == "" {
			return "failed"
		}
		return r.Failure
	default:
		return "pending"
	}
}

// Done reports whether no more loading events are expected for r: it
// finished, failed, or redirected.
func (r Request) Done() bool {
	return r.Finished || r.Failed
}

// timeAt converts a CDP monotonic timestamp to wall-clock time using the
// pair recorded when r was sent.
func (r *Request) timeAt(ts time.Duration) time.Time {
	if r.Sent.IsZero() {
		return time.Time{}
	}
	return r.Sent.Add(ts - r.sentTimestamp)
}

// RequestEvent is CDP Network.requestWillBeSent; its fields fill the
// [Request] fields of the same names.
type RequestEvent struct {
	RequestID   string
	LoaderID    string
	FrameID     string
	Type        string // CDP resource type, see [Request.Type]
	Method      string
	URL         string // with its fragment, if any
	Headers     []Header
	PostData    string
	HasPostData bool
	// WallTime is CDP wallTime.
	WallTime time.Time
	// Timestamp is CDP timestamp (MonotonicTime, seconds) as a duration since
	// the same arbitrary origin as the other events' Timestamp.
	Timestamp time.Duration
	// RedirectResponse is CDP redirectResponse: set when this event starts
	// the next hop of an existing request.
	RedirectResponse *Response
	// RedirectHasExtraInfo is CDP redirectHasExtraInfo: the raw headers of
	// RedirectResponse come in a [ResponseExtraInfoEvent].
	RedirectHasExtraInfo bool
}

// ResponseEvent is CDP Network.responseReceived.
type ResponseEvent struct {
	RequestID string
	Response  Response
	// HasExtraInfo is CDP hasExtraInfo: the raw headers of Response come
	// in a [ResponseExtraInfoEvent].
	HasExtraInfo bool
	Timestamp    time.Duration // see [RequestEvent.Timestamp]
}

// RequestExtraInfoEvent is CDP Network.requestWillBeSentExtraInfo: the
// headers as sent on the wire. It may arrive before or after the
// [RequestEvent] of its hop.
type RequestExtraInfoEvent struct {
	RequestID string
	Headers   []Header
}

// ResponseExtraInfoEvent is CDP Network.responseReceivedExtraInfo: the
// status and headers as received on the wire. It may arrive before or after
// the [ResponseEvent] (or, for a redirect, the [RequestEvent] of the next
// hop) it belongs to.
type ResponseExtraInfoEvent struct {
	RequestID  string
	StatusCode int
	Headers    []Header
}

// FinishedEvent is CDP Network.loadingFinished.
type FinishedEvent struct {
	RequestID         string
	EncodedDataLength int64
	Timestamp         time.Duration // see [RequestEvent.Timestamp]
}

// FailedEvent is CDP Network.loadingFailed.
type FailedEvent struct {
	RequestID string
	ErrorText string
	Canceled  bool
	Timestamp time.Duration // see [RequestEvent.Timestamp]
}

// RequestFilter selects requests for [Network.List].
type RequestFilter struct {
	// ResourceTypes keeps only requests of these types, compared
	// case-insensitively with [Request.Type] (so "xhr" matches "XHR"). Empty
	// keeps all.
	ResourceTypes []string
	// IncludePreserved lists the last three navigations, oldest first,
	// instead of the current one only.
	IncludePreserved bool
}

// Network collects a page's network requests in navigation segments.
//
// Create one with [NewNetwork]; the zero Network is not usable. A Network is
// not safe for concurrent use: one page actor owns it.
type Network struct {
	store *Store[*Request]
	// byRequestID maps a CDP request id to its latest kept hop.
	// Invariant: every value is in store; entries leave with their item (see
	// dropped), so the map is bounded by the store.
	byRequestID map[string]*Request
	// early holds raw request headers that arrived before their request,
	// oldest first. Invariant: at most maxEarly entries.
	early []RequestExtraInfoEvent
	// rawResponses holds raw response headers that arrived before the
	// response (or redirect) they belong to, oldest first. Chrome sends
	// them in the order of the responses, so the first one of a CDP id
	// belongs to that id's next response. Invariant: at most maxEarly.
	rawResponses []ResponseExtraInfoEvent
	// awaiting maps a CDP request id to the hops whose response (or
	// redirect) arrived saying its raw headers would follow, before they
	// did, oldest first: a redirect may come before the raw headers of the
	// hop it ends, and those belong to the older hop. Invariant: every hop
	// is in store and leaves with its item, like byRequestID.
	awaiting map[string][]*Request
	// strs shares repeated header names and values; reset on navigation.
	strs interner
	// earlyMocks holds what routes did to requests not seen yet, oldest
	// first. Invariant: at most maxEarly entries.
	earlyMocks []mock
}

// mock is what [Network.Mocked] was told of a request hop.
type mock struct{ requestID, url, how string }

// maxEarly bounds the raw request headers kept for requests not seen yet.
// They are normally claimed within a few events; the bound only matters for
// headers of requests that are never reported.
const maxEarly = 64

// NewNetwork returns an empty network collector with the limits of cfg.
func NewNetwork(cfg Config) *Network {
	limit := cfg.MaxRequests
	if limit <= 0 {
		limit = DefaultMaxRequests
	}
	n := &Network{byRequestID: make(map[string]*Request), awaiting: make(map[string][]*Request)}
	n.store = NewSizedStore(limit, cfg.maxBytes(), (*Request).size, n.dropped)
	return n
}

// size estimates the bytes r holds, for [Config.MaxBytes]. The response,
// which arrives later, is not counted.
func (r *Request) size() int {
	n := 160 + len(r.RequestID) + len(r.LoaderID) + len(r.FrameID) + len(r.Method) + len(r.URL) + len(r.PostData)
	for _, h := range r.Headers {
		n += 32 + len(h.Name) + len(h.Value)
	}
	for _, hop := range r.RedirectChain {
		n += 160 + len(hop.URL)
	}
	return n
}

// dropped forgets r's CDP id, unless a later hop has taken it over.
func (n *Network) dropped(r *Request) {
	if n.byRequestID[r.RequestID] == r {
		delete(n.byRequestID, r.RequestID)
	}
	if hops := n.awaiting[r.RequestID]; len(hops) > 0 {
		if hops = slices.DeleteFunc(hops, func(h *Request) bool { return h == r }); len(hops) == 0 {
			delete(n.awaiting, r.RequestID)
		} else {
			n.awaiting[r.RequestID] = hops
		}
	}
}

// RequestWillBeSent records a new request hop. If ev carries a redirect
// response for a kept request with the same CDP id, that earlier hop gets the
// response and is finished, and the new hop's RedirectChain lists the
// earlier hops.
func (n *Network) RequestWillBeSent(ev RequestEvent) {
	r := &Request{
		RequestID:     ev.RequestID,
		LoaderID:      n.strs.get(ev.LoaderID),
		FrameID:       n.strs.get(ev.FrameID),
		Type:          n.strs.get(ev.Type),
		IsNavigation:  ev.Type == resourceDocument && ev.RequestID == ev.LoaderID,
		Method:        n.strs.get(ev.Method),
		URL:           clip(ev.URL),
		Headers:       n.mergeHeaders(nil, ev.Headers),
		HasPostData:   ev.HasPostData || ev.PostData != "",
		Sent:          ev.WallTime,
		sentTimestamp: ev.Timestamp,
	}
	if len(ev.PostData) <= maxField {
		r.PostData = ev.PostData
	}
	if prev := n.byRequestID[ev.RequestID]; prev != nil && ev.RedirectResponse != nil {
		prev.Response = n.response(prev, *ev.RedirectResponse, ev.RedirectHasExtraInfo)
		prev.Finished = true
		prev.Responded = prev.timeAt(ev.Timestamp)
		prev.Ended = prev.Responded
		r.prev = prev
		hop := *prev
		hop.RedirectChain, hop.prev = nil, nil
		r.RedirectChain = append(slices.Clip(prev.RedirectChain), hop)
	}
	if i := slices.IndexFunc(n.early, func(e RequestExtraInfoEvent) bool { return e.RequestID == ev.RequestID }); i >= 0 {
		r.Headers = n.mergeHeaders(r.Headers, n.early[i].Headers)
		r.gotRequestExtra = true
		n.early = slices.Delete(n.early, i, i+1)
	}
	if i := slices.IndexFunc(n.earlyMocks, func(m mock) bool { return m.requestID == ev.RequestID && m.url == r.URL }); i >= 0 {
		r.Mocked = n.earlyMocks[i].how
		n.earlyMocks = slices.Delete(n.earlyMocks, i, i+1)
	}
	r.ID = n.store.Add(r)
	n.byRequestID[ev.RequestID] = r
}

// Mocked records that a route of the page answered the hop of CDP request
// requestID for url instead of the network: how says what it did, such as
// "fulfilled by route 1". The interception may report the hop before the
// Network domain does; it is then kept for that hop, within maxEarly.
func (n *Network) Mocked(requestID, url, how string) {
	if r := n.byRequestID[requestID]; r != nil && r.URL == clip(url) && r.Response == nil && !r.Failed && r.Mocked == "" {
		r.Mocked = how
		return
	}
	if len(n.earlyMocks) == maxEarly {
		n.earlyMocks = slices.Delete(n.earlyMocks, 0, 1)
	}
	n.earlyMocks = append(n.earlyMocks, mock{requestID, clip(url), how})
}

// RequestExtraInfo records the raw headers of a request hop: Chrome sends
// them in the order of the hops, so they are merged into the oldest hop with
// that CDP id that has none yet, or kept for the next hop if every hop has
// them.
func (n *Network) RequestExtraInfo(ev RequestExtraInfoEvent) {
	var oldest *Request
	for r := n.byRequestID[ev.RequestID]; r != nil; r = r.prev {
		if !r.gotRequestExtra {
			oldest = r
		}
	}
	if oldest != nil {
		oldest.Headers = n.mergeHeaders(oldest.Headers, ev.Headers)
		oldest.gotRequestExtra = true
		return
	}
	if len(n.early) >= maxEarly {
		n.early = slices.Delete(n.early, 0, 1)
	}
	n.early = append(n.early, ev)
}

// ResponseExtraInfo records the raw status and headers of a response,
// which replace those of the response event: now, if a response of that CDP
// id is waiting for them, else when the next one arrives.
func (n *Network) ResponseExtraInfo(ev ResponseExtraInfoEvent) {
	if hops := n.awaiting[ev.RequestID]; len(hops) > 0 {
		r := hops[0]
		if len(hops) == 1 {
			delete(n.awaiting, ev.RequestID)
		} else {
			n.awaiting[ev.RequestID] = hops[1:]
		}
		resp := *r.Response
		r.Response = n.withRaw(resp, ev)
		return
	}
	if len(n.rawResponses) >= maxEarly {
		n.rawResponses = slices.Delete(n.rawResponses, 0, 1)
	}
	n.rawResponses = append(n.rawResponses, ev)
}

// response returns resp as r's response: with its raw status and headers
// if it has some (hasRaw) and they arrived, else normalised and marked to
// take them when they do.
func (n *Network) response(r *Request, resp Response, hasRaw bool) *Response {
	if hasRaw {
		i := slices.IndexFunc(n.rawResponses, func(e ResponseExtraInfoEvent) bool { return e.RequestID == r.RequestID })
		if i >= 0 {
			raw := n.rawResponses[i]
			n.rawResponses = slices.Delete(n.rawResponses, i, i+1)
			return n.withRaw(resp, raw)
		}
		n.awaiting[r.RequestID] = append(n.awaiting[r.RequestID], r)
	}
	resp.Headers = n.normalizeHeaders(resp.Headers)
	return &resp
}

// withRaw returns resp with the raw status and headers of raw, normalised.
func (n *Network) withRaw(resp Response, raw ResponseExtraInfoEvent) *Response {
	if raw.StatusCode != 0 {
		resp.Status = raw.StatusCode
	}
	resp.Headers = n.normalizeHeaders(raw.Headers)
	return &resp
}

// mergeHeaders returns base updated with more as Puppeteer does it: names
// in lower case, a header already present keeps its place and takes the new
// value, others are appended. base is not modified.
func (n *Network) mergeHeaders(base, more []Header) []Header {
	out := make([]Header, len(base), len(base)+len(more))
	copy(out, base)
	for _, h := range more {
		name := n.strs.get(strings.ToLower(h.Name))
		value := n.strs.get(clip(h.Value))
		if i := slices.IndexFunc(out, func(o Header) bool { return o.Name == name }); i >= 0 {
			out[i].Value = value
			continue
		}
		out = append(out, Header{Name: name, Value: value})
	}
	return out
}

// normalizeHeaders lowercases response header names and joins the lines of
// a header received several times (CDP separates them with "\n") with ", ",
// or "\n " for set-cookie, dropping empty ones, as Puppeteer does.
func (n *Network) normalizeHeaders(hs []Header) []Header {
	out := make([]Header, 0, len(hs))
	for _, h := range hs {
		name := strings.ToLower(h.Name)
		value := h.Value
		if strings.Contains(value, "\n") {
			var parts []string
			for _, v := range strings.Split(value, "\n") {
				if v = strings.TrimSpace(v); v != "" {
					parts = append(parts, v)
				}
			}
			sep := ", "
			if name == "set-cookie" {
				sep = "\n "
			}
			value = strings.Join(parts, sep)
		}
		out = append(out, Header{Name: n.strs.get(name), Value: n.strs.get(clip(value))})
	}
	return out
}

// ResponseReceived records the response of a kept request; events for
// unknown or dropped requests are ignored.
func (n *Network) ResponseReceived(ev ResponseEvent) {
	r := n.byRequestID[ev.RequestID]
	if r == nil {
		return
	}
	r.Response = n.response(r, ev.Response, ev.HasExtraInfo)
	r.Responded = r.timeAt(ev.Timestamp)
}

// LoadingFinished marks a kept request finished; events for unknown or
// dropped requests are ignored.
func (n *Network) LoadingFinished(ev FinishedEvent) {
	r := n.byRequestID[ev.RequestID]
	if r == nil {
		return
	}
	r.Finished = true
	r.EncodedDataLength = ev.EncodedDataLength
	r.Ended = r.timeAt(ev.Timestamp)
}

// LoadingFailed marks a kept request failed; events for unknown or dropped
// requests are ignored.
func (n *Network) LoadingFailed(ev FailedEvent) {
	r := n.byRequestID[ev.RequestID]
	if r == nil {
		return
	}
	r.Failed = true
	r.Failure = ev.ErrorText
	r.Canceled = ev.Canceled
	r.Ended = r.timeAt(ev.Timestamp)
}

// FrameNavigated opens a new segment if nav is a main-frame cross-document
// navigation, and does nothing otherwise.
//
// The request that loaded the new document was sent before the navigation
// committed, so it would otherwise stay in the previous segment and be
// missing from the default listing (chrome-devtools-mcp lists it with
// the new document's requests). So the new segment starts
// at the last navigation request of the navigated frame in the current
// segment, or at the first still kept hop of its redirect chain, and takes
// everything that followed. If nav.LoaderID is set, only a request of that
// loader qualifies; that keeps a navigation without a request (a
// back/forward cache restore) from taking the previous document's requests
// along. With no qualifying request it is a plain split.
func (n *Network) FrameNavigated(nav Navigation) {
	if !nav.splits() {
		return
	}
	n.strs.reset()
	cur := n.store.List(false)
	start := -1
	for i := len(cur) - 1; i >= 0; i-- {
		r := cur[i]
		if r.IsNavigation && r.FrameID == nav.FrameID && (nav.LoaderID == "" || r.LoaderID == nav.LoaderID) {
			start = i
			break
		}
	}
	if start < 0 {
		n.store.Split()
		return
	}
	for i := start - 1; i >= 0; i-- {
		if cur[i].RequestID == cur[start].RequestID {
			start = i
		}
	}
	n.store.SplitFrom(cur[start].ID)
}

// List returns copies of the requests f selects, in the order they were sent.
func (n *Network) List(f RequestFilter) []Request {
	all := n.store.List(f.IncludePreserved)
	out := make([]Request, 0, len(all))
	for _, r := range all {
		if len(f.ResourceTypes) > 0 && !slices.ContainsFunc(f.ResourceTypes, func(t string) bool {
			return strings.EqualFold(t, r.Type)
		}) {
			continue
		}
		out = append(out, *r)
	}
	return out
}

// Request returns a copy of the request with the given reqid and true, or
// false if no kept segment holds it.
func (n *Network) Request(id int) (Request, bool) {
	r, ok := n.store.Get(id)
	if !ok {
		return Request{}, false
	}
	return *r, true
}

// ByRequestID returns a copy of the latest kept hop with the given CDP
// request id and true, or false if there is none.
func (n *Network) ByRequestID(requestID string) (Request, bool) {
	r := n.byRequestID[requestID]
	if r == nil {
		return Request{}, false
	}
	return *r, true
}

// InFlight returns the CDP request ids of kept requests, in any segment,
// that are not [Request.Done], oldest first.
func (n *Network) InFlight() []string {
	var pending []*Request
	for _, r := range n.byRequestID {
		if !r.Done() {
			pending = append(pending, r)
		}
	}
	slices.SortFunc(pending, func(a, b *Request) int { return a.ID - b.ID })
	ids := make([]string, len(pending))
	for i, r := range pending {
		ids[i] = r.RequestID
	}
	return ids
}
