// Package transporttest builds tabhive servers and connected MCP clients
// for tests, over both transports: in process (what stdio carries, without
// the pipe) and streamable HTTP. Like net/http/httptest it is for tests
// only; everything it starts is stopped by t.Cleanup.
//
// A server of its own, on a browser of its own, with two clients:
//
//	srv := transporttest.Start(t, transporttest.Options{Config: transport.Config{IsolateSessions: true}})
//	a, b := srv.Connect(t), srv.Connect(t)
//	text := transporttest.Must(t, a, "list_pages", nil)
//
// A test binary that shares one server among its tests passes it as
// [Options.Server]; one that shares a browser passes it as
// [Options.Browser]. Clients of a command, such as the tabhive binary
// started by its own tests, connect with [Dial].
package transporttest

import (
	"context"
	"maps"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/mcptext"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
)

// CallTimeout bounds each connection and call the helpers make: longer
// than any call of the tests takes (the longest, a navigation held 21 s
// under Slow 3G, takes about 25 s), so that a hang fails the test instead
// of stalling the binary until go test's own timeout.
const CallTimeout = 60 * time.Second

// rootsProtocol is the protocol version a client declaring roots speaks.
// Roots are a feature of versions before 2026-07-28, which deprecates
// them; today's clients (Claude Code, VS Code) speak those.
const rootsProtocol = "2025-11-25"

// Options say how [Start] builds a server and how its clients connect. The
// zero value is a server with default settings, on a browser of its own,
// that clients reach in process.
type Options struct {
	// Server, if set, is the server to serve; Config and Browser are then
	// unused, and the caller closes it. If nil, Start makes one from
	// Config and closes it when the test ends.
	Server *transport.Server
	// Config configures the server Start makes.
	Config transport.Config
	// Browser is the supervisor the server Start makes drives; the caller
	// closes it. If nil, the server gets a supervisor of its own on a
	// headless, isolated Chromium (see [Browser]), closed when the test
	// ends.
	Browser *browser.Supervisor
	// HTTP, if set, serves the server over streamable HTTP, through
	// [httpserve.Server.HTTPServer] with this configuration (its Addr is
	// set to the test listener's), and clients connect through it. If
	// nil, clients connect in process.
	HTTP *httpserve.Config
	// Roots, if not nil (even empty), makes each client declare the roots
	// capability and these directories as its roots.
	Roots []string
}

// Server is a tabhive server serving one test, and how its clients reach
// it.
type Server struct {
	// Server is the MCP server.
	Server *transport.Server
	// Browser is the supervisor it drives; nil when [Options.Server] was
	// given.
	Browser *browser.Supervisor
	// URL is the MCP endpoint, http://127.0.0.1:PORT/mcp, when served
	// over HTTP; empty otherwise.
	URL string
	// Addr is the HTTP listener's address, 127.0.0.1:PORT, when served
	// over HTTP; empty otherwise.
	Addr string

	roots []string
}

// Start builds the server opts describe, serves it over HTTP if opts says
// so, and stops all it started when the test ends: clients first (each
// connected by [Server.Connect] registers its own cleanup, which runs
// before these), then the HTTP server, the MCP server and the browser.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{Server: opts.Server, roots: opts.Roots}
	if s.Server == nil {
		s.Browser = opts.Browser
		if s.Browser == nil {
			s.Browser = Browser(t, browser.Config{})
		}
		s.Server = transport.New(opts.Config, s.Browser)
		t.Cleanup(s.Server.Close)
	}
	if opts.HTTP != nil {
		cfg := *opts.HTTP
		ts := httptest.NewUnstartedServer(nil)
		cfg.Addr = ts.Listener.Addr().String()
		// The production http.Server, with its read and idle bounds;
		// httptest only listens and, on Close, waits for the requests
		// under way.
		ts.Config = httpserve.New(s.Server, cfg).HTTPServer()
		ts.Start()
		t.Cleanup(ts.Close)
		s.Addr = cfg.Addr
		s.URL = ts.URL + httpserve.Path
	}
	return s
}

// Browser returns a supervisor of its own for the test, on a headless,
// isolated Chromium unless cfg names an executable, and closes it when the
// test ends. It does not start the browser: the first call that needs a
// page does. Without an executable in cfg it skips the test under -short.
func Browser(t testing.TB, cfg browser.Config) *browser.Supervisor {
	t.Helper()
	if cfg.ExecutablePath == "" {
		cfg.ExecutablePath = browsertest.Executable(t)
		cfg.Headless, cfg.Isolated = true, true
	}
	sup := browser.New(cfg)
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close supervisor: %v", err)
		}
	})
	return sup
}

// NoBrowser returns a supervisor whose browser cannot start, for a server
// whose tools under test must never need one (they read files).
func NoBrowser(t testing.TB) *browser.Supervisor {
	t.Helper()
	sup := browser.New(browser.Config{ExecutablePath: filepath.Join(t.TempDir(), "no-such-chromium")})
	t.Cleanup(func() { sup.Close() })
	return sup
}

// Connect connects a new client to the server and closes it when the test
// ends.
func (s *Server) Connect(t testing.TB) *mcp.ClientSession {
	t.Helper()
	_, cs := s.Client(t)
	return cs
}

// Client is [Server.Connect] that also returns the client, for a test that
// changes the client's roots while it is connected.
func (s *Server) Client(t testing.TB) (*mcp.Client, *mcp.ClientSession) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	var opts *mcp.ClientSessionOptions
	if s.roots != nil {
		for _, r := range s.roots {
			c.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: r}).String()})
		}
		opts = &mcp.ClientSessionOptions{ProtocolVersion: rootsProtocol}
	}
	if s.URL != "" {
		return c, DialClient(t, c, &mcp.StreamableClientTransport{Endpoint: s.URL}, opts)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Server.MCP().Connect(Context(t), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return c, DialClient(t, c, ct, opts)
}

// Dial connects a new client over tr, a transport to a server the test
// started some other way (a command, an HTTP endpoint), and closes it when
// the test ends.
func Dial(t testing.TB, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	return DialClient(t, mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil), tr, nil)
}

