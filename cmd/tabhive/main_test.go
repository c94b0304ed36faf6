package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
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
	tabhivetest.Use(tabhivetest.Self)
	browsertest.Main(m)
}

// ctx, text (a call that must succeed) and try (a call and whether it
// failed) are transporttest's, and the command and its HTTP instances
// tabhivetest's, under the short names the tests here use.
var (
	ctx  = transporttest.Context
	text = transporttest.Must
	try  = transporttest.Call

	binary    = tabhivetest.Binary
	command   = tabhivetest.Command
	client    = tabhivetest.Stdio
	startHTTP = tabhivetest.StartHTTP
	serve     = tabhivetest.Serve
	waitFor   = testwait.Until
)

type instance = tabhivetest.Instance

const (
	exitWait       = tabhivetest.ExitWait
	initializeBody = tabhivetest.InitializeBody
)

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

func TestHTTPAndSignalShutdown(t *testing.T) {
	t.Parallel()
	// No drain: a call in flight at the signal is cut short, and says so
	// (TestDrainThroughBinary waits for it).
	in := startHTTP(t, "--drain-timeout", "0")
	cmd, url := in.Cmd, in.URL
	if !strings.HasSuffix(url, "/mcp") || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want http://127.0.0.1:PORT/mcp", url)
	}
	sessions := []*mcp.ClientSession{in.Client(nil), in.Client(nil)}
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
	case err := <-in.Exited:
		in.Exited <- err
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
