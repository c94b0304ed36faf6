package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
)

// TestWebSocketsThroughBinary: with --allowed-url-pattern, a WebSocket (a
// GET with its path and query to any host and port, which request
// interception does not see) reaches no host outside the allow list, from
// a page or its worker, whatever spelling of the host; the allowed host
// itself is reachable on any port (the limit SECURITY.md states).
func TestWebSocketsThroughBinary(t *testing.T) {
	ws := tabhivetest.NewWitness(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not a WebSocket server", http.StatusBadRequest)
	})
	port := ws.Port

	var urls []string
	for _, h := range []string{"127.0.0.1", "localhost", "127.0.0.2", "[::1]", "x.localhost", "ws.test"} {
		urls = append(urls, fmt.Sprintf("ws://%s:%d/leak?host=%s", h, port, strings.Trim(h, "[]")))
	}
	list := `["` + strings.Join(urls, `","`) + `"]`
	open := `const open = u => new Promise(done => { const s = new WebSocket(u); s.onclose = s.onerror = () => done() });`
	done := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Sockets", `<script>`+open+`
const w = new Worker(URL.createObjectURL(new Blob([`+"`"+open+` Promise.all(`+list+`.map(u => open(u + '&from=worker'))).then(() => postMessage(1))`+"`"+`])));
Promise.all([...`+list+`.map(open), new Promise(r => w.onmessage = r)]).finally(() => fetch('/done'))</script>`))
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) { once.Do(func() { close(done) }) })
	site := browsertest.Serve(t, mux)

	in := startHTTP(t, "--allowed-url-pattern", site.URL+"/*")
	text(t, in.Client(nil), "navigate_page", map[string]any{"url": site.URL + "/", "timeout": 60000})
	tabhivetest.WaitClosed(t, "every socket to close", done)
	handshakes := ws.Seen()
	var others []string
	for _, h := range handshakes {
		if !strings.HasPrefix(h, "127.0.0.1:") {
			others = append(others, h)
		}
	}
	slices.Sort(others)
	if len(others) > 0 {
		t.Errorf("WebSockets reached hosts outside the allow list: %v", others)
	}
	if len(handshakes) == len(others) {
		t.Errorf("no WebSocket reached the allowed host on another port, which the allow list does not stop: %v", handshakes)
	}
}
