package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"path/filepath"
	"strings"

	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// maxRouteBody bounds a fulfilled response's body: it is held in memory
// and sent to the browser with every request the route answers.
const maxRouteBody = 16 << 20

// Tools returns the tools that mock and block a page's requests: each
// route belongs to its page's [Slice], which answers the page's paused
// requests. Adding the first route and removing the last change every
// session of the page, which Chrome passes on to each renderer: they get
// an input tool's budget.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "route_requests", Description: "Routes the page's requests whose URL matches a URLPattern, in every frame: fulfil them with a response of your own, abort them with a network error, or continue them with other headers or method. The newest matching route decides; a URL the server's URL policy blocks stays blocked.", Page: true},
			tool.Fixed[routeArgs](tool.InputBudget), runRoute),
		tool.Define(tool.Tool{Name: "list_routes", Description: "Lists the page's request routes, with how many requests each has decided.", Page: true, ReadOnly: true},
			tool.Fixed[listRoutesArgs](tool.ListBudget), runListRoutes),
		tool.Define(tool.Tool{Name: "unroute_requests", Description: "Removes the page's request routes of a URL pattern, or all of them.", Page: true},
			tool.Fixed[unrouteArgs](tool.InputBudget), runUnroute),
	}
}

type routeArgs struct {
	URLPattern  string      `json:"urlPattern" required:"true" desc:"The URLPattern of the requests to route, such as https://api.example.com/* or *://*:*/api/*; a path alone, such as /api/*, matches that path on any host; a Playwright glob, starting with ** or holding {a,b}, such as **/api/* or **/*.{png,jpg}, matches the whole URL."`
	Action      string      `json:"action" required:"true" enum:"fulfill,abort,continue" desc:"fulfill: answer with status, headers and body (or bodyPath) without reaching the network; abort: fail with reason; continue: send on, with headers or method changed."`
	Status      *int        `json:"status" min:"100" max:"599" desc:"fulfill: the response's status code. Default 200."`
	Headers     *headersArg `json:"headers" desc:"fulfill: the response's headers; continue: request headers to set (an empty value removes one). An object, such as {\"Content-Type\": \"application/json\"}, or the same object as a JSON string."`
	ContentType string      `json:"contentType" desc:"fulfill: the response's Content-Type, such as application/json; it replaces a Content-Type of headers."`
	Body        *string     `json:"body" desc:"fulfill: the response body, as text."`
	BodyPath    string      `json:"bodyPath" desc:"fulfill: a file whose content is the response body (at most 16 MB); its extension gives the Content-Type unless headers do."`
	Reason      string      `json:"reason" enum:"Failed,Aborted,TimedOut,AccessDenied,ConnectionClosed,ConnectionReset,ConnectionRefused,ConnectionAborted,ConnectionFailed,NameNotResolved,InternetDisconnected,AddressUnreachable,BlockedByClient,BlockedByResponse" desc:"abort: the network error the page sees. Default Failed."`
	Method      string      `json:"method" desc:"continue: the method to send the request with instead, such as POST."`
}

// compileRoute compiles a route's URL pattern into its matcher: a
// Playwright glob (glob.go), or a URLPattern through the URL policy's
// compiler, where a path alone matches on any host.
func compileRoute(pattern string) (func(string) bool, error) {
	p := strings.TrimSpace(pattern)
	if isGlob(p) {
		re, err := compileGlob(p)
		if err != nil {
			return nil, tool.BadArgs("Invalid urlPattern %q: as a glob, it has %s. Write a glob such as **/api/*, a URLPattern such as https://example.com/api/*, or a path such as /api/*.", pattern, strings.TrimSuffix(agenterr.RootCause(err), "."))
		}
		return re.MatchString, nil
	}
	if strings.HasPrefix(p, "/") {
		p = "*://*:*" + p
	}
	compiled, err := urlpolicy.Compile(p)
	if err != nil {
		return nil, tool.BadArgs("Invalid urlPattern %q: %s. Write a URLPattern such as https://example.com/api/*, a path such as /api/*, or a glob such as **/api/*.", pattern, strings.TrimSuffix(agenterr.RootCause(err), "."))
	}
	return compiled.Match, nil
}

