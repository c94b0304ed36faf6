package cdpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeRelay stands for the browser: it records what reaches it and
// answers every command with {}.
type fakeRelay struct {
	deliver func([]byte)
	mu      sync.Mutex
	sent    []string // methods that reached the browser
	owned   map[string]bool
	n       int
	closed  bool
}

func (r *fakeRelay) Attach(ctx context.Context, targetID string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	id := fmt.Sprintf("SESSION-%d", r.n)
	r.owned[id] = true
	r.sent = append(r.sent, "attach "+targetID)
	return id, nil
}

func (r *fakeRelay) Send(sessionID string, id uint64, method string, params json.RawMessage) error {
	r.mu.Lock()
	r.sent = append(r.sent, method)
	r.mu.Unlock()
	result := `{}`
	if method == "Network.loadNetworkResource" {
		result = `{"resource":{"success":true,"httpStatusCode":200,"stream":"7"}}`
	}
	r.deliver([]byte(fmt.Sprintf(`{"id":%d,"result":%s,"sessionId":%q}`, id, result, sessionID)))
	return nil
}

func (r *fakeRelay) Owns(sessionID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.owned[sessionID]
}

func (r *fakeRelay) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

func (r *fakeRelay) methods() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sent...)
}

var testPage = Page{TargetID: "PAGE-1", URL: "http://127.0.0.1:1/audited", Title: "audited", BrowserContextID: "CTX"}

