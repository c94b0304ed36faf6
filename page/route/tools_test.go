package route_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

var (
	inMemory = transporttest.ConnectWithTemp
	call     = transporttest.Call
	must     = transporttest.Must
	uidOf    = transporttest.UIDOf
	openPage = transporttest.OpenPage
)

// eachTransport runs f as a subtest per transport: in process, and over
// streamable HTTP.
func eachTransport(t *testing.T, f func(t *testing.T, cs *mcp.ClientSession)) {
	t.Run("in-memory", func(t *testing.T) { f(t, inMemory(t)) })
	t.Run("http", func(t *testing.T) {
		f(t, transporttest.OnShared(t, transporttest.Options{HTTP: &httpserve.Config{}}).Connect(t))
	})
}

// routeSite serves /app, whose button fetches /api/items and renders what
// comes back (or the error), shows an image, and whose second button
// fetches /echo, which answers with the method and X-Test header it got.
// /frame-app embeds /app of another site, which Chromium renders out of
// process.
func routeSite(t *testing.T) (base, other string) {
	mux := http.NewServeMux()
	mux.Handle("/app", browsertest.HTML("App", `<button onclick="load()">Load</button><button onclick="echo()">Echo</button><p id=out>nothing yet</p><img src="/pic.png" alt=pic>
<script>
function load() { fetch('/api/items').then(r => r.text()).then(t => out.textContent = 'items: ' + t, e => out.textContent = 'failed: ' + e.message) }
function echo() { fetch('/echo').then(r => r.text()).then(t => out.textContent = 'echo: ' + t) }
</script>`))
	mux.HandleFunc("/api/items", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "real items") })
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Method, r.Header.Get("X-Test"))
	})
	mux.HandleFunc("/pic.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	frameSite := browsertest.ServeOwnSite(t, mux).URL
	mux2 := http.NewServeMux()
	mux2.Handle("/", mux)
	mux2.Handle("/frame-app", browsertest.HTML("Framed", `<iframe title="App frame" width=600 height=300 src="`+frameSite+`/app"></iframe>`))
	return browsertest.Serve(t, mux2).URL, frameSite
}

