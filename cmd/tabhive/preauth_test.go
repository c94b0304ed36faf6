package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPreAuthConnectionsThroughBinary: with --max-connections 20
// --auth-token, connections without the token cannot keep one that has it
// out: a request refused for its token closes its connection, connections
// that send nothing are closed soon, and however many such connections
// are open, a client with the token connects and calls tools.
func TestPreAuthConnectionsThroughBinary(t *testing.T) {
	t.Parallel()
	in := startHTTP(t, "--max-connections", "20", "--auth-token", "s3cret")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", in.Addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedBy reports whether the server closes c by the deadline.
	closedBy := func(c net.Conn, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := io.Copy(io.Discard, c)
		return err == nil // EOF: closed by the server; a timeout is an error
	}

	// Twenty requests without the token, each on a connection of its own
	// that stays open: each is answered 401 and closed.
	refused := make([]net.Conn, 20)
	for i := range refused {
		c := dial()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", in.Addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("request %d without the token: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("request %d without the token: status %d, want 401", i, resp.StatusCode)
		}
		refused[i] = c
	}
	// Forty connections that send nothing, opened last.
	silent := make([]net.Conn, 40)
	for i := range silent {
		silent[i] = dial()
	}

	// A client with the token gets in and works.
	cs := in.Client(http.Header{"Authorization": {"Bearer s3cret"}})
	if got := text(t, cs, "list_pages", nil); !strings.Contains(got, "## Pages") {
		t.Errorf("list_pages with the token = %q", got)
	}

	for i, c := range refused {
		if !closedBy(c, 10*time.Second) {
			t.Errorf("the connection of refused request %d is still open", i)
			break
		}
	}
	// Silent connections are closed within a few seconds of opening (the
	// bound is 5 s; 30 s leaves room for a loaded machine), not after the
	// 2-minute idle timeout of connections that carried a request.
	start := time.Now()
	for i, c := range silent {
		if !closedBy(c, 30*time.Second-time.Since(start)) {
			t.Errorf("silent connection %d is still open after %v", i, time.Since(start).Round(time.Second))
			break
		}
	}
}
