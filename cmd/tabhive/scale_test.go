package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// rpcError decodes a JSON-RPC error response.
func rpcError(t *testing.T, body string) (id string, code int, message string) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %q", body)
	}
	return string(m.ID), m.Error.Code, m.Error.Message
}

// TestInstanceIDThroughBinary: every session id starts with the instance
// id; a request for a session of another instance, or one that ended,
// gets 404 with a JSON-RPC error that says which, and to start over.
func TestInstanceIDThroughBinary(t *testing.T) {
	t.Parallel()
	in := startHTTP(t, "--instance-id", "web-7")
	status, session, answer := in.Post(initializeBody, nil)
	if status != http.StatusOK || !strings.HasPrefix(session, "web-7.") || len(session) != len("web-7.")+26 {
		t.Fatalf("initialize: %d, session id %q (%q); want web-7. and 26 characters", status, session, answer)
	}
	ping := `{"jsonrpc":"2.0","id":42,"method":"ping"}`
	if status, _, answer := in.Post(ping, http.Header{"Mcp-Session-Id": {session}}); status != http.StatusOK {
		t.Fatalf("ping in the session: %d %q", status, answer)
	}

	for _, tt := range []struct {
		session string
		want    []string
	}{
		{"web-3.AAAAAAAAAAAAAAAAAAAAAAAAAA", []string{"Session web-3.AAAAAAAAAAAAAAAAAAAAAAAAAA is not on this tabhive instance (web-7): it belongs to instance web-3", "start a new session (initialize without Mcp-Session-Id)."}},
		{"web-7.AAAAAAAAAAAAAAAAAAAAAAAAAA", []string{"has ended on this tabhive instance (web-7)", "start a new session"}},
		{"no-dot-at-all", []string{"has ended on this tabhive instance (web-7)"}},
	} {
		status, _, answer := in.Post(ping, http.Header{"Mcp-Session-Id": {tt.session}})
		id, code, msg := rpcError(t, answer)
		if status != http.StatusNotFound || id != "42" || code != -32001 {
			t.Errorf("ping for session %s: status %d, id %s, code %d; want 404, the request's id 42, -32001", tt.session, status, id, code)
		}
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("ping for session %s: message %q, want it to say %q", tt.session, msg, w)
			}
		}
	}
	// GET and DELETE name no request: the id is null.
	status, body := in.Get("/mcp", http.Header{"Mcp-Session-Id": {"web-1.X"}, "Accept": {"text/event-stream"}})
	if id, code, _ := rpcError(t, body); status != http.StatusNotFound || id != "null" || code != -32001 {
		t.Errorf("GET for another instance's session: %d %q", status, body)
	}

	// A real client sees the sentence when its session is gone.
	cs := in.Client(nil)
	text(t, cs, "list_pages", nil)
	req, _ := http.NewRequest(http.MethodDelete, in.URL, nil)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	if status, _, answer := in.Do(req); status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %q", status, answer)
	}
	_, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "list_pages"})
	if err == nil || !strings.Contains(err.Error(), "has ended on this tabhive instance (web-7)") {
		t.Errorf("a call in a deleted session: %v, want the sentence saying it ended", err)
	}
}

