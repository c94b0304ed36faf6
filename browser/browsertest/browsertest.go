// Package browsertest runs the real Chromium that tabhive's integration tests
// drive: one browser per test binary, started on first use, a fresh tab per
// test, and pages served by httptest. Like net/http/httptest it is for tests
// only.
//
// Use [Main] from TestMain so that the browser is shut down after the tests,
// and leaked goroutines, Chromium processes and profiles fail the run:
//
//	func TestMain(m *testing.M) { browsertest.Main(m) }
//
// The binary is $TABHIVE_CHROMIUM, else the first Chrome or Chromium on
// PATH. With -short, tests that need the browser are skipped; without it, a
// missing browser fails them, so CI cannot pass by skipping.
package browsertest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cdpbrowser "github.com/mafredri/cdp/protocol/browser"
	"github.com/mafredri/cdp/protocol/target"
	"go.uber.org/goleak"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/launch"
	"github.com/tabhive/tabhive/internal/testwait"
)

// Browser is the shared Chromium of a test binary.
type Browser struct {
	proc *launch.Process
	conn *cdpconn.Conn // browser-level connection, for Target.*
}

// shared is the one browser of this test binary. Package state is the point
// of a per-binary browser; it is written once under once and only read after.
var shared struct {
	once    sync.Once
	browser *Browser
	err     error
}

// SkipMessage is why a test that starts Chromium or the tabhive binary is
// skipped under -short: the fast tier runs neither.
const SkipMessage = "starts Chromium or the tabhive binary; skipped with -short (the fast tier)"

// Executable returns the Chromium binary a test launches itself. It is the
// one place a package's browser tests are skipped under -short, and it
// fails the test if there is no browser, so CI cannot pass by skipping.
func Executable(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip(SkipMessage)
	}
	exe, err := executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// executable is $TABHIVE_CHROMIUM, else the first Chrome or Chromium on PATH.
func executable() (string, error) { return launch.FindExecutable(os.Getenv("TABHIVE_CHROMIUM")) }

// Chromium returns the shared browser, starting it on first use. It skips
// the test under -short and fails it if the browser cannot start.
func Chromium(t testing.TB) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip(SkipMessage)
	}
	shared.once.Do(func() {
		exe, err := executable()
		if err != nil {
			shared.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		proc, err := launch.Start(ctx, launch.Options{ExecutablePath: exe, Headless: true})
		if err != nil {
			shared.err = err
			return
		}
		r, w := proc.Pipe()
		conn, err := cdpconn.DialPipe(ctx, r, w, cdpconn.Options{Keep: func(string) bool { return false }})
		if err != nil {
			proc.Close()
			shared.err = err
			return
		}
		shared.browser = &Browser{proc: proc, conn: conn}
	})
	if shared.err != nil {
		t.Fatalf("start Chromium: %v", shared.err)
	}
	return shared.browser
}

// Grant grants a permission in a browser context ("" for the default one)
// over the browser-level connection, as the supervisor does for its pages:
// it is a page.Config.Grant.
func (b *Browser) Grant(ctx context.Context, browserContextID, permission string) error {
	args := cdpbrowser.NewSetPermissionArgs(cdpbrowser.PermissionDescriptor{Name: permission}, cdpbrowser.PermissionSettingGranted)
	if browserContextID != "" {
		args.SetBrowserContextID(cdpbrowser.ContextID(browserContextID))
	}
	return b.conn.Client.Browser.SetPermission(ctx, args)
}

// NewRelay opens a relay on the browser's connection, as the supervisor
// does for its pages: it is a page.Config.Relay.
func (b *Browser) NewRelay(deliver func(msg []byte)) *cdpconn.Relay {
	return b.conn.NewRelay(deliver)
}

// Target is a tab opened for one test.
type Target struct {
	ID      string
	browser *Browser
}

// Attach opens a CDP session on the tab, over the browser's pipe: it is a
// page.Config.Attach.
func (t Target) Attach(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error) {
	return t.browser.conn.Attach(ctx, t.ID, opts)
}

// NewTab opens a tab on about:blank and closes it when the test ends.
func (b *Browser) NewTab(t testing.TB) Target {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := b.conn.Client.Target.CreateTarget(ctx, target.NewCreateTargetArgs("about:blank"))
	if err != nil {
		t.Fatalf("create tab: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b.conn.Client.Target.CloseTarget(ctx, target.NewCloseTargetArgs(r.TargetID)) // best effort: the browser may be gone
	})
	return Target{ID: string(r.TargetID), browser: b}
}