// TestRouteRequests mocks a page's requests through an MCP client: a
// fulfilled /api/* renders the mocked data in the click's settled
// snapshot, an aborted image is listed as failed, a continued request
// carries the header and method the route sets, the newest route wins,
// routes compose with offline emulation, and unrouting restores the
// network.
func TestRouteRequests(t *testing.T) {
	t.Parallel()
	base, _ := routeSite(t)
	eachTransport(t, func(t *testing.T, cs *mcp.ClientSession) {
		id := openPage(t, cs, base+"/app")
		args := func(kv ...any) map[string]any {
			m := map[string]any{"pageId": id}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
		got := must(t, cs, "route_requests", args("urlPattern", "/api/*", "action", "fulfill", "body", `["mocked apple"]`, "headers", `{"Content-Type": "application/json"}`))
		if want := `Added route 1: fulfill /api/* with status 200, 16 bytes, headers {"Content-Type":"application/json"}.`; got != want {
			t.Errorf("route_requests reply:\n%s\nwant:\n%s", got, want)
		}
		snap := must(t, cs, "take_snapshot", args())
		click := must(t, cs, "click", args("uid", uidOf(t, snap, "button", "Load"), "includeSnapshot", true))
		if !strings.Contains(click, `items: ["mocked apple"]`) {
			t.Errorf("the click's settled snapshot does not show the mocked data:\n%s", click)
		}

		// The newest matching route decides; an abort fails the image.
		// Playwright's globs are patterns too.
		must(t, cs, "route_requests", args("urlPattern", "**/*.{png,gif}", "action", "abort", "reason", "AccessDenied"))
		must(t, cs, "route_requests", args("urlPattern", base+"/echo", "action", "continue", "method", "PUT", "headers", `{"X-Test": "routed"}`))
		must(t, cs, "navigate_page", args("type", "reload"))
		list := transporttest.Until(t, cs, "list_network_requests", args(), func(s string) bool { return strings.Contains(s, "/pic.png") && !strings.Contains(s, "[pending]") })
		if !strings.Contains(list, "GET "+base+"/pic.png [net::ERR_ACCESS_DENIED]") {
			t.Errorf("the aborted image is not listed as failed:\n%s", list)
		}
		snap = must(t, cs, "take_snapshot", args())
		click = must(t, cs, "click", args("uid", uidOf(t, snap, "button", "Echo"), "includeSnapshot", true))
		if !strings.Contains(click, "echo: PUT routed") {
			t.Errorf("the continued request did not carry the route's method and header:\n%s", click)
		}
		routes := must(t, cs, "list_routes", args())
		for _, want := range []string{
			"## Routes",
			`1: fulfill /api/* with status 200, 16 bytes, headers {"Content-Type":"application/json"} (1 request)`,
			"2: abort **/*.{png,gif} with AccessDenied (1 request)",
			"3: continue " + base + `/echo as PUT, headers {"X-Test":"routed"} (1 request)`,
		} {
			if !strings.Contains(routes, want) {
				t.Errorf("list_routes lacks %q:\n%s", want, routes)
			}
		}

		// Offline, a fulfilled request still gets its response; the rest
		// fail.
		must(t, cs, "emulate", args("networkConditions", "Offline"))
		snap = must(t, cs, "take_snapshot", args())
		click = must(t, cs, "click", args("uid", uidOf(t, snap, "button", "Load"), "includeSnapshot", true))
		if !strings.Contains(click, `items: ["mocked apple"]`) {
			t.Errorf("offline, the route's response did not reach the page:\n%s", click)
		}
		must(t, cs, "unroute_requests", args("urlPattern", "/api/*"))
		click = must(t, cs, "click", args("uid", uidOf(t, snap, "button", "Load"), "includeSnapshot", true))
		if !strings.Contains(click, "failed: Failed to fetch") {
			t.Errorf("offline without a route, the fetch did not fail:\n%s", click)
		}
		must(t, cs, "emulate", args())

		if got := must(t, cs, "unroute_requests", args()); got != "Removed 2 routes." {
			t.Errorf("unroute_requests() = %q", got)
		}
		click = must(t, cs, "click", args("uid", uidOf(t, snap, "button", "Load"), "includeSnapshot", true))
		if !strings.Contains(click, "items: real items") {
			t.Errorf("after unrouting, the page does not reach the server:\n%s", click)
		}
		if got := must(t, cs, "list_routes", args()); got != "## Routes\nNo routes." {
			t.Errorf("list_routes after unrouting = %q", got)
		}
	})
}

// TestRouteOutOfProcessFrame: a page's route decides the requests of its
// cross-site iframe too, which Chromium runs in a process of its own.
func TestRouteOutOfProcessFrame(t *testing.T) {
	t.Parallel()
	base, _ := routeSite(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/frame-app")
	must(t, cs, "route_requests", map[string]any{"pageId": id, "urlPattern": "/api/*", "action": "fulfill", "body": "framed mock"})
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	click := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Load"), "includeSnapshot": true})
	if !strings.Contains(click, "items: framed mock") {
		t.Errorf("the iframe's request was not routed:\n%s", click)
	}
	// The frame reloads after the route exists: its new session pauses
	// its requests from the start.
	must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `() => { const f = document.querySelector('iframe'); f.src = f.src + '?again'; return 1 }`})
	must(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"nothing yet"}})
	snap = must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	click = must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Load"), "includeSnapshot": true})
	if !strings.Contains(click, "items: framed mock") {
		t.Errorf("after the iframe reloaded, its request was not routed:\n%s", click)
	}
}

// TestRouteCannotUnblock: with a blocked URL pattern, a route that would
// fulfil or continue a blocked URL does not make it load; one on another
// URL still works.
func TestRouteCannotUnblock(t *testing.T) {
	t.Parallel()
	base, _ := routeSite(t)
	pol, err := urlpolicy.New(urlpolicy.Config{Blocked: []string{base + "/api/*"}, JavaScript: true})
	if err != nil {
		t.Fatal(err)
	}
	sup := transporttest.Browser(t, browser.Config{Policy: pol})
	cs := transporttest.Start(t, transporttest.Options{Browser: sup, Config: transport.Config{Policy: pol}}).Connect(t)
	id := openPage(t, cs, base+"/app")
	for _, action := range []string{"fulfill", "continue"} {
		must(t, cs, "unroute_requests", map[string]any{"pageId": id})
		route := map[string]any{"pageId": id, "urlPattern": "/api/*", "action": action}
		if action == "fulfill" {
			route["body"] = "unblocked?"
		}
		must(t, cs, "route_requests", route)
		snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
		click := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Load"), "includeSnapshot": true})
		if !strings.Contains(click, "failed: Failed to fetch") {
			t.Errorf("route %s on a blocked URL: the fetch did not fail:\n%s", action, click)
		}
	}
	list := must(t, cs, "list_network_requests", map[string]any{"pageId": id})
	if n := strings.Count(list, "/api/items [net::ERR_BLOCKED_BY_CLIENT"); n != 2 {
		t.Errorf("blocked requests listed %d times, want 2:\n%s", n, list)
	}
	must(t, cs, "route_requests", map[string]any{"pageId": id, "urlPattern": "/echo", "action": "fulfill", "body": "allowed mock"})
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	click := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Echo"), "includeSnapshot": true})
	if !strings.Contains(click, "echo: allowed mock") {
		t.Errorf("a route on an allowed URL did not work beside the policy:\n%s", click)
	}
}

