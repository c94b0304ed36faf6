// Package httpserve serves tabhive's MCP server over streamable HTTP: the
// endpoint at /mcp and what guards it (Host and Origin checks, bearer
// tokens bound to the sessions they made, --max-sessions and
// --max-connections, request read bounds, JSON-RPC batches), routing of
// sessions between instances, /healthz, /readyz and the drain on
// shutdown, and /metrics.
//
// It knows the MCP server only through [Core]: the SDK's server, and a few
// calls for what the HTTP side must tell it or ask of it.
//
// Goroutines: one per HTTP session it made, started when the response to
// initialize names the session and ended when the session ends (a DELETE,
// its idle timeout, or the MCP server's Close, which ends every session);
// [Server.Wait] waits for them. The http.Server's own goroutines belong to
// whoever serves it. Time.AfterFunc timers close pre-auth connections
// (connlimit.go); promoting or closing a connection stops its timer.
package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
)

// Core is what the HTTP layer needs of the MCP server it serves.
type Core interface {
	// MCP returns the SDK's server: the HTTP layer serves it, finds its
	// sessions by id, and reads the revision each negotiated.
	MCP() *mcp.Server
	// RemoteSessionOpened tells the server that ss was made over HTTP, as
	// soon as the response to its initialize names it: its client is on
	// another machine.
	RemoteSessionOpened(ss *mcp.ServerSession)
	// BrowserReadiness returns "" when the browser is connected, else why
	// not, in a few words for /readyz; asking starts the browser in the
	// background if no start is under way.
	BrowserReadiness() string
	// MetricsGatherer returns the metrics /metrics serves.
	MetricsGatherer() prometheus.Gatherer
}

// Config configures the streamable HTTP endpoint. The zero value of each
// field means its documented default.
type Config struct {
	// Addr is the address the server listens on, host:port, as bound (the
	// real port when 0 was asked for). Host headers naming it are allowed.
	Addr string
	// AllowedHosts are further Host header values to accept, host or
	// host:port ("*" accepts any). Requests naming another host are refused:
	// the DNS-rebinding defence.
	AllowedHosts []string
	// AllowedOrigins are browser origins allowed to call, such as
	// http://localhost:3000 ("*" accepts any). Requests without an Origin
	// header (every non-browser MCP client) are not affected.
	AllowedOrigins []string
	// Token, if set, must be sent as "Authorization: Bearer <token>".
	Token string
	// Tokens are further tokens accepted as Token is, one per client
	// (--auth-tokens-file). A session is bound to the token that made it:
	// a request naming it with any other token is answered as if it did
	// not exist.
	Tokens []string
	// SessionTimeout closes sessions idle this long. If zero, 30 minutes.
	SessionTimeout time.Duration
	// MaxSessions refuses new sessions while this many are open; 0 means no
	// limit. A session counts from the initialize request that creates it,
	// whether or not the client goes on to send initialized, until it ends
	// (DELETE, idle timeout, server shutdown).
	MaxSessions int
	// ReadTimeout bounds reading a request, headers and body, from the
	// first byte; a client that sends slower has its connection closed. The
	// response is not bounded: net/http lifts the read deadline once the
	// body has been read, so a tool call's reply or a stream of
	// notifications may take as long as it needs. If zero, 30s.
	ReadTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that carries no request
	// for this long. If zero, 2 minutes.
	IdleTimeout time.Duration
	// MaxConnections is the most connections open at once; 0 means no
	// limit. [Server.HTTPServer] cannot see the listener: pass the
	// listener through [LimitListener] with this value.
	MaxConnections int
	// InstanceID is this instance's name (--instance-id), the start of
	// every session id it makes (see [SessionIDs] and routing.go); the
	// refusals of a request for another instance's session name both.
	// Check it with [CheckInstanceID].
	InstanceID string
	// Logger receives the drain's progress.
	Logger zerolog.Logger
}

