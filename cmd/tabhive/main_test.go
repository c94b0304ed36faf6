package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestMain doubles as the tabhive command: the end-to-end tests start this
// test binary with TABHIVE_TEST_MAIN=1 and tabhive's flags, so that they
// drive the real program, flags, wiring and shutdown included.
func TestMain(m *testing.M) {
	if os.Getenv("TABHIVE_TEST_PARSE") == "1" {
		os.Exit(parseMode(os.Stdin, os.Stdout)) // spellings_test.go
	}
	if os.Getenv("TABHIVE_TEST_MAIN") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			os.Stderr.WriteString("tabhive: " + err.Error() + "\n")
			os.Exit(2)
		}
		os.Exit(0)
	}
	browsertest.Main(m)
}

// binary returns the tabhive command with args: this test binary, which
// TestMain runs as tabhive, logging to the test's stderr. It is the one
// place the tests that start the binary are skipped under -short.
func binary(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if testing.Short() {
		t.Skip(browsertest.SkipMessage)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TABHIVE_TEST_MAIN=1")
	cmd.Stderr = os.Stderr
	return cmd
}

// command returns the tabhive command with a headless, isolated Chromium.
func command(t *testing.T, extra ...string) *exec.Cmd {
	t.Helper()
	exe := browsertest.Executable(t)
	return binary(t, append([]string{"--headless", "--isolated", "--executable-path", exe, "--log-level", "warn"}, extra...)...)
}

// ctx, text (a call that must succeed) and try (a call and whether it
// failed) are transporttest's, under the short names the tests here use.
var (
	ctx  = transporttest.Context
	text = transporttest.Must
	try  = transporttest.Call
)

// exitWait bounds how long a test waits for the command to exit once told
// to (stdin closed, SIGTERM): a second or two on a quiet machine, but on a
// loaded one a killed Chromium may take seconds to be gone, and the command
// waits for it (launch's killWait). A command that waits for anything else
// (a signal, a session timeout) stays well past it.
const exitWait = 75 * time.Second

func TestStdio(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Hello", `<button onclick="this.textContent='Clicked'">Press</button>`))
	// The client would signal a server that has not exited 2 min after its
	// stdin closed: the exit measured below is the server's own.
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: command(t), TerminateDuration: 2 * exitWait})
	if got := text(t, cs, "list_pages", nil); got != "## Pages\n1: about:blank [selected]" {
		t.Errorf("list_pages = %q", got)
	}
	if got := text(t, cs, "new_page", map[string]any{"url": srv.URL + "/"}); !strings.Contains(got, "2: Hello ("+srv.URL+"/) [selected]") {
		t.Errorf("new_page = %q", got)
	}
	snap := text(t, cs, "take_snapshot", nil)
	if !strings.Contains(snap, `button "Press"`) {
		t.Fatalf("snapshot = %q", snap)
	}
	uid := strings.Fields(snap[strings.Index(snap, "uid=1_1"):])[0][len("uid="):]
	text(t, cs, "click", map[string]any{"uid": uid})
	if got := text(t, cs, "take_snapshot", nil); !strings.Contains(got, `button "Clicked"`) {
		t.Errorf("after click: %q", got)
	}
	start := time.Now()
	if err := cs.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	// Closing stdin ends the server; it must close Chromium and exit on its
	// own, without the client's signal.
	if took := time.Since(start); took > exitWait {
		t.Errorf("server took %v to exit after stdin closed", took)
	}
}

// instance is a tabhive command serving streamable HTTP for one test.
type instance struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	base string // http://127.0.0.1:PORT
	addr string // 127.0.0.1:PORT
	// exited receives Wait's result once the process has exited.
	exited chan error
}

// startHTTP starts tabhive with extra flags over HTTP on a free port, waits
// for it to print its URL, and stops it when the test ends: SIGTERM, then
// an error unless it exits, cleanly, within exitWait.
func startHTTP(t *testing.T, extra ...string) *instance {
	t.Helper()
	return serve(t, command(t, append([]string{"--http", "127.0.0.1:0"}, extra...)...), extra)
}

// startHTTPConnected is startHTTP without the flags that launch a
// browser, for a tabhive that connects to one.
func startHTTPConnected(t *testing.T, extra ...string) *instance {
	t.Helper()
	return serve(t, binary(t, append([]string{"--log-level", "warn", "--http", "127.0.0.1:0"}, extra...)...), extra)
}

