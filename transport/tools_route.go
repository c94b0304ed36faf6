package transport

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
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"

	kit "github.com/tabhive/tabhive/transport/tool"
)

// maxRouteBody bounds a fulfilled response's body: it is held in memory
// and sent to the browser with every request the route answers.
const maxRouteBody = 16 << 20

// routeTools mock and block a page's requests (page/route.go): each route
// belongs to its page's actor, which answers the page's paused requests.
// Adding the first route and removing the last change every session of the
// page, which Chrome passes on to each renderer: they get an input tool's
// budget.
func (s *Server) routeTools() []*tool {
	return []*tool{
		define(tool{name: "route_requests", description: "Routes the page's requests whose URL matches a URLPattern, in every frame: fulfil them with a response of your own, abort them with a network error, or continue them with other headers or method. The newest matching route decides; a URL the server's URL policy blocks stays blocked.", page: true},
			fixed[routeArgs](inputBudget), runRoute),
		define(tool{name: "list_routes", description: "Lists the page's request routes, with how many requests each has decided.", page: true, readOnly: true},
			fixed[listRoutesArgs](listBudget), runListRoutes),
		define(tool{name: "unroute_requests", description: "Removes the page's request routes of a URL pattern, or all of them.", page: true},
			fixed[unrouteArgs](inputBudget), runUnroute),
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
// Playwright glob (routeglob.go), or a URLPattern through the URL policy's
// compiler, where a path alone matches on any host.
func compileRoute(pattern string) (func(string) bool, error) {
	p := strings.TrimSpace(pattern)
	if isGlob(p) {
		re, err := compileGlob(p)
		if err != nil {
			return nil, badArgs("Invalid urlPattern %q: as a glob, it has %s. Write a glob such as **/api/*, a URLPattern such as https://example.com/api/*, or a path such as /api/*.", pattern, strings.TrimSuffix(agenterr.RootCause(err), "."))
		}
		return re.MatchString, nil
	}
	if strings.HasPrefix(p, "/") {
		p = "*://*:*" + p
	}
	compiled, err := urlpolicy.Compile(p)
	if err != nil {
		return nil, badArgs("Invalid urlPattern %q: %s. Write a URLPattern such as https://example.com/api/*, a path such as /api/*, or a glob such as **/api/*.", pattern, strings.TrimSuffix(agenterr.RootCause(err), "."))
	}
	return compiled.Match, nil
}

func runRoute(ctx context.Context, c *call, a *routeArgs) error {
	match, err := compileRoute(a.URLPattern)
	if err != nil {
		return err
	}
	r := page.Route{Pattern: strings.TrimSpace(a.URLPattern), Match: match, Action: a.Action, Reason: a.Reason, Method: a.Method}
	fulfil := a.Status != nil || a.Body != nil || a.BodyPath != "" || a.ContentType != ""
	switch {
	case a.Action != page.RouteFulfill && fulfil:
		return badArgs("status, contentType, body and bodyPath go with action fulfill; action %s does not take them.", a.Action)
	case strings.ContainsAny(a.ContentType, "\r\n\x00"):
		return badArgs("Invalid contentType %q: give a media type such as application/json.", a.ContentType)
	case a.Action != page.RouteAbort && a.Reason != "":
		return badArgs("reason goes with action abort; action %s does not take it.", a.Action)
	case a.Action != page.RouteContinue && a.Method != "":
		return badArgs("method goes with action continue; action %s does not take it.", a.Action)
	case a.Action == page.RouteAbort && a.Headers != nil:
		return badArgs("headers go with action fulfill or continue; action abort does not take them.")
	case a.Body != nil && a.BodyPath != "":
		return badArgs("Give body or bodyPath, not both.")
	case a.Method != "" && !validHeaderName(a.Method):
		return badArgs("Invalid method %q: give an HTTP method such as POST.", a.Method)
	}
	if a.Headers != nil {
		h, err := parseHeaders("headers", a.Headers.text)
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
		body, path, err := readBodyFile(c.sandbox(ctx), a.BodyPath)
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
	added, st, err := c.page.AddRoute(ctx, r)
	if errors.Is(err, page.ErrTooManyRoutes) {
		return fmt.Errorf("Page %d already has %d routes, the most allowed. Remove some with unroute_requests first.", c.pageID, page.MaxRoutes)
	}
	if err != nil {
		return err
	}
	c.r.state(st)
	c.r.line("Added route %d: %s.", added.ID, describeRoute(added))
	return nil
}

// headersArg is route_requests' headers: an object of header names and
// values, as @playwright/mcp's browser_route takes them, or that object as
// a JSON string, as route_requests took them first. text is the object's
// JSON text, which parseHeaders checks.
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

func (headersArg) schema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		map[string]any{"type": "string"},
	}}
}

func (headersArg) describe() string {
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
	if tl, ok := errorsAs[*sandbox.TooLargeError](err); ok {
		return nil, "", fmt.Errorf("%s is %d bytes; a bodyPath file can be at most 16 MiB (%d bytes).", path, tl.Size, tl.Limit)
	}
	if err != nil {
		if _, ok := errorsAs[*sandbox.DeniedError](err); ok {
			return nil, "", err
		}
		return nil, "", agenterr.Unreadable(err, "Unable to read the body file %s: %s.", path)
	}
	return b, canonical, nil
}

// describeRoute says what a route does, in a listing's words.
func describeRoute(r page.Route) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Action, r.Pattern)
	switch r.Action {
	case page.RouteFulfill:
		status := r.Status
		if status == 0 {
			status = 200
		}
		fmt.Fprintf(&b, " with status %d, %s", status, kit.Plural(len(r.Body), "byte"))
		if r.BodySource != "" {
			fmt.Fprintf(&b, " from %s", r.BodySource)
		}
	case page.RouteAbort:
		reason := r.Reason
		if reason == "" {
			reason = "Failed"
		}
		fmt.Fprintf(&b, " with %s", reason)
	case page.RouteContinue:
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

func runListRoutes(ctx context.Context, c *call, _ *listRoutesArgs) error {
	l, err := c.page.Routes(ctx)
	if err != nil {
		return err
	}
	c.r.state(l.State)
	out := []string{"## Routes"}
	for _, r := range l.Routes {
		out = append(out, fmt.Sprintf("%d: %s (%s)", r.ID, describeRoute(r), kit.Plural(r.Hits, "request")))
	}
	if len(l.Routes) == 0 {
		out = append(out, "No routes.")
	}
	c.r.sections = append(c.r.sections, strings.Join(out, "\n"))
	return nil
}

type unrouteArgs struct {
	URLPattern string `json:"urlPattern" desc:"Remove the routes of this pattern, as given to route_requests. Default: every route of the page."`
}

func runUnroute(ctx context.Context, c *call, a *unrouteArgs) error {
	n, st, err := c.page.RemoveRoutes(ctx, strings.TrimSpace(a.URLPattern))
	if err != nil {
		return err
	}
	c.r.state(st)
	switch {
	case n == 0 && a.URLPattern != "":
		c.r.line("No route of pattern %s; none removed.", a.URLPattern)
	default:
		c.r.line("Removed %s.", kit.Plural(n, "route"))
	}
	return nil
}
