package devtools_test

// The console and network tools as an agent calls them, through a tabhive
// server on the binary's shared browser; whole replies are checked against
// the golden files under testdata/replies.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/devtools"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// The helpers of transporttest, under the short names these tests use.
var (
	call        = transporttest.Call
	must        = transporttest.Must
	until       = transporttest.Until
	openPage    = transporttest.OpenPage
	uidOf       = transporttest.UIDOf
	checkGolden = transporttest.CheckGolden
)

// connect connects a client to a server of its own on the shared browser,
// in process or over streamable HTTP. Its sessions may write under the
// temporary directory, where the tests' t.TempDir()s are.
func connect(t *testing.T, overHTTP bool) *mcp.ClientSession {
	t.Helper()
	opts := transporttest.Options{Config: transport.Config{Workspaces: []string{os.TempDir()}}}
	if overHTTP {
		opts.HTTP = &httpserve.Config{}
	}
	return transporttest.OnShared(t, opts).Connect(t)
}

// inMemory connects a client in process.
func inMemory(t *testing.T) *mcp.ClientSession { t.Helper(); return connect(t, false) }

// eachTransport runs f as a subtest per transport: in process, and over
// streamable HTTP.
func eachTransport(t *testing.T, f func(t *testing.T, cs *mcp.ClientSession)) {
	t.Run("in-memory", func(t *testing.T) { f(t, connect(t, false)) })
	t.Run("http", func(t *testing.T) { f(t, connect(t, true)) })
}

// debugFixtures serves the pages of the console and network tests.
func debugFixtures(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/console", browsertest.HTML("Console", `<script>
console.log('hello', 1, {a: 1, b: [true, null]});
console.warn('careful');
console.error('bad');
for (let i = 0; i < 3; i++) console.info('again');
console.log(null);
function thrower() { throw new Error('boom', {cause: new TypeError('inner')}); }
</script><script>thrower();</script>`))
	netPage := browsertest.HTML("Net", `<script>
fetch('/json').then(r => r.text());
fetch('/r1').then(r => r.text());
fetch('http://127.0.0.1:9/nothing').catch(() => {});
fetch('/echo', {method: 'POST', body: JSON.stringify({hello: 'world'}), headers: {'content-type': 'application/json', 'authorization': 'Bearer s3cret', 'x-custom': 'c'}});
fetch('/bin').then(r => r.arrayBuffer());
fetch('/big').then(r => r.text());
</script>`)
	// The document sets a cookie, which the later requests send.
	mux.HandleFunc("/net", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "sid=secret; Path=/")
		netPage.ServeHTTP(w, r)
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	mux.Handle("/r1", http.RedirectHandler("/r2", http.StatusFound))
	mux.Handle("/r2", http.RedirectHandler("/json", http.StatusMovedPermanently))
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "got %s", body)
	})
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte{0xff, 0xfe, 0x00, 0x80})
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strings.Repeat("x", 12000))
	})
	mux.HandleFunc("/dir/", func(w http.ResponseWriter, r *http.Request) {
		browsertest.HTML("Dir", `<script src="/js/app%20one.js"></script><script src="/js/app.js?v=2"></script><script>
log('inline');
</script>`).ServeHTTP(w, r)
	})
	mux.HandleFunc("/js/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		if r.URL.Path == "/js/app one.js" {
			io.WriteString(w, "function log(s) {\n  console.log(s);\n}\n")
		} else {
			io.WriteString(w, "log('from app');\n")
		}
	})
	mux.Handle("/alert", browsertest.HTML("Alert", `<button onclick="console.log('before', {a: 1}); alert('stop')">Alert</button>`))
	mux.HandleFunc("/quirks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Quirks</title><link rel=icon href="data:,"></head><body>no doctype</body></html>`)
	})
	mux.Handle("/n/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := strings.TrimPrefix(r.URL.Path, "/n/")
		browsertest.HTML("Nav "+n, `<script>console.log('nav `+n+`')</script>`).ServeHTTP(w, r)
	}))
	return browsertest.Serve(t, mux).URL
}

