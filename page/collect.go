package page

// This file feeds the page's collectors (issue 4) and answers the console
// and network tools from them.
//
// Events arrive on the actor goroutine through collect, in the order Chrome
// sent them; each is converted to the plain structs of package collectors,
// which keep them per navigation with stable ids. Nothing here blocks while
// collecting: what needs a round trip (an object argument's full value, an
// exception's cause chain, a request or response body) is read when an agent
// asks for that item, through a.call, so the actor keeps applying events
// meanwhile (DESIGN §2 law 5).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mafredri/cdp/protocol/network"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/cdpconn"
)

// ErrNoMessage is returned by [Actor.ConsoleMessage] for a msgid that names
// no message kept for the page: never collected, or dropped with its
// navigation or by the limits.
var ErrNoMessage = errors.New("no console message with that msgid")

// ErrNoRequest is returned by [Actor.NetworkRequest] for a reqid that names
// no request kept for the page.
var ErrNoRequest = errors.New("no network request with that reqid")

// collected are the events the page's collectors (console, network,
// issues) consume, beyond those the actor itself needs.
var collected = map[string]bool{
	"Runtime.consoleAPICalled":           true,
	"Runtime.exceptionThrown":            true,
	"Audits.issueAdded":                  true,
	"Network.requestWillBeSent":          true,
	"Network.requestWillBeSentExtraInfo": true,
	"Network.responseReceived":           true,
	"Network.responseReceivedExtraInfo":  true,
	"Network.loadingFinished":            true,
	"Network.loadingFailed":              true,
	"Page.frameNavigated":                true,
}

// collect feeds one event to the page's collectors, on the actor goroutine.
func (a *Actor) collect(ev cdpconn.Event) {
	if err := a.collectEvent(ev); err != nil {
		a.log.Debug().Err(err).Str("method", ev.Method).Msg("event not collected")
	}
}

