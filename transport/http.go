package transport

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPConfig configures the streamable HTTP endpoint. The zero value of each
// field means its documented default.
type HTTPConfig struct {
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
	// SessionTimeout closes sessions idle this long. If zero, 30 minutes.
	SessionTimeout time.Duration
	// MaxSessions refuses new sessions while this many are open; 0 means no
	// limit.
	MaxSessions int
}

// HTTPPath is where the MCP endpoint is served.
const HTTPPath = "/mcp"

// HTTPHandler returns the streamable HTTP handler: MCP at /mcp, one MCP
// session per Mcp-Session-Id, each with its own selected page.
func (s *Server) HTTPHandler(cfg HTTPConfig) http.Handler {
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = 30 * time.Minute
	}
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: cfg.SessionTimeout})
	hosts := allowedHosts(cfg.Addr, cfg.AllowedHosts)
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, streamable)
	mux.Handle("/metrics", s.metrics.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "tabhive MCP server: point your MCP client at http://%s%s\n", r.Host, HTTPPath)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, hosts) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not allowed. Start tabhive with --allowed-hosts %s to accept it.", r.Host, r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, hosts, cfg.AllowedOrigins) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed. Start tabhive with --allowed-origins %s to accept it.", o, o), http.StatusForbidden)
			return
		}
		if cfg.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(cfg.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="tabhive"`)
				http.Error(w, "Unauthorized: send the token given to tabhive's --auth-token as \"Authorization: Bearer <token>\".", http.StatusUnauthorized)
				return
			}
		}
		if cfg.MaxSessions > 0 && r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && s.sessionCount() >= cfg.MaxSessions {
			http.Error(w, fmt.Sprintf("Service Unavailable: tabhive already serves %d sessions, the most allowed (--max-sessions). End one (DELETE %s with its Mcp-Session-Id) or wait for an idle one to time out.", cfg.MaxSessions, HTTPPath), http.StatusServiceUnavailable)
			return
		}
		mux.ServeHTTP(w, r)
	})
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
