package browsing

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// These tests start the tabhive command with a session flag and observe
// what it does from MCP clients, as an operator's users would: flags once
// were parsed and never reached the server, while the tests, which built
// the server's configuration by hand, passed.
//
// Those that drive a browser run one after another, before the parallel
// tests: each starts a Chromium of its own, and several at once slow the
// shutdown that TestStdio and TestHTTPAndSignalShutdown time.

// pageIDs returns the ids of a page list, in order.
func pageIDs(list string) []int {
	var ids []int
	for _, m := range regexp.MustCompile(`(?m)^(\d+): `).FindAllStringSubmatch(list, -1) {
		id, _ := strconv.Atoi(m[1])
		ids = append(ids, id)
	}
	return ids
}

// selectedID returns the id of the page a page list marks selected.
func selectedID(t *testing.T, list string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(\d+): .*\[selected\]$`).FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("no selected page in:\n%s", list)
	}
	id, _ := strconv.Atoi(m[1])
	return id
}

func TestIsolateSessionsThroughBinary(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/set", browsertest.HTML("Set", `<p>set</p><script>document.cookie = "who=a; path=/"; localStorage.setItem("who", "a")</script>`))
	mux.Handle("/read", browsertest.HTML("Read", `<p>read</p>`))
	site := browsertest.Serve(t, mux).URL
	in := tabhivetest.StartHTTP(t, "--isolate-sessions")
	a, b := in.Client(nil), in.Client(nil)

	idA := selectedID(t, transporttest.Must(t, a, "navigate_page", map[string]any{"url": site + "/set"}))
	listB := transporttest.Must(t, b, "navigate_page", map[string]any{"url": site + "/read"})
	idB := selectedID(t, listB)
	if slices.Contains(pageIDs(listB), idA) || idA == idB {
		t.Fatalf("session B lists session A's page %d:\n%s", idA, listB)
	}

	read := map[string]any{"function": `() => document.cookie + "|" + localStorage.getItem("who")`}
	if got := transporttest.Must(t, a, "evaluate_script", read); !strings.Contains(got, `who=a|a`) {
		t.Fatalf("session A's own page does not see what it stored: %q", got)
	}
	if got := transporttest.Must(t, b, "evaluate_script", read); !strings.Contains(got, `"|null"`) {
		t.Errorf("session B's page sees session A's cookie or storage: %q", got)
	}

	// Every way of naming A's page from B finds none; so does the
	// browser's own first page, which no session owns.
	for _, id := range []int{idA, 1} {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"select_page", map[string]any{"pageId": id}},
			{"take_snapshot", map[string]any{"pageId": id}},
			{"evaluate_script", map[string]any{"pageId": id, "function": "() => document.title"}},
			{"navigate_page", map[string]any{"pageId": id, "url": site + "/read"}},
			{"close_page", map[string]any{"pageId": id}},
		} {
			got, isErr := transporttest.Call(t, b, c.tool, c.args)
			if !isErr || !strings.Contains(got, fmt.Sprintf("No page found with id %d", id)) {
				t.Errorf("session B: %s(pageId %d) = %v %q, want No page found", c.tool, id, isErr, got)
			}
		}
	}
	if got := transporttest.Must(t, a, "list_pages", nil); !slices.Contains(pageIDs(got), idA) {
		t.Errorf("session A lost its page to B's calls:\n%s", got)
	}
	if got := transporttest.Must(t, a, "take_snapshot", nil); !strings.Contains(got, "set") {
		t.Errorf("session A's page changed under B's calls:\n%s", got)
	}
}

// TestMaxPagesPerSessionThroughBinary: new_page past the limit is refused,
// and the page the session was given and popups count: a popup that takes
// an isolated session past its limit is closed, and the reply says so.
func TestMaxPagesPerSessionThroughBinary(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/opener", browsertest.HTML("Opener", `<a href="/popup" target="_blank">Open popup</a>`))
	mux.Handle("/popup", browsertest.HTML("Popup", `<p>popup</p>`))
	site := browsertest.Serve(t, mux).URL
	in := tabhivetest.StartHTTP(t, "--isolate-sessions", "--max-pages-per-session", "3")
	cs := in.Client(nil)
	refusal := "This session already has 3 open pages, the most allowed (--max-pages-per-session). Close one with close_page first."

	given := selectedID(t, transporttest.Must(t, cs, "list_pages", nil))
	opener := selectedID(t, transporttest.Must(t, cs, "new_page", map[string]any{"url": site + "/opener"}))
	extra := selectedID(t, transporttest.Must(t, cs, "new_page", map[string]any{"url": "about:blank"}))
	if got, isErr := transporttest.Call(t, cs, "new_page", map[string]any{"url": "about:blank"}); !isErr || !strings.Contains(got, refusal) {
		t.Fatalf("third new_page with --max-pages-per-session 3 (the given page counts) = %v %q", isErr, got)
	}
	transporttest.Must(t, cs, "close_page", map[string]any{"pageId": extra})

	// A popup under the limit is the session's page, and counts.
	link := regexp.MustCompile(`uid=(\S+) link "Open popup"`).FindStringSubmatch(transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": opener}))
	if link == nil {
		t.Fatal("no link in the opener's snapshot")
	}
	transporttest.Must(t, cs, "click", map[string]any{"pageId": opener, "uid": link[1]})
	popup := 0
	testwait.Until(t, "the popup to be listed", func() bool {
		for _, id := range pageIDs(transporttest.Must(t, cs, "list_pages", nil)) {
			if id != given && id != opener {
				popup = id
			}
		}
		return popup != 0
	})
	if got, isErr := transporttest.Call(t, cs, "new_page", map[string]any{"url": "about:blank"}); !isErr || !strings.Contains(got, refusal) {
		t.Errorf("new_page with the given page, a page and a popup open, limit 3 = %v %q; want refused", isErr, got)
	}

	// A popup past the limit is closed; the reply of the call that opened
	// it says so, or, if the browser reported it only after that reply,
	// the next one.
	replies := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": opener, "function": `() => { window.open("/popup?2"); return "opened" }`})
	closed := regexp.MustCompile(`Closed page (\d+), a popup opened by a page of this session: the session already had 3 open pages, the most allowed \(--max-pages-per-session\)\.`)
	var list string
	testwait.Until(t, "the popup past the limit to be closed", func() bool {
		list = transporttest.Must(t, cs, "list_pages", nil)
		replies += "\n" + list
		return closed.MatchString(replies)
	})
	if ids := pageIDs(list); !slices.Equal(ids, []int{given, opener, popup}) {
		t.Errorf("pages after the popup past the limit: %v, want %v:\n%s", ids, []int{given, opener, popup}, list)
	}

	// Closing the first popup makes room for a new page.
	transporttest.Must(t, cs, "close_page", map[string]any{"pageId": popup})
	transporttest.Must(t, cs, "new_page", map[string]any{"url": "about:blank"})
}

// TestMaxPagesPerSessionShared: without isolation the limit counts the
// pages the session opened with new_page and the popups they opened, told
// by their opener; another session's count is its own.
func TestMaxPagesPerSessionShared(t *testing.T) {
	site := browsertest.Serve(t, browsertest.HTML("Page", `<p>page</p>`)).URL
	in := tabhivetest.StartHTTP(t, "--max-pages-per-session", "1")
	a, b := in.Client(nil), in.Client(nil)
	opener := selectedID(t, transporttest.Must(t, a, "new_page", map[string]any{"url": site + "/"}))
	got, isErr := transporttest.Call(t, a, "new_page", map[string]any{"url": "about:blank"})
	if !isErr || !strings.Contains(got, "This session already has 1 open pages, the most allowed (--max-pages-per-session).") {
		t.Errorf("second new_page with --max-pages-per-session 1 = %v %q", isErr, got)
	}
	// A popup of the session's page takes it past the limit: closed.
	replies := transporttest.Must(t, a, "evaluate_script", map[string]any{"pageId": opener, "function": `() => { window.open("/popup"); return "opened" }`})
	closed := regexp.MustCompile(`Closed page (\d+), a popup opened by a page of this session: the session already had 1 open pages, the most allowed \(--max-pages-per-session\)\.`)
	testwait.Until(t, "the popup past the limit to be closed", func() bool {
		replies += "\n" + transporttest.Must(t, a, "list_pages", nil)
		return closed.MatchString(replies)
	})
	// Another session has its own count: its new page, and a popup of the
	// page it did not open, are not a's.
	transporttest.Must(t, b, "new_page", map[string]any{"url": "about:blank"})
	if got, isErr := transporttest.Call(t, b, "new_page", map[string]any{"url": "about:blank"}); !isErr {
		t.Errorf("b's second new_page with --max-pages-per-session 1 = %q, want refused", got)
	}
}

// TestMaxSessionsThroughBinary: a session counts from its initialize, not
// from initialized or its first call, so 50 bare initializes sent at once
// make exactly N sessions (counted later, 200 of them once all got 200
// with the limit at 5); a session that ends frees its place.
func TestMaxSessionsThroughBinary(t *testing.T) {
	t.Parallel()
	in := tabhivetest.StartHTTP(t, "--max-sessions", "5")
	type result struct {
		status          int
		session, answer string
	}
	results := make([]result, 50)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			var r result
			r.status, r.session, r.answer = in.Post(tabhivetest.InitializeBody, nil)
			results[i] = r
		})
	}
	wg.Wait()
	var sessions []string
	refused := 0
	for _, r := range results {
		switch {
		case r.status == http.StatusOK && r.session != "":
			sessions = append(sessions, r.session)
		case r.status == http.StatusServiceUnavailable && strings.Contains(r.answer, "tabhive already serves 5 sessions, the most allowed (--max-sessions)."):
			refused++
		default:
			t.Errorf("initialize: status %d, session %q, answer %q", r.status, r.session, r.answer)
		}
	}
	slices.Sort(sessions)
	if len(sessions) != 5 || len(slices.Compact(slices.Clone(sessions))) != 5 || refused != 45 {
		t.Fatalf("50 parallel initializes with --max-sessions 5: %d sessions (%d distinct), %d refused; want 5 and 45", len(sessions), len(slices.Compact(slices.Clone(sessions))), refused)
	}
	if got := in.Metric("tabhive_sessions"); got != 5 {
		t.Errorf("tabhive_sessions = %v with 5 bare sessions open, want 5", got)
	}
	if status, _, answer := in.Post(tabhivetest.InitializeBody, nil); status != http.StatusServiceUnavailable {
		t.Errorf("initialize with 5 sessions open: %d %q, want 503", status, answer)
	}

	// Ending a session frees its place, for one more.
	req, _ := http.NewRequest(http.MethodDelete, in.URL, nil)
	req.Header.Set("Mcp-Session-Id", sessions[0])
	if status, _, answer := in.Do(req); status != http.StatusNoContent {
		t.Fatalf("DELETE a session: %d %q", status, answer)
	}
	testwait.Until(t, "a place for a new session after DELETE", func() bool {
		status, _, _ := in.Post(tabhivetest.InitializeBody, nil)
		return status == http.StatusOK
	})
	if status, _, answer := in.Post(tabhivetest.InitializeBody, nil); status != http.StatusServiceUnavailable {
		t.Errorf("initialize after the freed place was taken: %d %q, want 503", status, answer)
	}
}

// TestMaxSessionsIdleTimeout: a session that times out frees its place;
// a request that makes no session takes none.
func TestMaxSessionsIdleTimeout(t *testing.T) {
	t.Parallel()
	in := tabhivetest.StartHTTP(t, "--max-sessions", "1", "--session-idle-timeout", "3s")
	// Not an initialize: the SDK makes a session for it and closes it.
	in.Post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	var first string
	testwait.Until(t, "the place of a request that made no session", func() bool {
		var status int
		status, first, _ = in.Post(tabhivetest.InitializeBody, nil)
		return status == http.StatusOK
	})
	if status, _, answer := in.Post(tabhivetest.InitializeBody, nil); status != http.StatusServiceUnavailable {
		t.Fatalf("second session with --max-sessions 1: %d %q, want 503", status, answer)
	}
	testwait.Until(t, "the idle session's place", func() bool {
		status, _, _ := in.Post(tabhivetest.InitializeBody, nil)
		return status == http.StatusOK
	})
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if status, _, _ := in.Post(ping, http.Header{"Mcp-Session-Id": {first}}); status != http.StatusNotFound {
		t.Errorf("the idle session still answers: %d, want 404", status)
	}
}

// TestMetricsThroughBinary: a hung script and a dialog move /metrics'
// counters (they once stayed at 0, counted into a Metrics the server did
// not serve).
func TestMetricsThroughBinary(t *testing.T) {
	site := browsertest.Serve(t, browsertest.HTML("Dialog", `<button onclick="alert('hello')">Alert</button>`)).URL
	in := tabhivetest.StartHTTP(t)
	cs := in.Client(nil)
	names := []string{"tabhive_evaluate_timeouts_total", "tabhive_evaluate_terminations_total", "tabhive_dialogs_total"}
	for _, n := range names {
		if got := in.Metric(n); got != 0 {
			t.Fatalf("%s = %v before anything ran, want 0", n, got)
		}
	}
	transporttest.Must(t, cs, "new_page", map[string]any{"url": site + "/"})
	if got, isErr := transporttest.Call(t, cs, "evaluate_script", map[string]any{"function": "() => { while (true) {} }", "timeout": 1000}); !isErr {
		t.Errorf("a hung script returned %q", got)
	}
	button := regexp.MustCompile(`uid=(\S+) button "Alert"`).FindStringSubmatch(transporttest.Must(t, cs, "take_snapshot", nil))
	if button == nil {
		t.Fatal("no button in the snapshot")
	}
	if got := transporttest.Must(t, cs, "click", map[string]any{"uid": button[1]}); !strings.Contains(got, "# Open dialog") {
		t.Errorf("click on the alert button: %q", got)
	}
	for _, n := range names {
		if got := in.Metric(n); got < 1 {
			t.Errorf("%s = %v after a hung script and a dialog, want at least 1", n, got)
		}
	}
}

// TestAuthHostsOriginsThroughBinary: --auth-token, --allowed-hosts and
// --allowed-origins as the binary applies them.
func TestAuthHostsOriginsThroughBinary(t *testing.T) {
	t.Parallel()
	in := tabhivetest.StartHTTP(t, "--auth-token", "s3cret", "--allowed-hosts", "tabhive.test", "--allowedOrigins", "http://app.example")
	port := in.Addr[strings.LastIndex(in.Addr, ":")+1:]
	auth := "Bearer s3cret"
	tests := []struct {
		name   string
		host   string
		header map[string]string
		want   int
	}{
		{"no token", "", nil, http.StatusUnauthorized},
		{"wrong token", "", map[string]string{"Authorization": "Bearer s3cre"}, http.StatusUnauthorized},
		{"token without Bearer", "", map[string]string{"Authorization": "s3cret"}, http.StatusUnauthorized},
		{"token", "", map[string]string{"Authorization": auth}, http.StatusOK},
		{"foreign host", "evil.example:" + port, map[string]string{"Authorization": auth}, http.StatusForbidden},
		{"allowed host", "tabhive.test:" + port, map[string]string{"Authorization": auth}, http.StatusOK},
		{"allowed host, no port", "tabhive.test", map[string]string{"Authorization": auth}, http.StatusOK},
		{"localhost", "localhost:" + port, map[string]string{"Authorization": auth}, http.StatusOK},
		{"foreign origin", "", map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"allowed origin", "", map[string]string{"Authorization": auth, "Origin": "http://app.example"}, http.StatusOK},
		{"own origin", "", map[string]string{"Authorization": auth, "Origin": in.Base}, http.StatusOK},
		{"foreign origin without token", "", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodPost, in.URL, strings.NewReader(tabhivetest.InitializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.host != "" {
			req.Host = tt.host
		}
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		if status, _, answer := in.Do(req); status != tt.want {
			t.Errorf("%s: status %d %q, want %d", tt.name, status, answer, tt.want)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, in.Base+"/metrics", nil)
	if status, _, _ := in.Do(req); status != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401", status)
	}

	// An MCP client with the token works; one without is told why not.
	cs := in.Client(http.Header{"Authorization": {auth}})
	if _, err := cs.ListTools(transporttest.Context(t), nil); err != nil {
		t.Errorf("tools/list with the token: %v", err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	if cs, err := c.Connect(transporttest.Context(t), &mcp.StreamableClientTransport{Endpoint: in.URL}, nil); err == nil {
		cs.Close()
		t.Error("a client without the token connected")
	} else if !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("a client without the token: %v, want Unauthorized", err)
	}
}