func runRoute(ctx context.Context, c tool.Call, a *routeArgs) error {
	match, err := compileRoute(a.URLPattern)
	if err != nil {
		return err
	}
	r := Route{Pattern: strings.TrimSpace(a.URLPattern), Match: match, Action: a.Action, Reason: a.Reason, Method: a.Method}
	fulfil := a.Status != nil || a.Body != nil || a.BodyPath != "" || a.ContentType != ""
	switch {
	case a.Action != Fulfill && fulfil:
		return tool.BadArgs("status, contentType, body and bodyPath go with action fulfill; action %s does not take them.", a.Action)
	case strings.ContainsAny(a.ContentType, "\r\n\x00"):
		return tool.BadArgs("Invalid contentType %q: give a media type such as application/json.", a.ContentType)
	case a.Action != Abort && a.Reason != "":
		return tool.BadArgs("reason goes with action abort; action %s does not take it.", a.Action)
	case a.Action != Continue && a.Method != "":
		return tool.BadArgs("method goes with action continue; action %s does not take it.", a.Action)
	case a.Action == Abort && a.Headers != nil:
		return tool.BadArgs("headers go with action fulfill or continue; action abort does not take them.")
	case a.Body != nil && a.BodyPath != "":
		return tool.BadArgs("Give body or bodyPath, not both.")
	case a.Method != "" && !tool.ValidHeaderName(a.Method):
		return tool.BadArgs("Invalid method %q: give an HTTP method such as POST.", a.Method)
	}
	if a.Headers != nil {
		h, err := tool.ParseHeaders("headers", a.Headers.text)
		if err != nil {
			return err
		}
		r.Headers = h
	}
	if a.ContentType != "" {
		if r.Headers == nil {
			r.Headers = map[string]string{}
		}
		for k := range r.Headers {
			if strings.EqualFold(k, "Content-Type") {
				delete(r.Headers, k)
			}
		}
		r.Headers["Content-Type"] = a.ContentType
	}
	if a.Status != nil {
		r.Status = *a.Status
	}
	switch {
	case a.Body != nil:
		r.Body = []byte(*a.Body)
	case a.BodyPath != "":
		body, path, err := readBodyFile(c.Sandbox(ctx), a.BodyPath)
		if err != nil {
			return err
		}
		r.Body, r.BodySource = body, path
		if ct := mime.TypeByExtension(filepath.Ext(path)); ct != "" && !hasHeader(r.Headers, "Content-Type") {
			if r.Headers == nil {
				r.Headers = map[string]string{}
			}
			r.Headers["Content-Type"] = ct
		}
	}
	added, st, err := Of(c.Page()).Add(ctx, r)
	if errors.Is(err, ErrTooManyRoutes) {
		return fmt.Errorf("Page %d already has %d routes, the most allowed. Remove some with unroute_requests first.", c.PageID(), MaxRoutes)
	}
	if err != nil {
		return err
	}
	c.Reply().State(st)
	c.Reply().Line("Added route %d: %s.", added.ID, describeRoute(added))
	return nil
}

// headersArg is route_requests' headers: an object of header names and
// values, as @playwright/mcp's browser_route takes them, or that object as
// a JSON string, as route_requests took them first. text is the object's
// JSON text, which tool.ParseHeaders checks.
type headersArg struct{ text string }

func (h *headersArg) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		h.text = string(b)
		return nil
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &h.text)
	}
	return errors.New("headers: neither an object nor a string")
}

// Schema says headers' JSON Schema: an object or a string.
func (headersArg) Schema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		map[string]any{"type": "string"},
	}}
}

// Describe says what headers takes, for a refusal's sentence.
func (headersArg) Describe() string {
	return "an object of header names and values, or that object as a JSON string"
}

// jsonHeaders writes headers as the JSON object they were given as.
func jsonHeaders(h map[string]string) (string, error) {
	b, err := json.Marshal(h)
	return string(b), err
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// readBodyFile reads route_requests' bodyPath through the session's
// sandbox.
func readBodyFile(sb *sandbox.Sandbox, path string) ([]byte, string, error) {
	b, canonical, err := sb.ReadFile(path, maxRouteBody)
	var tl *sandbox.TooLargeError
	if errors.As(err, &tl) {
		return nil, "", fmt.Errorf("%s is %d bytes; a bodyPath file can be at most 16 MiB (%d bytes).", path, tl.Size, tl.Limit)
	}
	if err != nil {
		var denied *sandbox.DeniedError
		if errors.As(err, &denied) {
			return nil, "", err
		}
		return nil, "", agenterr.Unreadable(err, "Unable to read the body file %s: %s.", path)
	}
	return b, canonical, nil
}

// describeRoute says what a route does, in a listing's words.
func describeRoute(r Route) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Action, r.Pattern)
	switch r.Action {
	case Fulfill:
		status := r.Status
		if status == 0 {
			status = 200
		}
		fmt.Fprintf(&b, " with status %d, %s", status, tool.Plural(len(r.Body), "byte"))
		if r.BodySource != "" {
			fmt.Fprintf(&b, " from %s", r.BodySource)
		}
	case Abort:
		reason := r.Reason
		if reason == "" {
			reason = "Failed"
		}
		fmt.Fprintf(&b, " with %s", reason)
	case Continue:
		if r.Method != "" {
			fmt.Fprintf(&b, " as %s", r.Method)
		}
	}
	if len(r.Headers) > 0 {
		h, _ := jsonHeaders(r.Headers)
		fmt.Fprintf(&b, ", headers %s", h)
	}
	return b.String()
}

type listRoutesArgs struct{}

func runListRoutes(ctx context.Context, c tool.Call, _ *listRoutesArgs) error {
	l, err := Of(c.Page()).List(ctx)
	if err != nil {
		return err
	}
	c.Reply().State(l.State)
	out := []string{"## Routes"}
	for _, r := range l.Routes {
		out = append(out, fmt.Sprintf("%d: %s (%s)", r.ID, describeRoute(r), tool.Plural(r.Hits, "request")))
	}
	if len(l.Routes) == 0 {
		out = append(out, "No routes.")
	}
	c.Reply().Section(strings.Join(out, "\n"))
	return nil
}

type unrouteArgs struct {
	URLPattern string `json:"urlPattern" desc:"Remove the routes of this pattern, as given to route_requests. Default: every route of the page."`
}

func runUnroute(ctx context.Context, c tool.Call, a *unrouteArgs) error {
	n, st, err := Of(c.Page()).Remove(ctx, strings.TrimSpace(a.URLPattern))
	if err != nil {
		return err
	}
	c.Reply().State(st)
	switch {
	case n == 0 && a.URLPattern != "":
		c.Reply().Line("No route of pattern %s; none removed.", a.URLPattern)
	default:
		c.Reply().Line("Removed %s.", tool.Plural(n, "route"))
	}
	return nil
}
