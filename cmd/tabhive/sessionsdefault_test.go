package main

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestMaxSessionsDefaultThroughBinary: over HTTP without --max-sessions, at
// most 32 sessions are open at once; --max-sessions 0 lifts the bound.
func TestMaxSessionsDefaultThroughBinary(t *testing.T) {
	t.Parallel()
	// Each initialize on a connection of its own, closed after: a shared
	// pool may keep a connection it dialled and did not use, which the
	// server closes as a silent pre-auth connection, and a POST sent on it
	// as it closes fails (the client does not retry a POST).
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	post := func(in *instance) (status int, session, answer string) {
		req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, in.URL, strings.NewReader(initializeBody))
		if err != nil {
			t.Error(err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
	}
	count := func(in *instance, n int) (made, refused int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				status, id, answer := post(in)
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
