// Package route mocks a page's requests: route_requests, list_routes and
// unroute_requests. A page's routes are its [Slice]'s, held by the page's
// run goroutine; the package starts no goroutine of its own.
//
// A page's routes are its slice's: while it has one, every session of the page (its
// own and each out-of-process iframe's) pauses every request at the
// request stage (Fetch.enable on that session), and the run goroutine
// answers each Fetch.requestPaused as it applies the event: fulfilled,
// failed or continued, by the newest route that matches, else continued
// as it was. Answers are sent without waiting for Chrome's reply, like the
// supervisor's for the URL policy, so that a burst of requests never holds
// the page up.
//
// The URL policy comes first. Chrome offers a page's requests to the
// page's own interception before the browser-wide one that enforces the
// policy (measured with Chromium 156), and a request a route fulfils never
// reaches the network, nor the policy: so every paused request is checked
// against the policy here first ([page.Config.Blocked]), and one it refuses
// fails as blocked whatever the routes say. A request a route continues
// goes on to the browser-wide interception, which checks it again.
//
// A route that fulfils with a redirect (a 3xx status and a Location)
// to a URL the policy refuses makes the page's request fail at the next
// hop, as blocked. The page sees only a network error, so the slice
// remembers the refused redirect ([redirects]) and names it in the
// error of the call it happened in (a navigation, a script whose fetch
// rejected), and in the error of a later call that failed because the
// page's main frame then showed Chrome's error page (no script context,
// a context gone under the call), until the page navigates elsewhere.
package route

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
)

// Route actions.
const (
	Fulfill  = "fulfill"
	Abort    = "abort"
	Continue = "continue"
)

// Route is a rule for the page's requests.
type Route struct {
	// ID numbers the page's routes, from 1; [Slice.Add] sets it.
	ID int
	// Pattern is the URL pattern as the agent gave it, and Match reports
	// whether a request URL matches it.
	Pattern string
	Match   func(url string) bool
	// Action is Fulfill, Abort or Continue.
	Action string
	// Status is a fulfilled response's status code; 0 means 200.
	Status int
	// Headers are a fulfilled response's headers; for Continue, the
	// request headers to set, replacing those of the same name (compared
	// without regard to case), an empty value removing one.
	Headers map[string]string
	// Body is a fulfilled response's body; BodySource names where it came
	// from (a file), for listings.
	Body       []byte
	BodySource string
	// Reason is an aborted request's error, one of CDP's
	// Network.ErrorReason values (Failed, Aborted, TimedOut, AccessDenied,
	// ...), which the page sees as the matching net::ERR_... error; ""
	// means Failed.
	Reason string
	// Method replaces a continued request's method; "" keeps it.
	Method string
	// Hits counts the requests the route decided.
	Hits int
}

// List is a page's routes, oldest first.
type List struct {
	Routes []Route
	page.State
}

// MaxRoutes bounds the routes of one page: every request of the page is
// matched against them.
const MaxRoutes = 100

// ErrTooManyRoutes is returned by [Slice.Add] when the page has
// [MaxRoutes] routes.
var ErrTooManyRoutes = fmt.Errorf("the page already has %d routes", MaxRoutes)

// key finds each page's routes.
var key = page.Register(page.Capability[*Slice]{
	Name:   "route",
	Events: []string{"Fetch.requestPaused"},
	New:    func(h *page.Host) *Slice { return &Slice{h: h} },
})

// Of returns page a's routes.
func Of(a *page.Actor) *Slice { return key.Of(a) }

// Slice is a page's request routes, owned by its run goroutine.
type Slice struct {
	h *page.Host
	// routes are the page's routes, oldest first; its sessions pause
	// requests while there is one. nextRoute numbers them.
	routes    []*Route
	nextRoute int
	// redirects are the route redirects the URL policy refused.
	redirects redirects
}

var (
	_ page.ChildSetUp = (*Slice)(nil)
	_ page.Explainer  = (*Slice)(nil)
)

// Apply answers a Fetch.requestPaused.
func (sl *Slice) Apply(s *page.Session, ev cdpconn.Event) error {
	return sl.requestPaused(s, ev.Params)
}

// SetUpChild pauses a new out-of-process iframe's requests while the page
// has routes.
func (sl *Slice) SetUpChild() func(ctx context.Context, s *page.Session) error {
	if len(sl.routes) == 0 {
		return nil
	}
	return interceptOn
}

// CallStarts notes the refused redirects a call starts with, so that its
// error can be explained by one refused while it ran.
func (sl *Slice) CallStarts() func(err error) error {
	seen := sl.redirects.count
	return func(err error) error { return sl.redirectBlocked(err, seen) }
}

