package lighthouse

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// heldAudit is a lighthouse_audit held open: its endpoint listens on
// port until release is called, when its (stand-in) Lighthouse fails.
type heldAudit struct {
	in             *tabhivetest.Instance
	auditor, other *mcp.ClientSession
	port           string
	release        func()
}

// holdAudit starts tabhive with flags (over HTTP, isolated sessions) and a
// stand-in Lighthouse whose node waits for the test's word and then exits,
// has the auditor's page audited, and returns once the audit's endpoint
// listens. No real Lighthouse is needed: only the endpoint is probed.
func holdAudit(t *testing.T, site string, flags ...string) *heldAudit {
	t.Helper()
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "lighthouse")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{filepath.Join(pkg, "cli"), bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	release := filepath.Join(dir, "go")
	node := fmt.Sprintf("#!/bin/sh\nwhile [ ! -e %q ]; do sleep 0.05; done\nexit 1\n", release)
	for name, body := range map[string]string{
		filepath.Join(pkg, "package.json"):    `{"name": "lighthouse", "version": "12.8.2"}`,
		filepath.Join(pkg, "cli", "index.js"): "",
		filepath.Join(bin, "node"):            node,
	} {
		if err := os.WriteFile(name, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(pkg, "cli", "index.js"), filepath.Join(bin, "lighthouse")); err != nil {
		t.Fatal(err)
	}
	let := func() { os.WriteFile(release, nil, 0o600) }
	t.Cleanup(let) // a failed test lets it go

	cmd := tabhivetest.Command(t, append([]string{"--http", "127.0.0.1:0", "--isolate-sessions"}, flags...)...)
	cmd.Env = append(cmd.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CACHE_HOME="+t.TempDir())
	h := &heldAudit{in: tabhivetest.Serve(t, cmd, flags), release: let}
	h.auditor, h.other = h.in.Client(nil), h.in.Client(nil)
	transporttest.Must(t, h.auditor, "navigate_page", map[string]any{"url": site + "/audit.html", "timeout": tabhivetest.PageLoadTimeout})
	transporttest.Must(t, h.other, "list_pages", nil)
	done := make(chan struct{})
	go func() { // ends when the audit does: release lets it end
		defer close(done)
		tabhivetest.SlowCall(h.auditor, "lighthouse_audit", nil)
	}()
	t.Cleanup(func() { let(); <-done })

	own := h.in.Addr[strings.LastIndex(h.in.Addr, ":")+1:]
	if !testwait.Poll(2*time.Minute, func() bool {
		select {
		case <-done:
			t.Fatal("the audit ended before its endpoint was seen")
		default:
		}
		for _, p := range listeners(t, h.in.Cmd.Process.Pid) {
			if p != own {
				h.port = p
			}
		}
		return h.port != ""
	}) {
		t.Fatal("no endpoint listened within 2 minutes of the call")
	}
	return h
}

// offLimits is the sentence's reason for a URL of the endpoint.
const offLimits = "refused: it is tabhive's own DevTools endpoint for a Lighthouse audit in progress, which no page may load."

// TestLighthouseEndpointOffLimits: while an audit's endpoint is
// open, no page of tabhive's browser may go to it. navigate_page and
// new_page of another session to it, in any loopback spelling and ws:,
// are refused up front with one sentence naming why; with a URL pattern
// (request interception on) a page's own loads of it, a fetch and a link
// it follows, fail in the browser (net::ERR_BLOCKED_BY_CLIENT) rather
// than reach the endpoint, which refuses them too (403). Before, the tools
// opened it and the page got the endpoint's 403 page.
func TestLighthouseEndpointOffLimits(t *testing.T) {
	t.Parallel()
	mux := auditMux()
	mux.HandleFunc("/links.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>links</title><a id="go" href="http://127.0.0.1:%s/json/version">endpoint</a>`, r.URL.Query().Get("port"))
	})
	site := browsertest.Serve(t, mux).URL
	h := holdAudit(t, site, "--blocked-url-pattern", "*://blocked.invalid/*")
	defer h.release()

	// The tools, up front.
	for _, u := range []string{
		"http://127.0.0.1:" + h.port + "/json/version", "http://localhost:" + h.port + "/",
		"ws://127.0.0.1:" + h.port + "/devtools/browser/x", "http://0.0.0.0:" + h.port + "/json/list",
	} {
		for _, tool := range []string{"navigate_page", "new_page"} {
			got, isErr := transporttest.Call(t, h.other, tool, map[string]any{"url": u, "timeout": tabhivetest.PageLoadTimeout})
			if !isErr || got != "Error: Navigation to "+u+" "+offLimits {
				t.Errorf("%s %s = %v %q, want refused as the endpoint", tool, u, isErr, got)
			}
		}
	}
	pages := transporttest.Must(t, h.other, "list_pages", nil)
	if strings.Contains(pages, h.port) {
		t.Errorf("a refused navigation left a page on the endpoint:\n%s", pages)
	}

	// The page's own loads, in the browser.
	transporttest.Must(t, h.other, "navigate_page", map[string]any{"url": site + "/links.html?port=" + h.port, "timeout": tabhivetest.PageLoadTimeout})
	fetched := transporttest.Must(t, h.other, "evaluate_script", map[string]any{"function": `() => fetch("http://127.0.0.1:` + h.port + `/json/version", {mode: "no-cors"}).then(() => "reached", e => "failed: " + e.message)`})
	if !strings.Contains(fetched, "failed") {
		t.Errorf("the page's fetch of the endpoint: %s, want it failed in the browser", fetched)
	}
	transporttest.Must(t, h.other, "evaluate_script", map[string]any{"function": `() => { document.getElementById("go").click() }`})
	var seen string
	if !testwait.Poll(time.Minute, func() bool {
		seen, _ = transporttest.Call(t, h.other, "evaluate_script", map[string]any{"function": `() => location.href + " " + document.documentElement.innerText`})
		return !strings.Contains(seen, "/links.html") && (strings.Contains(seen, "ERR_BLOCKED_BY_CLIENT") || strings.Contains(seen, "refused"))
	}) {
		t.Fatalf("the link to the endpoint led nowhere within a minute: %s", seen)
	}
	if !strings.Contains(seen, "ERR_BLOCKED_BY_CLIENT") || strings.Contains(seen, "requests from web pages are refused") {
		t.Errorf("the page followed a link to the endpoint and got: %s\nwant the browser to block it", seen)
	}
}
