// Package launch starts a Chromium process with a DevTools port and stops it
// again, removing the temporary profile it made. It knows nothing about CDP
// beyond reading the port Chromium announces, so that test helpers can use it
// without importing the supervisor.
package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotFound is returned by [FindExecutable] when no Chrome or Chromium
// binary can be found.
var ErrNotFound = errors.New("could not find Chrome or Chromium: install it (for example `apt-get install -y chromium`) or pass --executable-path")

// candidates are the binary names looked up on PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// FindExecutable returns path if it is non-empty and executable, else the
// first Chrome or Chromium binary found on PATH.
func FindExecutable(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("executable path %q is not an executable file: %w", path, err)
		}
		return p, nil
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Flags are the switches every launch gets. They keep Chromium from reaching
// out to Google services, which on a closed network makes it stall at start
// (DESIGN §9), from showing first-run UI, and from throttling background
// tabs: every tab may be some agent's foreground. The WebUI omnibox popups
// are off because every window preloads them into a renderer of their own
// (measured on Chromium 156: about 1.4 s of CPU per window, and a renderer
// busy for the first seconds of every run).
var Flags = []string{
	"--disable-background-timer-throttling",
	"--disable-renderer-backgrounding",
	"--disable-backgrounding-occluded-windows",
	"--disable-ipc-flooding-protection",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-quic",
	"--disable-breakpad",
	"--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup",
	"--hide-crash-restore-bubble",
	"--password-store=basic",
	"--use-mock-keychain",
}

// Options says how to start Chromium. The zero value of each field means its
// documented default.
type Options struct {
	// ExecutablePath is the binary to run. If empty, [FindExecutable] picks one.
	ExecutablePath string
	// Headless runs without a window.
	Headless bool
	// UserDataDir is the profile directory. If empty, a temporary directory
	// is made and removed when the process is closed.
	UserDataDir string
	// Args are extra command-line switches, appended after the defaults.
	Args []string
	// StartTimeout bounds the wait for the DevTools port. If zero, 30s.
	StartTimeout time.Duration
}

