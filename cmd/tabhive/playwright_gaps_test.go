package main

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// TestPlaywrightUsersGapsThroughBinary: what
// @playwright/mcp's users reach for. route_requests takes headers as an
// object and a contentType; list_network_requests marks the requests a
// route fulfilled or aborted, and only those; get_cookie and clear_cookies
// act on the session's own cookies (--isolate-sessions); save_pdf without
// filePath writes a new file in the session's private directory and says
// where.
func TestPlaywrightUsersGapsThroughBinary(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("App", `<p>app</p><img src="/pic.png" alt=pic>`))
	mux.HandleFunc("/real", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "real") })
	site := browsertest.Serve(t, mux).URL
	in := startHTTP(t, "--isolate-sessions")
	a, b := in.Client(nil), in.Client(nil)
	text(t, a, "navigate_page", map[string]any{"url": site + "/"})
	text(t, b, "navigate_page", map[string]any{"url": site + "/"})

	got := text(t, a, "route_requests", map[string]any{"urlPattern": "/api/*", "action": "fulfill", "body": `{"ok":true}`,
		"contentType": "application/json", "headers": map[string]any{"X-Mock": "yes", "content-type": "text/plain"}})
	if want := `Added route 1: fulfill /api/* with status 200, 11 bytes, headers {"Content-Type":"application/json","X-Mock":"yes"}.`; got != want {
		t.Errorf("route_requests(headers object, contentType) = %q, want %q", got, want)
	}
	text(t, a, "route_requests", map[string]any{"urlPattern": "**/*.png", "action": "abort"})
	got = text(t, a, "evaluate_script", map[string]any{"function": `async () => { const r = await fetch('/api/items'); return r.headers.get('content-type') + ' ' + r.headers.get('x-mock') + ' ' + await r.text() + ' ' + await (await fetch('/real')).text() }`})
	if !strings.Contains(got, `"application/json yes {\"ok\":true} real"`) {
		t.Errorf("the page got:\n%s", got)
	}
	text(t, a, "navigate_page", map[string]any{"type": "reload"})
	text(t, a, "evaluate_script", map[string]any{"function": `async () => { await fetch('/api/again'); return (await fetch('/real')).status }`})
	list := text(t, a, "list_network_requests", nil)
	for _, want := range []string{
		"GET " + site + "/ [200]\n",
		"GET " + site + "/pic.png [net::ERR_FAILED] (aborted by route 2)\n",
		"GET " + site + "/api/again [200] (fulfilled by route 1)\n",
		"GET " + site + "/real [200]",
	} {
		if !strings.Contains(list+"\n", want) {
			t.Errorf("list_network_requests lacks %q:\n%s", want, list)
		}
	}
	if n := strings.Count(list, "by route"); n != 2 {
		t.Errorf("list_network_requests marks %d requests, want 2:\n%s", n, list)
	}

	text(t, a, "set_cookie", map[string]any{"name": "sid", "value": "a1", "url": site + "/"})
	text(t, a, "set_cookie", map[string]any{"name": "theme", "value": "dark", "url": site + "/"})
	text(t, b, "set_cookie", map[string]any{"name": "sid", "value": "b1", "url": site + "/"})
	if got, want := text(t, a, "get_cookie", map[string]any{"name": "sid"}), "## Cookies\nsid=a1; Domain=127.0.0.1; Path=/; SameSite=Lax"; got != want {
		t.Errorf("get_cookie(sid) in session a = %q, want %q", got, want)
	}
	if got, want := text(t, a, "get_cookie", map[string]any{"name": "nope"}), "## Cookies\nNo cookie named \"nope\"."; got != want {
		t.Errorf("get_cookie(nope) = %q, want %q", got, want)
	}
	if got, want := text(t, a, "clear_cookies", nil), "Deleted all 2 cookies of the page's browser context."; got != want {
		t.Errorf("clear_cookies = %q, want %q", got, want)
	}
	if got := text(t, a, "list_cookies", nil); got != "## Cookies\nNo cookies found." {
		t.Errorf("after clear_cookies, session a has:\n%s", got)
	}
	if got := text(t, b, "get_cookie", map[string]any{"name": "sid"}); !strings.Contains(got, "sid=b1;") {
		t.Errorf("session a's clear_cookies reached session b:\n%s", got)
	}

	got = text(t, a, "save_pdf", nil)
	m := regexp.MustCompile(`^Saved the page as a PDF of \d+ bytes to (/\S+/page-[^/\s]+\.pdf)\.$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("save_pdf() = %q, want a sentence naming a new page-….pdf", got)
	}
	if data, err := os.ReadFile(m[1]); err != nil || !strings.HasPrefix(string(data), "%PDF-") {
		t.Errorf("save_pdf's file %s: %v, starts %q", m[1], err, firstBytes(data, 8))
	}
}

func firstBytes(b []byte, n int) string { return string(b[:min(n, len(b))]) }
