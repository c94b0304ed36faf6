package script

import (
	"context"
	"testing"
	"time"
)

// TestScriptDeadlineNests: a script's own deadline comes inside the waits'
// (the deadline its action runs under), so that a timed-out script is
// reported within the call's budget (ARCHITECTURE.md §2, law 3). The waits
// end at most 250 ms before the call (page's TestBudgetsNest), so a long
// budget is the script's, less a second at most.
func TestScriptDeadlineNests(t *testing.T) {
	for _, budget := range []time.Duration{
		50 * time.Millisecond, 200 * time.Millisecond, time.Second, 5 * time.Second, 30 * time.Second, 10 * time.Minute,
	} {
		if budget <= scriptReserve+250*time.Millisecond {
			continue // no room for a reserve: the waits' deadline stops the script
		}
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		inner, _ := ctx.Deadline() // the waits' deadline
		script := inner.Add(-reserveFor(time.Until(inner)))
		if !script.Before(inner) || !script.After(time.Now()) {
			t.Errorf("budget %v: a script's deadline %v is not inside the waits' %v", budget, script, inner)
		}
		// The grace after the script's deadline, and terminate's round
		// trip, fit before the waits end.
		if script.Add(terminateGrace).After(inner) {
			t.Errorf("budget %v: grace after the script's deadline overruns the waits", budget)
		}
		if lost := inner.Sub(script); lost > time.Second-250*time.Millisecond {
			t.Errorf("budget %v: the script is stopped %v before the waits' deadline", budget, lost)
		}
		cancel()
	}
}