func TestDebugConsoleTools(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	eachTransport(t, func(t *testing.T, cs *mcp.ClientSession) {
		id := openPage(t, cs, base+"/console")
		list := until(t, cs, "list_console_messages", map[string]any{"pageId": id}, func(s string) bool { return strings.Contains(s, "Uncaught") })
		checkGolden(t, "console", "list_console_messages", list)

		text := must(t, cs, "list_console_messages", map[string]any{"pageId": id, "types": []string{"error"}, "includeStackTraces": true})
		checkGolden(t, "console", "errors with stack traces", text)

		text = must(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 1})
		checkGolden(t, "console", "get_console_message(1)", text)

		// A message without text shows its first argument instead.
		text = must(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 7})
		checkGolden(t, "console", "get_console_message(7)", text)

		text = must(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 8})
		checkGolden(t, "console", "get_console_message(8)", text)

		text, isErr := call(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 99})
		if !isErr || text != "Request not found for selected page" {
			t.Errorf("get_console_message(99) = %v %q", isErr, text)
		}
	})
}

// Pagination at the edges, with upstream's lines.
func TestDebugPagination(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/console")
	until(t, cs, "list_console_messages", map[string]any{"pageId": id}, func(s string) bool { return strings.Contains(s, "Uncaught") })
	// Each listing is in testdata/replies/console.txtar, under the call
	// with its arguments.
	pages := []map[string]any{
		map[string]any{"pageSize": 4},
		map[string]any{"pageSize": 4, "pageIdx": 1},
		map[string]any{"pageSize": 4, "pageIdx": 2},
		map[string]any{"pageIdx": 0},
		map[string]any{"pageSize": 6},
		map[string]any{"types": []string{"debug"}, "pageIdx": 3},
	}
	for _, args := range pages {
		name := fmt.Sprintf("list_console_messages(%v)", args)
		args["pageId"] = id
		checkGolden(t, "console", name, must(t, cs, "list_console_messages", args))
	}

	bad := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_console_messages", map[string]any{"pageSize": 0}, `Invalid argument "pageSize" for tool "list_console_messages": expected a positive integer, got 0.`},
		{"list_console_messages", map[string]any{"types": []string{"log", "warning"}}, `Invalid argument "types" for tool "list_console_messages": "warning" is not one of "log", "debug", "info", "error", "warn", "dir", "dirxml", "table", "trace", "clear", "startGroup", "startGroupCollapsed", "endGroup", "assert", "profile", "profileEnd", "count", "timeEnd", "verbose", "issue".`},
		{"list_network_requests", map[string]any{"pageIdx": -1}, `Invalid argument "pageIdx" for tool "list_network_requests": expected a non-negative integer, got -1.`},
		{"list_network_requests", map[string]any{"resourceTypes": []string{"XHR"}}, `Invalid argument "resourceTypes" for tool "list_network_requests": "XHR" is not one of`},
		{"get_console_message", map[string]any{}, `Missing required argument "msgid" for tool "get_console_message"`},
	}
	for _, tt := range bad {
		tt.args["pageId"] = id
		text, isErr := call(t, cs, tt.tool, tt.args)
		if !isErr || !strings.HasPrefix(text, tt.want) {
			t.Errorf("%s(%v) = %v %q, want an error starting %q", tt.tool, tt.args, isErr, text, tt.want)
		}
	}
}

// volatileHeaders are request and response headers whose values depend on
// the browser build or the time.
var volatileHeaders = regexp.MustCompile(`(?m)^- (user-agent|sec-ch-ua|sec-ch-ua-mobile|sec-ch-ua-platform|date|accept-language|keep-alive):.*$`)

func normalizeHeaders(s string) string { return volatileHeaders.ReplaceAllString(s, "- $1:*") }

