// Package devtools collects, for each page, what DevTools' Console,
// Network and Issues panels show of it, and serves chrome-devtools-mcp's
// debugging tools from that: list_console_messages, get_console_message,
// list_network_requests and get_network_request.
//
// Its [Slice] is the page's [page.Slice] for this capability: it decodes
// the CDP events it registered for (console calls, uncaught exceptions,
// the browser's own log entries, issues, the Network domain's request
// events, committed navigations) into the plain structs of package
// collectors, which keep them per navigation with stable ids. Events
// arrive on the page's run goroutine in the order Chrome sent them;
// out-of-process iframes' console messages and requests join the page's,
// as same-process frames' do. Nothing blocks while collecting: what needs a
// round trip (an object argument's full value, an exception's cause chain,
// a request or response body) is read when an agent asks for that item,
// through [page.Host.Call], so the page keeps applying events meanwhile
// (ARCHITECTURE.md §2, law 5). Browser issues are named and grouped as
// DevTools does (issues.go); values, stack traces and headers are put
// into words by package page/internal/format.
//
// The tools (tools.go) and their reply text (render.go) follow
// chrome-devtools-mcp 1.11. An extension's service worker has a console
// of its own, collected by its actor (page/worker);
// list_console_messages with serviceWorkerId lists it.
//
// Goroutines: none of its own. The slice's state is the page's run
// goroutine's; [Slice.Enable] runs on the Await goroutine of the page's
// start and touches only the browser.
package devtools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/internal/format"
)

// collected finds a page's collectors.
var collected = page.Register(page.Capability[*Slice]{
	Name: "devtools",
	// The page's core applies the Network events and Page.frameNavigated
	// too (its waiter, its frames); the slice applies them after it.
	Events: []string{
		"Runtime.consoleAPICalled",
		"Runtime.exceptionThrown",
		"Audits.issueAdded",
		"Log.entryAdded",
		"Network.requestWillBeSent",
		"Network.requestWillBeSentExtraInfo",
		"Network.responseReceived",
		"Network.responseReceivedExtraInfo",
		"Network.loadingFinished",
		"Network.loadingFailed",
		"Page.frameNavigated",
	},
	New: func(h *page.Host) *Slice {
		return &Slice{
			h:       h,
			console: collectors.NewConsole(collectors.Config{}),
			network: collectors.NewNetwork(collectors.Config{}),
		}
	},
})

// Of returns page a's collectors.
func Of(a *page.Actor) *Slice { return collected.Of(a) }

// Slice is a page's console, network and issues collectors. Its exported
// methods may be called from any goroutine; each runs on the page's run
// goroutine, which owns console and network.
type Slice struct {
	h       *page.Host
	console *collectors.Console // console calls, exceptions, log entries, issues
	network *collectors.Network // requests, each hop of a redirect its own
}

// The slice turns its domains on as the page starts, and hears of the
// requests a route answers.
var (
	_ page.Enabler      = (*Slice)(nil)
	_ page.MockRecorder = (*Slice)(nil)
)

// Apply feeds one event of session s to the collectors. An event that
// cannot be decoded is logged and skipped.
func (sl *Slice) Apply(s *page.Session, ev cdpconn.Event) error {
	if err := sl.apply(s, ev); err != nil {
		sl.h.Log().Debug().Err(err).Str("method", ev.Method).Msg("event not collected")
	}
	return nil
}

// Mocked records that a route answered the request itself, for its line
// in list_network_requests.
func (sl *Slice) Mocked(requestID, url, how string) { sl.network.Mocked(requestID, url, how) }