func (a *Actor) collectEvent(ev cdpconn.Event) error {
	switch ev.Method {
	case "Runtime.consoleAPICalled":
		var e struct {
			Type       string        `json:"type"`
			Args       []loggedValue `json:"args"`
			StackTrace *jsStack      `json:"stackTrace"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		a.console.ConsoleAPICalled(consoleCall(e.Type, e.Args, e.StackTrace))
	case "Runtime.exceptionThrown":
		var e struct {
			ExceptionDetails thrown `json:"exceptionDetails"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		d := e.ExceptionDetails
		x := collectors.ExceptionEvent{Text: uncaughtText(d), Stack: stackLines(d.StackTrace)}
		if d.Exception != nil {
			x.Ref = d.Exception.ObjectID
		}
		a.console.ExceptionThrown(x)
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
			Headers:              orderedHeaders(e.Request.Headers),
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
		a.network.RequestExtraInfo(collectors.RequestExtraInfoEvent{RequestID: e.RequestID, Headers: orderedHeaders(e.Headers)})
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
		a.network.ResponseExtraInfo(collectors.ResponseExtraInfoEvent{RequestID: e.RequestID, StatusCode: e.StatusCode, Headers: orderedHeaders(e.Headers)})
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
		nav := collectors.Navigation{FrameID: e.Frame.ID, LoaderID: e.Frame.LoaderID, MainFrame: e.Frame.ParentID == nil}
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

// loggedValue is CDP Runtime.RemoteObject, as much as the collectors need.
type loggedValue struct {
	Type                string          `json:"type"`
	Subtype             string          `json:"subtype"`
	ClassName           *string         `json:"className"`
	Value               json.RawMessage `json:"value"`
	UnserializableValue string          `json:"unserializableValue"`
	Description         *string         `json:"description"`
	ObjectID            string          `json:"objectId"`
}

// jsStack is CDP Runtime.StackTrace.
type jsStack struct {
	Description string `json:"description"`
	CallFrames  []struct {
		FunctionName string `json:"functionName"`
		ScriptID     string `json:"scriptId"`
		URL          string `json:"url"`
		LineNumber   int    `json:"lineNumber"`
		ColumnNumber int    `json:"columnNumber"`
	} `json:"callFrames"`
	Parent *jsStack `json:"parent"`
}

// thrown is CDP Runtime.ExceptionDetails.
type thrown struct {
	Text       string       `json:"text"`
	StackTrace *jsStack     `json:"stackTrace"`
	Exception  *loggedValue `json:"exception"`
}

// maxStackLines is the most stack lines a reply shows
// (chrome-devtools-mcp's STACK_TRACE_MAX_LINES); the rest are counted.
const maxStackLines = 50

// maxStackFragments bounds the asynchronous parents followed in a stack
// trace; V8 bounds them too, this only guards against a malformed chain.
const maxStackFragments = 64

// stackLines flattens a CDP stack trace: the synchronous frames, then for each
// asynchronous parent with frames a marker (the parent's description, or
// "async") and its frames, as DevTools shows them.
func stackLines(st *jsStack) []collectors.CallFrame {
	var out []collectors.CallFrame
	for i := 0; st != nil && i < maxStackFragments; i, st = i+1, st.Parent {
		if len(st.CallFrames) == 0 {
			continue
		}
		if i > 0 {
			desc := st.Description
			if desc == "" {
				desc = "async"
			}
			out = append(out, collectors.CallFrame{Async: desc})
		}
		for _, f := range st.CallFrames {
			out = append(out, collectors.CallFrame{Function: f.FunctionName, URL: f.URL, ScriptID: f.ScriptID, Line: f.LineNumber, Column: f.ColumnNumber})
		}
	}
	return out
}

// consoleCall converts a Runtime.consoleAPICalled event. The text is what
// Puppeteer makes of the arguments (ConsoleMessage.text()), which is what
// chrome-devtools-mcp lists: primitives as JavaScript's String() gives them
// (null and undefined as nothing), an error as the first line of its
// description, any other object as "[<subtype or type> <class>]"; joined
// with spaces and without format specifiers applied.
func consoleCall(typ string, args []loggedValue, st *jsStack) collectors.ConsoleEvent {
	ev := collectors.ConsoleEvent{Type: typ, Stack: stackLines(st), Args: make([]collectors.Arg, len(args))}
	tokens := make([]string, len(args))
	for i, o := range args {
		var arg collectors.Arg
		switch {
		case o.ObjectID != "":
			arg.Ref = o.ObjectID
			desc := derefString(o.Description)
			if o.Subtype == "error" && desc != "" {
				desc, _, _ = strings.Cut(desc, "\n")
				arg.Value, arg.Error = desc, true
			} else {
				kind := o.Subtype
				if kind == "" {
					kind = o.Type
				}
				className := "undefined"
				if o.ClassName != nil {
					className = *o.ClassName
				}
				arg.Value = "[" + kind + " " + className + "]"
			}
			tokens[i] = arg.Value
		default:
			arg.Value = valueString(o)
			if o.Type != "undefined" && o.Subtype != "null" {
				tokens[i] = arg.Value
			}
		}
		ev.Args[i] = arg
	}
	ev.Text = strings.Join(tokens, " ")
	return ev
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// valueString returns a primitive remote object as JavaScript's String()
// gives it, except that null is "null" (chrome-devtools-mcp prints it with
// JSON.stringify).
func valueString(o loggedValue) string {
	switch {
	case o.Type == "undefined":
		return "undefined"
	case o.Subtype == "null":
		return "null"
	case o.UnserializableValue != "":
		switch v := o.UnserializableValue; {
		case o.Type == "bigint":
			return strings.TrimSuffix(v, "n")
		case v == "-0":
			return "0"
		default:
			return v // NaN, Infinity, -Infinity
		}
	}
	switch o.Type {
	case "string":
		var s string
		json.Unmarshal(o.Value, &s)
		return s
	case "number":
		var f float64
		if err := json.Unmarshal(o.Value, &f); err == nil {
			return numberText(f)
		}
	}
	if len(o.Value) > 0 {
		return string(o.Value)
	}
	return derefString(o.Description)
}

// numberText formats f as JavaScript's Number.prototype.toString does.
func numberText(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits d1..dk and exponent: f = 0.d1..dk × 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	s := digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	if n-1 >= 0 {
		return sign + s + "e+" + strconv.Itoa(n-1)
	}
	return sign + s + "e-" + strconv.Itoa(1-n)
}

// uncaughtText is the list text of an uncaught exception, as DevTools
// writes it: "Uncaught Error: boom". CDP says only "Uncaught" or "Uncaught
// (in promise)" and leaves the message to the exception object.
//
// chrome-devtools-mcp (SymbolizedError) adds the message only after a bare
// "Uncaught", so it lists a rejected promise as just "Uncaught (in promise)"
// and a thrown string as "Uncaught "; tabhive adds the message in both
// cases, as the DevTools console does.
func uncaughtText(d thrown) string {
	if d.Exception == nil || !strings.HasPrefix(d.Text, "Uncaught") {
		return d.Text
	}
	msg := thrownMessage(*d.Exception)
	if d.Text == "Uncaught" {
		return "Uncaught " + msg
	}
	if msg == "" {
		return d.Text
	}
	return d.Text + " " + msg
}

// thrownMessage is the message of a thrown value: an object's description
// up to its stack ("Error: boom"), a primitive's String().
func thrownMessage(o loggedValue) string {
	if o.ObjectID == "" {
		return valueString(o)
	}
	msg, _, _ := strings.Cut(derefString(o.Description), "\n    at ")
	return msg
}

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
		Headers:    orderedHeaders(r.Headers),
		MIMEType:   r.MIMEType,
		FromCache:  r.FromDiskCache || r.FromPrefetchCache,
	}
	if r.RemoteIPAddress != "" {
		resp.RemoteAddress = r.RemoteIPAddress + ":" + strconv.Itoa(r.RemotePort)
	}
	return resp
}

// orderedHeaders decodes a CDP Network.Headers object keeping the order of its
// keys, which Go maps would lose and the replies show.
func orderedHeaders(raw json.RawMessage) []collectors.Header {
	var out []collectors.Header
	eachMember(raw, func(key string, value json.RawMessage) {
		var s string
		if json.Unmarshal(value, &s) != nil {
			s = strings.Trim(string(value), `"`)
		}
		out = append(out, collectors.Header{Name: key, Value: s})
	})
	return out
}

// eachMember calls fn for each member of a JSON object, in order. It does
// nothing if raw is not an object.
func eachMember(raw json.RawMessage, fn func(key string, value json.RawMessage)) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := t.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return
		}
		fn(key, value)
	}
}

