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
	Method      string
	URL         string
	Headers     map[string]string // request headers
	PostData    string            // request body, if CDP sent it inline
	HasPostData bool              // whether the request has a body, even if PostData is empty

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

	sentTimestamp time.Duration // monotonic time of Sent, see timeAt
}

// A Response is what a request got back.
type Response struct {
	Status        int               // HTTP status code
	StatusText    string            // HTTP status text
	Headers       map[string]string // response headers
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
	URL         string
	Headers     map[string]string
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
}

// ResponseEvent is CDP Network.responseReceived.
type ResponseEvent struct {
	RequestID string
	Response  Response
	Timestamp time.Duration // see [RequestEvent.Timestamp]
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
}

// NewNetwork returns an empty network collector with the limits of cfg.
func NewNetwork(cfg Config) *Network {
	limit := cfg.MaxRequests
	if limit <= 0 {
		limit = DefaultMaxRequests
	}
	n := &Network{byRequestID: make(map[string]*Request)}
	n.store = NewStore(limit, n.dropped)
	return n
}

// dropped forgets r's CDP id, unless a later hop has taken it over.
func (n *Network) dropped(r *Request) {
	if n.byRequestID[r.RequestID] == r {
		delete(n.byRequestID, r.RequestID)
	}
}

// RequestWillBeSent records a new request hop. If ev carries a redirect
// response for a kept request with the same CDP id, that earlier hop gets the
// response and is finished, and the new hop's RedirectChain lists the
// earlier hops.
func (n *Network) RequestWillBeSent(ev RequestEvent) {
	r := &Request{
		RequestID:     ev.RequestID,
		LoaderID:      ev.LoaderID,
		FrameID:       ev.FrameID,
		Type:          ev.Type,
		IsNavigation:  ev.Type == resourceDocument && ev.RequestID == ev.LoaderID,
		Method:        ev.Method,
		URL:           ev.URL,
		Headers:       ev.Headers,
		PostData:      ev.PostData,
		HasPostData:   ev.HasPostData,
		Sent:          ev.WallTime,
		sentTimestamp: ev.Timestamp,
	}
	if prev := n.byRequestID[ev.RequestID]; prev != nil && ev.RedirectResponse != nil {
		resp := *ev.RedirectResponse
		prev.Response = &resp
		prev.Finished = true
		prev.Responded = prev.timeAt(ev.Timestamp)
		prev.Ended = prev.Responded
		hop := *prev
		hop.RedirectChain = nil
		r.RedirectChain = append(slices.Clip(prev.RedirectChain), hop)
	}
	r.ID = n.store.Add(r)
	n.byRequestID[ev.RequestID] = r
}

// ResponseReceived records the response of a kept request; events for
// unknown or dropped requests are ignored.
func (n *Network) ResponseReceived(ev ResponseEvent) {
	r := n.byRequestID[ev.RequestID]
	if r == nil {
		return
	}
	resp := ev.Response
	r.Response = &resp
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
// missing from the default listing (seed 000 §5.4). So the new segment starts
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
