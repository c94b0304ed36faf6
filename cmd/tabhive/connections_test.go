package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestMaxConnectionsThroughBinary: past --max-connections connections that
// carried a request that passed the checks, one more such request is
// answered 503 with the reason, and its connection closed; a connection
// that closes frees its place.
func TestMaxConnectionsThroughBinary(t *testing.T) {
	t.Parallel()
	in := startHTTP(t, "--max-connections", "2")
	var held []net.Conn
	for i := range 2 {
		c, err := net.Dial("tcp", in.Addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		// A request kept alive: the connection is counted from it on.
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+in.Addr+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("held connection %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
		held = append(held, c)
	}
	status, body := rawGet(t, in.Addr)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "tabhive has 2 connections open, the most allowed (--max-connections).") {
		t.Fatalf("third connection: %d %q, want 503 naming --max-connections", status, body)
	}
	held[0].Close()
	waitFor(t, "the closed connection's place", func() bool {
		status, _ := rawGet(t, in.Addr)
		return status == http.StatusOK
	})
}

// rawGet sends GET / on a new connection and returns the answer's status
// and body; 0 when the connection gave none.
func rawGet(t *testing.T, addr string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
