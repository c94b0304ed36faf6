package httpserve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The JSON-RPC error for a request the HTTP layer answers carries the
// request's id when the body is one request, null otherwise, and leaves
// the body for the next handler.
func TestWriteRPCError(t *testing.T) {
	for _, tt := range []struct{ body, id string }{
		{`{"jsonrpc":"2.0","id":"abc","method":"ping"}`, `"abc"`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, `7`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `null`},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `null`},
		{`not json`, `null`},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tt.body))
		w := httptest.NewRecorder()
		writeRPCError(w, r, http.StatusNotFound, "Gone.")
		want := `{"jsonrpc":"2.0","id":` + tt.id + `,"error":{"code":-32001,"message":"Gone."}}` + "\n"
		if w.Code != http.StatusNotFound || w.Body.String() != want || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("body %s: %d %q, want %q", tt.body, w.Code, w.Body.String(), want)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"id":1,"method":"ping"}`))
	if m, err := peekMessage(r); err != nil || m.Method != "ping" {
		t.Fatalf("peekMessage = %+v, %v", m, err)
	}
	if b, err := io.ReadAll(r.Body); err != nil || string(b) != `{"id":1,"method":"ping"}` {
		t.Errorf("the body after a peek = %q, %v", b, err)
	}
}

// The drain gate refuses only refusable requests once draining, and its
// idle channel closes when the last counted request ends.
func TestDrainGate(t *testing.T) {
	var g drainGate
	if !g.enter(true) || !g.enter(false) {
		t.Fatal("requests refused before draining")
	}
	idle := g.drain()
	if g.enter(true) {
		t.Error("a request was counted while draining")
	}
	if !g.enter(false) {
		t.Error("a notification was refused while draining")
	}
	g.exit()
	g.exit()
	select {
	case <-idle:
		t.Fatal("idle before the last request ended")
	default:
	}
	g.exit()
	<-idle // closed: a hang here fails the test binary's timeout
	select {
	case <-g.drain():
	default:
		t.Error("a second drain with nothing in flight does not report idle")
	}
}

// Instance ids: the host name's first label, cleaned; what the flag
// accepts.
func TestInstanceIDs(t *testing.T) {
	if err := CheckInstanceID(DefaultInstanceID()); err != nil {
		t.Errorf("the default instance id %q is refused: %v", DefaultInstanceID(), err)
	}
	for id, ok := range map[string]bool{"web-1": true, "a": true, "A_b-9": true, "": false, "-a": false, "a.b": false, "a b": false, strings.Repeat("x", 64): false, strings.Repeat("x", 63): true} {
		if got := CheckInstanceID(id) == nil; got != ok {
			t.Errorf("CheckInstanceID(%q) ok = %v, want %v", id, got, ok)
		}
	}
	gen := SessionIDs("web-1")
	a, b := gen(), gen()
	if a == b || !strings.HasPrefix(a, "web-1.") || len(a) != len("web-1.")+26 || instanceOf(a) != "web-1" {
		t.Errorf("session ids %q, %q", a, b)
	}
}
