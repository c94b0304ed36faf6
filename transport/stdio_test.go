package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser"
)

// lineFilter passes on each line that is one JSON-RPC message, unchanged
// but for its line ending, and answers every other line with one error
// line; a line over the limit is discarded as it is read, never held whole.
func TestLineFilter(t *testing.T) {
	const max = 100
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 200) + `"}}`
	exact := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", max-len(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""}}`)) + `"}}`
	parseError := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON; send one JSON-RPC message per line."}}`
	tooLong := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the line is longer than 100 bytes, the most one message may take; it was discarded."}}`
	batch := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported; send one JSON-RPC message per line."}}`
	invalid := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"Invalid Request: the line is not a JSON-RPC 2.0 message."}}`
	}
	tests := []struct {
		name, in      string
		pass, replies []string
	}{
		{"message", ping + "\n", []string{ping}, nil},
		{"crlf and blank lines", "\r\n" + ping + "\r\n\n  \n", []string{ping}, nil},
		{"no final newline", ping, []string{ping}, nil},
		{"exactly the limit", exact + "\n", []string{exact}, nil},
		{"not JSON", "hello\n" + ping + "\n", []string{ping}, []string{parseError}},
		{"truncated", `{"jsonrpc":"2.0","id":2,"method":` + "\n" + ping + "\n", []string{ping}, []string{parseError}},
		{"two values on a line", ping + " " + ping + "\n", nil, []string{parseError}},
		{"too long", long + "\n" + ping + "\n", []string{ping}, []string{tooLong}},
		{"too long at the end", long, nil, []string{tooLong}},
		{"batch", "[" + ping + "]\n" + ping + "\n", []string{ping}, []string{batch}},
		{"not JSON-RPC, with an id", `{"id":7,"foo":1}` + "\n", nil, []string{invalid("7")}},
		{"not JSON-RPC, with a string id", `{"jsonrpc":"1.0","id":"a","method":"x"}` + "\n", nil, []string{invalid(`"a"`)}},
		{"not JSON-RPC, bad id", `{"jsonrpc":"2.0","id":{},"method":"x"}` + "\n", nil, []string{invalid("null")}},
		{"a number", "42\n", nil, []string{invalid("null")}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		// A small read buffer, so that lines span several reads.
		in := strings.NewReader(tt.in)
		f := &lineFilter{in: io.NopCloser(in), br: bufio.NewReaderSize(in, 16), out: &out, max: max}
		got, err := io.ReadAll(f)
		if err != nil {
			t.Errorf("%s: read: %v", tt.name, err)
		}
		want := ""
		for _, l := range tt.pass {
			want += l + "\n"
		}
		if string(got) != want {
			t.Errorf("%s: passed on %q, want %q", tt.name, got, want)
		}
		want = ""
		for _, l := range tt.replies {
			want += l + "\n"
		}
		if out.String() != want {
			t.Errorf("%s: replied %q, want %q", tt.name, out.String(), want)
		}
	}
}

// A long line is not buffered whole: reading past the limit keeps memory
// at the limit, however long the line.
func TestLineFilterLongLineNotBuffered(t *testing.T) {
	in := io.MultiReader(strings.NewReader("["), &repeatReader{b: 'a', n: 64 << 20}, strings.NewReader("]\n"))
	f := &lineFilter{in: io.NopCloser(in), br: bufio.NewReaderSize(in, 64<<10), out: io.Discard, max: 1 << 20}
	line, err := f.readLine()
	if line != nil || err != nil {
		t.Fatalf("readLine = %d bytes, %v; want the line discarded", len(line), err)
	}
	if cap(f.line) > 2<<20 {
		t.Errorf("buffered %d bytes of a 64 MiB line, want about the 1 MiB limit", cap(f.line))
	}
}

// repeatReader reads n copies of b.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = r.b
	}
	r.n -= n
	return n, nil
}

// A stdio session survives malformed lines: each is answered with a
// JSON-RPC error, and the session goes on serving (the SDK's own stdio
// transport ends the server).
func TestServeStdioMalformedLines(t *testing.T) {
	sup := browser.New(browser.Config{}) // never launched: no tool here needs a page
	srv := New(Config{}, sup)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(ctx, inR, outW) }()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-served:
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
				t.Errorf("ServeStdio = %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
		cancel()
		outR.Close()
		srv.Close()
		sup.Close()
	})
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(s string) {
		t.Helper()
		go inW.Write([]byte(s)) // a pipe write waits for the reader
	}
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no reply: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("reply %q: %v", lines.Text(), err)
		}
		return m
	}
	expectError := func(what string, code float64, id any) {
		t.Helper()
		m := next()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != code || m["id"] != id {
			t.Errorf("%s: reply %v, want error %v with id %v", what, m, code, id)
		}
	}

	send("this is not json\n")
	expectError("a line that is not JSON, before initialize", -32700, nil)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n")
	if m := next(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"` + "\n")
	expectError("a truncated message", -32700, nil)
	send(`[{"jsonrpc":"2.0","id":3,"method":"ping"}]` + "\n")
	expectError("a batch", -32600, nil)
	send(`{"id":4,"hello":"world"}` + "\n")
	expectError("JSON that is not JSON-RPC", -32600, 4.0)
	send(`{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":"` + strings.Repeat("a", MaxLineBytes) + `"}}` + "\n")
	expectError("a line over 4 MiB", -32600, nil)
	send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}` + "\n")
	m := next()
	tools, _ := m["result"].(map[string]any)["tools"].([]any)
	if m["id"] != 6.0 || len(tools) < 20 {
		t.Errorf("tools/list after the malformed lines: id %v, %d tools", m["id"], len(tools))
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait_for","arguments":{"text":["x"],"timeout":9223372036854}}}` + "\n")
	m = next()
	res, _ := m["result"].(map[string]any)
	if want := `Invalid argument "timeout" for tool "wait_for": expected an integer from 0 to 3600000, got 9223372036854.`; m["id"] != 7.0 || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), want) {
		t.Errorf("wait_for with an absurd timeout: %v, want %q", m, want)
	}
}
