package cdpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabhive/tabhive/mailbox"
)

// session is the client's connection: the made-up browser's Target
// domain, and the relay for the page's real sessions.
type session struct {
	e     *Endpoint
	conn  *websocket.Conn
	out   *mailbox.Queue[[]byte]
	relay Relay

	// Owned by run's goroutine.
	tabID, tabSession string
	tabAttached       bool // the tab's session was announced
	// underTab is the page session announced on the tab's session, if
	// any; rootPage are the page sessions attached from the browser's.
	underTab string
	rootPage map[string]bool
	closed   bool // the page was "closed"

	// mu guards loads and streams: deliver runs on the browser channel's
	// reader. loads are the client's pending Network.loadNetworkResource
	// commands; streams the handles their replies named.
	mu      sync.Mutex
	loads   map[callKey]bool
	streams map[string]bool
}

// callTimeout bounds the proxy's own calls to the browser.
const callTimeout = 30 * time.Second

func newSession(e *Endpoint, conn *websocket.Conn) *session {
	s := &session{e: e, conn: conn, out: newQueue(), rootPage: map[string]bool{},
		loads: map[callKey]bool{}, streams: map[string]bool{}}
	// The made-up tab gets ids of its own, unlike Chrome's, so that no
	// client confuses them with a real target.
	s.tabID = "TABHIVE-TAB-" + e.secret[:16]
	s.tabSession = "TABHIVE-TAB-SESSION-" + e.secret[16:]
	s.relay = e.cfg.NewRelay(s.deliver)
	return s
}