func TestDebugNetworkTools(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/net")
	list := until(t, cs, "list_network_requests", map[string]any{"pageId": id}, func(s string) bool {
		return strings.Count(s, "\nreqid=") == 9 && !strings.Contains(s, "[pending]")
	})
	// The order of the fetches is the page's; the redirect's later hops
	// come last.
	checkGolden(t, "network", "list_network_requests", list, base, "$SITE")

	text := must(t, cs, "list_network_requests", map[string]any{"pageId": id, "resourceTypes": []string{"document"}, "pageSize": 1, "pageIdx": 0})
	checkGolden(t, "network", "documents", text, base, "$SITE")
	text = must(t, cs, "list_network_requests", map[string]any{"pageId": id, "resourceTypes": []string{"websocket"}})
	if want := "## Network requests\nNo requests found."; text != want {
		t.Errorf("no websockets:\n%s\nwant:\n%s", text, want)
	}

	text = normalizeHeaders(must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 9}))
	host := strings.TrimPrefix(base, "http://")
	checkGolden(t, "network", "get_network_request(9)", text, base, "$SITE", host, "$HOST")

	text = normalizeHeaders(must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 4}))
	checkGolden(t, "network", "get_network_request(4)", text, base, "$SITE")

	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 5})
	for _, want := range []string{"- authorization:Bearer s3cret\n", "- x-custom:c\n", "### Request Body\n{\"hello\":\"world\"}\n### Response Headers\n", "### Response Body\ngot {\"hello\":\"world\"}"} {
		if !strings.Contains(text, want) {
			t.Errorf("get_network_request(5) lacks %q:\n%s", want, text)
		}
	}
	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 6})
	if !strings.HasSuffix(text, "### Response Body\n<binary data>") {
		t.Errorf("binary response:\n%s", text)
	}
	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 7})
	if !strings.HasSuffix(text, "### Response Body\n"+strings.Repeat("x", 10000)+"... <truncated>") {
		t.Errorf("big response does not end with 10000 x and the truncation mark:\n%.300s", text[strings.Index(text, "### Response Body"):])
	}
	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 3})
	if !strings.Contains(text, "- location:/r2\n### Response Body\n<not available anymore>") || strings.Contains(text, "### Redirect chain") {
		t.Errorf("first redirect hop:\n%s", text)
	}

	// Bodies to files, with upstream's forced extensions.
	dir := t.TempDir()
	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 5, "requestFilePath": filepath.Join(dir, "req.txt"), "responseFilePath": filepath.Join(dir, "resp")})
	reqFile, respFile := filepath.Join(dir, "req.network-request"), filepath.Join(dir, "resp.network-response")
	for _, want := range []string{"### Request Body\nSaved to " + reqFile + ".\n", "### Response Body\nSaved to " + respFile + "."} {
		if !strings.Contains(text, want) {
			t.Errorf("get_network_request with files lacks %q:\n%s", want, text)
		}
	}
	if b, err := os.ReadFile(reqFile); err != nil || string(b) != `{"hello":"world"}` {
		t.Errorf("request body file = %q, %v", b, err)
	}
	if b, err := os.ReadFile(respFile); err != nil || string(b) != `got {"hello":"world"}` {
		t.Errorf("response body file = %q, %v", b, err)
	}
	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 3, "responseFilePath": filepath.Join(dir, "redirect")})
	if !strings.HasSuffix(text, "### Response Body\n<Response body not available anymore>") {
		t.Errorf("redirect hop to a file:\n%s", text)
	}

	text = must(t, cs, "get_network_request", map[string]any{"pageId": id})
	if want := "Nothing is currently selected in the DevTools Network panel."; text != want {
		t.Errorf("get_network_request without reqid = %q, want %q", text, want)
	}
	text, isErr := call(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 99})
	if !isErr || text != "Request not found for selected page" {
		t.Errorf("get_network_request(99) = %v %q", isErr, text)
	}
	text, isErr = call(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 5, "responseFilePath": "/etc/tabhive-denied"})
	if !isErr || !strings.Contains(text, "Access denied: path /etc/tabhive-denied") {
		t.Errorf("get_network_request to a denied path = %v %q", isErr, text)
	}
}

// Three navigations are kept and listed with preserved data; the fourth
// drops the oldest; ids stay.
func TestDebugPreservedNavigations(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/n/1")
	for i := 2; i <= 4; i++ {
		must(t, cs, "navigate_page", map[string]any{"pageId": id, "type": "url", "url": fmt.Sprintf("%s/n/%d", base, i)})
	}
	text := until(t, cs, "list_console_messages", map[string]any{"pageId": id, "includePreservedMessages": true}, func(s string) bool { return strings.Contains(s, "nav 4") })
	checkGolden(t, "console", "preserved messages", text)
	checkGolden(t, "console", "current messages", must(t, cs, "list_console_messages", map[string]any{"pageId": id}))
	text = must(t, cs, "list_network_requests", map[string]any{"pageId": id, "includePreservedRequests": true})
	checkGolden(t, "network", "preserved requests", text, base, "$SITE")
	text, isErr := call(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 1})
	if !isErr || text != "Request not found for selected page" {
		t.Errorf("request of a dropped navigation = %v %q", isErr, text)
	}
}

