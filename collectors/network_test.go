package collectors

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

const mainFrame = "MAIN"

// sent returns a requestWillBeSent for a subresource of the main frame.
func sent(requestID, typ, url string) RequestEvent {
	return RequestEvent{RequestID: requestID, LoaderID: "L0", FrameID: mainFrame, Type: typ, Method: "GET", URL: url}
}

// navigationSent returns a requestWillBeSent for a document load of frame;
// CDP gives a navigation request the id of its loader.
func navigationSent(loaderID, frameID, url string) RequestEvent {
	return RequestEvent{RequestID: loaderID, LoaderID: loaderID, FrameID: frameID, Type: "Document", Method: "GET", URL: url}
}

// pluck is the field f reads of each of xs, in order.
func pluck[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func ids(reqs []Request) []int     { return pluck(reqs, func(r Request) int { return r.ID }) }
func urls(reqs []Request) []string { return pluck(reqs, func(r Request) string { return r.URL }) }

func TestRequestIsNavigation(t *testing.T) {
	tests := []struct {
		name string
		ev   RequestEvent
		want bool
	}{
		{name: "document with request id = loader id", ev: navigationSent("L1", mainFrame, "/"), want: true},
		{name: "document of a subframe", ev: navigationSent("L2", "CHILD", "/frame"), want: true},
		{name: "document with another request id", ev: RequestEvent{RequestID: "7.1", LoaderID: "L1", Type: "Document"}},
		{name: "script with request id = loader id", ev: RequestEvent{RequestID: "L1", LoaderID: "L1", Type: "Script"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNetwork(Config{})
			n.RequestWillBeSent(tt.ev)
			if got := n.List(RequestFilter{})[0].IsNavigation; got != tt.want {
				t.Errorf("IsNavigation = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRequestStatus(t *testing.T) {
	tests := []struct {
		name string
		r    Request
		want string
	}{
		{name: "pending", r: Request{}, want: "pending"},
		{name: "response", r: Request{Response: &Response{Status: 200}}, want: "200"},
		{name: "error response", r: Request{Response: &Response{Status: 404}, Finished: true}, want: "404"},
		{name: "failed", r: Request{Failed: true, Failure: "net::ERR_NAME_NOT_RESOLVED"}, want: "net::ERR_NAME_NOT_RESOLVED"},
		{name: "failed without text", r: Request{Failed: true}, want: "failed"},
		{name: "failed after response", r: Request{Response: &Response{Status: 200}, Failed: true, Failure: "net::ERR_ABORTED"}, want: "200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Status(); got != tt.want {
				t.Errorf("Status() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNetworkLifecycle(t *testing.T) {
	n := NewNetwork(Config{})
	wall := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ev := sent("1.1", "Fetch", "https://example.test/api")
	ev.Method = "POST"
	ev.Headers = []Header{{"Content-Type", "application/json"}}
	ev.PostData, ev.HasPostData = `{"a":1}`, true
	ev.WallTime, ev.Timestamp = wall, 100*time.Second
	n.RequestWillBeSent(ev)

	if got, want := n.InFlight(), []string{"1.1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("InFlight() after send = %q, want %q", got, want)
	}
	resp := Response{Status: 201, StatusText: "Created", Headers: []Header{{"x", "y"}}, MIMEType: "application/json", RemoteAddress: "127.0.0.1:80"}
	n.ResponseReceived(ResponseEvent{RequestID: "1.1", Response: resp, Timestamp: 100*time.Second + 30*time.Millisecond})
	n.LoadingFinished(FinishedEvent{RequestID: "1.1", EncodedDataLength: 512, Timestamp: 100*time.Second + 50*time.Millisecond})

	got, ok := n.ByRequestID("1.1")
	if !ok {
		t.Fatalf("ByRequestID(%q) = false, want true", "1.1")
	}
	want := Request{
		ID: 1, RequestID: "1.1", LoaderID: "L0", FrameID: mainFrame, Type: "Fetch",
		Method: "POST", URL: "https://example.test/api", Headers: []Header{{"content-type", "application/json"}},
		PostData: `{"a":1}`, HasPostData: true,
		Response: &resp, Finished: true, EncodedDataLength: 512,
		Sent:          wall,
		Responded:     wall.Add(30 * time.Millisecond),
		Ended:         wall.Add(50 * time.Millisecond),
		sentTimestamp: 100 * time.Second,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ByRequestID(%q) = %+v, want %+v", "1.1", got, want)
	}
	if got, want := got.Status(), "201"; got != want {
		t.Errorf("Status() = %q, want %q", got, want)
	}
	if got := n.InFlight(); len(got) != 0 {
		t.Errorf("InFlight() after loadingFinished = %q, want none", got)
	}
	if got, ok := n.Request(1); !ok || got.RequestID != "1.1" {
		t.Errorf("Request(1) = %+v, %v, want request 1.1", got, ok)
	}
}

func TestNetworkFailedRequest(t *testing.T) {
	tests := []struct {
		name         string
		ev           FailedEvent
		wantStatus   string
		wantCanceled bool
	}{
		{name: "network error", ev: FailedEvent{RequestID: "1", ErrorText: "net::ERR_CONNECTION_REFUSED"}, wantStatus: "net::ERR_CONNECTION_REFUSED"},
		{name: "canceled", ev: FailedEvent{RequestID: "1", ErrorText: "net::ERR_ABORTED", Canceled: true}, wantStatus: "net::ERR_ABORTED", wantCanceled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNetwork(Config{})
			n.RequestWillBeSent(sent("1", "XHR", "/x"))
			n.RequestWillBeSent(sent("2", "XHR", "/y"))
			n.LoadingFailed(tt.ev)
			r, _ := n.Request(1)
			if got := r.Status(); got != tt.wantStatus {
				t.Errorf("Status() = %q, want %q", got, tt.wantStatus)
			}
			if !r.Failed || r.Finished || r.Canceled != tt.wantCanceled || r.Failure != tt.ev.ErrorText {
				t.Errorf("got Failed %v, Finished %v, Canceled %v, Failure %q; want true, false, %v, %q",
					r.Failed, r.Finished, r.Canceled, r.Failure, tt.wantCanceled, tt.ev.ErrorText)
			}
			if !r.Done() {
				t.Errorf("Done() = false, want true")
			}
			if got, want := n.InFlight(), []string{"2"}; !reflect.DeepEqual(got, want) {
				t.Errorf("InFlight() = %q, want %q", got, want)
			}
		})
	}
}

func TestNetworkRedirectChain(t *testing.T) {
	n := NewNetwork(Config{})
	first := navigationSent("L1", mainFrame, "http://a.test/")
	n.RequestWillBeSent(first)

	second := navigationSent("L1", mainFrame, "https://a.test/")
	second.RedirectResponse = &Response{Status: 301, Headers: []Header{{"Location", "https://a.test/"}}}
	n.RequestWillBeSent(second)

	third := navigationSent("L1", mainFrame, "https://a.test/home")
	third.RedirectResponse = &Response{Status: 302, Headers: []Header{{"Location", "/home"}}}
	n.RequestWillBeSent(third)

	n.ResponseReceived(ResponseEvent{RequestID: "L1", Response: Response{Status: 200}})
	n.LoadingFinished(FinishedEvent{RequestID: "L1"})

	reqs := n.List(RequestFilter{})
	if got, want := ids(reqs), []int{1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ids = %v, want %v (one item per hop)", got, want)
	}
	var statuses []string
	for _, r := range reqs {
		statuses = append(statuses, r.Status())
		if !r.Finished {
			t.Errorf("reqid %d: Finished = false, want true", r.ID)
		}
	}
	if want := []string{"301", "302", "200"}; !reflect.DeepEqual(statuses, want) {
		t.Errorf("statuses = %q, want %q", statuses, want)
	}
	if got, want := reqs[0].Response.Headers, []Header{{"location", "https://a.test/"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("first hop headers = %q, want %q", got, want)
	}

	final := reqs[2]
	if got, want := ids(final.RedirectChain), []int{1, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("final RedirectChain ids = %v, want %v", got, want)
	}
	if got, want := urls(final.RedirectChain), []string{"http://a.test/", "https://a.test/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("final RedirectChain urls = %q, want %q", got, want)
	}
	for _, hop := range final.RedirectChain {
		if hop.RedirectChain != nil {
			t.Errorf("chain hop %d has its own chain %v, want nil", hop.ID, ids(hop.RedirectChain))
		}
	}
	if got, want := final.RedirectChain[1].Status(), "302"; got != want {
		t.Errorf("chain hop 2 Status() = %q, want %q", got, want)
	}
	if got, want := ids(reqs[1].RedirectChain), []int{1}; !reflect.DeepEqual(got, want) {
		t.Errorf("second hop RedirectChain ids = %v, want %v", got, want)
	}
	if got, _ := n.ByRequestID("L1"); got.ID != 3 {
		t.Errorf("ByRequestID(%q).ID = %d, want 3 (the latest hop)", "L1", got.ID)
	}
	if got := n.InFlight(); len(got) != 0 {
		t.Errorf("InFlight() = %q, want none", got)
	}
}

func TestNetworkSplitOnNavigation(t *testing.T) {
	tests := []struct {
		name string
		// events run after the old document's requests "/old-doc" and
		// "/old.js"; a Navigation in the list is fed to FrameNavigated.
		events      []any
		wantCurrent []string
	}{
		{
			name: "navigation request and what followed move to the new segment",
			events: []any{
				navigationSent("L2", mainFrame, "/new-doc"),
				sent("3", "Ping", "/old-unload-beacon"),
				Navigation{FrameID: mainFrame, LoaderID: "L2", MainFrame: true},
				sent("4", "Script", "/new.js"),
			},
			wantCurrent: []string{"/new-doc", "/old-unload-beacon", "/new.js"},
		},
		{
			name: "loader id unknown uses the last main-frame navigation request",
			events: []any{
				navigationSent("L2", mainFrame, "/new-doc"),
				Navigation{FrameID: mainFrame, MainFrame: true},
			},
			wantCurrent: []string{"/new-doc"},
		},
		{
			name: "redirect hops of the navigation move too",
			events: []any{
				navigationSent("L2", mainFrame, "http://new/"),
				sent("3", "XHR", "/old-poll"),
				func() RequestEvent {
					ev := navigationSent("L2", mainFrame, "https://new/")
					ev.RedirectResponse = &Response{Status: 301}
					return ev
				}(),
				Navigation{FrameID: mainFrame, LoaderID: "L2", MainFrame: true},
			},
			wantCurrent: []string{"http://new/", "/old-poll", "https://new/"},
		},
		{
			name: "subframe navigation does not split",
			events: []any{
				navigationSent("L9", "CHILD", "/frame"),
				Navigation{FrameID: "CHILD", LoaderID: "L9"},
			},
			wantCurrent: []string{"/old-doc", "/old.js", "/frame"},
		},
		{
			name: "same-document navigation does not split",
			events: []any{
				sent("3", "Fetch", "/api"),
				Navigation{FrameID: mainFrame, LoaderID: "L1", MainFrame: true, SameDocument: true},
			},
			wantCurrent: []string{"/old-doc", "/old.js", "/api"},
		},
		{
			// Without a loader id the last main-frame navigation request is
			// the previous document's, so everything moves (upstream does
			// the same); the subframe's document request is not picked.
			name: "subframe document request is not the main navigation request",
			events: []any{
				navigationSent("L9", "CHILD", "/frame"),
				Navigation{FrameID: mainFrame, MainFrame: true},
			},
			wantCurrent: []string{"/old-doc", "/old.js", "/frame"},
		},
		{
			name: "navigation without a request is a plain split",
			events: []any{
				sent("3", "XHR", "/old-poll"),
				Navigation{FrameID: mainFrame, LoaderID: "L-bfcache", MainFrame: true},
				sent("4", "XHR", "/after"),
			},
			wantCurrent: []string{"/after"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNetwork(Config{})
			n.RequestWillBeSent(navigationSent("L1", mainFrame, "/old-doc"))
			n.RequestWillBeSent(sent("2", "Script", "/old.js"))
			n.FrameNavigated(Navigation{FrameID: mainFrame, LoaderID: "L1", MainFrame: true})
			for _, ev := range tt.events {
				switch ev := ev.(type) {
				case RequestEvent:
					n.RequestWillBeSent(ev)
				case Navigation:
					n.FrameNavigated(ev)
				default:
					t.Fatalf("unexpected event %T", ev)
				}
			}
			if got := urls(n.List(RequestFilter{})); !reflect.DeepEqual(got, tt.wantCurrent) {
				t.Errorf("current segment = %q, want %q", got, tt.wantCurrent)
			}
			all := n.List(RequestFilter{IncludePreserved: true})
			for i, r := range all {
				if r.ID != i+1 {
					t.Errorf("preserved list ids = %v, want 1..%d in order", ids(all), len(all))
					break
				}
			}
		})
	}
}

func TestNetworkKeepsThreeNavigations(t *testing.T) {
	n := NewNetwork(Config{})
	for i := 1; i <= 4; i++ {
		loader := fmt.Sprintf("L%d", i)
		n.RequestWillBeSent(navigationSent(loader, mainFrame, fmt.Sprintf("/doc%d", i)))
		n.FrameNavigated(Navigation{FrameID: mainFrame, LoaderID: loader, MainFrame: true})
		n.RequestWillBeSent(sent(fmt.Sprintf("%d.1", i), "XHR", fmt.Sprintf("/poll%d", i)))
	}
	want := []string{"/doc2", "/poll2", "/doc3", "/poll3", "/doc4", "/poll4"}
	if got := urls(n.List(RequestFilter{IncludePreserved: true})); !reflect.DeepEqual(got, want) {
		t.Errorf("List(IncludePreserved) = %q, want %q", got, want)
	}
	if got, want := urls(n.List(RequestFilter{})), []string{"/doc4", "/poll4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List() = %q, want %q", got, want)
	}
	for _, id := range []int{1, 2} {
		if r, ok := n.Request(id); ok {
			t.Errorf("Request(%d) = %s, true, want false (navigation dropped)", id, r.URL)
		}
	}
	for _, cdpID := range []string{"L1", "1.1"} {
		if _, ok := n.ByRequestID(cdpID); ok {
			t.Errorf("ByRequestID(%q) = true, want false", cdpID)
		}
	}
	if got, want := len(n.byRequestID), 6; got != want {
		t.Errorf("len(byRequestID) = %d, want %d", got, want)
	}
}

func TestNetworkLimit(t *testing.T) {
	n := NewNetwork(Config{}) // default limit
	for i := 1; i <= DefaultMaxRequests+1; i++ {
		n.RequestWillBeSent(sent(fmt.Sprint(i), "XHR", fmt.Sprintf("/r%d", i)))
	}
	reqs := n.List(RequestFilter{})
	if got, want := len(reqs), DefaultMaxRequests; got != want {
		t.Fatalf("len(List()) = %d, want %d", got, want)
	}
	if got, want := reqs[0].ID, 2; got != want {
		t.Errorf("first kept reqid = %d, want %d", got, want)
	}
	if got, want := reqs[len(reqs)-1].ID, DefaultMaxRequests+1; got != want {
		t.Errorf("last reqid = %d, want %d (ids never shift)", got, want)
	}
	if _, ok := n.Request(1); ok {
		t.Errorf("Request(1) = true after it was dropped, want false")
	}
	if _, ok := n.ByRequestID("1"); ok {
		t.Errorf("ByRequestID(%q) = true after it was dropped, want false", "1")
	}
	// Late events for a dropped request are ignored.
	n.LoadingFinished(FinishedEvent{RequestID: "1"})
	if got, ok := n.Request(2); !ok || got.URL != "/r2" {
		t.Errorf("Request(2) = %q, %v, want /r2, true", got.URL, ok)
	}
	if got, want := len(n.byRequestID), DefaultMaxRequests; got != want {
		t.Errorf("len(byRequestID) = %d, want %d", got, want)
	}
	if got, want := len(n.InFlight()), DefaultMaxRequests; got != want {
		t.Errorf("len(InFlight()) = %d, want %d", got, want)
	}

	small := NewNetwork(Config{MaxRequests: 2})
	for i := range 3 {
		small.RequestWillBeSent(sent(fmt.Sprint(i), "XHR", "/"))
	}
	if got, want := ids(small.List(RequestFilter{})), []int{2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("MaxRequests 2: ids = %v, want %v", got, want)
	}
}

// A page that sends requests forever, across navigations, must keep the
// collector's size flat.
func TestNetworkSizeStaysFlat(t *testing.T) {
	const limit = 50
	n := NewNetwork(Config{MaxRequests: limit})
	for i := range 50_000 {
		id := fmt.Sprint(i)
		n.RequestWillBeSent(sent(id, "XHR", "/poll"))
		if i%3 == 0 {
			n.LoadingFinished(FinishedEvent{RequestID: id})
		}
		if i%1000 == 0 {
			loader := fmt.Sprintf("L%d", i)
			n.RequestWillBeSent(navigationSent(loader, mainFrame, "/"))
			n.FrameNavigated(Navigation{FrameID: mainFrame, LoaderID: loader, MainFrame: true})
		}
	}
	max := keptSegments * limit
	if got := n.store.Len(); got > max {
		t.Errorf("store.Len() = %d, want <= %d", got, max)
	}
	if got := len(n.byRequestID); got > max {
		t.Errorf("len(byRequestID) = %d, want <= %d", got, max)
	}
	if got, want := len(n.byRequestID), n.store.Len(); got != want {
		t.Errorf("len(byRequestID) = %d, want %d (one entry per kept request)", got, want)
	}
}

func TestNetworkIDsStableUnderFilteringAndPaging(t *testing.T) {
	n := NewNetwork(Config{})
	types := []string{"Document", "Script", "XHR", "Image", "XHR", "Fetch", "XHR"}
	for i, typ := range types {
		n.RequestWillBeSent(sent(fmt.Sprint(i), typ, fmt.Sprintf("/%d", i+1)))
	}
	xhr := n.List(RequestFilter{ResourceTypes: []string{"xhr"}})
	if got, want := ids(xhr), []int{3, 5, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("xhr ids = %v, want %v", got, want)
	}
	mixed := n.List(RequestFilter{ResourceTypes: []string{"script", "FETCH"}})
	if got, want := ids(mixed), []int{2, 6}; !reflect.DeepEqual(got, want) {
		t.Errorf("script+fetch ids = %v, want %v", got, want)
	}
	page := Paginate(n.List(RequestFilter{}), PageOptions{PageSize: new(3), PageIdx: new(1)})
	if got, want := ids(page.Items), []int{4, 5, 6}; !reflect.DeepEqual(got, want) {
		t.Errorf("page 1 ids = %v, want %v", got, want)
	}
	for _, r := range page.Items {
		if got, want := r.URL, fmt.Sprintf("/%d", r.ID); got != want {
			t.Errorf("reqid %d URL = %q, want %q", r.ID, got, want)
		}
	}
}

// The page actor hands copies to the transport's goroutine while it keeps
// feeding events; run with -race.
func TestNetworkCopiesSafeWhileFeeding(t *testing.T) {
	n := NewNetwork(Config{MaxRequests: 20})
	n.RequestWillBeSent(navigationSent("L0", mainFrame, "/"))
	n.ResponseReceived(ResponseEvent{RequestID: "L0", Response: Response{Status: 200, Headers: []Header{{"A", "b"}}}})
	snapshot := n.List(RequestFilter{IncludePreserved: true})

	var wg sync.WaitGroup // waited for below
	wg.Go(func() {
		for range 100 {
			for _, r := range snapshot {
				_ = r.Status()
				_ = r.Response.Headers[0].Value
				_ = len(r.Headers)
				_ = len(r.RedirectChain)
			}
		}
	})
	for i := range 200 {
		id := fmt.Sprint(i % 7)
		ev := sent(id, "XHR", "/x")
		if i%2 == 1 {
			ev.RedirectResponse = &Response{Status: 302}
		}
		n.RequestWillBeSent(ev)
		n.ResponseReceived(ResponseEvent{RequestID: "L0", Response: Response{Status: 304}})
		n.RequestExtraInfo(RequestExtraInfoEvent{RequestID: "L0", Headers: []Header{{"Cookie", "x"}}})
		n.ResponseExtraInfo(ResponseExtraInfoEvent{RequestID: "L0", StatusCode: 304, Headers: []Header{{"A", "c"}}})
		n.LoadingFinished(FinishedEvent{RequestID: id})
	}
	wg.Wait()
	if got, want := snapshot[0].Status(), "200"; got != want {
		t.Errorf("copy Status() = %q, want %q (copies do not follow later events)", got, want)
	}
}

func TestNetworkRawHeaders(t *testing.T) {
	h := func(kv ...string) []Header {
		var out []Header
		for i := 0; i < len(kv); i += 2 {
			out = append(out, Header{kv[i], kv[i+1]})
		}
		return out
	}
	ev := sent("1", "Fetch", "/api")
	ev.Headers = h("Referer", "http://a.test/", "User-Agent", "UA")
	extra := RequestExtraInfoEvent{RequestID: "1", Headers: h("accept", "*/*", "cookie", "sid=1", "referer", "http://a.test/x", "user-agent", "UA")}
	wantRequest := h("referer", "http://a.test/x", "user-agent", "UA", "accept", "*/*", "cookie", "sid=1")
	resp := Response{Status: 200, Headers: h("Content-Type", "text/plain")}
	respExtra := ResponseExtraInfoEvent{RequestID: "1", StatusCode: 201, Headers: h("Content-Type", "text/plain", "Set-Cookie", "a=1\nb=2", "Vary", "A\n\nB")}
	wantResponse := h("content-type", "text/plain", "set-cookie", "a=1\n b=2", "vary", "A, B")

	orders := map[string][]func(n *Network){
		"events first": {
			func(n *Network) { n.RequestWillBeSent(ev) },
			func(n *Network) { n.RequestExtraInfo(extra) },
			func(n *Network) {
				n.ResponseReceived(ResponseEvent{RequestID: "1", Response: resp, HasExtraInfo: true})
			},
			func(n *Network) { n.ResponseExtraInfo(respExtra) },
		},
		"raw headers first": {
			func(n *Network) { n.RequestExtraInfo(extra) },
			func(n *Network) { n.RequestWillBeSent(ev) },
			func(n *Network) { n.ResponseExtraInfo(respExtra) },
			func(n *Network) {
				n.ResponseReceived(ResponseEvent{RequestID: "1", Response: resp, HasExtraInfo: true})
			},
		},
	}
	for name, steps := range orders {
		t.Run(name, func(t *testing.T) {
			n := NewNetwork(Config{})
			for _, step := range steps {
				step(n)
			}
			r, _ := n.Request(1)
			if !reflect.DeepEqual(r.Headers, wantRequest) {
				t.Errorf("request headers = %q, want %q", r.Headers, wantRequest)
			}
			if r.Response == nil || r.Response.Status != 201 || !reflect.DeepEqual(r.Response.Headers, wantResponse) {
				t.Errorf("response = %+v, want status 201 and headers %q", r.Response, wantResponse)
			}
			if len(n.early) != 0 {
				t.Errorf("early = %v, want it claimed", n.early)
			}
		})
	}

	// Without raw headers, the event's are shown, normalised.
	n := NewNetwork(Config{})
	n.RequestWillBeSent(ev)
	n.ResponseReceived(ResponseEvent{RequestID: "1", Response: resp})
	if r, _ := n.Request(1); !reflect.DeepEqual(r.Response.Headers, h("content-type", "text/plain")) {
		t.Errorf("response headers without raw ones = %q", r.Response.Headers)
	}
}

// Chrome sends the raw headers of each hop of a redirect chain ahead of the
// events of that hop; they are matched to the hops in order.
func TestNetworkRedirectRawHeaders(t *testing.T) {
	raw := func(status int, kv ...string) ResponseExtraInfoEvent {
		ev := ResponseExtraInfoEvent{RequestID: "1", StatusCode: status}
		for i := 0; i < len(kv); i += 2 {
			ev.Headers = append(ev.Headers, Header{kv[i], kv[i+1]})
		}
		return ev
	}
	hop := func(url string, status int) RequestEvent {
		ev := sent("1", "Fetch", url)
		ev.RedirectResponse = &Response{Status: status}
		ev.RedirectHasExtraInfo = true
		return ev
	}
	tests := []struct {
		name  string
		steps func(n *Network)
	}{
		{"as Chrome sends them", func(n *Network) {
			n.RequestWillBeSent(sent("1", "Fetch", "/r1"))
			n.ResponseExtraInfo(raw(302, "Location", "/r2"))
			n.ResponseExtraInfo(raw(301, "Location", "/json"))
			n.RequestWillBeSent(hop("/r2", 302))
			n.RequestWillBeSent(hop("/json", 301))
			n.ResponseExtraInfo(raw(200, "Content-Type", "application/json"))
			n.ResponseReceived(ResponseEvent{RequestID: "1", Response: Response{Status: 200}, HasExtraInfo: true})
		}},
		{"raw headers after both redirects", func(n *Network) {
			n.RequestWillBeSent(sent("1", "Fetch", "/r1"))
			n.RequestWillBeSent(hop("/r2", 302))
			n.RequestWillBeSent(hop("/json", 301))
			n.ResponseExtraInfo(raw(302, "Location", "/r2"))
			n.ResponseExtraInfo(raw(301, "Location", "/json"))
			n.ResponseReceived(ResponseEvent{RequestID: "1", Response: Response{Status: 200}, HasExtraInfo: true})
			n.ResponseExtraInfo(raw(200, "Content-Type", "application/json"))
		}},
		{"raw headers last", func(n *Network) {
			n.RequestWillBeSent(sent("1", "Fetch", "/r1"))
			n.RequestWillBeSent(hop("/r2", 302))
			n.ResponseExtraInfo(raw(302, "Location", "/r2"))
			n.RequestWillBeSent(hop("/json", 301))
			n.ResponseExtraInfo(raw(301, "Location", "/json"))
			n.ResponseReceived(ResponseEvent{RequestID: "1", Response: Response{Status: 200}, HasExtraInfo: true})
			n.ResponseExtraInfo(raw(200, "Content-Type", "application/json"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNetwork(Config{})
			tt.steps(n)
			want := [][]Header{{{"location", "/r2"}}, {{"location", "/json"}}, {{"content-type", "application/json"}}}
			for i, w := range want {
				r, _ := n.Request(i + 1)
				if !reflect.DeepEqual(r.Response.Headers, w) {
					t.Errorf("hop %d headers = %q, want %q", i+1, r.Response.Headers, w)
				}
			}
			if len(n.awaiting) != 0 || len(n.rawResponses) != 0 {
				t.Errorf("awaiting %v, rawResponses %v: want all claimed", n.awaiting, n.rawResponses)
			}
		})
	}
}

func TestNetworkEarlyHeadersBounded(t *testing.T) {
	n := NewNetwork(Config{})
	for i := range 10 * maxEarly {
		n.RequestExtraInfo(RequestExtraInfoEvent{RequestID: fmt.Sprint("never-", i)})
		n.ResponseExtraInfo(ResponseExtraInfoEvent{RequestID: fmt.Sprint("never-", i)})
	}
	if len(n.early) > maxEarly || len(n.rawResponses) > maxEarly {
		t.Errorf("len(early), len(rawResponses) = %d, %d, want <= %d", len(n.early), len(n.rawResponses), maxEarly)
	}
}

func TestNetworkLargeBodiesAndURLs(t *testing.T) {
	n := NewNetwork(Config{})
	ev := sent("1", "Fetch", "data:text/plain,"+strings.Repeat("a", 2*maxField))
	ev.Method, ev.PostData = "POST", strings.Repeat("b", maxField+1)
	n.RequestWillBeSent(ev)
	r, _ := n.Request(1)
	if len(r.URL) > maxField+len(truncated) || !strings.HasSuffix(r.URL, truncated) {
		t.Errorf("URL kept %d bytes, want it cut to %d", len(r.URL), maxField)
	}
	if r.PostData != "" || !r.HasPostData {
		t.Errorf("PostData kept %d bytes, HasPostData %v; want a large body left to be read on demand", len(r.PostData), r.HasPostData)
	}
}

// Raw request headers go to the oldest hop of a chain that lacks them,
// whichever hop was reported last.
func TestNetworkRequestRawHeadersOfRedirectHops(t *testing.T) {
	raw := func(v string) RequestExtraInfoEvent {
		return RequestExtraInfoEvent{RequestID: "1", Headers: []Header{{"X-Hop", v}}}
	}
	hop := func(url string) RequestEvent {
		ev := sent("1", "Fetch", url)
		ev.RedirectResponse = &Response{Status: 302}
		return ev
	}
	tests := []struct {
		name  string
		steps func(n *Network)
	}{
		{"each after its hop", func(n *Network) {
			n.RequestWillBeSent(sent("1", "Fetch", "/r1"))
			n.RequestExtraInfo(raw("1"))
			n.RequestWillBeSent(hop("/r2"))
			n.RequestExtraInfo(raw("2"))
		}},
		{"each before its hop", func(n *Network) {
			n.RequestExtraInfo(raw("1"))
			n.RequestWillBeSent(sent("1", "Fetch", "/r1"))
			n.RequestExtraInfo(raw("2"))
			n.RequestWillBeSent(hop("/r2"))
		}},
		{"the first one late", func(n *Network) {
			n.RequestWillBeSent(sent("1", "Fetch", "/r1"))
			n.RequestWillBeSent(hop("/r2"))
			n.RequestExtraInfo(raw("1"))
			n.RequestExtraInfo(raw("2"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNetwork(Config{})
			tt.steps(n)
			for i, want := range []string{"1", "2"} {
				r, _ := n.Request(i + 1)
				if got := r.Headers; len(got) != 1 || got[0] != (Header{"x-hop", want}) {
					t.Errorf("hop %d headers = %q, want x-hop: %s", i+1, got, want)
				}
			}
			if len(n.early) != 0 {
				t.Errorf("early = %v, want all claimed", n.early)
			}
		})
	}
}