// inbound is a message from the client.
type inbound struct {
	ID        *uint64         `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
}

// run reads the client's messages until its connection ends, then
// detaches every session the client had.
func (s *session) run() {
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { defer wg.Done(); s.write(stop) }() // ends on stop
	defer func() {
		s.relay.Close()
		close(stop)
		wg.Wait()
		s.conn.Close()
	}()
	for {
		_, b, err := s.conn.ReadMessage()
		if err != nil {
			return
		}
		var m inbound
		if err := json.Unmarshal(b, &m); err != nil || m.ID == nil || m.Method == "" {
			return // not a CDP client
		}
		s.handle(&m)
	}
}

// write sends the outbox to the client until stop.
func (s *session) write(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-s.out.Ready():
		}
		for _, b := range s.out.Take() {
			s.conn.SetWriteDeadline(time.Now().Add(callTimeout))
			if err := s.conn.WriteMessage(websocket.TextMessage, b); err != nil {
				s.conn.Close() // the reader sees it and ends the session
				return
			}
		}
	}
}

func (s *session) send(v any) {
	b, err := json.Marshal(v)
	if err == nil {
		s.out.Push(b)
	}
}

func (s *session) event(sessionID, method string, params any) {
	s.send(map[string]any{"method": method, "params": params, "sessionId": sessionID})
}

func (s *session) reply(m *inbound, result any) {
	s.send(map[string]any{"id": *m.ID, "result": result, "sessionId": m.SessionID})
}

func (s *session) fail(m *inbound, format string, args ...any) {
	s.send(map[string]any{"id": *m.ID, "sessionId": m.SessionID,
		"error": map[string]any{"code": -32000, "message": fmt.Sprintf(format, args...)}})
}

func (s *session) handle(m *inbound) {
	switch {
	case m.SessionID == "":
		s.browser(m)
	case m.SessionID == s.tabSession && s.tabAttached:
		s.tab(m)
	case s.relay.Owns(m.SessionID):
		if why := s.refused(m); why != "" {
			// A newer Lighthouse may need a command not on the list:
			// the operator hears of it.
			s.e.cfg.Logger.Warn().Str("method", m.Method).Str("why", why).Msg("the Lighthouse endpoint refused a command")
			s.fail(m, "%s is not available through tabhive's Lighthouse endpoint: %s", m.Method, why)
			return
		}
		if err := s.relay.Send(m.SessionID, *m.ID, m.Method, m.Params); err != nil {
			s.fail(m, "Session with given id not found.")
		}
	default:
		s.fail(m, "Session with given id not found.")
	}
}

// targetInfo is a TargetInfo of the made-up browser.
type targetInfo struct {
	TargetID         string `json:"targetId"`
	Type             string `json:"type"`
	Title            string `json:"title"`
	URL              string `json:"url"`
	Attached         bool   `json:"attached"`
	CanAccessOpener  bool   `json:"canAccessOpener"`
	BrowserContextID string `json:"browserContextId,omitempty"`
}

func (s *session) pageInfo() targetInfo {
	p := s.e.cfg.Page
	return targetInfo{TargetID: p.TargetID, Type: "page", Title: p.Title, URL: p.URL, Attached: true, BrowserContextID: p.BrowserContextID}
}

func (s *session) tabInfo() targetInfo {
	p := s.e.cfg.Page
	return targetInfo{TargetID: s.tabID, Type: "tab", Title: p.Title, URL: p.URL, Attached: s.tabAttached, BrowserContextID: p.BrowserContextID}
}

// targetParams reads a command's targetId and sessionId.
func targetParams(m *inbound) (targetID, sessionID string) {
	var p struct {
		TargetID  string `json:"targetId"`
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(m.Params, &p)
	return p.TargetID, p.SessionID
}

// browser answers a command on the browser's session.
func (s *session) browser(m *inbound) {
	page := s.e.cfg.Page.TargetID
	switch m.Method {
	case "Target.getBrowserContexts":
		s.reply(m, map[string]any{"browserContextIds": []string{}, "defaultBrowserContextId": s.e.cfg.Page.BrowserContextID})
	case "Target.setDiscoverTargets":
		var p struct {
			Discover bool `json:"discover"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Discover && !s.closed {
			s.event("", "Target.targetCreated", map[string]any{"targetInfo": s.tabInfo()})
			s.event("", "Target.targetCreated", map[string]any{"targetInfo": s.pageInfo()})
		}
		s.reply(m, struct{}{})
	case "Target.setAutoAttach":
		// Auto-attach on the browser reaches tabs: the one tab here. It
		// never reaches Chrome, so no other tab is ever paused for it.
		var p struct {
			AutoAttach bool `json:"autoAttach"`
		}
		json.Unmarshal(m.Params, &p)
		if p.AutoAttach && !s.tabAttached && !s.closed {
			s.tabAttached = true
			s.event("", "Target.attachedToTarget", map[string]any{"sessionId": s.tabSession, "targetInfo": s.tabInfo(), "waitingForDebugger": false})
		}
		s.reply(m, struct{}{})
	case "Target.getTargets":
		infos := []targetInfo{}
		if !s.closed {
			infos = append(infos, s.tabInfo(), s.pageInfo())
		}
		s.reply(m, map[string]any{"targetInfos": infos})
	case "Target.getTargetInfo":
		switch id, _ := targetParams(m); id {
		case "", page:
			s.reply(m, map[string]any{"targetInfo": s.pageInfo()})
		case s.tabID:
			s.reply(m, map[string]any{"targetInfo": s.tabInfo()})
		default:
			s.fail(m, "No target with given id found")
		}
	case "Target.createTarget":
		// A new page is the audited page itself: the audit runs in place,
		// with the page's cookies, storage and browser context.
		if s.closed {
			s.fail(m, "tabhive's Lighthouse endpoint shows one page, which is closed")
			return
		}
		s.reply(m, map[string]any{"targetId": page})
	case "Target.activateTarget":
		s.reply(m, struct{}{})
	case "Target.attachToTarget":
		id, _ := targetParams(m)
		if id != page || s.closed {
			s.fail(m, "No target with given id found")
			return
		}
		sid, err := s.attach()
		if err != nil {
			s.fail(m, "%s", err)
			return
		}
		s.rootPage[sid] = true
		s.event("", "Target.attachedToTarget", map[string]any{"sessionId": sid, "targetInfo": s.pageInfo(), "waitingForDebugger": false})
		s.reply(m, map[string]any{"sessionId": sid})
	case "Target.detachFromTarget":
		_, sid := targetParams(m)
		switch {
		case s.rootPage[sid]:
			// The relay detaches it when the endpoint closes; the client
			// hears of it now.
			delete(s.rootPage, sid)
			s.event("", "Target.detachedFromTarget", map[string]any{"sessionId": sid, "targetId": page})
			s.reply(m, struct{}{})
		case sid == s.tabSession && s.tabAttached:
			s.detachTab()
			s.reply(m, struct{}{})
		default:
			s.fail(m, "No session with given id")
		}
	case "Target.closeTarget":
		id, _ := targetParams(m)
		if (id != page && id != s.tabID) || s.closed {
			s.fail(m, "No target with given id found")
			return
		}
		// The agent's tab stays open: closing it is the agent's call.
		s.reply(m, map[string]any{"success": true})
		s.closePage()
	case "Browser.getVersion":
		ctx, cancel := context.WithTimeout(s.e.ctx, callTimeout)
		v, err := s.e.cfg.Version(ctx)
		cancel()
		if err != nil {
			s.fail(m, "%s", err)
			return
		}
		s.reply(m, v)
	default:
		s.fail(m, "%s is not available through tabhive's Lighthouse endpoint, which shows one page", m.Method)
	}
}

