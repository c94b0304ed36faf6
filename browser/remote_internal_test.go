package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The backoff doubles from minRetry to maxRetry after each failure, is
// reset by a success, and is not moved by a canceled attempt; while it
// runs, wait returns the last failure with when the next attempt is due.
func TestRetryBackoff(t *testing.T) {
	var r retryState
	if err := r.wait(); err != nil {
		t.Fatalf("wait before any attempt = %v", err)
	}
	refused := errors.New("connect to ws://x: refused")
	var delays []time.Duration
	for range 10 {
		r.record(refused)
		delays = append(delays, r.delay)
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}
	for i := range want {
		if delays[i] != want[i] {
			t.Fatalf("delays = %v, want %v", delays, want)
		}
	}
	err := r.wait()
	if !errors.Is(err, refused) || !strings.Contains(err.Error(), "; tabhive connects again in ") {
		t.Errorf("wait during the backoff = %v", err)
	}
	if in := r.retryIn(); in <= 0 || in > maxRetry {
		t.Errorf("retryIn = %v", in)
	}
	r.record(context.Canceled)
	if r.delay != maxRetry || !errors.Is(r.wait(), refused) {
		t.Errorf("a canceled attempt moved the backoff: %v, %v", r.delay, r.wait())
	}
	r.record(nil)
	if err := r.wait(); err != nil || r.delay != 0 || r.retryIn() != 0 {
		t.Errorf("after a success: wait %v, delay %v, retryIn %v", err, r.delay, r.retryIn())
	}
}
