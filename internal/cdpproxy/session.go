package cdpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabhive/tabhive/internal/queue"
)

// session is the client's connection: the made-up browser's Target
// domain, and the relay for the page's real sessions.
type session struct {
	e     *Endpoint
	conn  *websocket.Conn
	out   *queue.Queue[[]byte]
	relay Relay

	// Owned by run's goroutine.
	tabID, tabSession string
	tabAttached       bool // the tab's session was announced
	// underTab is the page session announced on the tab's session, if
	// any; rootPage are the page sessions attached from the browser's.
	underTab string
	rootPage map[string]bool
	closed   bool // the page was "closed"
}

// callTimeout bounds the proxy's own calls to the browser.
const callTimeout = 30 * time.Second

func newSession(e *Endpoint, conn *websocket.Conn) *session {
	s := &session{e: e, conn: conn, out: newQueue(), rootPage: map[string]bool{}}
	// The made-up tab gets ids of its own, unlike Chrome's, so that no
	// client confuses them with a real target.
	s.tabID = "TABHIVE-TAB-" + e.secret[:16]
	s.tabSession = "TABHIVE-TAB-SESSION-" + e.secret[16:]
	s.relay = e.cfg.NewRelay(func(msg []byte) { s.out.Push(msg) })
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
		if why := refused(m); why != "" {
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
// relayed, or "" if it is: the client may drive the page and what runs in
// it, not reach other targets or the browser, nor end what the agent owns
// (its tab, its logged-in state).
func refused(m *inbound) string {
	domain, _, _ := strings.Cut(m.Method, ".")
	switch domain {
	case "Target":
		switch m.Method {
		case "Target.setAutoAttach", "Target.detachFromTarget":
			return "" // the page's own iframes and workers
		case "Target.getTargetInfo":
			if id, _ := targetParams(m); id == "" {
				return ""
			}
			return "only the session's own target is shown"
		}
		return "it reaches beyond the audited page"
	case "Browser":
		if m.Method == "Browser.getVersion" {
			return ""
		}
		return "it reaches beyond the audited page"
	case "Tethering", "SystemInfo", "Extensions", "PWA":
		return "it reaches beyond the audited page"
	}
	switch m.Method {
	case "Page.close", "Page.crash":
		return "the tab belongs to the agent"
	case "Network.clearBrowserCookies", "Network.clearBrowserCache", "Storage.clearDataForOrigin",
		"Storage.clearDataForStorageKey", "Storage.clearCookies":
		return "the agent's logged-in state and caches are kept"
	}
	return ""
}