// attach attaches a session to the page through the relay.
func (s *session) attach() (string, error) {
	ctx, cancel := context.WithTimeout(s.e.ctx, callTimeout)
	defer cancel()
	return s.relay.Attach(ctx, s.e.cfg.Page.TargetID)
}

// tab answers a command on the made-up tab's session.
func (s *session) tab(m *inbound) {
	switch m.Method {
	case "Target.setAutoAttach":
		var p struct {
			AutoAttach bool `json:"autoAttach"`
		}
		json.Unmarshal(m.Params, &p)
		if p.AutoAttach && s.underTab == "" && !s.closed {
			sid, err := s.attach()
			if err != nil {
				s.fail(m, "%s", err)
				return
			}
			s.underTab = sid
			s.event(s.tabSession, "Target.attachedToTarget", map[string]any{"sessionId": sid, "targetInfo": s.pageInfo(), "waitingForDebugger": false})
		}
		s.reply(m, struct{}{})
	case "Runtime.runIfWaitingForDebugger", "Target.activateTarget":
		s.reply(m, struct{}{})
	case "Target.getTargetInfo":
		s.reply(m, map[string]any{"targetInfo": s.tabInfo()})
	case "Target.detachFromTarget":
		if _, sid := targetParams(m); sid != "" && sid == s.underTab {
			s.underTab = ""
			s.event(s.tabSession, "Target.detachedFromTarget", map[string]any{"sessionId": sid, "targetId": s.e.cfg.Page.TargetID})
			s.reply(m, struct{}{})
			return
		}
		s.fail(m, "No session with given id")
	default:
		s.fail(m, "%s is not available on the tab's session of tabhive's Lighthouse endpoint", m.Method)
	}
}

// closePage tells the client the page and its tab are gone, as Chrome
// would after closing them, and ends the relay: the page's sessions are
// detached, the tab stays open.
func (s *session) closePage() {
	page := s.e.cfg.Page.TargetID
	s.closed = true
	if s.underTab != "" {
		s.event(s.tabSession, "Target.detachedFromTarget", map[string]any{"sessionId": s.underTab, "targetId": page})
		s.underTab = ""
	}
	for sid := range s.rootPage {
		s.event("", "Target.detachedFromTarget", map[string]any{"sessionId": sid, "targetId": page})
	}
	clear(s.rootPage)
	s.event("", "Target.targetDestroyed", map[string]any{"targetId": page})
	if s.tabAttached {
		s.detachTab()
	}
	s.event("", "Target.targetDestroyed", map[string]any{"targetId": s.tabID})
	s.relay.Close()
}

func (s *session) detachTab() {
	s.tabAttached = false
	s.event("", "Target.detachedFromTarget", map[string]any{"sessionId": s.tabSession, "targetId": s.tabID})
}

// refused says why a command on one of the page's sessions is not
// relayed, or "" if it is. What passes is an allow-list: the commands
// Lighthouse 12.8.2 and the puppeteer-core it connects with were seen to
// send in real audits (navigation and snapshot modes, desktop and mobile,
// on pages with scripts, source maps, workers and cross-site iframes),
// and a few more its gatherers for these categories send on other pages
// (a dialog, a timed-out script). Everything else is refused, and never
// on the list: files (DOM.setFileInputFiles, Page.setDownloadBehavior,
// Page.handleFileChooser, IO.* but reading the streams of the
// resources this connection loaded), cookies and storage (Network's
// cookie commands, Storage.*, DOMStorage.*, IndexedDB.*, CacheStorage.*),
// request interception (Fetch.*), other targets and the browser
// (Target.* but the page's own auto-attach, Browser.* but getVersion),
// closing or crashing the tab.
func (s *session) refused(m *inbound) string {
	check, ok := allowed[m.Method]
	if !ok {
		return "it is not among the commands Lighthouse sends"
	}
	if check == nil {
		return ""
	}
	return check(s, m)
}