// stringifyJSON writes the JSON value raw as JavaScript's JSON.stringify writes
// the value it parses to: compact, object members in order, strings escaped
// only where JSON requires, numbers as JavaScript prints them. skip, if not
// nil, is asked for each object member by its path of keys and drops those
// it reports.
func stringifyJSON(raw json.RawMessage, skip func(path []string) bool) string {
	var b strings.Builder
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if writeStringified(&b, dec, nil, skip) != nil {
		return string(raw)
	}
	return b.String()
}

func writeStringified(b *strings.Builder, dec *json.Decoder, path []string, skip func([]string) bool) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := t.(type) {
	case json.Delim:
		switch v {
		case '{':
			b.WriteByte('{')
			first := true
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := kt.(string)
				sub := append(slices.Clip(path), key)
				if skip != nil && skip(sub) {
					var discard json.RawMessage
					if err := dec.Decode(&discard); err != nil {
						return err
					}
					continue
				}
				if !first {
					b.WriteByte(',')
				}
				first = false
				quoteJS(b, key)
				b.WriteByte(':')
				if err := writeStringified(b, dec, sub, skip); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		case '[':
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := writeStringified(b, dec, path, skip); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		}
		_, err := dec.Token() // the closing delimiter
		return err
	case string:
		quoteJS(b, v)
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			b.WriteString(v.String())
		} else {
			b.WriteString(numberText(f))
		}
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	}
	return nil
}