// Server serves one MCP server over streamable HTTP. Its methods are safe
// for concurrent use.
type Server struct {
	cfg      Config
	core     Core
	slots    sessionSlots
	known    sync.Map       // ids of the HTTP sessions open here → the token that made each
	gate     drainGate      // requests in flight, and the drain (health.go)
	watchers sync.WaitGroup // one per session in known, ends with it
}

// New returns the HTTP side of core, configured by cfg.
func New(core Core, cfg Config) *Server {
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = defaultSessionTimeout
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = defaultReadTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = defaultIdleTimeout
	}
	return &Server{cfg: cfg, core: core, slots: sessionSlots{max: cfg.MaxSessions}}
}

// Wait waits until the bookkeeping of every session this server made has
// finished; it returns once those sessions have ended (the MCP server's
// Close ends them all).
func (s *Server) Wait() { s.watchers.Wait() }

// Defaults of [Config]'s zero fields.
const (
	defaultSessionTimeout    = 30 * time.Minute
	defaultReadTimeout       = 30 * time.Second
	defaultReadHeaderTimeout = 10 * time.Second
	defaultIdleTimeout       = 2 * time.Minute
)

// Path is where the MCP endpoint is served.
const Path = "/mcp"

// HTTPServer returns an http.Server for [Server.Handler] with the
// configuration's bounds on reading requests and on idle connections. It
// sets no write timeout: streamable HTTP answers a tool call, and sends
// notifications, on responses that live as long as the call or the
// session.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: min(defaultReadHeaderTimeout, s.cfg.ReadTimeout),
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ConnContext:       connContext,
	}
}

