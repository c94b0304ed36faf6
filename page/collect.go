package page

// This file feeds the page's collectors: it decodes the CDP
// events they consume into the plain structs of package collectors. The
// console and network tools answer from them (console.go, network.go);
// browser issues are mapped in issues.go, and values, stack traces and
// headers are put into words by package format.
//
// Events arrive on the actor goroutine through collect, in the order Chrome
// sent them; the collectors keep them per navigation with stable ids.
// Nothing here blocks while collecting: what needs a round trip (an object
// argument's full value, an exception's cause chain, a request or response
// body) is read when an agent asks for that item, through a.call, so the
// actor keeps applying events meanwhile (ARCHITECTURE.md §2, law 5).

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
	"github.com/tabhive/tabhive/page/internal/format"
)

// collected are the events the page's collectors (console, network,
// issues) consume, beyond those the actor itself needs.
var collected = map[string]bool{
	"Runtime.consoleAPICalled":           true,
	"Runtime.exceptionThrown":            true,
	"Audits.issueAdded":                  true,
	"Log.entryAdded":                     true,
	"Network.requestWillBeSent":          true,
	"Network.requestWillBeSentExtraInfo": true,
	"Network.responseReceived":           true,
	"Network.responseReceivedExtraInfo":  true,
	"Network.loadingFinished":            true,
	"Network.loadingFailed":              true,
	"Page.frameNavigated":                true,
}

// collect feeds one event of session s to the page's collectors, on the
// actor goroutine. Out-of-process iframes' console messages and requests
// join the page's, as same-process frames' do.
func (a *Actor) collect(s *Session, ev cdpconn.Event) {
	if err := a.collectEvent(s, ev); err != nil {
		a.log.Debug().Err(err).Str("method", ev.Method).Msg("event not collected")
	}
}

func (a *Actor) collectEvent(s *Session, ev cdpconn.Event) error {
	switch ev.Method {
	case "Runtime.consoleAPICalled":
		var e struct {
			Type       string                `json:"type"`
			Args       []format.RemoteObject `json:"args"`
			StackTrace *format.StackTrace    `json:"stackTrace"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		ce := format.ConsoleEvent(e.Type, e.Args, e.StackTrace)
		for i := range ce.Args {
			ce.Args[i].Ref = a.sessionRef(s, ce.Args[i].Ref)
		}
		a.console.ConsoleAPICalled(ce)
	case "Runtime.exceptionThrown":
		var e struct {
			ExceptionDetails format.ExceptionDetails `json:"exceptionDetails"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		d := e.ExceptionDetails
		x := collectors.ExceptionEvent{Text: format.Uncaught(d), Stack: format.Stack(d.StackTrace)}
		if d.Exception != nil {
			x.Ref = a.sessionRef(s, d.Exception.ObjectID)
		}
		a.console.ExceptionThrown(x)
	case "Log.entryAdded":
		return a.collectLogEntry(s, ev.Params)
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
			for _, iss := range a.issueEvents(e.Issue.Code, d) {
				a.console.IssueAdded(iss)
			}
		}
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
		a.network.RequestWillBeSent(r)
	case "Network.requestWillBeSentExtraInfo":
		var e struct {
			RequestID string          `json:"requestId"`
			Headers   json.RawMessage `json:"headers"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		a.network.RequestExtraInfo(collectors.RequestExtraInfoEvent{RequestID: e.RequestID, Headers: format.Headers(e.Headers)})
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
		a.network.ResponseReceived(collectors.ResponseEvent{RequestID: e.RequestID, Response: e.Response.response(), HasExtraInfo: e.HasExtraInfo, Timestamp: monotonic(e.Timestamp)})
	case "Network.responseReceivedExtraInfo":
		var e struct {
			RequestID  string          `json:"requestId"`
			StatusCode int             `json:"statusCode"`
			Headers    json.RawMessage `json:"headers"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		a.network.ResponseExtraInfo(collectors.ResponseExtraInfoEvent{RequestID: e.RequestID, StatusCode: e.StatusCode, Headers: format.Headers(e.Headers)})
	case "Network.loadingFinished":
		var e struct {
			RequestID         string  `json:"requestId"`
			Timestamp         float64 `json:"timestamp"`
			EncodedDataLength float64 `json:"encodedDataLength"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		a.network.LoadingFinished(collectors.FinishedEvent{RequestID: e.RequestID, EncodedDataLength: int64(e.EncodedDataLength), Timestamp: monotonic(e.Timestamp)})
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
		a.network.LoadingFailed(collectors.FailedEvent{RequestID: e.RequestID, ErrorText: e.ErrorText, Canceled: e.Canceled, Timestamp: monotonic(e.Timestamp)})
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
		nav := collectors.Navigation{FrameID: e.Frame.ID, LoaderID: e.Frame.LoaderID, MainFrame: s == a.top && e.Frame.ParentID == nil}
		a.console.FrameNavigated(nav)
		a.network.FrameNavigated(nav)
	}
	return nil
}

// epochTime converts CDP TimeSinceEpoch (monotonic) to a time.
func epochTime(s float64) time.Time {
	if s <= 0 {
		return time.Time{}
	}
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// monotonic converts CDP MonotonicTime (monotonic) to a duration.
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

// enableCollectors turns on what the collectors need beyond the domains
// the actor enables when it connects: issue reporting (Audits), the
// browser's own console messages (Log, console.go), and
// asynchronous stack traces so that a message logged in a callback shows
// where the callback was scheduled ("--- setTimeout ---").
//
// The actor's init calls it with the other domains, so that stacks are
// complete from the first message.
func (a *Actor) enableCollectors(ctx context.Context) error {
	if err := a.c.Audits.Enable(ctx); err != nil {
		return fmt.Errorf("enable issues: %w", err)
	}
	if err := rpcc.Invoke(ctx, "Runtime.setAsyncCallStackDepth", map[string]any{"maxDepth": asyncStackDepth}, nil, a.conn.RPC()); err != nil {
		return fmt.Errorf("enable async stacks: %w", err)
	}
	if err := a.enableLog(ctx); err != nil {
		return fmt.Errorf("enable the browser's messages: %w", err)
	}
	return nil
}

// drainEvents applies the events queued so far.
func (a *Actor) drainEvents() { (*eventSource)(a).Apply() }
