package main

import (
	"bufio"
	"encoding/json"
	"testing"
	"time"
)

// A malformed line on stdin is answered with a JSON-RPC error and the
// server keeps serving; it used to end the server with exit status 2.
func TestStdioMalformedLine(t *testing.T) {
	t.Parallel()
	cmd := command(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	exchange := func(send string) map[string]any {
		t.Helper()
		if _, err := stdin.Write([]byte(send + "\n")); err != nil {
			t.Fatalf("write %q: %v", send, err)
		}
		if !lines.Scan() {
			t.Fatalf("no reply to %q: %v", send, lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("reply to %q is not JSON: %q", send, lines.Text())
		}
		return m
	}

	m := exchange("{not json")
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != -32700.0 || m["id"] != nil {
		t.Errorf("reply to a malformed line = %v, want a parse error (-32700) with id null", m)
	}
	m = exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize after a malformed line = %v", m)
	}
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	m = exchange("\x00garbage\x00")
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != -32700.0 {
		t.Errorf("reply to a second malformed line = %v, want a parse error", m)
	}
	m = exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if tools, _ := m["result"].(map[string]any)["tools"].([]any); m["id"] != 2.0 || len(tools) < 20 {
		t.Errorf("tools/list after malformed lines = %.200v", m)
	}

	// The end of stdin still ends the server cleanly.
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("tabhive exited with %v after stdin closed, want status 0", err)
		}
	case <-time.After(exitWait):
		t.Errorf("tabhive did not exit within %v of stdin closing", exitWait)
	}
}
