package browsing

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/launch"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// browserService stands for a browser service on another machine: it
// answers the browser WebSocket at a fixed address, only with the right
// token, and passes the connection on to whichever Chromium it currently
// runs (a second one started by the test on its own DevTools port).
type browserService struct {
	srv      *httptest.Server
	backend  atomic.Pointer[url.URL] // the current Chromium's browser WebSocket, as http://
	accepted atomic.Int64            // connections passed on
}

const serviceToken = "Bearer 7h1s-is-the-t0ken"

func newBrowserService(t *testing.T) *browserService {
	bs := &browserService{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		u := *bs.backend.Load()
		r.Out.URL = &u
		r.Out.Host = u.Host // Chromium answers only an IP or localhost Host
	}}
	bs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != serviceToken {
			http.Error(w, "no such token", http.StatusUnauthorized)
			return
		}
		if bs.backend.Load() == nil {
			http.Error(w, "no browser", http.StatusBadGateway)
			return
		}
		bs.accepted.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(bs.srv.Close)
	return bs
}

// endpoint is the service's browser WebSocket URL.
func (bs *browserService) endpoint() string {
	return "ws" + strings.TrimPrefix(bs.srv.URL, "http") + "/devtools/browser/service"
}

// start starts a Chromium for the service to pass connections on to.
func (bs *browserService) start(t *testing.T) *launch.Process {
	t.Helper()
	exe := browsertest.Executable(t)
	proc, err := launch.Start(transporttest.Context(t), launch.Options{ExecutablePath: exe, Headless: true, DebuggingPort: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	u, err := url.Parse(proc.WebSocketURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Scheme = "http"
	bs.backend.Store(u)
	return proc
}

// TestRemoteBrowserThroughBinary: --ws-endpoint with --wsHeaders reaches a
// browser behind a service that wants a token; when that browser goes
// away, calls fail at once saying so, and tabhive connects again on its
// own, with no call or probe asking, once the service has a browser again.
func TestRemoteBrowserThroughBinary(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Remote", "<p>served</p>")).URL
	bs := newBrowserService(t)
	first := bs.start(t)

	// The test's command has launch flags; a connected tabhive has none.
	cmd := []string{"--ws-endpoint", bs.endpoint(), "--wsHeaders", `{"Authorization":"` + serviceToken + `"}`}
	in := tabhivetest.StartHTTPConnected(t, cmd...)
	cs := in.Client(nil)
	if got := transporttest.Must(t, cs, "new_page", map[string]any{"url": site + "/"}); !strings.Contains(got, "Remote ("+site+"/) [selected]") {
		t.Fatalf("new_page on the remote browser: %q", got)
	}
	if n := bs.accepted.Load(); n != 1 {
		t.Errorf("the service passed on %d connections, want 1", n)
	}
	if got := in.Metric("tabhive_browser_connected"); got != 1 {
		t.Errorf("tabhive_browser_connected = %v, want 1", got)
	}

	// The browser goes away; the service has none for a while.
	bs.backend.Store(nil)
	first.Close()
	testwait.Until(t, "tabhive to notice the browser is gone", func() bool { return in.Metric("tabhive_browser_connected") == 0 })
	// A call made while no browser is there fails at once, saying why and
	// when tabhive tries again. The first few may still meet the old
	// connection going away; on a loaded machine, give it a minute and a
	// half, and say what the last call answered.
	var last string
	if !testwait.Poll(90*time.Second, func() bool {
		got, isErr := transporttest.Call(t, cs, "list_pages", nil)
		last = got
		return isErr && strings.Contains(got, "answered 502 Bad Gateway") && strings.Contains(got, "tabhive connects again in")
	}) {
		t.Fatalf("no call said when tabhive connects again; the last answered %q", last)
	}

	// A browser again: tabhive connects by itself.
	bs.start(t)
	testwait.Until(t, "tabhive to connect again on its own", func() bool { return in.Metric("tabhive_browser_connected") == 1 })
	if got := transporttest.Must(t, cs, "list_pages", nil); !strings.Contains(got, "Note: the browser was restarted or reconnected since the last call.") {
		t.Errorf("first call after reconnecting: %q, want the reconnect notice", got)
	}

	// The wrong token is refused, and the reply says how.
	bad := tabhivetest.StartHTTPConnected(t, "--ws-endpoint", bs.endpoint(), "--ws-headers", `{"Authorization":"Bearer wrong"}`)
	if got, isErr := transporttest.Call(t, bad.Client(nil), "list_pages", nil); !isErr || !strings.Contains(got, "the endpoint answered 401 Unauthorized") {
		t.Errorf("list_pages with the wrong token: %v %q", isErr, got)
	}
}
