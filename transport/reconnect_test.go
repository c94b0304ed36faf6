package transport_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
)

// connectTo connects an in-memory client to srv.
func connectTo(t *testing.T, srv *transport.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx(t), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx(t), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestBrowserDeathAndRelaunch: the browser process dies mid-call; the call
// fails at once, not at its deadline; the next call relaunches; each
// session's first reply after that carries the reconnect notice, once; page
// ids go on counting.
func TestBrowserDeathAndRelaunch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	exe, err := browsertest.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sup := browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true})
	srv := transport.New(transport.Config{}, sup)
	t.Cleanup(func() { srv.Close(); sup.Close() })
	a, b := connectTo(t, srv), connectTo(t, srv)
	must(t, a, "list_pages", nil)
	must(t, b, "list_pages", nil)
	page := openPage(t, a, "about:blank")

	pid := sup.BrowserPID()
	done := make(chan struct{})
	var took time.Duration
	var text string
	var isErr bool
	go func() {
		defer close(done)
		start := time.Now()
		text, isErr = call(t, a, "evaluate_script", map[string]any{"pageId": page, "function": "() => new Promise(r => setTimeout(r, 20000))"})
		took = time.Since(start)
	}()
	time.Sleep(300 * time.Millisecond) // let the script start
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call on the dead browser did not return")
	}
	if !isErr || took > 3*time.Second {
		t.Errorf("call on the dead browser: %v after %v: %q", isErr, took, text)
	}
	for deadline := time.Now().Add(5 * time.Second); sup.BrowserPID() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("supervisor did not notice")
		}
	}
	const note = "Note: the browser was restarted or reconnected since the last call. Page ids have changed. Call list_pages to see open pages."
	first := must(t, a, "list_pages", nil)
	if !strings.HasPrefix(first, note+"\n") {
		t.Errorf("first reply after the relaunch lacks the notice:\n%s", first)
	}
	if !strings.Contains(first, "3: about:blank [selected]") {
		t.Errorf("page ids did not go on counting:\n%s", first)
	}
	if again := must(t, a, "list_pages", nil); strings.Contains(again, note) {
		t.Errorf("notice repeated:\n%s", again)
	}
	if other := must(t, b, "list_pages", nil); !strings.HasPrefix(other, note) {
		t.Errorf("the other session's first reply lacks the notice:\n%s", other)
	}
}
