package page

// What the Lighthouse capability (package page/lighthouse) needs of the
// core: the page's target id, and setting the slices' settings again once
// Lighthouse has let go of the page. The relay that lets an outside
// DevTools client reach the page's sessions is the owner's
// ([Owner.Relay]).

import "context"

// TargetID returns the page's CDP target id. Safe from any goroutine.
func (h *Host) TargetID() string { return h.a.targetID }

// Restore sets again what the slices set on the page's own session
// ([Restorer]: its emulation), which a run of Lighthouse replaced with its
// own. Run goroutine only, once Lighthouse has let go of the page.
func (h *Host) Restore(ctx context.Context) error { return h.a.slices.restore(ctx) }