// Serve starts an HTTP server for the test and closes it when the test
// ends.
func Serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// ServeOwnSite is Serve on a loopback address of its own (127.0.1.N), a
// site apart from every other test's 127.0.0.1, so that Chrome gives its
// pages a renderer process of their own. Tests that throttle the CPU need
// it: throttling slows a whole renderer process, and tabs of one site may
// share one, slowing unrelated tests running beside them.
func ServeOwnSite(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ip := fmt.Sprintf("127.0.1.%d", 1+siteSeq.Add(1)%250)
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", ip, err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// siteSeq numbers the addresses ServeOwnSite listens on.
var siteSeq atomic.Int32

// HTML returns a handler that serves a page with the given title and body.
func HTML(title, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><meta charset=utf-8><title>%s</title><link rel=icon href=\"data:,\"></head><body>%s</body></html>", title, body)
	})
}

// Main runs the tests (m is a *testing.M, or a wrapper whose Run also
// shuts down what the tests share), then shuts the browser down and fails
// the run if a goroutine, a Chromium process or a temporary profile was left
// behind.
func Main(m interface{ Run() int }) {
	// A temporary directory of our own, so that profiles and processes of
	// other test binaries running at the same time are not mistaken for
	// leaks of this one.
	tmp, err := os.MkdirTemp("", "tabhive-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	if b := shared.browser; b != nil {
		b.conn.Close()
		if err := b.proc.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "browsertest:", err)
			code = 1
		}
	}
	if code == 0 {
		if err := CheckNoLeaks(); err != nil {
			fmt.Fprintln(os.Stderr, "browsertest:", err)
			code = 1
		}
	}
	os.RemoveAll(tmp)
	os.Exit(code)
}

// leakWait bounds how long CheckNoLeaks waits for what a test started to
// be gone: Chromium's renderers and helpers exit after their browser, and
// a loaded machine schedules them late.
const leakWait = 30 * time.Second

// CheckNoLeaks reports goroutines still running, Chromium processes started
// with a tabhive profile still alive, and tabhive profiles, Chromium
// temporary directories or singleton directories left in the temporary
// directory. It retries for up to leakWait, as processes take a moment to
// go, a longer one on a loaded machine.
func CheckNoLeaks() error {
	var err error
	if testwait.Poll(leakWait, func() bool { err = leaks(); return err == nil }) {
		return nil
	}
	return err
}

func leaks() error {
	// Idle keep-alive connections of clients the tests used are the HTTP
	// client's, not a leak of ours.
	http.DefaultClient.CloseIdleConnections()
	if err := goleak.Find(); err != nil {
		return err
	}
	if procs := ChromiumProcesses(); len(procs) > 0 {
		return fmt.Errorf("chromium processes left running: %v", procs)
	}
	if dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "tabhive-profile-*")); len(dirs) > 0 {
		return fmt.Errorf("temporary profiles left behind: %v", dirs)
	}
	if dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "tabhive-chromium-*")); len(dirs) > 0 {
		return fmt.Errorf("chromium temporary directories left behind: %v", dirs)
	}
	if dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "org.chromium.Chromium.*")); len(dirs) > 0 {
		return fmt.Errorf("chromium singleton directories left behind: %v", dirs)
	}
	return nil
}

// ChromiumProcesses lists the pids of live Chromium processes of this test
// binary: descendants, and any process naming our temporary directory.
func ChromiumProcesses() []string {
	self := os.Getpid()
	tmp := os.TempDir()
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		argv0, _, _ := strings.Cut(string(cmd), "\x00")
		if err != nil || !strings.Contains(filepath.Base(argv0), "chrom") {
			continue // not Chromium (a tabhive command naming it in its flags, say)
		}
		if descendant(pid, self) || strings.Contains(string(cmd), tmp) {
			out = append(out, pid)
		}
	}
	return out
}

// ListeningPorts returns the listening TCP sockets the given processes
// hold, as "PID:PORT" (port in hex, as /proc/net/tcp gives it): a browser
// driven over its pipe must hold none.
func ListeningPorts(pids []string) []string {
	inodes := map[string]string{} // socket inode → port, listening sockets only
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			_, port, _ := strings.Cut(f[1], ":")
			inodes[f[9]] = port
		}
	}
	var out []string
	for _, pid := range pids {
		fds, _ := os.ReadDir(filepath.Join("/proc", pid, "fd"))
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join("/proc", pid, "fd", fd.Name()))
			if err != nil {
				continue
			}
			if inode, ok := strings.CutPrefix(link, "socket:["); ok {
				if port, ok := inodes[strings.TrimSuffix(inode, "]")]; ok {
					out = append(out, pid+":"+port)
				}
			}
		}
	}
	return out
}

// descendant reports whether pid is a descendant of ancestor.
func descendant(pid string, ancestor int) bool {
	for i := 0; i < 64; i++ {
		stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
		if err != nil {
			return false
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(fields) < 2 || fields[0] == "Z" {
			return false
		}
		ppid := fields[1]
		if ppid == fmt.Sprint(ancestor) {
			return true
		}
		if ppid == "0" || ppid == "1" {
			return false
		}
		pid = ppid
	}
	return false
}

// LogBuffer is a log or stderr destination that other goroutines (a
// server's, a process's) write to while the test reads it.
type LogBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
