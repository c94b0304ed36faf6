// Package tabhivetest starts the tabhive command for end-to-end tests and
// talks to it: over stdio through an MCP client, or over streamable HTTP on
// a free port, where [Instance] also sends bare requests and reads
// /metrics. It is for tests only, like net/http/httptest.
//
// The command is one of two programs, chosen once by the test binary's
// TestMain with [Use]: cmd/tabhive's own test binary, which runs tabhive
// when TABHIVE_TEST_MAIN=1 ([Self]), or the tabhive binary built once for
// a test package beside it ([Build]), so that cmd/tabhive's tests can be
// split over several test binaries that each stay within go test's
// default timeout.
//
// Under -short every test that starts the command is skipped, here in
// [Binary]: the fast tier starts no binary and no Chromium.
//
// Goroutines: [Serve] starts one per instance that waits for its process
// to exit; the test's cleanup stops the process ([Instance.Stop]), which
// ends it.
package tabhivetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// ExitWait bounds how long a test waits for the command to exit once told
// to (stdin closed, SIGTERM): a second or two on a quiet machine, but on a
// loaded one a killed Chromium may take seconds to be gone, and the command
// waits for it (launch's killWait). A command that waits for anything else
// (a signal, a session timeout) stays well past it.
const ExitWait = 75 * time.Second

// Program says how to start tabhive: a path, and what to add to the
// environment. It may fail the test (a build that fails).
type Program func(t testing.TB) (path string, env []string)

// program is set once by Use, from TestMain before the tests run, and only
// read after.
var program Program

// Use sets the program the tests of this binary start. Call it from
// TestMain, before m.Run.
func Use(p Program) { program = p }

// Self is the test binary itself, whose TestMain runs tabhive when
// TABHIVE_TEST_MAIN=1: cmd/tabhive's own tests.
func Self(testing.TB) (string, []string) { return os.Args[0], []string{"TABHIVE_TEST_MAIN=1"} }

// built is the binary Build made, once per test binary.
var built struct {
	once sync.Once
	path string
	err  error
}

// Build is cmd/tabhive built once for this test binary, into a directory
// removed by Cleanup, with the race detector when the tests have it.
func Build(t testing.TB) (string, []string) {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "tabhive-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "tabhive")
		args := []string{"build", "-buildvcs=false", "-o", built.path}
		if RaceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "github.com/tabhive/tabhive/cmd/tabhive")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build of cmd/tabhive: %v\n%s", err, bytes.TrimSpace(out))
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path, nil
}

// Cleanup removes what Build made. Call it from TestMain after m.Run.
func Cleanup() {
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
}

// Binary returns the tabhive command with args, logging to the test's
// stderr. It is the one place the tests that start the command are skipped
// under -short.
func Binary(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	if testing.Short() {
		t.Skip(browsertest.SkipMessage)
	}
	path, env := program(t)
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	return cmd
}

// Command returns the tabhive command with a headless, isolated Chromium.
func Command(t testing.TB, extra ...string) *exec.Cmd {
	t.Helper()
	exe := browsertest.Executable(t)
	return Binary(t, append([]string{"--headless", "--isolated", "--executable-path", exe, "--log-level", "warn"}, extra...)...)
}

// Stdio starts the tabhive command (headless, isolated, the tests'
// Chromium) with extra flags over stdio and connects to it.
func Stdio(t testing.TB, extra ...string) *mcp.ClientSession {
	t.Helper()
	return transporttest.Dial(t, &mcp.CommandTransport{Command: Command(t, extra...), TerminateDuration: 30 * time.Second})
}

// PageLoadTimeout is the budget, in milliseconds, the tests give loads of
// the fixture pages, as an agent would on a slow page: they hold resources
// back on purpose, and on a loaded machine their load takes longer than
// navigate_page's default 20 s.
const PageLoadTimeout = 120_000