// DialClient connects c over tr with opts and closes the session when the
// test ends.
func DialClient(t testing.TB, c *mcp.Client, tr mcp.Transport, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(Context(t), tr, opts)
	if err != nil {
		t.Fatalf("connect an MCP client: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Context returns a context for one step of a test: it ends after
// [CallTimeout], or when the test does.
func Context(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), CallTimeout)
	t.Cleanup(cancel)
	return c
}

// LoadTimeout is the navigation timeout, in ms, [Call] gives new_page and
// navigate_page when the test names none (a test of the default budget
// names 0, which means the default). The default 10 s (a 20 s budget) is
// what an agent gets, and enough on a quiet machine; at load 17 on 2
// cores a page of a few hundred kilobytes took longer to load. A budget
// of 50 s stays within [CallTimeout].
const LoadTimeout = 40000

// withLoadTimeout returns args with "timeout": [LoadTimeout] added for a
// navigation that names no timeout; args itself is left as it was.
func withLoadTimeout(name string, args map[string]any) map[string]any {
	if name != "new_page" && name != "navigate_page" {
		return args
	}
	if _, ok := args["timeout"]; ok {
		return args
	}
	out := maps.Clone(args)
	if out == nil {
		out = map[string]any{}
	}
	out["timeout"] = LoadTimeout
	return out
}

// Call calls a tool and returns the text of its reply and whether the
// reply is an error. A protocol error fails the test. A navigation that
// names no timeout is given [LoadTimeout].
func Call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	return CallIn(t, Context(t), cs, name, args)
}

// CallIn is [Call] under ctx, for a call that must answer before ctx's
// deadline rather than wait out a budget of its own (on a paused renderer,
// say): it fails the test if ctx ends first. The deadline is the event the
// test watches, instead of a time it measures.
func CallIn(t testing.TB, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: withLoadTimeout(name, args)})
	if ctx.Err() != nil {
		t.Fatalf("%s(%v): no reply before the deadline (%v)", name, args, err)
	}
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return Text(res), res.IsError
}

// Must calls a tool that must succeed and returns the text of its reply.
func Must(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	return MustIn(t, Context(t), cs, name, args)
}

// MustIn is [Must] under ctx, as [CallIn] is [Call].
func MustIn(t testing.TB, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	text, isErr := CallIn(t, ctx, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed:\n%s", name, args, text)
	}
	return text
}

// Until calls a tool until its text satisfies cond, for pages whose
// activity outlives their load; it fails the test, with the last reply,
// after [testwait.Timeout].
func Until(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, cond func(string) bool) string {
	t.Helper()
	var text string
	if !testwait.Poll(testwait.Timeout, func() bool { text = Must(t, cs, name, args); return cond(text) }) {
		t.Fatalf("%s(%v) never satisfied the condition; last reply:\n%s", name, args, text)
	}
	return text
}

// Text returns the text of a reply: its text contents, joined.
func Text(res *mcp.CallToolResult) string { return mcptext.Of(res) }

// OpenPage opens url in a new page and returns its id; the page is closed
// when the test ends.
func OpenPage(t testing.TB, cs *mcp.ClientSession, url string) int {
	t.Helper()
	// A load budget a loaded machine meets (45 s and the tool's overhead,
	// within the helper's minute): at load 20, with another test's page of
	// 100,000 widgets in the shared browser, the default 10 s ran out.
	return OpenPageWithin(t, cs, url, 45000)
}

// OpenPageWithin is [OpenPage] with new_page's navigation timeout, in ms,
// for a page that takes long to load.
func OpenPageWithin(t testing.TB, cs *mcp.ClientSession, url string, timeoutMS int) int {
	t.Helper()
	text := Must(t, cs, "new_page", map[string]any{"url": url, "timeout": timeoutMS})
	m := regexp.MustCompile(`(?m)^(\d+): .*\(` + regexp.QuoteMeta(url) + `\) \[selected\]$`).FindStringSubmatch(text)
	if m == nil {
		m = regexp.MustCompile(`(?m)^(\d+): ` + regexp.QuoteMeta(url) + ` \[selected\]$`).FindStringSubmatch(text)
	}
	if m == nil {
		t.Fatalf("new_page(%s) did not list the new page as selected:\n%s", url, text)
	}
	id, _ := strconv.Atoi(m[1])
	t.Cleanup(func() {
		Call(t, cs, "close_page", map[string]any{"pageId": id})
	})
	return id
}

// OneSentence checks that a tool's refusal is one line, names nothing of
// Go's internals, and holds want.
func OneSentence(t testing.TB, what, text string, isErr bool, want string) {
	t.Helper()
	if !isErr {
		t.Errorf("%s: not an error:\n%s", what, text)
	}
	if strings.Contains(text, "\n") || strings.Contains(text, "goroutine") || strings.Contains(text, ".go:") {
		t.Errorf("%s: want one sentence, got:\n%s", what, text)
	}
	if !strings.Contains(text, want) {
		t.Errorf("%s: got %q, want it to say %q", what, text, want)
	}
}

// UIDOf returns the uid of the snapshot's node of role and name, failing
// the test if there is none.
func UIDOf(t testing.TB, snapshot, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(`uid=(\S+) ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no %s %q in:\n%s", role, name, snapshot)
	}
	return m[1]
}

// ToolNames lists the server's tools by name, in tools/list's order.
func ToolNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(res.Tools))
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}
