package httpserve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestPreAuthTimerStopsAtFirstBytes: a pre-auth connection that sends
// nothing is closed after the pre-auth timeout; one that has begun its
// request by then is not cut off, however long its request takes to reach
// the handler (on a loaded machine, longer than the timeout), and is
// answered once its headers are in.
func TestPreAuthTimerStopsAtFirstBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ll := &limitListener{Listener: ln, max: 4, preAuth: 100 * time.Millisecond}
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if authenticate(w, r) {
				io.WriteString(w, "ok")
			}
		}),
		ConnContext:       connContext,
		ReadHeaderTimeout: time.Minute,
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ll) }()
	t.Cleanup(func() {
		hs.Close()
		if err := <-served; err != http.ErrServerClosed {
			t.Errorf("Serve: %v", err)
		}
	})
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	begun := dial()
	fmt.Fprintf(begun, "GET / HTTP/1.1\r\n")
	silent := dial() // accepted after begun: its timer fires after begun's would
	silent.SetReadDeadline(time.Now().Add(time.Minute))
	if n, err := silent.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("a silent pre-auth connection: read %d, %v; want it closed by the server", n, err)
	}
	fmt.Fprintf(begun, "Host: %s\r\n\r\n", ln.Addr())
	begun.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(begun), nil)
	if err != nil {
		t.Fatalf("a request begun before the pre-auth timeout and finished after it: %v; want it answered", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Errorf("answer %d %q, want 200 ok", resp.StatusCode, body)
	}
}