// TestHealthThroughBinary: /healthz and /readyz without the token, under
// the Host check; ready once the browser is up (the probe starts it), not
// ready while --max-sessions are open.
func TestHealthThroughBinary(t *testing.T) {
	t.Parallel()
	in := startHTTP(t, "--max-sessions", "2", "--auth-token", "s3cret")
	if status, body := in.Get("/healthz", nil); status != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q", status, body)
	}
	// The first probe finds no browser and starts it.
	status, body := in.Get("/readyz", nil)
	if status == http.StatusServiceUnavailable && !strings.Contains(body, "not ready: no browser yet: starting or reconnecting it") {
		t.Errorf("/readyz before the browser: %d %q", status, body)
	}
	waitFor(t, "/readyz to answer 200 once the browser is up", func() bool {
		status, body = in.Get("/readyz", nil)
		return status == http.StatusOK
	})
	if body != "ready: browser connected, 0 of 2 sessions\n" {
		t.Errorf("/readyz = %q", body)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		req, _ := http.NewRequest(http.MethodGet, in.Base+p, nil)
		req.Host = "attacker.example"
		if status, _, _ := in.Do(req); status != http.StatusForbidden {
			t.Errorf("%s with a foreign Host: %d, want 403", p, status)
		}
	}
	if status, _ := in.Get("/metrics", nil); status != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401 (only the probes are exempt)", status)
	}

	auth := http.Header{"Authorization": {"Bearer s3cret"}}
	var sessions []string
	for range 2 {
		status, session, answer := in.Post(initializeBody, auth)
		if status != http.StatusOK {
			t.Fatalf("initialize: %d %q", status, answer)
		}
		sessions = append(sessions, session)
	}
	if status, body := in.Get("/readyz", nil); status != http.StatusServiceUnavailable || body != "not ready: full: 2 sessions open, the most allowed (--max-sessions)\n" {
		t.Errorf("/readyz with 2 of 2 sessions: %d %q", status, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, in.URL, nil)
	req.Header = auth.Clone()
	req.Header.Set("Mcp-Session-Id", sessions[0])
	in.Do(req)
	waitFor(t, "/readyz once a session ended", func() bool {
		status, body = in.Get("/readyz", nil)
		return status == http.StatusOK
	})
	if body != "ready: browser connected, 1 of 2 sessions\n" {
		t.Errorf("/readyz = %q", body)
	}
}

// TestDrainThroughBinary: on SIGTERM, /readyz says 503 at once, new
// sessions and new calls are refused, and the call in flight completes;
// then the process exits cleanly.
func TestDrainThroughBinary(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Site", ""))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Write([]byte("finished"))
	})
	site := browsertest.Serve(t, mux).URL

	in := startHTTP(t, "--instance-id", "drainer", "--drain-timeout", "60s")
	busy, other := in.Client(nil), in.Client(nil)
	text(t, busy, "navigate_page", map[string]any{"url": site + "/"})
	text(t, other, "list_pages", nil)

	inflight := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := busy.CallTool(ctx(t), &mcp.CallToolParams{Name: "evaluate_script", Arguments: map[string]any{
			"function": "async () => (await fetch('/slow')).text()", "timeout": 60000}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "protocol error: " + err.Error()}}}
		}
		inflight <- res
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight never reached its page")
	}
	if got := in.Metric("tabhive_calls_in_flight"); got != 1 {
		t.Errorf("tabhive_calls_in_flight = %v with one call in flight, want 1", got)
	}

	in.Cmd.Process.Signal(syscall.SIGTERM)
	// Draining starts at once: poll only for the signal to be delivered.
	waitFor(t, "/readyz to say draining", func() bool {
		status, body := in.Get("/readyz", nil)
		return status == http.StatusServiceUnavailable && body == "not ready: draining: shutting down, no new sessions\n"
	})
	if status, _, answer := in.Post(initializeBody, nil); status != http.StatusServiceUnavailable || !strings.Contains(answer, "shutting down and takes no new sessions") {
		t.Errorf("initialize while draining: %d %q", status, answer)
	}
	_, err := other.CallTool(ctx(t), &mcp.CallToolParams{Name: "list_pages"})
	if err == nil || !strings.Contains(err.Error(), "This tabhive instance (drainer) is shutting down: it finishes the calls in flight and takes no new ones; start a new session") {
		t.Errorf("a new call while draining: %v", err)
	}
	select {
	case res := <-inflight:
		t.Fatalf("the call in flight ended before its page answered: %q", res.Content[0].(*mcp.TextContent).Text)
	case err := <-in.Exited:
		in.Exited <- err
		t.Fatalf("tabhive exited while a call was in flight: %v", err)
	default:
	}

	once.Do(func() { close(release) })
	select {
	case res := <-inflight:
		if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(got, `"finished"`) {
			t.Errorf("the call in flight at SIGTERM: %v %q, want its result", res.IsError, got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight was not answered after its page finished")
	}
	select {
	case err := <-in.Exited:
		in.Exited <- err
		if err != nil {
			t.Errorf("exit after the drain: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("tabhive did not exit once the drain was done")
	}
}
