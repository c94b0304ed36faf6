package page

// Owner: what the page's owner gave it in its [Config] and what
// capabilities use of it: the permission grant (page/emulation), the
// relay for an outside DevTools client (page/lighthouse), the URL policy
// (page/route), the hooks that count scripts (page/script), and the word
// of a navigation (page/performance).

import (
	"context"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// Owner is the handle on what the page's owner configured: [Host.Owner].
type Owner struct{ a *Actor }

// Owner returns the handle on what the page's owner configured.
func (h *Host) Owner() Owner { return Owner{h.a} }

// Grant returns the page's Config.Grant, nil if it has none. Safe from any
// goroutine.
func (o Owner) Grant() func(ctx context.Context, browserContextID, permission string) error {
	return o.a.grant
}

// Relay returns the page's Config.Relay, which opens a relay on the
// browser's channel for an outside DevTools client, or nil if the page's
// browser connection has none. Safe from any goroutine.
func (o Owner) Relay() func(deliver func(msg []byte)) *cdpconn.Relay { return o.a.relay }

// Blocked returns why the URL policy refuses url, or nil if it allows it
// (or the page has no policy). Safe from any goroutine.
func (o Owner) Blocked(url string) error {
	if o.a.blocked == nil {
		return nil
	}
	return o.a.blocked(url)
}

// Hooks returns the page's hooks. Safe from any goroutine.
func (o Owner) Hooks() Hooks { return o.a.hooks }

// Navigated tells the page's owner of a navigation [Loads.Navigate] made
// (Config.OnNavigated), so that the page list shows its new title. Run
// goroutine only; the page keeps applying events while the owner records
// it.
func (o Owner) Navigated(ctx context.Context, res NavigationResult) { o.a.navigated(ctx, res) }
