package page

// What the core needs of the emulation capability (package
// page/emulation): the pace the emulation sets (the default timeouts and
// the slowdowns that stretch waits), which it publishes through
// [Loads.SetPace]. Its part of every reply's [State], and setting it
// again after Lighthouse, go through [Reporter] and [Restorer] (slice.go).

import (
	"sync/atomic"
	"time"
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
