package lighthouse

// The capability: auditing one page of tabhive's browser in place.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/lighthouse/cdpproxy"
)

// hosts finds the Host a page's auditor audits through.
var hosts = page.RegisterStateless("lighthouse")

// Of returns page a's auditor.
func Of(a *page.Actor) *Auditor { return &Auditor{h: hosts.Of(a)} }

// Auditor audits one page with Lighthouse. It holds no state: its one
// method runs on the page's run goroutine, as every call to the page does.
type Auditor struct{ h *page.Host }

// AuditOptions say how to audit a page with Lighthouse.
type AuditOptions struct {
	// Install is the Lighthouse to run ([Ensure]).
	Install Install
	// Mode is [Navigation] (the default), which reloads the page, or
	// [Snapshot], which audits it as it is.
	Mode   string
	Device Device
	// Dir is an empty private directory the reports are written to.
	Dir string
	// Budget bounds the audit; if zero, [AuditBudget].
	Budget time.Duration
	// Env, if non-nil, is Lighthouse's environment.
	Env []string
}

// AuditBudget bounds one audit: Lighthouse waits up to 30 s for the page
// to load, and its accessibility pass over a large document takes a while
// on a loaded machine (the Go spec, measured 2026-12-02: see
// docs/BENCHMARKS.md).
const AuditBudget = 3 * time.Minute

// BudgetError is the error of an audit whose budget ran out.
type BudgetError struct{ Budget time.Duration }

func (e *BudgetError) Error() string {
	return fmt.Sprintf("the Lighthouse audit did not finish within its %s budget", e.Budget)
}

// ErrNoRelay is the error of an audit on a page whose browser connection
// cannot relay a DevTools client.
var ErrNoRelay = errors.New("this page cannot be audited: its browser connection has no relay")

// AuditResult is a finished audit.
type AuditResult struct {
	Output *Output
	State  page.State
}

// Audit audits the page with Lighthouse, in place: Lighthouse reaches the
// page (and nothing else of the browser) through a one-time loopback
// DevTools endpoint (package cdpproxy), whose WebSocket URL it is given on
// its stdin, and in navigation mode reloads it under its own emulation,
// which the page's own is restored over afterwards. The page keeps
// applying its events while Lighthouse runs; it is killed when ctx or the
// budget ends. While a dialog is open it fails with a [*page.DialogError].
func (au *Auditor) Audit(ctx context.Context, opts AuditOptions) (AuditResult, error) {
	h := au.h
	return page.Do(ctx, h, func(ctx context.Context) (AuditResult, error) {
		if err := h.NeedRenderer(); err != nil {
			return AuditResult{}, err
		}
		if h.Owner().Relay() == nil {
			return AuditResult{}, ErrNoRelay
		}
		budget := opts.Budget
		if budget == 0 {
			budget = AuditBudget
		}
		bctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		info, err := au.targetInfo(bctx)
		if err != nil {
			return AuditResult{}, fmt.Errorf("read the page's target: %w", err)
		}
		out, err := au.run(bctx, opts, info)
		// Lighthouse's overrides went with its sessions; the page's own
		// emulation is set again (its slice owns it), under a context of
		// its own since the call's may have ended.
		rctx, rcancel := context.WithTimeout(h.Life(), 30*time.Second)
		if rerr := h.Restore(rctx); rerr != nil {
			h.Log().Warn().Err(rerr).Msg("restore emulation after lighthouse")
		}
		rcancel()
		if err != nil && ctx.Err() == nil && bctx.Err() != nil {
			err = &BudgetError{Budget: budget}
		}
		return AuditResult{Output: out, State: h.State()}, err
	})
}

// targetInfo reads the page's target: its URL, title and browser context.
func (au *Auditor) targetInfo(ctx context.Context) (cdpproxy.Page, error) {
	h := au.h
	var p cdpproxy.Page
	err := h.Call(ctx, func(ctx context.Context) error {
		var r struct {
			TargetInfo struct {
				TargetID         string `json:"targetId"`
				URL              string `json:"url"`
				Title            string `json:"title"`
				BrowserContextID string `json:"browserContextId"`
			} `json:"targetInfo"`
		}
		if err := rpcc.Invoke(ctx, "Target.getTargetInfo", map[string]any{}, &r, h.Top().RPC()); err != nil {
			return err
		}
		p = cdpproxy.Page(r.TargetInfo)
		return nil
	})
	if p.TargetID == "" {
		p.TargetID = h.TargetID()
	}
	return p, err
}

// run opens the endpoint and runs Lighthouse against it, waiting under
// Await so that the page's events keep being applied.
func (au *Auditor) run(ctx context.Context, opts AuditOptions, info cdpproxy.Page) (*Output, error) {
	h := au.h
	rpc := h.Top().RPC()
	relay := h.Owner().Relay()
	url := h.URL()
	if url == "" {
		url = info.URL
	}
	ep, err := cdpproxy.Open(ctx, cdpproxy.Config{
		Page:     info,
		AuditURL: url,
		NewRelay: func(deliver func([]byte)) cdpproxy.Relay {
			return relayOf{relay(deliver)}
		},
		Version: func(ctx context.Context) (json.RawMessage, error) {
			var v json.RawMessage
			err := rpcc.Invoke(ctx, "Browser.getVersion", nil, &v, rpc)
			return v, err
		},
		Logger: *h.Log(),
	})
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	// The result comes back through a channel: Await returns when ctx
	// ends without waiting for fn, which may still be reaping the CLI.
	res := make(chan *Output, 1)
	ran := make(chan struct{})
	err = h.Await(ctx, func(ctx context.Context) error {
		defer close(ran)
		out, err := Run(ctx, Options{
			Install: opts.Install, Endpoint: ep.WebSocketURL(), Mode: opts.Mode, URL: url,
			Device: opts.Device, Dir: opts.Dir, Env: opts.Env,
		})
		res <- out
		return err
	}, h.Crashed)
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