// allowed are the commands relayed on the page's sessions, each with a
// check of its parameters, or nil.
var allowed = map[string]func(*session, *inbound) string{
	// What puppeteer.connect and its page send.
	"Browser.getVersion": nil,
	"Page.enable":        nil, "Page.disable": nil, "Page.getFrameTree": nil,
	"Page.setLifecycleEventsEnabled": nil, "Page.addScriptToEvaluateOnNewDocument": nil,
	"Page.createIsolatedWorld": nil, "Performance.enable": nil, "WebMCP.enable": nil,
	"Runtime.enable": nil, "Runtime.disable": nil, "Runtime.runIfWaitingForDebugger": nil,
	"Runtime.evaluate": nil, "Runtime.callFunctionOn": nil, "Runtime.releaseObject": nil,
	"Runtime.terminateExecution": nil,
	"Network.enable":             nil, "Log.enable": nil, "Log.disable": nil,
	"Target.setAutoAttach": nil, "Target.detachFromTarget": nil,
	"Target.getTargetInfo": func(_ *session, m *inbound) string {
		if id, _ := targetParams(m); id != "" {
			return "only the session's own target is shown"
		}
		return ""
	},
	// What Lighthouse's driver and gatherers send.
	"Page.navigate":               (*session).navigation,
	"Page.handleJavaScriptDialog": nil,
	"Page.getLayoutMetrics":       nil, "Page.captureScreenshot": nil,
	"Audits.enable": nil, "Audits.disable": nil,
	"CSS.enable": nil, "CSS.disable": nil, "CSS.getMatchedStylesForNode": nil, "CSS.getStyleSheetText": nil,
	"DOM.enable": nil, "DOM.disable": nil, "DOM.getDocument": nil, "DOM.resolveNode": nil,
	"DOM.pushNodeByPathToFrontend": nil, "DOM.pushNodesByBackendIdsToFrontend": nil,
	"DOMDebugger.getEventListeners": nil,
	"DOMSnapshot.enable":            nil, "DOMSnapshot.disable": nil, "DOMSnapshot.captureSnapshot": nil,
	"Debugger.enable": nil, "Debugger.disable": nil, "Debugger.getScriptSource": nil, "Debugger.resume": nil,
	"Debugger.setAsyncCallStackDepth": nil, "Debugger.setSkipAllPauses": nil,
	"Emulation.setCPUThrottlingRate": nil, "Emulation.setDeviceMetricsOverride": nil,
	"Emulation.setTouchEmulationEnabled": nil, "Emulation.setScriptExecutionDisabled": nil,
	"Log.startViolationsReport": nil, "Log.stopViolationsReport": nil,
	"Network.emulateNetworkConditions": nil, "Network.getResponseBody": nil, "Network.setBlockedURLs": nil,
	"Network.setUserAgentOverride": nil, "Network.setCacheDisabled": nil,
	// robots.txt and source maps: web resources only, read back through
	// the stream each load returns and no other.
	"Network.loadNetworkResource": (*session).load,
	"IO.read":                     (*session).stream,
	"IO.close":                    (*session).stream,
}

// navigation lets Lighthouse load the audited page and the blank page it
// loads first, and nothing else.
func (s *session) navigation(m *inbound) string {
	var p struct {
		URL string `json:"url"`
	}
	json.Unmarshal(m.Params, &p)
	if p.URL == "about:blank" || (p.URL != "" && p.URL == s.e.cfg.AuditURL) {
		return ""
	}
	return "Lighthouse loads only the audited page"
}

// load lets Lighthouse fetch a web resource, and remembers the command so
// that the stream its reply names can be read.
func (s *session) load(m *inbound) string {
	var p struct {
		URL string `json:"url"`
	}
	json.Unmarshal(m.Params, &p)
	if u, err := url.Parse(p.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "only http and https resources are loaded"
	}
	s.mu.Lock()
	s.loads[callKey{m.SessionID, *m.ID}] = true
	s.mu.Unlock()
	return ""
}

// stream lets Lighthouse read a stream a load of its own returned.
func (s *session) stream(m *inbound) string {
	var p struct {
		Handle string `json:"handle"`
	}
	json.Unmarshal(m.Params, &p)
	s.mu.Lock()
	ok := s.streams[p.Handle]
	s.mu.Unlock()
	if !ok {
		return "only the streams of resources Lighthouse loaded are read"
	}
	return ""
}

// callKey names a command of the client's.
type callKey struct {
	sessionID string
	id        uint64
}

// deliver passes a message of the page's sessions to the client, noting
// the stream a reply to Network.loadNetworkResource names first, so that
// the client can read it. It runs on the browser channel's reader.
func (s *session) deliver(msg []byte) {
	s.mu.Lock()
	pending := len(s.loads) > 0
	s.mu.Unlock()
	if pending {
		var r struct {
			ID        *uint64 `json:"id"`
			SessionID string  `json:"sessionId"`
			Result    struct {
				Resource struct {
					Stream string `json:"stream"`
				} `json:"resource"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &r) == nil && r.ID != nil {
			k := callKey{r.SessionID, *r.ID}
			s.mu.Lock()
			if s.loads[k] {
				delete(s.loads, k)
				if h := r.Result.Resource.Stream; h != "" {
					s.streams[h] = true
				}
			}
			s.mu.Unlock()
		}
	}
	s.out.Push(msg)
}