// Handler returns the streamable HTTP handler: MCP at /mcp, one MCP
// session per Mcp-Session-Id, each with its own selected page. Make one
// handler per Server: the session slots and the drain are the Server's.
func (s *Server) Handler() http.Handler {
	cfg := s.cfg
	slots := &s.slots
	mcpServer := s.core.MCP()
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer },
		&mcp.StreamableHTTPOptions{
			SessionTimeout: cfg.SessionTimeout,
			// The handler below checks Host against the listen address,
			// the loopback names and --allowed-hosts; the SDK's own check
			// would refuse every name but loopback ones on a loopback
			// listener, --allowed-hosts included.
			DisableLocalhostProtection: true,
		})
	hosts := allowedHosts(cfg.Addr, cfg.AllowedHosts)
	tokens := hashTokens(cfg.Token, cfg.Tokens)
	mux := http.NewServeMux()
	mux.Handle(Path, streamable)
	mux.Handle("/metrics", promhttp.HandlerFor(s.core.MetricsGatherer(), promhttp.HandlerOpts{}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "tabhive MCP server: point your MCP client at http://%s%s\n", r.Host, Path)
	})
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := closeOnError{rw}
		if !hostAllowed(r.Host, hosts) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not allowed. Start tabhive with --allowed-hosts %s to accept it.", r.Host, r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, hosts, cfg.AllowedOrigins) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed. Start tabhive with --allowed-origins %s to accept it.", o, o), http.StatusForbidden)
			return
		}
		if r.URL.Path == HealthzPath || r.URL.Path == ReadyzPath {
			// Probes carry no token.
			s.health(w, r)
			return
		}
		who := 0 // the token the request proved, or 0 when none is asked
		if len(tokens) > 0 {
			if who = tokenOf(r, tokens); who == 0 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="tabhive"`)
				http.Error(w, "Unauthorized: send the token given to tabhive's --auth-token as \"Authorization: Bearer <token>\".", http.StatusUnauthorized)
				return
			}
		}
		if !authenticate(w, r) {
			return
		}
		if id := r.Header.Get(sessionIDHeader); id != "" && r.URL.Path == Path && !s.sessionOf(id, who) {
			// Another token's session, or none: the same answer either
			// way, so that a holder of one token learns nothing of the
			// sessions another token made.
			s.sessionGone(w, r, id)
			return
		}
		if r.Method == http.MethodPost && r.URL.Path == Path && s.refuseBatch(w, r) {
			return
		}
		if id := r.Header.Get(sessionIDHeader); id != "" && r.URL.Path == Path {
			if !s.knownSession(id) {
				s.sessionGone(w, r, id)
				return
			}
			if r.Method == http.MethodPost {
				// Counted for the drain; once draining, a request (not a
				// notification, nor an answer to the server) is refused.
				refusable := false
				if s.gate.isDraining() {
					m, err := peekMessage(r)
					refusable = err != nil || (m.Method != "" && len(m.ID) > 0)
				}
				if !s.gate.enter(refusable) {
					s.drainingReply(w, r)
					return
				}
				defer s.gate.exit()
			}
		}
		if r.Method == http.MethodPost && r.URL.Path == Path && r.Header.Get(sessionIDHeader) == "" {
			if s.gate.isDraining() {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "Service Unavailable: this tabhive instance is shutting down and takes no new sessions; try again, and the balancer gives the session to another instance.", http.StatusServiceUnavailable)
				return
			}
			// A POST without a session id is how a session is made: it
			// takes a slot before the SDK sees it, so that parallel
			// initializes cannot all pass a count made before any of them
			// is done, and keeps it if a session came of it.
			if !slots.reserve() {
				http.Error(w, fmt.Sprintf("Service Unavailable: tabhive already serves %d sessions, the most allowed (--max-sessions). End one (DELETE %s with its Mcp-Session-Id) or wait for an idle one to time out.", cfg.MaxSessions, Path), http.StatusServiceUnavailable)
				return
			}
			// The slot is settled when the response starts, before the
			// client can read it: a client that sends its next request
			// at once (the SDK's client follows a refused discovery
			// with initialize) must not find this one's slot still taken.
			sw := &slotWriter{ResponseWriter: w, settle: func(h http.Header) { s.holdSlot(h.Get(sessionIDHeader), who, slots.release) }}
			defer sw.settleOnce() // a response never started, or a panic
			mux.ServeHTTP(sw, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// slotWriter settles a session slot when its response starts: kept if the
// response names a new session, given back if not.
type slotWriter struct {
	http.ResponseWriter
	settle func(http.Header)
	once   sync.Once
}

func (w *slotWriter) settleOnce() { w.once.Do(func() { w.settle(w.Header()) }) }

func (w *slotWriter) WriteHeader(code int) {
	w.settleOnce()
	w.ResponseWriter.WriteHeader(code)
}

func (w *slotWriter) Write(b []byte) (int, error) {
	w.settleOnce()
	return w.ResponseWriter.Write(b)
}

// Flush lets the SDK stream through the wrapper.
func (w *slotWriter) Flush() {
	w.settleOnce()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *slotWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sessionIDHeader names the streamable HTTP session a request belongs to.
const sessionIDHeader = "Mcp-Session-Id"

// sessionSlots counts the HTTP sessions that are open or being made, for
// --max-sessions. Its methods are safe for concurrent use.
type sessionSlots struct {
	max int // 0: no limit

	mu sync.Mutex // guards n
	n  int        // slots taken: sessions open, and requests that may make one
}

// reserve takes a slot and reports whether one was free.
func (l *sessionSlots) reserve() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.n >= l.max {
		return false
	}
	l.n++
	return true
}

// count returns the slots taken and the most allowed (0: no limit).
func (l *sessionSlots) count() (n, max int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.max
}

// release frees a slot.
func (l *sessionSlots) release() {
	l.mu.Lock()
	l.n--
	l.mu.Unlock()
}

// holdSlot keeps a session slot taken while the session the response named
// (id, from its Mcp-Session-Id header) is open, and calls release when it
// ends; the session is bound to who, the token that made it (see
// [Server.sessionOf]). If the response named none, or the session has
// ended already (the SDK closes one whose initialize failed before the
// handler returns), release runs at once.
func (s *Server) holdSlot(id string, who int, release func()) {
	var ss *mcp.ServerSession
	if id != "" {
		for c := range s.core.MCP().Sessions() {
			if c.ID() == id {
				ss = c
				break
			}
		}
	}
	if ss == nil {
		release()
		return
	}
	s.core.RemoteSessionOpened(ss) // counted in tabhive_sessions from now, not from its first call
	s.known.Store(id, who)
	s.watchers.Add(1)
	go func() { // ends with the session; the MCP server's Close ends every session
		defer s.watchers.Done()
		ss.Wait()
		s.known.Delete(id)
		release()
	}()
}

// A session is bound to the token that made it. The session id is a
// bearer secret (128 random bits, see sessionIDs) that tabhive logs
// nowhere and no other session is shown; but a client that learns
// another's id (a shared proxy's log, a client's crash report) holds all
// the id gives. With one token per client (--auth-tokens-file), that is
// not enough: a request must also carry the token that made the session,
// or it is answered as if the session did not exist (404), GET streams
// and DELETE included.

// hashTokens returns the SHA-256 of each token the server accepts, token
// first, empty ones left out. Comparing hashes makes every comparison the
// same length.
func hashTokens(token string, more []string) [][sha256.Size]byte {
	var out [][sha256.Size]byte
	for _, t := range append([]string{token}, more...) {
		if t != "" {
			out = append(out, sha256.Sum256([]byte(t)))
		}
	}
	return out
}

// tokenOf returns which of tokens r's bearer token is, counting from 1,
// or 0 if none. Every token is compared, in constant time, whichever
// matches.
func tokenOf(r *http.Request, tokens [][sha256.Size]byte) int {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return 0
	}
	h := sha256.Sum256([]byte(got))
	who := 0
	for i, t := range tokens {
		if subtle.ConstantTimeCompare(h[:], t[:]) == 1 {
			who = i + 1
		}
	}
	return who
}

// sessionOf reports whether the session id is open here and was made with
// the token who (see tokenOf). A session this instance does not hold
// passes: the routing check that follows answers it, naming the instance
// it belongs to.
func (s *Server) sessionOf(id string, who int) bool {
	v, ok := s.known.Load(id)
	return !ok || v == who
}

// ReadTokens reads --auth-tokens-file: one token per line, spaces around
// it ignored, and blank lines and lines starting with # skipped. It says in
// a sentence for the operator what is wrong with a file it cannot use.
func ReadTokens(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--auth-tokens-file: %v", err)
	}
	var tokens []string
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsFunc(line, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return nil, fmt.Errorf("--auth-tokens-file %s, line %d: a token may not hold spaces or control characters; write one token per line", path, n+1)
		}
		if slices.Contains(tokens, line) {
			return nil, fmt.Errorf("--auth-tokens-file %s, line %d: this token is on an earlier line too; give each client a token of its own", path, n+1)
		}
		tokens = append(tokens, line)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("--auth-tokens-file %s holds no token: write one token per line", path)
	}
	return tokens, nil
}

// allowedHosts lists the Host header values the listener answers to: its
// own address, and the loopback names for its port when it is on loopback
// or on every interface.
func allowedHosts(addr string, extra []string) []string {
	hosts := slices.Clone(extra)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return hosts
	}
	hosts = append(hosts, net.JoinHostPort(host, port))
	ip := net.ParseIP(host)
	if host == "localhost" || (ip != nil && (ip.IsLoopback() || ip.IsUnspecified())) {
		hosts = append(hosts, "localhost:"+port, "127.0.0.1:"+port, "[::1]:"+port)
	}
	return hosts
}

func hostAllowed(host string, allowed []string) bool {
	host = strings.ToLower(host)
	for _, a := range allowed {
		a = strings.ToLower(a)
		if a == "*" || a == host {
			return true
		}
		// A bare host name allows it on any port.
		if !strings.Contains(a, ":") || strings.HasPrefix(a, "[") && !strings.Contains(a, "]:") {
			if h, _, err := net.SplitHostPort(host); err == nil && h == strings.Trim(a, "[]") {
				return true
			}
		}
	}
	return false
}

func originAllowed(origin string, hosts, origins []string) bool {
	for _, o := range origins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return hostAllowed(u.Host, hosts)
}