// serve starts cmd, a tabhive serving HTTP, as startHTTP says.
func serve(t *testing.T, cmd *exec.Cmd, extra []string) *instance {
	t.Helper()
	first := &firstLine{line: make(chan string, 1)}
	cmd.Stdout = first
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{t: t, cmd: cmd, exited: make(chan error, 1)}
	go func() { in.exited <- cmd.Wait() }() // ends when the process does; stop makes sure it does
	t.Cleanup(func() {
		if err := in.stop(); err != nil {
			t.Error(err)
		}
	})
	var line string
	select {
	case line = <-first.line:
	case err := <-in.exited:
		in.exited <- err
		t.Fatalf("tabhive %q exited before printing its URL: %v", extra, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("tabhive %q printed no URL within 30s", extra)
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("first line does not give the URL: %q", line)
	}
	in.url = strings.TrimSpace(line[i:])
	in.base = strings.TrimSuffix(in.url, "/mcp")
	in.addr = strings.TrimPrefix(in.base, "http://")
	return in
}

// stop ends the command with SIGTERM (a second call only reports) and
// says if it did not exit cleanly within exitWait, when it is killed.
func (in *instance) stop() error {
	in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-in.exited:
		in.exited <- err // for a later stop
		if err != nil {
			return fmt.Errorf("tabhive exited with %v after SIGTERM, want status 0", err)
		}
		return nil
	case <-time.After(exitWait):
		in.cmd.Process.Kill()
		in.exited <- <-in.exited
		return fmt.Errorf("tabhive did not exit within %v of SIGTERM", exitWait)
	}
}

// client connects an MCP client over streamable HTTP, sending header with
// each request, and closes it when the test ends.
func (in *instance) client(header http.Header) *mcp.ClientSession {
	in.t.Helper()
	return transporttest.Dial(in.t, &mcp.StreamableClientTransport{Endpoint: in.url, HTTPClient: &http.Client{Transport: withHeader{header}}})
}

// withHeader adds its header to each request.
type withHeader struct{ h http.Header }

func (w withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range w.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// firstLine is a command's stdout that hands on its first line.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	sent bool
	line chan string
}

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.sent {
		f.buf = append(f.buf, p...)
		if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
			f.line <- string(f.buf[:i])
			f.sent = true
		}
	}
	return len(p), nil
}

func TestHTTPAndSignalShutdown(t *testing.T) {
	t.Parallel()
	// No drain: a call in flight at the signal is cut short, and says so
	// (TestDrainThroughBinary waits for it).
	in := startHTTP(t, "--drain-timeout", "0")
	cmd, url := in.cmd, in.url
	if !strings.HasSuffix(url, "/mcp") || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want http://127.0.0.1:PORT/mcp", url)
	}
	sessions := []*mcp.ClientSession{in.client(nil), in.client(nil)}
	text(t, sessions[0], "new_page", map[string]any{"url": "about:blank"})
	if got := text(t, sessions[1], "list_pages", nil); !strings.Contains(got, "1: about:blank [selected]\n2: about:blank") {
		t.Errorf("second session's selection followed the first's new_page:\n%s", got)
	}
	// A page on the wrong host is refused (DNS rebinding).
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
	req.Host = "attacker.example"
	req.Close = true // no idle connection left behind
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: status %d, want 403", resp.StatusCode)
	}

	// A call in flight when the signal comes is answered, not dropped. Its
	// script says when it runs, so that the signal comes while it does.
	started := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Site", ""))
	mux.HandleFunc("/started", func(http.ResponseWriter, *http.Request) {
		select {
		case started <- struct{}{}:
		default:
		}
	})
	text(t, sessions[0], "navigate_page", map[string]any{"url": browsertest.Serve(t, mux).URL + "/"})
	inflight := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := sessions[0].CallTool(ctx(t), &mcp.CallToolParams{Name: "evaluate_script", Arguments: map[string]any{
			"function": "() => { fetch('/started'); return new Promise(() => {}) }", "timeout": 20000}})
		if err != nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "protocol error: " + err.Error()}}}
		}
		inflight <- res
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the call in flight never reached its page")
	}

	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case res := <-inflight:
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "shutting down") {
			t.Errorf("call in flight at shutdown got %v %q, want an error saying tabhive is shutting down", res.IsError, text)
		}
	case <-time.After(exitWait):
		t.Error("call in flight at shutdown was not answered")
	}
	select {
	case err := <-in.exited:
		in.exited <- err
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(exitWait):
		t.Fatalf("tabhive did not exit within %v of SIGTERM", exitWait)
	}
	// About 2 s on a quiet machine; not asserted, as a loaded one stretches
	// it (see exitWait).
	t.Logf("shutdown took %v", time.Since(start))
}

func TestMissingChromium(t *testing.T) {
	t.Parallel()
	cmd := command(t)
	for i, a := range cmd.Args {
		if a == "--executable-path" {
			cmd.Args[i+1] = "/nonexistent/chromium"
		}
	}
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd})
	got, isErr := try(t, cs, "list_pages", nil)
	if !isErr || !strings.Contains(got, `"/nonexistent/chromium" is not an executable file`) {
		t.Errorf("list_pages with a missing browser = %v %q", isErr, got)
	}
}
