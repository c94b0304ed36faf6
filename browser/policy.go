package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mafredri/cdp/protocol/fetch"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/launch"
)

// policy is the handle on the URL policy's enforcement in the browser:
// host rules at launch, and the browser-wide request interception.
type policy struct{ s *Supervisor }

// policy returns the handle on the URL policy's enforcement.
func (s *Supervisor) policy() policy { return policy{s} }

// Policy decides which requests the browser may make: every request of
// every target (pages, their frames in any process, popups, workers,
// service workers), every hop of a redirect, navigations and subresources
// alike. The supervisor enforces it with browser-wide request
// interception (Fetch.enable on the browser's own session), so a page
// cannot route around it; what the tools refuse up front, with a clearer
// sentence, is the agent-facing side of the same rules.
//
// Its methods are called on the supervisor's run goroutine, once per
// intercepted request: they must be fast and must not block.
type Policy interface {
	// Intercept returns the URL globs (Fetch's urlPattern: * and ?
	// wildcards) of the requests to decide, such as "*" or "file:*";
	// none means nothing is intercepted and every request goes.
	Intercept() []string
	// Request returns nil if a request for url may be made, else why not.
	Request(url string) error
}

// hostResolverRules is a Policy that can also be enforced at name
// resolution, for the connections request interception does not see
// (WebSockets): see urlpolicy.Policy.HostResolverRules.
type hostResolverRules interface {
	HostResolverRules() string
}

// hostRules returns the switch that enforces the policy's hosts at name
// resolution in a launched browser, if it has such rules; none when the
// operator gave --host-resolver-rules of their own, which Chromium could
// not combine with them (the policy then holds for requests only, as in
// connect mode), which is logged.
func (u policy) hostRules(args []string) []string {
	p, ok := u.s.cfg.Policy.(hostResolverRules)
	if !ok {
		return nil
	}
	rules := p.HostResolverRules()
	if rules == "" {
		return nil
	}
	if launch.HasSwitch(args, "host-resolver-rules") {
		u.s.log.Warn().Msg("--chrome-arg --host-resolver-rules replaces the rules that apply the URL patterns to WebSockets: they hold for requests only")
		return nil
	}
	return []string{"--host-resolver-rules=" + rules}
}

// intercept turns on browser-wide request interception if the policy asks
// for it. Run goroutine only, while connecting.
func (u policy) intercept(ctx context.Context, conn *cdpconn.Conn) error {
	if u.s.cfg.Policy == nil {
		return nil
	}
	globs := u.s.cfg.Policy.Intercept()
	if len(globs) == 0 {
		return nil
	}
	patterns := make([]fetch.RequestPattern, len(globs))
	for i := range globs {
		patterns[i] = fetch.RequestPattern{URLPattern: &globs[i]}
	}
	err := u.s.act.Await(ctx, func(ctx context.Context) error {
		return conn.Client.Fetch.Enable(ctx, fetch.NewEnableArgs().SetPatterns(patterns))
	}, nil)
	if err != nil {
		return fmt.Errorf("turn on the URL policy (Fetch.enable): %w", err)
	}
	return nil
}

// requestPaused decides one intercepted request: it goes on, or fails as
// blocked by the client (the page sees net::ERR_BLOCKED_BY_CLIENT). The
// answer is sent without waiting for Chrome's reply, so a burst of
// requests never holds up the supervisor. Run goroutine only.
func (u policy) requestPaused(params json.RawMessage) error {
	var e struct {
		RequestID string `json:"requestId"`
		Request   struct {
			URL string `json:"url"`
		} `json:"request"`
		ResourceType string `json:"resourceType"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	if u.s.conn == nil {
		return nil
	}
	var err error
	if u.s.cfg.Policy != nil {
		err = u.s.cfg.Policy.Request(e.Request.URL)
	}
	if err == nil {
		return u.s.conn.Send("Fetch.continueRequest", map[string]string{"requestId": e.RequestID})
	}
	u.s.log.Info().Str("url", e.Request.URL).Str("type", e.ResourceType).Str("reason", err.Error()).Msg("request refused")
	if serr := u.s.conn.Send("Fetch.failRequest", map[string]string{"requestId": e.RequestID, "errorReason": "BlockedByClient"}); serr != nil {
		return fmt.Errorf("refuse %s: %w", e.Request.URL, serr)
	}
	return nil
}