func TestDebugRedactNetworkHeaders(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	cs := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{DevTools: devtools.Config{RedactHeaders: true}}}).Connect(t)

	id := openPage(t, cs, base+"/net")
	until(t, cs, "list_network_requests", map[string]any{"pageId": id}, func(s string) bool {
		return strings.Count(s, "\nreqid=") == 9 && !strings.Contains(s, "[pending]")
	})
	text := must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 5})
	for _, want := range []string{"- authorization:<redacted>\n", "- x-custom:<redacted>\n", "- content-type:application/json\n", "- host:" + strings.TrimPrefix(base, "http://") + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("redacted request lacks %q:\n%s", want, text)
		}
	}
	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 1})
	if !strings.Contains(text, "- set-cookie:<redacted>\n") || strings.Contains(text, "secret") {
		t.Errorf("redacted response:\n%s", text)
	}
	text = must(t, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 9})
	if !strings.Contains(text, "- cookie:<redacted>\n") || strings.Contains(text, "secret") {
		t.Errorf("redacted cookie:\n%s", text)
	}
}

func TestDebugIssues(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/quirks")
	text := until(t, cs, "list_console_messages", map[string]any{"pageId": id}, func(s string) bool { return strings.Contains(s, "[issue]") })
	checkGolden(t, "console", "list_console_messages of a quirks-mode page", text)
	text = must(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 1})
	want := regexp.MustCompile(`^ID: 1
Message: issue> Page layout may be unexpected due to Quirks Mode
### Affected resources
data=\{"isLimitedQuirksMode":false,"documentNodeId":\d+,"url":"` + regexp.QuoteMeta(base) + `/quirks","loaderId":"[0-9A-F]+"\}$`)
	if !want.MatchString(text) {
		t.Errorf("get_console_message(issue):\n%s\nwant to match:\n%s", text, want)
	}
	text = must(t, cs, "list_console_messages", map[string]any{"pageId": id, "types": []string{"issue"}, "includeStackTraces": true})
	checkGolden(t, "console", "issues only, with stack traces", text)
}

// Stack lines name scripts as DevTools does: the last path component
// (a directory's with its slash), decoded, or with the query; checked
// against chrome-devtools-mcp 1.11 on the same page.
func TestDebugStackScriptNames(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/dir/")
	text := until(t, cs, "list_console_messages", map[string]any{"pageId": id, "includeStackTraces": true}, func(s string) bool { return strings.Contains(s, "inline") })
	checkGolden(t, "console", "list_console_messages with script names", text)
}

// While a dialog blocks the page, the listings still answer from what was
// collected, with the dialog notice; get_network_request, which needs the
// renderer, fails at once, as upstream's blockedByDialog does.
func TestDebugToolsWithDialog(t *testing.T) {
	t.Parallel()
	base := debugFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/alert")
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Alert")})
	notice := "# Open dialog\nalert: stop.\nCall handle_dialog to handle it before continuing."
	// get_network_request waiting on the renderer would run to its 30 s
	// budget: the four calls must answer before a deadline short of it
	// (the event; 12 s is room for a loaded machine).
	quick, cancel := context.WithTimeout(transporttest.Context(t), 12*time.Second)
	defer cancel()
	text := transporttest.MustIn(t, quick, cs, "list_console_messages", map[string]any{"pageId": id})
	checkGolden(t, "dialog", "list_console_messages with a dialog", text)
	text = transporttest.MustIn(t, quick, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 1})
	checkGolden(t, "dialog", "get_console_message with a dialog", text)
	if !strings.Contains(transporttest.MustIn(t, quick, cs, "list_network_requests", map[string]any{"pageId": id}), notice+"\n## Network requests\n") {
		t.Errorf("list_network_requests with a dialog lacks the notice")
	}
	text, isErr := transporttest.CallIn(t, quick, cs, "get_network_request", map[string]any{"pageId": id, "reqid": 1})
	if !isErr {
		t.Errorf("get_network_request with a dialog succeeded:\n%s", text)
	}
	checkGolden(t, "dialog", "get_network_request with a dialog", text)
	must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept"})
	text = must(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 1})
	if !strings.Contains(text, "Arg #1: {\"a\":1}") {
		t.Errorf("after the dialog, the object argument is read:\n%s", text)
	}
}
