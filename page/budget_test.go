package page

import (
	"context"
	"testing"
	"time"
)

// TestBudgetsNest: on every path, an inner wait ends before the wait that
// contains it, so the page's own error reaches the caller before the
// caller's deadline fires (ARCHITECTURE.md §2, law 3): call deadline > waits
// (within), by at most 250 ms; a script's own deadline inside the waits' is
// page/script's TestScriptDeadlineNests.
func TestBudgetsNest(t *testing.T) {
	for _, budget := range []time.Duration{
		50 * time.Millisecond, 200 * time.Millisecond, time.Second, 5 * time.Second, 30 * time.Second, 10 * time.Minute,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		outer, _ := ctx.Deadline()
		wctx, wcancel := within(ctx)
		inner, ok := wctx.Deadline()
		if !ok || !inner.Before(outer) {
			t.Errorf("budget %v: waits end at %v, not before the call's deadline %v", budget, inner, outer)
		}
		if h := outer.Sub(inner); h < 20*time.Millisecond || h > 250*time.Millisecond {
			t.Errorf("budget %v: headroom %v, want between 20ms and 250ms", budget, h)
		}
		wcancel()
		cancel()
	}
	// No deadline: nothing to nest, and within adds none.
	wctx, cancel := within(context.Background())
	defer cancel()
	if _, ok := wctx.Deadline(); ok {
		t.Error("within invented a deadline")
	}
}
