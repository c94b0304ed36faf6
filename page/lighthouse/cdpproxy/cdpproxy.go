// Package cdpproxy opens a one-time DevTools endpoint on the loopback
// interface that shows one page of tabhive's browser, and nothing else, to
// one outside DevTools client: Lighthouse, which is a Node program and
// attaches to a browser through a WebSocket, while tabhive drives its
// launched Chromium over a pipe and opens no port.
//
// # What a client can reach
//
// The endpoint listens on 127.0.0.1 on a port the kernel picks, for one
// audit. It serves one thing: a WebSocket whose path holds 128 random
// bits, which tabhive hands to the client it starts on that client's
// stdin ([Endpoint.WebSocketURL]). Nothing names it over HTTP: there is
// no /json/version nor /json/list, and every other request gets a 404,
// so a process or a page that knows only the port learns nothing. It
// answers only requests whose Host is 127.0.0.1:PORT or localhost:PORT (a
// page that rebinds a name of its own to 127.0.0.1 sends its own name)
// and that a browser did not make: no Origin header (a browser sends one
// with every cross-origin request and WebSocket handshake from a page)
// nor Fetch Metadata (Sec-Fetch-*, which Chromium sends with every
// navigation and load to 127.0.0.1); Node's clients send neither. So a
// page, one of tabhive's browser included, gets a refusal. The first WebSocket connection is the only one: the
// listener closes as it is accepted.
//
// The client talks to a browser that this package makes up, not to
// Chromium's: its browser-level Target domain knows one tab and the page
// in it (the audited page, with its real target id, URL and browser
// context), "creates" that page when asked for a new one and "closes" it
// by detaching. Only sessions on the page, and the ones Chrome attaches
// under them (its iframes and workers), reach Chromium, through a
// [cdpconn.Relay]; on them only an allow-list of commands passes, those
// Lighthouse sends (session.go's refused): no files, downloads, cookies,
// storage, request interception, other targets or browser-wide commands.
// Every session the client had is detached when the endpoint closes.
//
// # Which ports are endpoints
//
// [OpenPorts] lists the ports of the endpoints open in the process, so
// that the URL policy refuses them to every page of tabhive's browser
// (urlpolicy.Policy.Endpoints): the code that opens endpoints owns the
// list and publishes it whole, an immutable slice behind an atomic
// pointer, replaced (compare-and-swap) as an endpoint opens and after its
// listener closes; readers never wait.
package cdpproxy

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/mailbox"
)

// Page is the target the endpoint shows.
type Page struct {
	TargetID         string
	URL              string
	Title            string
	BrowserContextID string
}

// Relay carries the messages of the client's sessions to the browser and
// back ([cdpconn.Relay] is one).
type Relay interface {
	// Attach attaches a session to the target and relays it.
	Attach(ctx context.Context, targetID string) (string, error)
	// Send sends a command on a relayed session; its reply comes back
	// numbered id.
	Send(sessionID string, id uint64, method string, params json.RawMessage) error
	// Owns reports whether a session is relayed.
	Owns(sessionID string) bool
	// Close stops relaying and detaches the relay's sessions.
	Close()
}

// Config says what an endpoint shows and how it reaches the browser.
type Config struct {
	Page Page
	// AuditURL is the one URL besides about:blank the client may load in
	// the page (Page.navigate).
	AuditURL string
	// NewRelay returns a relay whose sessions' messages go to deliver,
	// which does not block.
	NewRelay func(deliver func(msg []byte)) Relay
	// Version answers Browser.getVersion on the browser's session.
	Version func(ctx context.Context) (json.RawMessage, error)
	Logger  zerolog.Logger
}

// Endpoint is one open endpoint.
type Endpoint struct {
	cfg    Config
	ln     net.Listener
	srv    *http.Server
	port   int
	secret string
	ctx    context.Context // ends when the endpoint closes
	cancel context.CancelFunc

	taken atomic.Bool   // the one WebSocket was accepted
	done  chan struct{} // closed when the client's connection is over
	// connected is closed when the client's WebSocket is accepted.
	connected chan struct{}

	mu   sync.Mutex // guards conn and closed
	conn *websocket.Conn
	// closed is set by Close.
	closed bool

	wg sync.WaitGroup // the server's and the connection's goroutines
}

// maxMessage bounds one message from the client. Lighthouse's biggest are
// the scripts it adds to each document, well under a megabyte.
const maxMessage = 16 << 20

// Open listens on 127.0.0.1 on a free port and serves until Close. ctx
// bounds the whole endpoint: when it ends the endpoint closes.
func Open(ctx context.Context, cfg Config) (*Endpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("open a loopback DevTools endpoint: %w", err)
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		ln.Close()
		return nil, fmt.Errorf("open a loopback DevTools endpoint: %w", err)
	}
	ectx, cancel := context.WithCancel(ctx)
	e := &Endpoint{
		cfg: cfg, ln: ln, port: ln.Addr().(*net.TCPAddr).Port, secret: hex.EncodeToString(raw[:]),
		ctx: ectx, cancel: cancel, done: make(chan struct{}), connected: make(chan struct{}),
	}
	e.srv = &http.Server{Handler: http.HandlerFunc(e.serveHTTP), ReadHeaderTimeout: 10 * time.Second,
		// Refused handshakes are the point, not news for stderr.
		ErrorLog: log.New(io.Discard, "", 0)}
	// Listed before it serves anything: no page may load it from now on.
	publishPorts(func(old []int) []int { return append(slices.Clip(old), e.port) })
	e.wg.Add(2)
	go func() { defer e.wg.Done(); e.srv.Serve(ln) }() // ends on Close
	go func() {                                        // ends the endpoint with its context
		defer e.wg.Done()
		<-ectx.Done()
		e.shutdown()
	}()
	return e, nil
}

