package page

// What the core needs of the emulation capability (package
// page/emulation), and what that capability needs of the core: the pace
// the emulation sets (the default timeouts and the slowdowns that stretch
// waits), and reloading the page when its touch support changes. Its part
// of every reply's [State], and setting it again after Lighthouse, go
// through [Reporter] and [Restorer] (slice.go).

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp/protocol/page"
)

// Timeouts are a page's default timeouts: the base defaults scaled by the
// CPU and network it emulates, as chrome-devtools-mcp 1.11 scales them,
// so that throttling does not make every wait time out.
type Timeouts struct {
	// Navigation bounds a navigation's wait for its document when the
	// caller gives no timeout: DefaultNavigationTimeout × network × CPU.
	Navigation time.Duration
	// WaitFor is wait_for's budget when the caller gives none:
	// DefaultWaitForTimeout × CPU.
	WaitFor time.Duration
}

// DefaultTimeouts returns the timeouts of a page that emulates nothing.
func DefaultTimeouts() Timeouts {
	return Timeouts{Navigation: DefaultNavigationTimeout, WaitFor: DefaultWaitForTimeout}
}

// Pace is how much slower than normal the emulation in force makes a page
// run, as the core's waits need to know it.
type Pace struct {
	// Timeouts are the page's default timeouts.
	Timeouts Timeouts
	// CPU is the CPU slowdown rate, 0 for none, and Network the emulated
	// network conditions' name, "" for none: a trace records them.
	CPU     float64
	Network string
	// NetworkFactor is how much the emulated network slows waits for it
	// (Slow 3G: 10), 1 for none.
	NetworkFactor float64
}

// defaultPace is the pace of a page that emulates nothing.
var defaultPace = Pace{Timeouts: DefaultTimeouts(), NetworkFactor: 1}

// SetPace publishes the page's pace, after each change of the emulation.
// Run goroutine only; [Actor.Timeouts] loads it from any goroutine.
func (h *Host) SetPace(p Pace) { h.a.pace.Store(&p) }

// paceCell holds the page's [Pace]: nil until the emulation publishes
// one, which is then replaced, never changed. Safe from any goroutine.
type paceCell struct{ atomic.Pointer[Pace] }

// load returns the page's pace.
func (c *paceCell) load() Pace {
	if p := c.Load(); p != nil {
		return *p
	}
	return defaultPace
}

// Timeouts returns the page's default timeouts under the emulation in force.
// It never waits on the actor, so a caller can size a call's budget before
// the call queues behind others; an emulate call still queued is not yet
// reflected.
func (a *Actor) Timeouts() Timeouts { return a.pace.load().Timeouts }

// Reload reloads the page and waits for it as navigate_page's reload
// does, under the page's default navigation timeout, accepting a
// beforeunload dialog: for a change that only a new document sees (the
// emulated touch support).
func (h *Host) Reload(ctx context.Context) error {
	a := h.a
	opts := actionOptions{
		navigationTimeout: a.pace.load().Timeouts.Navigation,
		handleDialog: func(typ string) (dialogAnswer, bool) {
			return dialogAnswer{accept: true}, typ == "beforeunload"
		},
	}
	_, err := a.perform(ctx, opts, func(ctx context.Context, _ *Progress) error {
		return a.c.Page.Reload(ctx, page.NewReloadArgs())
	})
	return err
}

// Grant returns the page's Config.Grant, nil if it has none. Safe from any
// goroutine.
func (h *Host) Grant() func(ctx context.Context, browserContextID, permission string) error {
	return h.a.grant
}