// SlowCallTimeout bounds a client's wait for a trace call or a Lighthouse
// audit: starting a trace with autoStop may wait a minute for another
// page's trace, then load, settle and save (performance_stop_trace's five
// minutes), longer than one ordinary step of a test.
const SlowCallTimeout = 8 * time.Minute

// SlowCall calls a tool with SlowCallTimeout; it does not fail the test
// itself, so that a goroutine can use it.
func SlowCall(cs *mcp.ClientSession, name string, args map[string]any) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), SlowCallTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, fmt.Errorf("%s(%v): protocol error %v", name, args, err)
	}
	return transporttest.Text(res), res.IsError, nil
}

// Instance is a tabhive command serving streamable HTTP for one test.
type Instance struct {
	T    testing.TB
	Cmd  *exec.Cmd
	URL  string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	Base string // http://127.0.0.1:PORT
	Addr string // 127.0.0.1:PORT
	// Exited receives Wait's result once the process has exited; a
	// receiver that takes it puts it back for the next.
	Exited chan error
}

// StartHTTP starts tabhive with extra flags over HTTP on a free port, waits
// for it to print its URL, and stops it when the test ends: SIGTERM, then
// an error unless it exits, cleanly, within ExitWait.
func StartHTTP(t testing.TB, extra ...string) *Instance {
	t.Helper()
	return Serve(t, Command(t, append([]string{"--http", "127.0.0.1:0"}, extra...)...), extra)
}

// StartHTTPConnected is StartHTTP without the flags that launch a
// browser, for a tabhive that connects to one.
func StartHTTPConnected(t testing.TB, extra ...string) *Instance {
	t.Helper()
	return Serve(t, Binary(t, append([]string{"--log-level", "warn", "--http", "127.0.0.1:0"}, extra...)...), extra)
}

// Serve starts cmd, a tabhive serving HTTP, as StartHTTP says.
func Serve(t testing.TB, cmd *exec.Cmd, extra []string) *Instance {
	t.Helper()
	first := &firstLine{line: make(chan string, 1)}
	cmd.Stdout = first
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &Instance{T: t, Cmd: cmd, Exited: make(chan error, 1)}
	go func() { in.Exited <- cmd.Wait() }() // ends when the process does; Stop makes sure it does
	t.Cleanup(func() {
		if err := in.Stop(); err != nil {
			t.Error(err)
		}
	})
	var line string
	select {
	case line = <-first.line:
	case err := <-in.Exited:
		in.Exited <- err
		t.Fatalf("tabhive %q exited before printing its URL: %v", extra, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("tabhive %q printed no URL within 30s", extra)
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("first line does not give the URL: %q", line)
	}
	in.URL = strings.TrimSpace(line[i:])
	in.Base = strings.TrimSuffix(in.URL, "/mcp")
	in.Addr = strings.TrimPrefix(in.Base, "http://")
	return in
}

// Stop ends the command with SIGTERM (a second call only reports) and
// says if it did not exit cleanly within ExitWait, when it is killed.
func (in *Instance) Stop() error {
	in.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-in.Exited:
		in.Exited <- err // for a later Stop
		if err != nil {
			return fmt.Errorf("tabhive exited with %v after SIGTERM, want status 0", err)
		}
		return nil
	case <-time.After(ExitWait):
		in.Cmd.Process.Kill()
		in.Exited <- <-in.Exited
		return fmt.Errorf("tabhive did not exit within %v of SIGTERM", ExitWait)
	}
}

// Client connects an MCP client over streamable HTTP, sending header with
// each request, and closes it when the test ends.
func (in *Instance) Client(header http.Header) *mcp.ClientSession {
	in.T.Helper()
	return transporttest.Dial(in.T, &mcp.StreamableClientTransport{Endpoint: in.URL, HTTPClient: &http.Client{Transport: withHeader{header}}})
}

// InitializeBody is a bare client's initialize request.
const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bare","version":"0"}}}`