// openPorts holds the ports of the open endpoints: see [OpenPorts].
var openPorts atomic.Pointer[[]int]

// OpenPorts returns the ports on 127.0.0.1 of the endpoints open in this
// process: from before an endpoint accepts anything until after its
// listener is closed. The slice is shared and must not be modified. Safe
// for concurrent use; it never waits.
func OpenPorts() []int {
	if p := openPorts.Load(); p != nil {
		return *p
	}
	return nil
}

// publishPorts replaces the open ports with change's copy of them.
func publishPorts(change func(old []int) []int) {
	for {
		old := openPorts.Load()
		var cur []int
		if old != nil {
			cur = *old
		}
		next := change(cur)
		if openPorts.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Port returns the endpoint's TCP port.
func (e *Endpoint) Port() int { return e.port }

// WebSocketURL returns the URL of the endpoint's one WebSocket, secret
// included: only for the client tabhive starts, never for a page or a
// command line.
func (e *Endpoint) WebSocketURL() string {
	return fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/%s", e.port, e.secret)
}

// Done is closed when the client's connection is over (or the endpoint
// closed before one came).
func (e *Endpoint) Done() <-chan struct{} { return e.done }

// Close closes the listener, the client's connection and every session
// it had, and waits for the endpoint's goroutines.
func (e *Endpoint) Close() {
	e.cancel()
	e.wg.Wait()
}

// shutdown does Close's work; the context's watcher runs it.
func (e *Endpoint) shutdown() {
	e.mu.Lock()
	e.closed = true
	conn := e.conn
	e.mu.Unlock()
	e.srv.Close() // closes the listener and any connection not upgraded
	publishPorts(func(old []int) []int {
		return slices.DeleteFunc(slices.Clone(old), func(p int) bool { return p == e.port })
	})
	if conn != nil {
		conn.Close() // ends the connection's reader, which closes done
	} else if e.taken.CompareAndSwap(false, true) {
		close(e.done)
	}
}

// hostAllowed reports whether a request names this endpoint as its host:
// a page that rebinds a name of its own to 127.0.0.1 sends that name.
func (e *Endpoint) hostAllowed(host string) bool {
	p := strconv.Itoa(e.port)
	return host == "127.0.0.1:"+p || host == "localhost:"+p
}

func (e *Endpoint) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !e.hostAllowed(r.Host) {
		http.Error(w, "wrong host", http.StatusForbidden)
		return
	}
	if fromBrowser(r) {
		http.Error(w, "requests from web pages are refused", http.StatusForbidden)
		return
	}
	// Nothing is served but the WebSocket itself: its URL, secret
	// included, goes to the client tabhive starts on its stdin
	// ([Endpoint.WebSocketURL]), never over HTTP (no /json/version).
	path := strings.TrimSuffix(r.URL.Path, "/")
	got, ok := strings.CutPrefix(path, "/devtools/browser/")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(e.secret)) != 1 {
		http.NotFound(w, r)
		return
	}
	e.upgrade(w, r)
}

// fromBrowser reports whether a browser made the request: it carries an
// Origin (every cross-origin request and WebSocket handshake a page
// makes) or Fetch Metadata (Sec-Fetch-*, which Chromium sends with every
// request to a potentially trustworthy URL, as 127.0.0.1 and localhost
// are: navigations and loads a page cannot add an Origin to). Node's
// clients send neither. So no page of any browser, tabhive's own
// included, gets more than a refusal from the endpoint.
func fromBrowser(r *http.Request) bool {
	if _, ok := r.Header["Origin"]; ok {
		return true
	}
	for k := range r.Header {
		if strings.HasPrefix(k, "Sec-Fetch-") {
			return true
		}
	}
	return false
}

// upgrade accepts the one WebSocket connection and stops listening.
func (e *Endpoint) upgrade(w http.ResponseWriter, r *http.Request) {
	if !e.taken.CompareAndSwap(false, true) {
		http.Error(w, "this endpoint already has its client", http.StatusConflict)
		return
	}
	e.ln.Close() // no second connection, not even a TCP one
	up := websocket.Upgrader{
		CheckOrigin: func(r *http.Request) bool { return !fromBrowser(r) },
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		close(e.done)
		return
	}
	conn.SetReadLimit(maxMessage)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		conn.Close()
		close(e.done)
		return
	}
	e.conn = conn
	// Added while shutdown cannot have run: Close's Wait then counts it.
	e.wg.Add(1)
	e.mu.Unlock()
	close(e.connected)
	go func() { // ends when the connection closes
		defer e.wg.Done()
		defer close(e.done)
		s := newSession(e, conn)
		s.run()
	}()
}

// Connected is closed when the client's WebSocket is accepted.
func (e *Endpoint) Connected() <-chan struct{} { return e.connected }

// errClosed ends a session whose endpoint closed.
var errClosed = errors.New("endpoint closed")

// newQueue returns an unbounded outbox, so that the browser channel's
// reader never waits on the client.
func newQueue() *mailbox.Queue[[]byte] { return mailbox.NewQueue[[]byte](0, make(chan struct{}, 1)) }
