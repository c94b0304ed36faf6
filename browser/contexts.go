package browser

import (
	"context"
	"fmt"

	"github.com/mafredri/cdp/protocol/target"
)

// Named browser contexts (new_page's isolatedContext): pages in one context
// share cookies and storage; pages in different contexts share nothing.
// A context is created on first use of its name and reused by name after;
// it lives as long as the browser, as upstream keeps them (seed 003 §2.2).

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
		return "", fmt.Errorf("create isolated context %q: %w", name, err)
	}
	s.contexts[name] = id
	s.contextNames[id] = name
	return id, nil
}