// Post sends an MCP POST with body, and header, and returns the status,
// the Mcp-Session-Id it was given and the body of the answer.
func (in *Instance) Post(body string, header http.Header) (status int, session, answer string) {
	in.T.Helper()
	req, err := http.NewRequest(http.MethodPost, in.URL, strings.NewReader(body))
	if err != nil {
		in.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	return in.Do(req)
}

// Do sends req and returns the status, the Mcp-Session-Id and the body of
// the answer.
func (in *Instance) Do(req *http.Request) (status int, session, answer string) {
	in.T.Helper()
	resp, err := http.DefaultClient.Do(req.WithContext(transporttest.Context(in.T)))
	if err != nil {
		in.T.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// Get sends a GET to the instance's path with header and returns the
// status and body.
func (in *Instance) Get(path string, header http.Header) (int, string) {
	in.T.Helper()
	req, _ := http.NewRequest(http.MethodGet, in.Base+path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	status, _, body := in.Do(req)
	return status, body
}

// Session initializes a bare session speaking revision and returns its id.
func (in *Instance) Session(revision string) string {
	in.T.Helper()
	status, id, answer := in.Post(strings.Replace(InitializeBody, "2025-06-18", revision, 1), nil)
	if status != http.StatusOK || id == "" {
		in.T.Fatalf("initialize %s: %d %q", revision, status, answer)
	}
	h := http.Header{"Mcp-Session-Id": {id}, "Mcp-Protocol-Version": {revision}}
	if status, _, answer := in.Post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); status != http.StatusAccepted {
		in.T.Fatalf("initialized %s: %d %q", revision, status, answer)
	}
	return id
}

// Metric reads a sample of the instance's /metrics.
func (in *Instance) Metric(name string, header ...http.Header) float64 {
	in.T.Helper()
	req, _ := http.NewRequest(http.MethodGet, in.Base+"/metrics", nil)
	for _, h := range header {
		req.Header = h.Clone()
	}
	status, _, body := in.Do(req)
	if status != http.StatusOK {
		in.T.Fatalf("GET /metrics: %d %q", status, body)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		in.T.Fatalf("/metrics has no %s", name)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		in.T.Fatal(err)
	}
	return v
}

// withHeader adds its header to each request.
type withHeader struct{ h http.Header }

func (w withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range w.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// firstLine is a command's stdout that hands on its first line.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	sent bool
	line chan string
}

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.sent {
		f.buf = append(f.buf, p...)
		if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
			f.line <- string(f.buf[:i])
			f.sent = true
		}
	}
	return len(p), nil
}

// WaitClosed waits, as [testwait.Until] does, until done is closed.
func WaitClosed(t testing.TB, what string, done <-chan struct{}) {
	t.Helper()
	testwait.Until(t, what, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}

// A Witness is an HTTP server on every address of the machine (IPv4 and
// IPv6) at one port, which records the requests that reach it, so that
// a test sees which spellings of the machine a browser reached. It stops
// when the test ends.
type Witness struct {
	// Port is the port it listens on.
	Port int

	mu   sync.Mutex
	seen []string // host and request URI of each request
}

// NewWitness starts a witness that answers each request with answer.
func NewWitness(t testing.TB, answer http.HandlerFunc) *Witness {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	w := &Witness{Port: ln.Addr().(*net.TCPAddr).Port}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.seen = append(w.seen, r.Host+r.URL.RequestURI())
		w.mu.Unlock()
		answer(rw, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return w
}

// Seen returns the host and request URI of each request that reached w
// so far, in the order they did.
func (w *Witness) Seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

// Main is TestMain for a test package that starts tabhive beside
// cmd/tabhive: it builds the command on first use and removes it after
// the tests, then checks for leaks as browsertest.Main does.
func Main(m *testing.M) {
	Use(Build)
	browsertest.Main(cleanupAfter{m})
}

// cleanupAfter removes the built command once the tests have run.
type cleanupAfter struct{ m *testing.M }

func (c cleanupAfter) Run() int {
	defer Cleanup()
	return c.m.Run()
}
