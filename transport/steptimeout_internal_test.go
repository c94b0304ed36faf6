package transport

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
)

// TestStepTimeoutIsNotTheBudget: a step with a bound of its own that runs
// out long before the call's budget (a page's setup on a busy machine) is
// not reported as the call's budget running out; an inner wait that runs
// out at the budget's headroom still is.
func TestStepTimeoutIsNotTheBudget(t *testing.T) {
	t.Parallel()
	s := &Server{log: zerolog.Nop()}
	probe := func(budget time.Duration, run func(ctx context.Context) error) string {
		tl := &tool{
			name: "probe", action: true, noBrowser: true, argType: reflect.TypeOf(struct{}{}),
			budget: func(any) time.Duration { return budget },
			run:    func(ctx context.Context, _ *call, _ any) error { return run(ctx) },
		}
		res, _ := s.run(context.Background(), tl, &call{s: s, sess: &session{}, r: &reply{}}, nil)
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}

	got := probe(2*time.Minute, func(context.Context) error {
		return fmt.Errorf("enable domains: %w", context.DeadlineExceeded)
	})
	if strings.Contains(got, "did not finish within its") || !strings.Contains(got, "probe stopped after 0s, well within its 2m0s budget") || strings.Contains(got, "enable domains") {
		t.Errorf("a step's own timeout, long before the budget:\n%s", got)
	}

	// An inner wait bounded by the budget less the headroom.
	got = probe(overhead+100*time.Millisecond, func(ctx context.Context) error {
		wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		<-wctx.Done()
		return fmt.Errorf("wait: %w", wctx.Err())
	})
	if !strings.Contains(got, "probe did not finish within its 10.1s budget") {
		t.Errorf("an inner wait at the budget's headroom:\n%s", got)
	}
}