func open(t *testing.T) (*Endpoint, *fakeRelay) {
	t.Helper()
	relay := &fakeRelay{owned: map[string]bool{}}
	e, err := Open(context.Background(), Config{
		Page:     testPage,
		AuditURL: testPage.URL,
		NewRelay: func(deliver func([]byte)) Relay {
			relay.deliver = deliver
			return relay
		},
		Version: func(context.Context) (json.RawMessage, error) {
			return json.RawMessage(`{"product":"HeadlessChrome/1"}`), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e, relay
}

// get makes a request to the endpoint with a Host and headers of the
// test's choosing.
func get(t *testing.T, e *Endpoint, path, host string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", e.Port(), path), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func wsURL(t *testing.T, e *Endpoint) string {
	t.Helper()
	return e.WebSocketURL()
}

// TestServesNoSecret: the endpoint's WebSocket URL is served to no one
// over HTTP, not even to a client that names the right host and sends no
// Origin (a local process that knew the port read it from
// /json/version and took the one connection).
func TestServesNoSecret(t *testing.T) {
	e, _ := open(t)
	secret := e.WebSocketURL()[strings.LastIndex(e.WebSocketURL(), "/")+1:]
	for _, host := range []string{fmt.Sprintf("127.0.0.1:%d", e.Port()), fmt.Sprintf("localhost:%d", e.Port())} {
		for _, path := range []string{"/json/version", "/json/version/", "/json", "/json/list", "/json/list/", "/json/new", "/", "/devtools/browser/", "/devtools/browser"} {
			code, body := get(t, e, path, host, nil)
			if code != http.StatusNotFound || strings.Contains(body, secret) {
				t.Errorf("GET %s with Host %s = %d %q, want 404 without the secret", path, host, code, body)
			}
		}
	}
}

// TestRefusesPagesAndRebinding: a request that names another host (a
// page that rebound its own name to 127.0.0.1) or carries an Origin (any
// request a web page makes) is refused, as is a guessed WebSocket path.
func TestRefusesPagesAndRebinding(t *testing.T) {
	e, _ := open(t)
	port := e.Port()
	for _, tt := range []struct {
		name, path, host string
		header           http.Header
		want             int
	}{
		{"rebound host", "/json/version", fmt.Sprintf("evil.example:%d", port), nil, http.StatusForbidden},
		{"host without the port", "/json/version", "127.0.0.1", nil, http.StatusForbidden},
		{"origin", "/json/version", fmt.Sprintf("127.0.0.1:%d", port), http.Header{"Origin": {"http://127.0.0.1:8000"}}, http.StatusForbidden},
		{"null origin", "/json/version", fmt.Sprintf("localhost:%d", port), http.Header{"Origin": {"null"}}, http.StatusForbidden},
		{"a page's navigation", "/json/version", fmt.Sprintf("127.0.0.1:%d", port), http.Header{"Sec-Fetch-Mode": {"navigate"}, "Sec-Fetch-Site": {"none"}}, http.StatusForbidden},
		{"a page's image", "/devtools/browser/0000", fmt.Sprintf("127.0.0.1:%d", port), http.Header{"Sec-Fetch-Dest": {"image"}}, http.StatusForbidden},
		{"guessed path", "/devtools/browser/0000", fmt.Sprintf("127.0.0.1:%d", port), nil, http.StatusNotFound},
		{"target list", "/json/list", fmt.Sprintf("127.0.0.1:%d", port), nil, http.StatusNotFound},
		{"localhost", "/json/version", fmt.Sprintf("localhost:%d", port), nil, http.StatusNotFound},
	} {
		if code, body := get(t, e, tt.path, tt.host, tt.header); code != tt.want {
			t.Errorf("%s: %s with Host %s = %d %s, want %d", tt.name, tt.path, tt.host, code, body, tt.want)
		}
	}
	// A WebSocket handshake with an Origin is refused too.
	url := wsURL(t, e)
	_, resp, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {"http://127.0.0.1:8000"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a WebSocket handshake with an Origin: %v %v", err, resp)
	}
	// ... and did not use up the one connection.
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("the client's connection: %v", err)
	}
	c.Close()
}

// TestOneConnection: the first WebSocket is the only one; the endpoint
// stops listening as it accepts it, and is gone after Close.
func TestOneConnection(t *testing.T) {
	e, relay := open(t)
	url := wsURL(t, e)
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The client has its 101 before the endpoint has taken the
	// connection on: wait for that, or Close can come first (and then
	// there is no session, nor relay, to close).
	select {
	case <-e.Connected():
	case <-time.After(10 * time.Second):
		t.Fatal("the endpoint did not take the connection on")
	}
	if _, _, err := websocket.DefaultDialer.Dial(url, nil); err == nil {
		t.Error("a second WebSocket connection was accepted")
	}
	if conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", e.Port()), time.Second); err == nil {
		conn.Close()
		t.Error("the endpoint still listens after its client connected")
	}
	e.Close()
	select {
	case <-e.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client's connection did not end with Close")
	}
	if _, _, err := c.ReadMessage(); err == nil {
		t.Error("the client's connection is still open after Close")
	}
	relay.mu.Lock()
	closed := relay.closed
	relay.mu.Unlock()
	if !closed {
		t.Error("the relay was not closed with the endpoint")
	}
}

// client is a DevTools client on the endpoint.
type client struct {
	t    *testing.T
	c    *websocket.Conn
	id   uint64
	seen []map[string]any // every message received
}

func dial(t *testing.T, e *Endpoint) *client {
	c, _, err := websocket.DefaultDialer.Dial(wsURL(t, e), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{t: t, c: c}
}

// call sends a command and returns its reply, keeping the events before it.
func (c *client) call(session, method string, params any) map[string]any {
	c.t.Helper()
	c.id++
	msg := map[string]any{"id": c.id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	if err := c.c.WriteJSON(msg); err != nil {
		c.t.Fatal(err)
	}
	c.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var m map[string]any
		if err := c.c.ReadJSON(&m); err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		c.seen = append(c.seen, m)
		if id, ok := m["id"].(float64); ok && uint64(id) == c.id {
			return m
		}
	}
}

func (c *client) events(method string) []map[string]any {
	var out []map[string]any
	for _, m := range c.seen {
		if m["method"] == method {
			out = append(out, m)
		}
	}
	return out
}

// TestShowsOnePage: the client's browser has one tab holding the audited
// page; a new page is that page, closing it detaches without closing the
// tab, and nothing reaching beyond the page gets to the browser.
func TestShowsOnePage(t *testing.T) {
	e, relay := open(t)
	c := dial(t, e)

	c.call("", "Target.setDiscoverTargets", map[string]any{"discover": true, "filter": []any{map[string]any{}}})
	created := c.events("Target.targetCreated")
	if len(created) != 2 {
		t.Fatalf("targetCreated: %v", created)
	}
	reply := c.call("", "Target.getTargets", nil)
	infos := reply["result"].(map[string]any)["targetInfos"].([]any)
	if len(infos) != 2 || infos[1].(map[string]any)["targetId"] != testPage.TargetID || infos[0].(map[string]any)["type"] != "tab" {
		t.Errorf("getTargets = %v", infos)
	}
	c.call("", "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
	attached := c.events("Target.attachedToTarget")
	if len(attached) != 1 {
		t.Fatalf("attachedToTarget after auto-attach: %v", attached)
	}
	tab := attached[0]["params"].(map[string]any)["sessionId"].(string)
	c.call(tab, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
	attached = c.events("Target.attachedToTarget")
	if len(attached) != 2 || attached[1]["sessionId"] != tab {
		t.Fatalf("the page was not attached under its tab: %v", attached)
	}
	pageSession := attached[1]["params"].(map[string]any)["sessionId"].(string)

	if r := c.call("", "Target.createTarget", map[string]any{"url": "about:blank"}); r["result"].(map[string]any)["targetId"] != testPage.TargetID {
		t.Errorf("createTarget = %v, want the audited page", r)
	}
	// Commands on the page's session reach the browser; ones that reach
	// beyond the page do not.
	if r := c.call(pageSession, "Page.enable", nil); r["error"] != nil {
		t.Errorf("Page.enable = %v", r)
	}
	for _, tt := range []struct {
		session, method string
		params          any
	}{
		{"", "Target.attachToTarget", map[string]any{"targetId": "OTHER-AGENTS-PAGE", "flatten": true}},
		{"", "Target.createBrowserContext", nil},
		{"", "Target.attachToBrowserTarget", nil},
		{"", "Browser.close", nil},
		{"", "Storage.getCookies", nil},
		{"", "Target.getTargetInfo", map[string]any{"targetId": "OTHER-AGENTS-PAGE"}},
		{pageSession, "Target.attachToTarget", map[string]any{"targetId": "OTHER-AGENTS-PAGE", "flatten": true}},
		{pageSession, "Target.getTargets", nil},
		{pageSession, "Target.getTargetInfo", map[string]any{"targetId": "OTHER-AGENTS-PAGE"}},
		{pageSession, "Target.setDiscoverTargets", map[string]any{"discover": true}},
		{pageSession, "Target.exposeDevToolsProtocol", map[string]any{"targetId": testPage.TargetID}},
		{pageSession, "Browser.close", nil},
		{pageSession, "Page.close", nil},
		{pageSession, "Storage.clearDataForOrigin", map[string]any{"origin": "*", "storageTypes": "all"}},
		{pageSession, "Network.clearBrowserCookies", nil},
		{"NOT-A-SESSION", "Runtime.evaluate", map[string]any{"expression": "1"}},
	} {
		if r := c.call(tt.session, tt.method, tt.params); r["error"] == nil {
			t.Errorf("%s on session %q was answered: %v", tt.method, tt.session, r)
		}
	}
	if got := relay.methods(); strings.Join(got, ",") != "attach PAGE-1,Page.enable" {
		t.Errorf("what reached the browser: %v", got)
	}

	// Closing the page detaches it and says the page and tab are gone.
	if r := c.call("", "Target.closeTarget", map[string]any{"targetId": testPage.TargetID}); r["result"].(map[string]any)["success"] != true {
		t.Errorf("closeTarget = %v", r)
	}
	c.call("", "Target.getTargets", nil) // the events come before this reply
	destroyed := c.events("Target.targetDestroyed")
	detached := c.events("Target.detachedFromTarget")
	if len(destroyed) != 2 || len(detached) != 2 {
		t.Errorf("after closeTarget: destroyed %v, detached %v", destroyed, detached)
	}
	relay.mu.Lock()
	closed := relay.closed
	relay.mu.Unlock()
	if !closed {
		t.Error("closing the page did not end the relay")
	}
	for _, m := range c.seen {
		if b, _ := json.Marshal(m); strings.Contains(string(b), "OTHER-AGENTS-PAGE") && m["error"] == nil {
			t.Errorf("the client saw another page: %s", b)
		}
	}
}

// TestAllowList: on the page's sessions only the commands Lighthouse sends
// reach the browser; files, downloads, cookies, storage, interception,
// other targets and the browser are refused, whatever the client (issue
// 33). A stream is read only if a load of the client's returned it, and
// the page loads only the audited URL.
func TestAllowList(t *testing.T) {
	e, relay := open(t)
	c := dial(t, e)
	r := c.call("", "Target.attachToTarget", map[string]any{"targetId": testPage.TargetID, "flatten": true})
	ps := r["result"].(map[string]any)["sessionId"].(string)
	for _, tt := range []struct {
		method string
		params any
	}{
		{"Network.getCookies", nil},
		{"Network.getAllCookies", nil},
		{"Network.setCookie", map[string]any{"name": "a", "value": "b", "url": "http://x/"}},
		{"Network.setCookies", map[string]any{"cookies": []any{}}},
		{"Network.deleteCookies", map[string]any{"name": "a"}},
		{"Network.clearBrowserCookies", nil},
		{"Network.clearBrowserCache", nil},
		{"Storage.getCookies", nil},
		{"Storage.setCookies", map[string]any{"cookies": []any{}}},
		{"Storage.clearDataForOrigin", map[string]any{"origin": "*", "storageTypes": "all"}},
		{"Storage.getUsageAndQuota", map[string]any{"origin": "http://x"}},
		{"DOMStorage.getDOMStorageItems", nil},
		{"IndexedDB.requestData", nil},
		{"CacheStorage.requestEntries", nil},
		{"DOM.setFileInputFiles", map[string]any{"files": []string{"/etc/passwd"}, "nodeId": 1}},
		{"Page.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": "/tmp"}},
		{"Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": "/tmp"}},
		{"Page.handleFileChooser", map[string]any{"action": "accept", "files": []string{"/etc/passwd"}}},
		{"Page.setInterceptFileChooserDialog", map[string]any{"enabled": true}},
		{"IO.read", map[string]any{"handle": "1"}},
		{"IO.resolveBlob", map[string]any{"objectId": "1"}},
		{"Fetch.enable", nil},
		{"Fetch.continueRequest", map[string]any{"requestId": "1"}},
		{"Target.createTarget", map[string]any{"url": "about:blank"}},
		{"Target.attachToTarget", map[string]any{"targetId": "OTHER"}},
		{"Target.exposeDevToolsProtocol", map[string]any{"targetId": testPage.TargetID}},
		{"Browser.close", nil},
		{"Browser.grantPermissions", map[string]any{"permissions": []string{"geolocation"}}},
		{"SystemInfo.getProcessInfo", nil},
		{"Page.close", nil},
		{"Page.crash", nil},
		{"Page.navigate", map[string]any{"url": "file:///etc/passwd"}},
		{"Page.navigate", map[string]any{"url": "http://127.0.0.1:1/elsewhere"}},
		{"Network.loadNetworkResource", map[string]any{"frameId": "F", "url": "file:///etc/passwd", "options": map[string]any{}}},
		{"Network.setExtraHTTPHeaders", map[string]any{"headers": map[string]any{}}},
		{"Emulation.setGeolocationOverride", nil},
		{"Runtime.addBinding", map[string]any{"name": "x"}},
		{"Input.dispatchKeyEvent", map[string]any{"type": "keyDown"}},
		{"NotACommand", nil},
	} {
		if r := c.call(ps, tt.method, tt.params); r["error"] == nil {
			t.Errorf("%s %v was relayed: %v", tt.method, tt.params, r)
		}
	}
	if got := relay.methods(); strings.Join(got, ",") != "attach PAGE-1" {
		t.Errorf("refused commands reached the browser: %v", got)
	}
	// What Lighthouse sends passes: the audited page and about:blank, a
	// web resource and the stream its load returned.
	for _, tt := range []struct {
		method string
		params any
	}{
		{"Page.navigate", map[string]any{"url": "about:blank"}},
		{"Page.navigate", map[string]any{"url": testPage.URL}},
		{"Runtime.evaluate", map[string]any{"expression": "1"}},
		{"Network.loadNetworkResource", map[string]any{"frameId": "F", "url": "http://127.0.0.1:1/robots.txt", "options": map[string]any{}}},
		{"IO.read", map[string]any{"handle": "7"}},
		{"IO.close", map[string]any{"handle": "7"}},
	} {
		if r := c.call(ps, tt.method, tt.params); r["error"] != nil {
			t.Errorf("%s %v was refused: %v", tt.method, tt.params, r)
		}
	}
	if r := c.call(ps, "IO.read", map[string]any{"handle": "8"}); r["error"] == nil {
		t.Errorf("IO.read of a stream no load returned was relayed: %v", r)
	}
}

// TestOpenPorts: an endpoint's port is listed from Open until its
// listener is closed, others' stay listed, and it no longer is once it is
// closed (tests that run beside this one may list theirs too).
func TestOpenPorts(t *testing.T) {
	a, _ := open(t)
	b, _ := open(t)
	listed := func(port int) bool {
		for _, p := range OpenPorts() {
			if p == port {
				return true
			}
		}
		return false
	}
	if !listed(a.Port()) || !listed(b.Port()) {
		t.Fatalf("OpenPorts() = %v, want %d and %d in it", OpenPorts(), a.Port(), b.Port())
	}
	a.Close()
	if listed(a.Port()) || !listed(b.Port()) {
		t.Errorf("after closing %d: OpenPorts() = %v, want only %d of the two", a.Port(), OpenPorts(), b.Port())
	}
}
