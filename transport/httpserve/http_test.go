package httpserve_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// withoutBrowser serves over HTTP, configured by cfg, a server whose
// browser is never started: enough for what the HTTP layer answers alone.
func withoutBrowser(t *testing.T, cfg httpserve.Config) *transporttest.Server {
	t.Helper()
	idle := transporttest.Browser(t, browser.Config{ExecutablePath: "/nonexistent/chromium"})
	return transporttest.Start(t, transporttest.Options{Browser: idle, HTTP: &cfg})
}

// TestHTTPReadTimeoutCutsTrickle: a request body sent a byte at a time
// cannot hold its connection past ReadTimeout (with
// only ReadHeaderTimeout set, a body trickled at one byte per 2 s held
// its connection open indefinitely).
func TestHTTPReadTimeoutCutsTrickle(t *testing.T) {
	t.Parallel()
	// Served through HTTPServer.
	addr := withoutBrowser(t, httpserve.Config{ReadTimeout: 2 * time.Second}).Addr
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n", addr)
	closed := make(chan error, 1)
	go func() { // ends when the connection closes, at the latest by the deferred Close
		_, err := io.Copy(io.Discard, c)
		closed <- err
	}()
	start := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for sent := 0; ; sent++ {
		select {
		case <-closed:
			t.Logf("connection closed by the server after %v and %d bytes of body", time.Since(start).Round(time.Millisecond), sent)
			return
		case <-tick.C:
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("a body trickled at a byte a second held its connection %v with ReadTimeout 2s", time.Since(start).Round(time.Second))
		}
		if _, err := c.Write([]byte(" ")); err != nil {
			t.Logf("write after %v: %v", time.Since(start).Round(time.Millisecond), err)
			return
		}
	}
}

// TestHTTPStreamsOutliveReadTimeout: ReadTimeout bounds reading the
// request only. A tool call whose reply takes longer, and a session's
// notification stream (GET), live on past it.
func TestHTTPStreamsOutliveReadTimeout(t *testing.T) {
	t.Parallel()
	srv := transporttest.Start(t, transporttest.Options{HTTP: &httpserve.Config{ReadTimeout: time.Second}})
	addr, url := srv.Addr, srv.URL

	cs := srv.Connect(t)
	transporttest.Must(t, cs, "new_page", map[string]any{"url": "about:blank"}) // and selects it
	got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": `() => new Promise(r => setTimeout(() => r("late"), 2500))`})
	if !strings.Contains(got, `"late"`) {
		t.Errorf("a reply that came 2.5s after its request, with ReadTimeout 1s: %q", got)
	}

	// A raw session, and its GET stream.
	post := func(session, body string) *http.Response {
		req, _ := http.NewRequestWithContext(transporttest.Context(t), http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n", addr, session)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	stream, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", stream.StatusCode)
	}
	// The stream has nothing to say; it must still be open when three
	// read timeouts have passed.
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, err = io.Copy(io.Discard, stream.Body)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("GET stream ended (%v) before 3s, with ReadTimeout 1s", err)
	}
	stream.Body.Close()
	c.Close()
	// End the raw session.
	req, _ := http.NewRequestWithContext(transporttest.Context(t), http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", session)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// TestHTTPHostAndOriginChecks: a request naming a foreign Host or Origin
// is refused (403) whatever its token; one without the right token gets 401.
func TestHTTPHostAndOriginChecks(t *testing.T) {
	t.Parallel()
	url := withoutBrowser(t, httpserve.Config{Token: "s3cret"}).URL
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"foreign host", map[string]string{"Host": "evil.example:80", "Authorization": "Bearer s3cret"}, http.StatusForbidden},
		{"foreign origin", map[string]string{"Origin": "http://evil.example", "Authorization": "Bearer s3cret"}, http.StatusForbidden},
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"good", map[string]string{"Authorization": "Bearer s3cret"}, http.StatusOK},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tt.header {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.want)
		}
	}
}