func (sl *Slice) apply(s *page.Session, ev cdpconn.Event) error {
	switch ev.Method {
	case "Runtime.consoleAPICalled":
		ce, err := format.ConsoleAPICalled(ev.Params)
		if err != nil {
			return err
		}
		for i := range ce.Args {
			ce.Args[i].Ref = sessionRef(s, ce.Args[i].Ref)
		}
		sl.console.ConsoleAPICalled(ce)
	case "Runtime.exceptionThrown":
		x, objectID, err := format.ExceptionThrown(ev.Params)
		if err != nil {
			return err
		}
		x.Ref = sessionRef(s, objectID)
		sl.console.ExceptionThrown(x)
	case "Log.entryAdded":
		return sl.applyLogEntry(s, ev.Params)
	case "Audits.issueAdded":
		var e struct {
			Issue struct {
				Code    string                     `json:"code"`
				Details map[string]json.RawMessage `json:"details"`
			} `json:"issue"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		for _, d := range e.Issue.Details {
			for _, iss := range sl.issueEvents(e.Issue.Code, d) {
				sl.console.IssueAdded(iss)
			}
		}
	case "Page.frameNavigated":
		var e struct {
			Frame struct {
				ID       string  `json:"id"`
				ParentID *string `json:"parentId"`
				LoaderID string  `json:"loaderId"`
			} `json:"frame"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		// Page.frameNavigated reports committed cross-document navigations
		// only; same-document ones come as Page.navigatedWithinDocument.
		nav := collectors.Navigation{FrameID: e.Frame.ID, LoaderID: e.Frame.LoaderID, MainFrame: s.IsTop() && e.Frame.ParentID == nil}
		sl.console.FrameNavigated(nav)
		sl.network.FrameNavigated(nav)
	default:
		return sl.applyNetwork(ev)
	}
	return nil
}

// applyNetwork feeds one of the Network domain's events to the network
// collector.
func (sl *Slice) applyNetwork(ev cdpconn.Event) error {
	switch ev.Method {
	case "Network.requestWillBeSent":
		var e struct {
			RequestID            string       `json:"requestId"`
			LoaderID             string       `json:"loaderId"`
			FrameID              string       `json:"frameId"`
			Type                 string       `json:"type"`
			WallTime             float64      `json:"wallTime"`
			Timestamp            float64      `json:"timestamp"`
			Request              cdpRequest   `json:"request"`
			RedirectResponse     *cdpResponse `json:"redirectResponse"`
			RedirectHasExtraInfo bool         `json:"redirectHasExtraInfo"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		typ := e.Type
		if typ == "" {
			typ = "Other"
		}
		r := collectors.RequestEvent{
			RequestID:            e.RequestID,
			LoaderID:             e.LoaderID,
			FrameID:              e.FrameID,
			Type:                 typ,
			Method:               e.Request.Method,
			URL:                  e.Request.URL + e.Request.URLFragment,
			Headers:              format.Headers(e.Request.Headers),
			PostData:             e.Request.inlineBody(),
			HasPostData:          e.Request.HasPostData,
			WallTime:             epochTime(e.WallTime),
			Timestamp:            monotonic(e.Timestamp),
			RedirectHasExtraInfo: e.RedirectHasExtraInfo,
		}
		if e.RedirectResponse != nil {
			resp := e.RedirectResponse.response()
			r.RedirectResponse = &resp
		}
		sl.network.RequestWillBeSent(r)
	case "Network.requestWillBeSentExtraInfo":
		var e struct {
			RequestID string          `json:"requestId"`
			Headers   json.RawMessage `json:"headers"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		sl.network.RequestExtraInfo(collectors.RequestExtraInfoEvent{RequestID: e.RequestID, Headers: format.Headers(e.Headers)})
	case "Network.responseReceived":
		var e struct {
			RequestID    string      `json:"requestId"`
			Timestamp    float64     `json:"timestamp"`
			Response     cdpResponse `json:"response"`
			HasExtraInfo bool        `json:"hasExtraInfo"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		sl.network.ResponseReceived(collectors.ResponseEvent{RequestID: e.RequestID, Response: e.Response.response(), HasExtraInfo: e.HasExtraInfo, Timestamp: monotonic(e.Timestamp)})
	case "Network.responseReceivedExtraInfo":
		var e struct {
			RequestID  string          `json:"requestId"`
			StatusCode int             `json:"statusCode"`
			Headers    json.RawMessage `json:"headers"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		sl.network.ResponseExtraInfo(collectors.ResponseExtraInfoEvent{RequestID: e.RequestID, StatusCode: e.StatusCode, Headers: format.Headers(e.Headers)})
	case "Network.loadingFinished":
		var e struct {
			RequestID         string  `json:"requestId"`
			Timestamp         float64 `json:"timestamp"`
			EncodedDataLength float64 `json:"encodedDataLength"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		sl.network.LoadingFinished(collectors.FinishedEvent{RequestID: e.RequestID, EncodedDataLength: int64(e.EncodedDataLength), Timestamp: monotonic(e.Timestamp)})
	case "Network.loadingFailed":
		var e struct {
			RequestID string  `json:"requestId"`
			Timestamp float64 `json:"timestamp"`
			ErrorText string  `json:"errorText"`
			Canceled  bool    `json:"canceled"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		sl.network.LoadingFailed(collectors.FailedEvent{RequestID: e.RequestID, ErrorText: e.ErrorText, Canceled: e.Canceled, Timestamp: monotonic(e.Timestamp)})
	}
	return nil
}

// epochTime converts CDP TimeSinceEpoch (seconds) to a time.
func epochTime(s float64) time.Time {
	if s <= 0 {
		return time.Time{}
	}
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// monotonic converts CDP MonotonicTime (seconds) to a duration.
func monotonic(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// cdpRequest is CDP Network.Request.
type cdpRequest struct {
	URL             string          `json:"url"`
	URLFragment     string          `json:"urlFragment"`
	Method          string          `json:"method"`
	Headers         json.RawMessage `json:"headers"`
	PostData        string          `json:"postData"`
	HasPostData     bool            `json:"hasPostData"`
	PostDataEntries []struct {
		Bytes string `json:"bytes"`
	} `json:"postDataEntries"`
}

// inlineBody returns the inline request body: the concatenated entries when
// CDP sends them (as Puppeteer reads them), else requestBody.
func (r cdpRequest) inlineBody() string {
	if len(r.PostDataEntries) == 0 {
		return r.PostData
	}
	var b []byte
	for _, e := range r.PostDataEntries {
		if d, err := base64.StdEncoding.DecodeString(e.Bytes); err == nil {
			b = append(b, d...)
		}
	}
	return string(b)
}

// cdpResponse is CDP Network.Response.
type cdpResponse struct {
	Status            int             `json:"status"`
	StatusText        string          `json:"statusText"`
	Headers           json.RawMessage `json:"headers"`
	MIMEType          string          `json:"mimeType"`
	RemoteIPAddress   string          `json:"remoteIPAddress"`
	RemotePort        int             `json:"remotePort"`
	FromDiskCache     bool            `json:"fromDiskCache"`
	FromPrefetchCache bool            `json:"fromPrefetchCache"`
}

func (r cdpResponse) response() collectors.Response {
	resp := collectors.Response{
		Status:     r.Status,
		StatusText: r.StatusText,
		Headers:    format.Headers(r.Headers),
		MIMEType:   r.MIMEType,
		FromCache:  r.FromDiskCache || r.FromPrefetchCache,
	}
	if r.RemoteIPAddress != "" {
		resp.RemoteAddress = r.RemoteIPAddress + ":" + strconv.Itoa(r.RemotePort)
	}
	return resp
}

// asyncStackDepth is how many asynchronous callers (setTimeout, await,
// promise reactions) a stack trace follows, as DevTools sets it.
const asyncStackDepth = 32

// Enable turns on what the collectors need beyond the domains the page
// enables itself: issue reporting (Audits), the browser's own console
// messages (Log, console.go), and asynchronous stack traces so that a
// message logged in a callback shows where the callback was scheduled
// ("--- setTimeout ---"). The page runs it as it starts, with its other
// domains, so that stacks are complete from the first message.
func (sl *Slice) Enable(ctx context.Context) error {
	top := sl.h.Top()
	if err := sl.h.Client().Audits.Enable(ctx); err != nil {
		return fmt.Errorf("enable issues: %w", err)
	}
	if err := rpcc.Invoke(ctx, "Runtime.setAsyncCallStackDepth", map[string]any{"maxDepth": asyncStackDepth}, nil, top.RPC()); err != nil {
		return fmt.Errorf("enable async stacks: %w", err)
	}
	if err := enableLog(ctx, top); err != nil {
		return fmt.Errorf("enable the browser's messages: %w", err)
	}
	return nil
}