// Process is a running Chromium with a DevTools endpoint.
type Process struct {
	cmd     *exec.Cmd
	wsURL   string
	profile string // removed on Close when temporary
	temp    bool
	exited  chan struct{} // closed when the process has exited
	stderr  *tail
	// stderrPipe is the read end of Chromium's stderr; stderrDone is
	// closed when the copy from it ends.
	stderrPipe *os.File
	stderrDone chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Start launches Chromium and waits until its DevTools endpoint is announced.
func Start(ctx context.Context, opts Options) (*Process, error) {
	exe, err := FindExecutable(opts.ExecutablePath)
	if err != nil {
		return nil, err
	}
	p := &Process{exited: make(chan struct{}), stderr: newTail(40)}
	p.profile = opts.UserDataDir
	if p.profile == "" {
		p.profile, err = os.MkdirTemp("", "tabhive-profile-")
		if err != nil {
			return nil, fmt.Errorf("create temporary profile: %w", err)
		}
		p.temp = true
	} else if err := os.MkdirAll(p.profile, 0o700); err != nil {
		return nil, fmt.Errorf("create profile directory: %w", err)
	}
	// A port file left by an earlier run would point at a dead browser.
	portFile := filepath.Join(p.profile, "DevToolsActivePort")
	os.Remove(portFile)

	args := append([]string{}, Flags...)
	args = append(args, "--remote-debugging-port=0", "--user-data-dir="+p.profile)
	if opts.Headless {
		args = append(args, "--headless", "--disable-gpu")
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to start as root with its sandbox on.
		args = append(args, "--no-sandbox")
	}
	args = append(args, opts.Args...)
	args = append(args, "about:blank")

	p.cmd = exec.Command(exe, args...)
	p.cmd.Stdout = io.Discard
	// Chromium's stderr goes through a pipe of our own rather than a Go
	// writer: exec would then make Wait wait until every process holding
	// the pipe exits, renderers included, so Exited would not mean "the
	// browser exited".
	r, w, err := os.Pipe()
	if err != nil {
		p.removeProfile()
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	p.cmd.Stderr = w
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		r.Close()
		w.Close()
		p.removeProfile()
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	w.Close()
	p.stderrPipe = r
	p.stderrDone = make(chan struct{})
	go func() { // ends when the last writer closes the pipe, or Close closes it
		defer close(p.stderrDone)
		io.Copy(p.stderr, r)
	}()
	go func() { // ends when the browser process exits
		p.cmd.Wait()
		close(p.exited)
	}()

	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p.wsURL, err = waitForPort(wctx, portFile, p.exited)
	if err != nil {
		p.Close()
		if msg := p.stderr.String(); msg != "" {
			err = fmt.Errorf("%w; Chromium said:\n%s", err, msg)
		}
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	return p, nil
}

// waitForPort polls for DevToolsActivePort, whose two lines are the port
// and the browser's WebSocket path.
func waitForPort(ctx context.Context, path string, exited <-chan struct{}) (string, error) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(lines) == 2 {
				if port, err := strconv.Atoi(lines[0]); err == nil && port > 0 {
					return fmt.Sprintf("ws://127.0.0.1:%d%s", port, strings.TrimSpace(lines[1])), nil
				}
			}
		}
		select {
		case <-exited:
			return "", errors.New("chromium exited before opening its DevTools port")
		case <-ctx.Done():
			return "", fmt.Errorf("chromium did not open its DevTools port: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// WebSocketURL returns the browser-level DevTools endpoint,
// ws://127.0.0.1:PORT/devtools/browser/ID.
func (p *Process) WebSocketURL() string { return p.wsURL }

// Profile returns the profile directory Chromium runs with.
func (p *Process) Profile() string { return p.profile }

// PID returns the browser's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited returns a channel that is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Close stops the process and removes a temporary profile. It sends SIGTERM,
// waits up to a second, then SIGKILL; it returns within about two seconds
// whatever Chromium does. Safe to call more than once.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exited:
			case <-time.After(time.Second):
				p.cmd.Process.Kill()
				select {
				case <-p.exited:
				case <-time.After(time.Second):
					p.closeErr = fmt.Errorf("chromium (pid %d) did not exit after SIGKILL", p.PID())
				}
			}
		}
		// Helpers that outlive the browser must not keep our copy running;
		// closing the read end makes their writes fail.
		p.stderrPipe.Close()
		<-p.stderrDone
		p.removeSingletonDir()
		if err := p.removeProfile(); err != nil && p.closeErr == nil {
			p.closeErr = err
		}
	})
	return p.closeErr
}

// removeSingletonDir removes the directory Chromium made in TMPDIR for its
// singleton socket (the profile's SingletonSocket links into it). Chromium
// deletes it when it exits cleanly; after SIGKILL or a crash it would stay,
// one per launch. Only the two files Chromium puts there are removed, and
// the directory only if that leaves it empty.
func (p *Process) removeSingletonDir() {
	target, err := os.Readlink(filepath.Join(p.profile, "SingletonSocket"))
	if err != nil || !filepath.IsAbs(target) {
		return
	}
	dir := filepath.Dir(target)
	os.Remove(filepath.Join(dir, "SingletonSocket"))
	os.Remove(filepath.Join(dir, "SingletonCookie"))
	os.Remove(dir)
}

func (p *Process) removeProfile() error {
	if !p.temp {
		return nil
	}
	// Chromium's helpers may still be flushing into the profile for a moment
	// after the browser process exits; retry briefly.
	var err error
	for i := 0; i < 20; i++ {
		if err = os.RemoveAll(p.profile); err == nil {
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return fmt.Errorf("remove temporary profile: %w", err)
}

// tail keeps the last n lines written to it.
type tail struct {
	mu    sync.Mutex
	n     int
	lines []string
	part  []byte
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.lines = append(t.lines, string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	t.part = append([]byte(nil), t.part...)
	if len(t.lines) > t.n {
		t.lines = append([]string(nil), t.lines[len(t.lines)-t.n:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.Join(append(append([]string{}, t.lines...), string(t.part)), "\n"))
}
