package page

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/cdpproxy"
	"github.com/tabhive/tabhive/page/lighthouse"
)

// LighthouseOptions say how to audit a page with Lighthouse.
type LighthouseOptions struct {
	// Install is the Lighthouse to run ([lighthouse.Ensure]).
	Install lighthouse.Install
	// Mode is [lighthouse.Navigation] (the default), which reloads the
	// page, or [lighthouse.Snapshot], which audits it as it is.
	Mode   string
	Device lighthouse.Device
	// Dir is an empty private directory the reports are written to.
	Dir string
	// Budget bounds the audit; if zero, [LighthouseBudget].
	Budget time.Duration
	// Env, if non-nil, is Lighthouse's environment.
	Env []string
}

// LighthouseBudget bounds one audit: Lighthouse waits up to 30 s for the
// page to load, and its accessibility pass over a large document takes a
// while on a loaded machine (the Go spec, measured 2026-12-02: see
// docs/BENCHMARKS.md).
const LighthouseBudget = 3 * time.Minute

// LighthouseBudgetError is the error of an audit whose budget ran out.
type LighthouseBudgetError struct{ Budget time.Duration }

func (e *LighthouseBudgetError) Error() string {
	return fmt.Sprintf("the Lighthouse audit did not finish within its %s budget", e.Budget)
}

// ErrNoRelay is the error of an audit on a page whose browser connection
// cannot relay a DevTools client.
var ErrNoRelay = errors.New("this page cannot be audited: its browser connection has no relay")

// LighthouseResult is a finished audit.
type LighthouseResult struct {
	Output *lighthouse.Output
	State  State
}

// Lighthouse audits the page with Lighthouse, in place: Lighthouse
// reaches the page (and nothing else of the browser) through a one-time
// loopback DevTools endpoint (package cdpproxy), whose WebSocket URL it is
// given on its stdin, and in navigation mode reloads it under its own
// emulation, which the page's own is restored over afterwards. The actor
// keeps applying its events while Lighthouse runs; it is killed when ctx
// or the budget ends. While a dialog is open it fails with a
// [*DialogError].
func (a *Actor) Lighthouse(ctx context.Context, opts LighthouseOptions) (LighthouseResult, error) {
	return ask(ctx, a, func(ctx context.Context) (LighthouseResult, error) {
		if err := a.needRenderer(); err != nil {
			return LighthouseResult{}, err
		}
		if a.relay == nil {
			return LighthouseResult{}, ErrNoRelay
		}
		budget := opts.Budget
		if budget == 0 {
			budget = LighthouseBudget
		}
		bctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		info, err := a.targetInfo(bctx)
		if err != nil {
			return LighthouseResult{}, fmt.Errorf("read the page's target: %w", err)
		}
		out, err := a.runLighthouse(bctx, opts, info)
		// Lighthouse's overrides went with its sessions; the page's own
		// emulation is set again (its slice owns it), under a context of
		// its own since the call's may have ended.
		rctx, rcancel := context.WithTimeout(a.act.Context(), 30*time.Second)
		if rerr := a.restoreSlices(rctx); rerr != nil {
			a.log.Warn().Err(rerr).Msg("restore emulation after lighthouse")
		}
		rcancel()
		if err != nil && ctx.Err() == nil && bctx.Err() != nil {
			err = &LighthouseBudgetError{Budget: budget}
		}
		return LighthouseResult{Output: out, State: a.state()}, err
	})
}

// targetInfo reads the page's target: its URL, title and browser context.
func (a *Actor) targetInfo(ctx context.Context) (cdpproxy.Page, error) {
	var p cdpproxy.Page
	err := a.call(ctx, func(ctx context.Context) error {
		var r struct {
			TargetInfo struct {
				TargetID         string `json:"targetId"`
				URL              string `json:"url"`
				Title            string `json:"title"`
				BrowserContextID string `json:"browserContextId"`
			} `json:"targetInfo"`
		}
		if err := rpcc.Invoke(ctx, "Target.getTargetInfo", map[string]any{}, &r, a.conn.RPC()); err != nil {
			return err
		}
		p = cdpproxy.Page(r.TargetInfo)
		return nil
	})
	if p.TargetID == "" {
		p.TargetID = a.targetID
	}
	return p, err
}

// runLighthouse opens the endpoint and runs Lighthouse against it, waiting
// under Await so that the page's events keep being applied.
func (a *Actor) runLighthouse(ctx context.Context, opts LighthouseOptions, info cdpproxy.Page) (*lighthouse.Output, error) {
	rpc := a.conn.RPC()
	url := a.url
	if url == "" {
		url = info.URL
	}
	ep, err := cdpproxy.Open(ctx, cdpproxy.Config{
		Page:     info,
		AuditURL: url,
		NewRelay: func(deliver func([]byte)) cdpproxy.Relay {
			return relayOf{a.relay(deliver)}
		},
		Version: func(ctx context.Context) (json.RawMessage, error) {
			var v json.RawMessage
			err := rpcc.Invoke(ctx, "Browser.getVersion", nil, &v, rpc)
			return v, err
		},
		Logger: a.log,
	})
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	// The result comes back through a channel: Await returns when ctx
	// ends without waiting for fn, which may still be reaping the CLI.
	res := make(chan *lighthouse.Output, 1)
	ran := make(chan struct{})
	err = a.act.Await(ctx, func(ctx context.Context) error {
		defer close(ran)
		out, err := lighthouse.Run(ctx, lighthouse.Options{
			Install: opts.Install, Endpoint: ep.WebSocketURL(), Mode: opts.Mode, URL: url,
			Device: opts.Device, Dir: opts.Dir, Env: opts.Env,
		})
		res <- out
		return err
	}, func() error {
		if a.crashed {
			return ErrCrashed
		}
		return nil
	})
	if err != nil {
		// The CLI was killed with ctx; give its reaping a moment, so that
		// nothing of it is left when the call returns and its directory
		// is removed. Bounded: the kill is SIGKILL to its process group.
		select {
		case <-ran:
		case <-time.After(reapWait):
		}
		return nil, err
	}
	return <-res, nil
}

// reapWait bounds the wait for a killed CLI to be reaped.
const reapWait = 10 * time.Second

// relayOf makes a [cdpconn.Relay] the endpoint's relay.
type relayOf struct{ *cdpconn.Relay }
