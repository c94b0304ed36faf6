package transport

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A path written again keeps its URI; past maxSessionFiles the oldest is
// no longer offered; a URI names the file's base name, escaped.
func TestSessionFiles(t *testing.T) {
	var f sessionFiles
	a := f.add("/tmp/x/snap shot.txt")
	if a != "tabhive://files/1/snap%20shot.txt" {
		t.Errorf("URI = %q", a)
	}
	if again := f.add("/tmp/x/snap shot.txt"); again != a {
		t.Errorf("the same path got a second URI %q", again)
	}
	for i := range maxSessionFiles {
		f.add(fmt.Sprintf("/tmp/x/%d.png", i))
	}
	if _, ok := f.path(a); ok {
		t.Error("the oldest file is still offered past the bound")
	}
	if got := len(f.list()); got != maxSessionFiles {
		t.Errorf("%d files listed, want %d", got, maxSessionFiles)
	}
	if p, ok := f.path(fmt.Sprintf("tabhive://files/%d/%d.png", maxSessionFiles+1, maxSessionFiles-1)); !ok || p != fmt.Sprintf("/tmp/x/%d.png", maxSessionFiles-1) {
		t.Errorf("newest file: %q %v", p, ok)
	}
}

func TestMimeType(t *testing.T) {
	for _, tt := range []struct {
		path string
		data []byte
		want string
		text bool
	}{
		{"a.txt", nil, "text/plain; charset=utf-8", true},
		{"a.PNG", nil, "image/png", false},
		{"a.json", nil, "application/json", true},
		{"r.network-response", []byte("<html><body>x"), "text/html; charset=utf-8", true},
		{"r.network-response", []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, "image/png", false},
		{"r.network-request", nil, "", false},
	} {
		got := mimeType(tt.path, tt.data)
		if got != tt.want || isText(got) != tt.text {
			t.Errorf("mimeType(%q) = %q (text %v), want %q (text %v)", tt.path, got, isText(got), tt.want, tt.text)
		}
	}
}

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
	gen := sessionIDs("web-1")
	a, b := gen(), gen()
	if a == b || !strings.HasPrefix(a, "web-1.") || len(a) != len("web-1.")+26 || instanceOf(a) != "web-1" {
		t.Errorf("session ids %q, %q", a, b)
	}
}