// Add adds r to the page's routes, newest first in precedence, and
// starts pausing the page's requests if it is the first. It returns the
// route with its id.
func (sl *Slice) Add(ctx context.Context, r Route) (Route, page.State, error) {
	type out struct {
		r Route
		s page.State
	}
	o, err := page.Do(ctx, sl.h, func(ctx context.Context) (out, error) {
		if r.Match == nil {
			return out{}, errors.New("route without a matcher")
		}
		if len(sl.routes) >= MaxRoutes {
			return out{}, ErrTooManyRoutes
		}
		if len(sl.routes) == 0 {
			if err := sl.h.OnAll(ctx, interceptOn); err != nil {
				return out{}, fmt.Errorf("pause the page's requests (Fetch.enable): %w", err)
			}
		}
		sl.nextRoute++
		r.ID, r.Hits = sl.nextRoute, 0
		sl.routes = append(sl.routes, &r)
		return out{r, sl.h.State()}, nil
	})
	return o.r, o.s, err
}

// List returns the page's routes, oldest first.
func (sl *Slice) List(ctx context.Context) (List, error) {
	return page.Do(ctx, sl.h, func(context.Context) (List, error) {
		sl.h.ApplyEvents() // count the requests already paused
		l := List{State: sl.h.State()}
		for _, r := range sl.routes {
			c := *r
			c.Match = nil
			l.Routes = append(l.Routes, c)
		}
		return l, nil
	})
}

// Remove removes the routes whose pattern is pattern, or all of them
// when pattern is "", and returns how many it removed. Once the page has
// none, its requests are no longer paused.
func (sl *Slice) Remove(ctx context.Context, pattern string) (int, page.State, error) {
	type out struct {
		n int
		s page.State
	}
	o, err := page.Do(ctx, sl.h, func(ctx context.Context) (out, error) {
		sl.h.ApplyEvents() // decide what is already paused by the routes it was paused under
		before := len(sl.routes)
		sl.routes = slices.DeleteFunc(sl.routes, func(r *Route) bool { return pattern == "" || r.Pattern == pattern })
		n := before - len(sl.routes)
		if before > 0 && len(sl.routes) == 0 {
			// Best effort: a session that keeps pausing has each request
			// continued as it was (requestPaused).
			if err := sl.h.OnAll(ctx, interceptOff); err != nil {
				sl.h.Log().Debug().Err(err).Msg("stop pausing requests (Fetch.disable)")
			}
		}
		return out{n, sl.h.State()}, nil
	})
	return o.n, o.s, err
}

// interceptOn pauses every request of session s at the request stage: a
// route's URLPattern cannot be written as Fetch's glob, so requests are
// matched here.
func interceptOn(ctx context.Context, s *page.Session) error {
	args := map[string]any{"patterns": []map[string]string{{"urlPattern": "*", "requestStage": "Request"}}}
	return rpcc.Invoke(ctx, "Fetch.enable", args, nil, s.RPC())
}

func interceptOff(ctx context.Context, s *page.Session) error {
	return rpcc.Invoke(ctx, "Fetch.disable", nil, nil, s.RPC())
}