// TestRouteBodyPath: a fulfilled body read from a file gets a Content-Type
// from its extension.
func TestRouteBodyPath(t *testing.T) {
	t.Parallel()
	base, _ := routeSite(t)
	dir := t.TempDir()
	body := filepath.Join(dir, "items.json")
	if err := os.WriteFile(body, []byte(`{"from":"file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t)
	id := openPage(t, cs, base+"/app")
	got := must(t, cs, "route_requests", map[string]any{"pageId": id, "urlPattern": "/api/*", "action": "fulfill", "bodyPath": body})
	if want := fmt.Sprintf(`Added route 1: fulfill /api/* with status 200, 15 bytes from %s, headers {"Content-Type":"application/json"}.`, body); got != want {
		t.Errorf("route_requests(bodyPath) = %q, want %q", got, want)
	}
	got = must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `async () => { const r = await fetch('/api/items'); return r.headers.get('content-type') + ' ' + await r.text() }`})
	if !strings.Contains(got, `application/json {\"from\":\"file\"}`) {
		t.Errorf("the page got:\n%s", got)
	}
}

// TestRouteRefusals: bad route arguments get one sentence each and add
// no route.
func TestRouteRefusals(t *testing.T) {
	t.Parallel()
	base, _ := routeSite(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/app")
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"urlPattern": "api/*", "action": "fulfill"}, `Invalid urlPattern "api/*": it has no scheme; write a full pattern such as "https://example.com/*" or "*://example.com/*". Write a URLPattern such as https://example.com/api/*, a path such as /api/*, or a glob such as **/api/*.`},
		{map[string]any{"urlPattern": "**/{a,b", "action": "fulfill"}, `Invalid urlPattern "**/{a,b": as a glob, it has a { without its }. Write a glob such as **/api/*, a URLPattern such as https://example.com/api/*, or a path such as /api/*.`},
		{map[string]any{"urlPattern": "https://a.test/(x", "action": "abort"}, `Invalid urlPattern "https://a.test/(x":`},
		{map[string]any{"urlPattern": "/api/*", "action": "abort", "body": "x"}, "status, contentType, body and bodyPath go with action fulfill; action abort does not take them."},
		{map[string]any{"urlPattern": "/api/*", "action": "fulfill", "headers": 3}, `Invalid argument "headers" for tool "route_requests": expected an object of header names and values, or that object as a JSON string, got 3.`},
		{map[string]any{"urlPattern": "/api/*", "action": "fulfill", "reason": "Failed"}, "reason goes with action abort; action fulfill does not take it."},
		{map[string]any{"urlPattern": "/api/*", "action": "fulfill", "method": "POST"}, "method goes with action continue; action fulfill does not take it."},
		{map[string]any{"urlPattern": "/api/*", "action": "fulfill", "body": "a", "bodyPath": "/x"}, "Give body or bodyPath, not both."},
		{map[string]any{"urlPattern": "/api/*", "action": "continue", "method": "GE T"}, `Invalid method "GE T": give an HTTP method such as POST.`},
		{map[string]any{"urlPattern": "/api/*", "action": "continue", "headers": "{"}, "Invalid JSON for headers"},
		{map[string]any{"urlPattern": "/api/*", "action": "fulfill", "bodyPath": "/etc/passwd"}, "/etc/passwd"},
		{map[string]any{"urlPattern": "/api/*", "action": "redirect"}, `Invalid argument "action" for tool "route_requests": "redirect" is not one of "fulfill", "abort", "continue".`},
	} {
		tt.args["pageId"] = id
		got, isErr := call(t, cs, "route_requests", tt.args)
		if !isErr || !strings.Contains(got, tt.want) || strings.Count(got, "\n") > 0 {
			t.Errorf("route_requests(%v) = %v %q, want one sentence with %q", tt.args, isErr, got, tt.want)
		}
	}
	if got := must(t, cs, "list_routes", map[string]any{"pageId": id}); got != "## Routes\nNo routes." {
		t.Errorf("refused routes were added:\n%s", got)
	}
}
