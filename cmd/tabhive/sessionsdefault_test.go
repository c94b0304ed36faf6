package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestMaxSessionsDefaultThroughBinary: over HTTP without --max-sessions, at
// most 32 sessions are open at once; --max-sessions 0 lifts the bound.
func TestMaxSessionsDefaultThroughBinary(t *testing.T) {
	t.Parallel()
	count := func(in *instance, n int) (made, refused int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				status, id, answer := in.post(initializeBody, nil)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case status == http.StatusOK && id != "":
					made++
				case status == http.StatusServiceUnavailable && strings.Contains(answer, "tabhive already serves 32 sessions, the most allowed (--max-sessions)."):
					refused++
				default:
					t.Errorf("initialize: %d %q", status, answer)
				}
			})
		}
		wg.Wait()
		return made, refused
	}
	if made, refused := count(startHTTP(t), 40); made != 32 || refused != 8 {
		t.Errorf("40 initializes without --max-sessions: %d sessions, %d refused; want 32 and 8", made, refused)
	}
	if made, _ := count(startHTTP(t, "--max-sessions", "0"), 40); made != 40 {
		t.Errorf("40 initializes with --max-sessions 0: %d sessions, want 40", made)
	}
}