// requestPaused answers one Fetch.requestPaused of session s, on the run
// goroutine.
func (sl *Slice) requestPaused(s *page.Session, params json.RawMessage) error {
	var e struct {
		RequestID string `json:"requestId"`
		Request   struct {
			URL     string            `json:"url"`
			Method  string            `json:"method"`
			Headers map[string]string `json:"headers"`
		} `json:"request"`
		FrameID      string `json:"frameId"`
		ResourceType string `json:"resourceType"`
		NetworkID    string `json:"networkId"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	id := map[string]any{"requestId": e.RequestID}
	if err := sl.h.Owner().Blocked(e.Request.URL); err != nil {
		return s.Send("Fetch.failRequest", map[string]any{"requestId": e.RequestID, "errorReason": "BlockedByClient"})
	}
	var r *Route
	for i := len(sl.routes) - 1; i >= 0; i-- {
		if sl.routes[i].Match(e.Request.URL) {
			r = sl.routes[i]
			break
		}
	}
	if r == nil {
		return s.Send("Fetch.continueRequest", id)
	}
	r.Hits++
	if r.Action != Continue && e.NetworkID != "" {
		// list_network_requests marks what a route answered.
		sl.h.Mocked(e.NetworkID, e.Request.URL, fmt.Sprintf("%sed by route %d", r.Action, r.ID))
	}
	switch r.Action {
	case Fulfill:
		status := r.Status
		if status == 0 {
			status = 200
		}
		headers := make([]map[string]string, 0, len(r.Headers))
		for _, k := range sortedKeys(r.Headers) {
			headers = append(headers, map[string]string{"name": k, "value": r.Headers[k]})
			if status >= 300 && status < 400 && strings.EqualFold(k, "Location") {
				if to := resolveLocation(e.Request.URL, r.Headers[k]); to != "" && sl.h.Owner().Blocked(to) != nil {
					sl.redirects.refused(BlockedRedirect{URL: e.Request.URL, Location: to, Route: r.ID, Status: status,
						Navigation: e.ResourceType == "Document" && e.FrameID == sl.h.MainFrame(), loader: sl.h.MainLoader()})
				}
			}
		}
		return s.Send("Fetch.fulfillRequest", map[string]any{
			"requestId":       e.RequestID,
			"responseCode":    status,
			"responseHeaders": headers,
			"body":            base64.StdEncoding.EncodeToString(r.Body),
		})
	case Abort:
		reason := r.Reason
		if reason == "" {
			reason = "Failed"
		}
		return s.Send("Fetch.failRequest", map[string]any{"requestId": e.RequestID, "errorReason": reason})
	}
	args := map[string]any{"requestId": e.RequestID}
	if r.Method != "" {
		args["method"] = r.Method
	}
	if len(r.Headers) > 0 {
		args["headers"] = mergeHeaders(e.Request.Headers, r.Headers)
	}
	return s.Send("Fetch.continueRequest", args)
}

// mergeHeaders returns the request's headers with set applied, as
// Fetch.continueRequest takes them: a header of set replaces those of the
// same name whatever their case, and an empty value removes it.
func mergeHeaders(req, set map[string]string) []map[string]string {
	out := map[string]string{}
	for k, v := range req {
		out[k] = v
	}
	for k, v := range set {
		for old := range out {
			if strings.EqualFold(old, k) {
				delete(out, old)
			}
		}
		if v != "" {
			out[k] = v
		}
	}
	list := make([]map[string]string, 0, len(out))
	for _, k := range sortedKeys(out) {
		list = append(list, map[string]string{"name": k, "value": out[k]})
	}
	return list
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// BlockedRedirect is a redirect a route answered a request with, to a URL
// the URL policy refuses: the request failed as blocked at that hop.
type BlockedRedirect struct {
	// URL is the request's, Location the URL it was redirected to.
	URL, Location string
	// Route is the id of the route that answered, Status its status.
	Route, Status int
	// Navigation reports whether the request was the main frame's
	// navigation, which then shows Chrome's error page.
	Navigation bool
	// loader is the main frame's document (loader id) when the redirect
	// was refused.
	loader string
}

// redirects are the refused route redirects of a page. Run goroutine
// only.
type redirects struct {
	// count counts them, so that a call can tell whether one happened
	// while it ran; last is the latest.
	count int
	last  BlockedRedirect
}

func (r *redirects) refused(b BlockedRedirect) {
	r.count++
	r.last = b
}

// RedirectBlockedError is the error of a call that failed because a
// route redirected a request of the page to a URL the URL policy refuses:
// in the call (a navigation, a script whose fetch rejected), or before it,
// when the page's navigation was redirected and the call found the error
// page Chrome shows instead (InErrorPage).
type RedirectBlockedError struct {
	BlockedRedirect
	InErrorPage bool
	// Cause is the error the call failed with.
	Cause error
}

func (e *RedirectBlockedError) Error() string {
	return fmt.Sprintf("%v (route %d redirected %s to %s, which the URL policy blocks)", e.Cause, e.Route, e.URL, e.Location)
}

func (e *RedirectBlockedError) Unwrap() error { return e.Cause }

// AgentSentence says which route redirected where, after the cause's own
// sentence when it has one the agent may read.
func (e *RedirectBlockedError) AgentSentence() string {
	why := fmt.Sprintf("route %d answered %s with a %d redirect to %s, a URL the URL policy blocks, so the request failed as blocked (net::ERR_BLOCKED_BY_CLIENT)", e.Route, e.URL, e.Status, e.Location)
	if e.InErrorPage {
		return fmt.Sprintf("The page shows Chrome's error page, as its navigation was redirected to a URL the policy blocks: %s. Navigate it to a URL the policy allows, then retry.", why)
	}
	cause, internal := agenterr.Words(e.Cause)
	if internal {
		return fmt.Sprintf("The call failed as a request was redirected to a URL the policy blocks: %s. Change the route's Location, or remove the route with unroute_requests.", why)
	}
	if !strings.HasSuffix(cause, ".") {
		cause += "."
	}
	return fmt.Sprintf("%s The request was redirected to a URL the policy blocks: %s. Change the route's Location, or remove the route with unroute_requests.", cause, why)
}

// redirectBlocked returns err as a [*RedirectBlockedError] if a refused
// route redirect explains it: one refused since the call began (the
// slice's count was seen), or the main frame's navigation refused before,
// while the page has not navigated elsewhere since. Run goroutine only.
func (sl *Slice) redirectBlocked(err error, seen int) error {
	r := sl.redirects
	if r.count == 0 || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	var de *page.DialogError
	if errors.As(err, &de) {
		return err
	}
	if r.count != seen {
		return &RedirectBlockedError{BlockedRedirect: r.last, Cause: err}
	}
	if !r.last.Navigation || (sl.h.MainLoader() != r.last.loader && !strings.HasPrefix(sl.h.URL(), "chrome-error:")) {
		return err
	}
	var se *page.ScriptError
	var ue *page.UIDError
	var ne *page.NavigationError
	if errors.As(err, &se) || errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, page.ErrCrashed) {
		return err
	}
	return &RedirectBlockedError{BlockedRedirect: r.last, InErrorPage: true, Cause: err}
}

// resolveLocation returns a Location header's URL resolved against the
// URL of the request it answers, or "" if it is not a URL.
func resolveLocation(base, location string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	l, err := b.Parse(strings.TrimSpace(location))
	if err != nil {
		return ""
	}
	return l.String()
}