// quoteJS quotes s as JSON.stringify does.
func quoteJS(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// issueEvents converts one CDP inspector issue into the issues DevTools
// makes of it: usually one, several for a cookie issue with several reasons,
// none for one DevTools hides.
func (a *Actor) issueEvents(code string, details json.RawMessage) []collectors.IssueEvent {
	var d struct {
		ErrorType        string `json:"errorType"`
		Type             string `json:"type"`
		ViolationType    string `json:"contentSecurityPolicyViolationType"`
		StyleSheetReason string `json:"styleSheetLoadingIssueReason"`
		ElementReason    string `json:"elementAccessibilityIssueReason"`
		PropertyReason   string `json:"propertyRuleIssueReason"`
		CorsErrorStatus  struct {
			CorsError string `json:"corsError"`
		} `json:"corsErrorStatus"`
		ExclusionReasons []string `json:"cookieExclusionReasons"`
		WarningReasons   []string `json:"cookieWarningReasons"`
		Operation        string   `json:"operation"`
		Request          *struct {
			RequestID string `json:"requestId"`
			URL       string `json:"url"`
		} `json:"request"`
	}
	if err := json.Unmarshal(details, &d); err != nil {
		return nil
	}
	var codes []string
	switch code {
	case "GenericIssue":
		codes = []string{code + "::" + d.ErrorType}
	case "DeprecationIssue":
		codes = []string{code + "::" + d.Type}
	case "ContentSecurityPolicyIssue":
		codes = []string{code + "::" + d.ViolationType}
	case "StylesheetLoadingIssue":
		codes = []string{code + "::" + d.StyleSheetReason}
	case "ElementAccessibilityIssue":
		codes = []string{code + "::" + d.ElementReason}
	case "PropertyRuleIssue":
		codes = []string{code + "::" + d.PropertyReason}
	case "CorsIssue":
		codes = []string{"CorsIssue::" + corsIssueKind(d.CorsErrorStatus.CorsError)}
	case "CookieIssue":
		codes = cookieIssueCodes(d.ExclusionReasons, d.WarningReasons, d.Operation)
	default:
		codes = []string{code}
	}

	// The affected resource, as chrome-devtools-mcp shows it: the request
	// by reqid if it is collected, else by URL, then the details less the
	// fields that are noise to an agent.
	line := ""
	dropRequestID := false
	if d.Request != nil {
		if r, ok := a.network.ByRequestID(d.Request.RequestID); ok && d.Request.RequestID != "" {
			line = "reqid=" + strconv.Itoa(r.ID) + " "
			dropRequestID = true
		} else {
			line = "url=" + d.Request.URL + " "
		}
	}
	line += "data=" + stringifyJSON(details, func(path []string) bool {
		switch {
		case len(path) == 1:
			return path[0] == "errorType" || path[0] == "frameId"
		case len(path) == 2 && path[0] == "request":
			return dropRequestID && path[1] == "requestId"
		}
		return false
	})

	key := stringifyJSON(details, nil)
	out := make([]collectors.IssueEvent, 0, len(codes))
	for _, c := range codes {
		title, ok := collectors.IssueTitle(c)
		if !ok {
			title = c
		}
		out = append(out, collectors.IssueEvent{Code: c, Key: key, Title: title, Details: line})
	}
	return out
}

// corsIssueKind maps a CDP CorsError to the CORS issue kind DevTools describes
// it under.
func corsIssueKind(e string) string {
	switch e {
	case "InvalidAllowMethodsPreflightResponse", "InvalidAllowHeadersPreflightResponse",
		"PreflightMissingAllowOriginHeader", "PreflightMultipleAllowOriginValues",
		"PreflightInvalidAllowOriginValue", "MissingAllowOriginHeader",
		"MultipleAllowOriginValues", "InvalidAllowOriginValue":
		return "InvalidHeaders"
	case "PreflightWildcardOriginNotAllowed", "WildcardOriginNotAllowed":
		return "WildcardOriginWithCredentials"
	case "PreflightInvalidStatus", "PreflightDisallowedRedirect", "InvalidResponse":
		return "PreflightResponseInvalid"
	case "AllowOriginMismatch", "PreflightAllowOriginMismatch":
		return "OriginMismatch"
	case "InvalidAllowCredentials", "PreflightInvalidAllowCredentials":
		return "AllowCredentialsRequired"
	}
	return e
}

// cookieIssueCodes splits a cookie issue by reason as DevTools does, leaving
// out those DevTools does not show (third-party cookie phase-out, same-site
// exclusions without a redirect downgrade).
func cookieIssueCodes(exclusions, warnings []string, operation string) []string {
	var codes []string
	add := func(reason string, warnings []string) {
		switch reason {
		case "ExcludeSameSiteStrict", "ExcludeSameSiteLax", "ExcludeSameSiteUnspecifiedTreatedAsLax":
			if slices.Contains(warnings, "WarnCrossSiteRedirectDowngradeChangesInclusion") {
				codes = append(codes, "CookieIssue::CrossSiteRedirectDowngradeChangesInclusion")
			} else if reason == "ExcludeSameSiteUnspecifiedTreatedAsLax" {
				codes = append(codes, "CookieIssue::"+reason+"::"+operation)
			}
		case "ExcludePortMismatch", "ExcludeSchemeMismatch":
			codes = append(codes, "CookieIssue::"+reason)
		case "WarnThirdPartyPhaseout", "ExcludeThirdPartyPhaseout":
		default:
			codes = append(codes, "CookieIssue::"+reason+"::"+operation)
		}
	}
	if len(exclusions) > 0 {
		for _, r := range exclusions {
			add(r, warnings)
		}
		return codes
	}
	for _, r := range warnings {
		add(r, nil)
	}
	return codes
}

// ConsoleFilter selects console messages for [Actor.ConsoleMessages].
type ConsoleFilter struct {
	// Types keeps only messages of these types (log, error, warn, ...,
	// issue); empty keeps all. An uncaught exception has type error.
	Types []string
	// IncludePreserved lists the current and the two previous navigations
	// instead of the current one only.
	IncludePreserved bool
	// StackTraces asks for the cause chains of exceptions to be read from
	// the page, as a listing with stack traces shows them.
	StackTraces bool
}

// ConsoleList is a page's console messages.
type ConsoleList struct {
	// Messages are in the order they were collected.
	Messages []collectors.Message
	State
}

// causeBudget bounds reading the cause chains of a listing: a page with a
// thousand exceptions must not make a listing slow.
const causeBudget = 2 * time.Second

// ConsoleMessages returns the page's console messages, uncaught exceptions
// and issues that f selects.
func (a *Actor) ConsoleMessages(ctx context.Context, f ConsoleFilter) (ConsoleList, error) {
	return ask(ctx, a, func(ctx context.Context) (ConsoleList, error) {
		filter := collectors.MessageFilter{Types: f.Types, IncludePreserved: f.IncludePreserved}
		if f.StackTraces && a.dialog == nil {
			rctx, cancel := context.WithTimeout(ctx, causeBudget)
			for _, m := range a.console.List(filter) {
				if m.Ref != "" && !m.CausesRead && rctx.Err() == nil {
					a.readCauses(rctx, m)
				}
			}
			cancel()
		}
		return ConsoleList{Messages: a.console.List(filter), State: a.state()}, nil
	})
}

// ConsoleArg is one argument of a console message as get_console_message
// shows it.
type ConsoleArg struct {
	// Text is the argument's value: for an object, its JSON as read from the
	// page now; for an error, its message.
	Text string
	// Gone reports that the object could not be read from the page (it was
	// collected with its document, or cannot be serialised); Text is empty.
	Gone bool
	// Error reports an Error object; Stack, MoreFrames and Causes describe
	// it.
	Error      bool
	Stack      []collectors.CallFrame
	MoreFrames int
	Causes     []collectors.Cause
}

// ConsoleDetail is one console message with its arguments read from the
// page.
type ConsoleDetail struct {
	collectors.Message
	// Args are the message's arguments, read from the page where they are
	// objects.
	Args []ConsoleArg
	State
}

// ConsoleMessage returns the message with the given msgid, or
// [ErrNoMessage]. Object arguments are read from the page, as
// chrome-devtools-mcp does; while a dialog blocks the page, they are shown
// as listed instead.
func (a *Actor) ConsoleMessage(ctx context.Context, id int) (ConsoleDetail, error) {
	return ask(ctx, a, func(ctx context.Context) (ConsoleDetail, error) {
		a.drainEvents()
		m, ok := a.console.Message(id)
		if !ok {
			return ConsoleDetail{}, ErrNoMessage
		}
		if m.Ref != "" && !m.CausesRead && a.dialog == nil {
			a.readCauses(ctx, m)
			m, _ = a.console.Message(id)
		}
		d := ConsoleDetail{Message: m, Args: make([]ConsoleArg, len(m.Args))}
		rctx, cancel := context.WithTimeout(ctx, argsBudget)
		defer cancel()
		for i, arg := range m.Args {
			d.Args[i] = a.readArg(rctx, arg)
		}
		d.State = a.state()
		return d, nil
	})
}

// argsBudget bounds reading a message's arguments from the page; those not
// read in time are shown as listed.
const argsBudget = 5 * time.Second

// maxCauses bounds a cause chain, which a page can make circular.
const maxCauses = 10

// detailReadTimeout bounds one read from the page for a message's details.
const detailReadTimeout = 2 * time.Second

// readCauses reads the cause chain of exception m and records it.
func (a *Actor) readCauses(ctx context.Context, m collectors.Message) {
	causes, err := a.causeChain(ctx, m.Ref)
	if unanswered(ctx, err) {
		return // not read; try again next time
	}
	a.console.SetCauses(m.ID, causes)
}

// unanswered reports whether err means the page did not answer (in time, or
// because a dialog blocks it), rather than that what was asked for is gone.
func unanswered(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	_, dialog := errDialog(err)
	return dialog || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)
}

