package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	cdpbrowser "github.com/mafredri/cdp/protocol/browser"
	"github.com/mafredri/cdp/protocol/target"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
)

// Named browser contexts (new_page's isolatedContext): pages in one context
// share cookies and storage; pages in different contexts share nothing.
// A context is created on first use of its name and reused by name after;
// it lives as long as the browser, as chrome-devtools-mcp keeps them.

// contextID returns the browser context id for name, creating the context
// on first use. Run goroutine only.
func (s *Supervisor) contextID(ctx context.Context, name string) (string, error) {
	if id, ok := s.contexts[name]; ok {
		return id, nil
	}
	var id string
	err := s.act.Await(ctx, func(ctx context.Context) error {
		r, err := s.conn.Client.Target.CreateBrowserContext(ctx, target.NewCreateBrowserContextArgs())
		if err != nil {
			return err
		}
		id = string(r.BrowserContextID)
		return nil
	}, nil)
	if err != nil {
		return "", fmt.Errorf("create isolated context %q: %w", name, lostIfClosed(err))
	}
	s.contexts[name] = id
	s.contextNames[id] = name
	return id, nil
}

// CloseContexts closes every page of the isolated contexts named name or
// starting with name+"/", and disposes of those contexts, dropping their
// cookies and storage. Names that do not exist are skipped.
func (s *Supervisor) CloseContexts(ctx context.Context, name string) error {
	type plan struct {
		conn    *cdpconn.Conn
		ids     []string
		targets []string
	}
	p, err := actor.Ask(ctx, s.act, func(ctx context.Context) (plan, error) {
		if s.conn == nil {
			return plan{}, nil
		}
		out := plan{conn: s.conn}
		match := func(n string) bool { return n == name || strings.HasPrefix(n, name+"/") }
		for n, id := range s.contexts {
			if match(n) {
				out.ids = append(out.ids, id)
				// Forget the name now: a new page under it gets a fresh
				// context.
				delete(s.contexts, n)
			}
		}
		for tid, e := range s.pages {
			if match(e.Context) {
				out.targets = append(out.targets, tid)
			}
		}
		return out, nil
	})
	if err != nil || p.conn == nil {
		return err
	}
	// Disposing of a context closes its pages too; closing them first
	// keeps the registry exact without waiting for the events.
	for _, tid := range p.targets {
		closeTarget(ctx, p.conn, tid) // a page already gone is fine
	}
	actor.Ask(ctx, s.act, func(context.Context) (struct{}, error) {
		for _, tid := range p.targets {
			s.unregister(tid, page.ErrClosed)
		}
		return struct{}{}, nil
	})
	var errs []error
	for _, id := range p.ids {
		if err := p.conn.Client.Target.DisposeBrowserContext(ctx, target.NewDisposeBrowserContextArgs(cdpbrowser.ContextID(id))); err != nil {
			errs = append(errs, fmt.Errorf("dispose of context %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}
