package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// TestMain doubles as the tabhive command: the end-to-end tests start this
// test binary with TABHIVE_TEST_MAIN=1 and tabhive's flags, so that they
// drive the real program, flags, wiring and shutdown included.
func TestMain(m *testing.M) {
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

// command returns the tabhive command with a headless, isolated Chromium.
func command(t *testing.T, extra ...string) *exec.Cmd {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	exe, err := browsertest.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--headless", "--isolated", "--executable-path", exe, "--log-level", "warn"}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TABHIVE_TEST_MAIN=1")
	cmd.Stderr = os.Stderr
	return cmd
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func text(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %v", name, res.Content[0].(*mcp.TextContent).Text)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestStdio(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Hello", `<button onclick="this.textContent='Clicked'">Press</button>`))
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := c.Connect(ctx(t), &mcp.CommandTransport{Command: command(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
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
	// Closing stdin ends the server; it must close Chromium and exit fast.
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("server took %v to exit after stdin closed", took)
	}
}

// startHTTP starts tabhive over HTTP on a free port and returns its URL.
func startHTTP(t *testing.T, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := command(t, append([]string{"--http", "127.0.0.1:0"}, extra...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v", err)
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("first line does not give the URL: %q", line)
	}
	go io.Copy(io.Discard, out)
	return cmd, strings.TrimSpace(line[i:])
}

func TestHTTPAndSignalShutdown(t *testing.T) {
	t.Parallel()
	cmd, url := startHTTP(t)
	if !strings.HasSuffix(url, "/mcp") || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want http://127.0.0.1:PORT/mcp", url)
	}
	var sessions []*mcp.ClientSession
	for i := 0; i < 2; i++ {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
		cs, err := c.Connect(ctx(t), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}
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

	// A call in flight when the signal comes is answered, not dropped.
	inflight := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := sessions[0].CallTool(ctx(t), &mcp.CallToolParams{Name: "wait_for", Arguments: map[string]any{"text": []string{"never appears"}, "timeout": 20000}})
		if err != nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "protocol error: " + err.Error()}}}
		}
		inflight <- res
	}()
	time.Sleep(300 * time.Millisecond) // let the call reach its page

	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case res := <-inflight:
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "shutting down") {
			t.Errorf("call in flight at shutdown got %v %q, want an error saying tabhive is shutting down", res.IsError, text)
		}
	case <-time.After(5 * time.Second):
		t.Error("call in flight at shutdown was not answered")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("tabhive did not exit within 5s of SIGTERM")
	}
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("shutdown took %v, want about 2s at most", took)
	}
}

func TestMissingChromium(t *testing.T) {
	t.Parallel()
	cmd := command(t)
	for i, a := range cmd.Args {
		if a == "--executable-path" {
			cmd.Args[i+1] = "/nonexistent/chromium"
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := c.Connect(ctx(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "list_pages"})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(got, `"/nonexistent/chromium" is not an executable file`) {
		t.Errorf("list_pages with a missing browser = %v %q", res.IsError, got)
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		check   func(*config) bool
	}{
		{[]string{"--executablePath", "/x", "--headless"}, "", func(c *config) bool { return c.browser.ExecutablePath == "/x" && c.browser.Headless }},
		{[]string{"--chrome-arg=--a", "--chromeArg=--b"}, "", func(c *config) bool { return strings.Join(c.browser.Args, " ") == "--a --b" }},
		{[]string{"--no-usage-statistics", "--experimentalPageIdRouting"}, "", func(*config) bool { return true }},
		{[]string{"--browser-url", "http://x", "--ws-endpoint", "ws://y"}, "either --browser-url or --ws-endpoint", nil},
		{[]string{"--browser-url", "http://x", "--isolated"}, "drop them when connecting", nil},
		{[]string{"stray"}, `unexpected argument "stray"`, nil},
		{[]string{"--nope"}, "flag provided but not defined", nil},
	}
	for _, tt := range tests {
		c, err := parseFlags(tt.args, io.Discard)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseFlags(%q) = %v, want error %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !tt.check(c) {
			t.Errorf("parseFlags(%q) = %+v, %v", tt.args, c, err)
		}
	}
}