// causeChain follows error.cause from the object ref.
func (a *Actor) causeChain(ctx context.Context, ref string) ([]collectors.Cause, error) {
	var out []collectors.Cause
	for len(out) < maxCauses {
		cause, err := a.objectProperty(ctx, ref, "cause")
		if err != nil || cause == nil {
			return out, err
		}
		c := collectors.Cause{Text: thrownMessage(*cause)}
		var d *thrown
		if cause.ObjectID != "" {
			if d, err = a.errorDetails(ctx, cause.ObjectID); err != nil {
				return out, err
			}
		}
		if d == nil {
			// Not an Error: shown by its value, and the chain ends here,
			// as upstream has it.
			return append(out, c), nil
		}
		c.Text = d.Text
		c.Stack = stackLines(d.StackTrace)
		out = append(out, c)
		ref = cause.ObjectID
	}
	return out, nil
}

// objectProperty returns the named objectProperty of the object ref, or nil if it has
// none.
func (a *Actor) objectProperty(ctx context.Context, ref, name string) (*loggedValue, error) {
	var reply struct {
		Result []struct {
			Name  string       `json:"name"`
			Value *loggedValue `json:"value"`
		} `json:"result"`
	}
	err := a.cdpInvoke(ctx, "Runtime.getProperties", map[string]any{"objectId": ref}, &reply)
	if err != nil {
		return nil, err
	}
	for _, p := range reply.Result {
		if p.Name == name {
			return p.Value, nil
		}
	}
	return nil, nil
}

