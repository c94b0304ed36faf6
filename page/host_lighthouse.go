package page

// What the Lighthouse capability (package page/lighthouse) needs of the
// core: the page's target id, the relay that lets an outside DevTools
// client reach the page's sessions, and setting the slices' settings
// again once Lighthouse has let go of the page.

import (
	"context"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// TargetID returns the page's CDP target id. Safe from any goroutine.
func (h *Host) TargetID() string { return h.a.targetID }

// Relay returns the page's Config.Relay, which opens a relay on the
// browser's channel for an outside DevTools client, or nil if the page's
// browser connection has none. Safe from any goroutine.
func (h *Host) Relay() func(deliver func(msg []byte)) *cdpconn.Relay { return h.a.relay }

// Restore sets again what the slices set on the page's own session
// ([Restorer]: its emulation), which a run of Lighthouse replaced with its
// own. Run goroutine only, once Lighthouse has let go of the page.
func (h *Host) Restore(ctx context.Context) error { return h.a.slices.restore(ctx) }