// errorDetails reads the details of an Error object, or nil if it is
// not one.
func (a *Actor) errorDetails(ctx context.Context, ref string) (*thrown, error) {
	var reply struct {
		ExceptionDetails *thrown `json:"exceptionDetails"`
	}
	if err := a.cdpInvoke(ctx, "Runtime.getExceptionDetails", map[string]any{"errorObjectId": ref}, &reply); err != nil {
		return nil, err
	}
	return reply.ExceptionDetails, nil
}

// readArg reads one argument for get_console_message, as
// chrome-devtools-mcp does: a primitive as listed, an error with its stack
// and causes, another object as the JSON of its value. An argument that
// cannot be read in time, or while a dialog blocks the page, is shown as
// listed.
func (a *Actor) readArg(ctx context.Context, arg collectors.Arg) ConsoleArg {
	listed := ConsoleArg{Text: arg.Value, Error: arg.Error}
	if arg.Ref == "" || a.dialog != nil || ctx.Err() != nil {
		return listed
	}
	if arg.Error {
		out := ConsoleArg{Text: arg.Value, Error: true}
		if d, err := a.errorDetails(ctx, arg.Ref); err == nil && d != nil {
			out.Text = d.Text
			out.Stack = stackLines(d.StackTrace)
			if len(out.Stack) > maxStackLines {
				out.MoreFrames = len(out.Stack) - maxStackLines
				out.Stack = out.Stack[:maxStackLines]
			}
		}
		out.Causes, _ = a.causeChain(ctx, arg.Ref)
		return out
	}
	var reply struct {
		Result           loggedValue     `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	err := a.cdpInvoke(ctx, "Runtime.callFunctionOn", map[string]any{
		"functionDeclaration": "object => object",
		"objectId":            arg.Ref,
		"arguments":           []map[string]any{{"objectId": arg.Ref}},
		"returnByValue":       true,
		"awaitPromise":        true,
	}, &reply)
	if unanswered(ctx, err) {
		return listed // not read in time: not necessarily gone
	}
	if err != nil || reply.ExceptionDetails != nil || reply.Result.Type == "undefined" {
		return ConsoleArg{Gone: true}
	}
	r := reply.Result
	switch {
	case r.UnserializableValue != "" || r.Type == "string" || r.Type == "number" || r.Type == "boolean" || r.Type == "bigint":
		return ConsoleArg{Text: valueString(r)}
	case len(r.Value) > 0:
		return ConsoleArg{Text: stringifyJSON(r.Value, nil)}
	}
	return ConsoleArg{Gone: true}
}

// cdpInvoke invokes a CDP method, bounded by detailReadTimeout, while the actor
// keeps applying events.
func (a *Actor) cdpInvoke(ctx context.Context, method string, args, reply any) error {
	ctx, cancel := context.WithTimeout(ctx, detailReadTimeout)
	defer cancel()
	return a.call(ctx, func(ctx context.Context) error {
		return rpcc.Invoke(ctx, method, args, reply, a.conn.RPC())
	})
}

// asyncStackDepth is how many asynchronous callers (setTimeout, await,
// promise reactions) a stack trace follows, as DevTools sets it.
const asyncStackDepth = 32

// enableCollectors turns on what the collectors need beyond the domains
// the actor enables when it connects: issue reporting (Audits), and
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
	return nil
}

// drainEvents applies the events queued so far.
func (a *Actor) drainEvents() { (*eventSource)(a).Apply() }

// NetworkFilter selects requests for [Actor.NetworkRequests].
type NetworkFilter struct {
	// ResourceTypes keeps only requests of these resource types, compared
	// without regard to case ("xhr" matches CDP's "XHR"); empty keeps all.
	ResourceTypes []string
	// IncludePreserved lists the current and the two previous navigations
	// instead of the current one only.
	IncludePreserved bool
}

// NetworkList is a page's network requests.
type NetworkList struct {
	// Requests are in the order they were sent; each hop of a redirect is
	// a request of its own.
	Requests []collectors.Request
	State
}

// NetworkRequests returns the page's network requests that f selects.
func (a *Actor) NetworkRequests(ctx context.Context, f NetworkFilter) (NetworkList, error) {
	return ask(ctx, a, func(ctx context.Context) (NetworkList, error) {
		a.drainEvents()
		reqs := a.network.List(collectors.RequestFilter{ResourceTypes: f.ResourceTypes, IncludePreserved: f.IncludePreserved})
		return NetworkList{Requests: reqs, State: a.state()}, nil
	})
}

// NetworkDetail is one request with its bodies read from the page.
type NetworkDetail struct {
	collectors.Request
	// PostData is the request body, if the request has one; PostDataOK
	// reports whether it could be read.
	PostData   []byte
	PostDataOK bool
	// Body is the response body, if the request has a response; BodyOK
	// reports whether it could be read: not for a redirect, a failed load,
	// or a body Chrome no longer keeps.
	Body   []byte
	BodyOK bool
	State
}

// maxBodyRead bounds reading one body from the page.
const maxBodyRead = 10 * time.Second

// NetworkRequest returns the request with the given reqid with its request
// and response bodies, or [ErrNoRequest]. Like every tool that needs the
// renderer, it fails with a [*DialogError] while a dialog is open.
func (a *Actor) NetworkRequest(ctx context.Context, id int) (NetworkDetail, error) {
	return ask(ctx, a, func(ctx context.Context) (NetworkDetail, error) {
		if err := a.needRenderer(); err != nil {
			return NetworkDetail{}, err
		}
		a.drainEvents()
		r, ok := a.network.Request(id)
		if !ok {
			return NetworkDetail{}, ErrNoRequest
		}
		d := NetworkDetail{Request: r}
		if r.HasPostData {
			if r.PostData != "" {
				d.PostData, d.PostDataOK = []byte(r.PostData), true
			} else {
				d.PostData, d.PostDataOK = a.requestBody(ctx, r.RequestID)
			}
		}
		// A redirected hop shares its CDP id with the next hop, whose body
		// Chrome would return; Puppeteer reports none for it, and none for
		// a load that failed after its response.
		if latest, ok := a.network.ByRequestID(r.RequestID); r.Response != nil && !r.Failed && ok && latest.ID == r.ID {
			d.Body, d.BodyOK = a.responseBody(ctx, r.RequestID)
		}
		d.State = a.state()
		return d, nil
	})
}

func (a *Actor) requestBody(ctx context.Context, requestID string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(ctx, maxBodyRead)
	defer cancel()
	var reply *network.GetRequestPostDataReply
	err := a.call(ctx, func(ctx context.Context) (err error) {
		reply, err = a.c.Network.GetRequestPostData(ctx, network.NewGetRequestPostDataArgs(network.RequestID(requestID)))
		return err
	})
	if err != nil || reply.PostData == "" {
		return nil, false
	}
	return []byte(reply.PostData), true
}

func (a *Actor) responseBody(ctx context.Context, requestID string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(ctx, maxBodyRead)
	defer cancel()
	var reply *network.GetResponseBodyReply
	err := a.call(ctx, func(ctx context.Context) (err error) {
		reply, err = a.c.Network.GetResponseBody(ctx, network.NewGetResponseBodyArgs(network.RequestID(requestID)))
		return err
	})
	if err != nil {
		return nil, false
	}
	if !reply.Base64Encoded {
		return []byte(reply.Body), true
	}
	body, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, strings.NewReader(reply.Body)))
	if err != nil {
		return nil, false
	}
	return body, true
}
