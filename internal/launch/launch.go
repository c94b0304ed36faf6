// Package launch starts a Chromium process and stops it again, removing the
// temporary profile it made.
//
// Chromium is driven over its DevTools pipe (--remote-debugging-pipe): it
// opens no TCP port, so no page, and no other local user, can reach the
// browser's control channel (with a port, a page that learnt it
// could drive every tab of every session). The package knows nothing about
// CDP beyond one request that tells when the pipe answers, so that test
// helpers can use it without importing the supervisor.
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/internal/agenterr"
)

// ErrNotFound is returned by [FindExecutable] when no Chrome or Chromium
// binary can be found.
var ErrNotFound = agenterr.New(notFound, agenterr.Capitalize(notFound)+".")

const notFound = "could not find Chrome or Chromium: install it (for example `apt-get install -y chromium`) or pass --executable-path"

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
// (ARCHITECTURE.md §5), from showing first-run UI, and from throttling background
// tabs: every tab may be some agent's foreground. The WebUI omnibox popups
// are off because every window preloads them into a renderer of their own
// (measured on Chromium 156: about 1.4 s of CPU per window, and a renderer
// busy for the first seconds of every run). V8 records where each function
// sits in its script when it compiles it, not later on demand (jsFlags).
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
	jsFlags,
}

// jsFlags turns off V8's lazy source positions. DevTools' Runtime domain,
// which every page actor enables, makes V8 capture a stack trace at each
// exception a script throws, and with lazy source positions each capture
// re-parses the functions on the stack to find their lines: Swagger UI's
// 1.7 MB bundle ran 620-700 ms instead of 100-130 ms in a new tab, and its
// page loaded in 1.1 s instead of 0.5 s (docs/BENCHMARKS.md, "Where
// Swagger UI's new_page time goes"). DevTools itself does not pay this,
// as its Debugger domain has V8 record positions at compile time; a flag
// does the same without the Debugger's pauses and script events.
const jsFlags = "--js-flags=--no-enable-lazy-source-positions"

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
	// IgnoreDefaultArgs are default switches (of [Flags], and the headless
	// pair) to leave out, each by whole switch or by name: "--disable-sync",
	// "--disable-features". The DevTools pipe or port and the profile
	// directory are not defaults and cannot be left out.
	IgnoreDefaultArgs []string
	// StartTimeout bounds the wait for the DevTools pipe (or port) to
	// answer. If zero, 30s.
	StartTimeout time.Duration
	// Preloading leaves the profile's speculative loading setting as it is
	// (see preload.go), as a user's own browser has it; by default Start
	// turns speculative loading off. Only for tests of connecting to such
	// a browser.
	Preloading bool
	// Logger receives what Close has to say about a browser slow to go
	// away. If zero, nothing is logged.
	Logger zerolog.Logger
	// DebuggingPort opens a DevTools TCP port on 127.0.0.1 instead of the
	// pipe, as a user's own Chrome started with --remote-debugging-port
	// has: only for tests of connecting to such a browser. Any page that
	// learns the port can drive the whole browser through it.
	DebuggingPort bool
}

// Process is a running Chromium with a DevTools pipe (or port).
type Process struct {
	cmd *exec.Cmd
	// pipeR and pipeW are our ends of the DevTools pipe: Chromium writes
	// its messages to pipeR's other end (its fd 4) and reads commands from
	// pipeW's (its fd 3). Nil in port mode.
	pipeR, pipeW *os.File
	wsURL        string // in port mode: the browser WebSocket
	profile      string // removed on Close when temporary
	temp         bool
	// tmpDir is Chromium's TMPDIR, made for this process and removed on
	// Close with whatever Chromium left there (its singleton socket's
	// directory stays behind when it is killed mid-shutdown).
	tmpDir string
	exited chan struct{} // closed when the process has exited
	log    zerolog.Logger
	stderr *tail
	// stderrPipe is the read end of Chromium's stderr; stderrDone is
	// closed when the copy from it ends.
	stderrPipe *os.File
	stderrDone chan struct{}

	closeOnce sync.Once
	closeErr  error
	// closing is set when Close begins: an exit after it was asked for.
	closing atomic.Bool
}

// Start launches Chromium and waits until it answers on its DevTools pipe
// (with [Options.DebuggingPort]: until it announces its port).
func Start(ctx context.Context, opts Options) (*Process, error) {
	exe, err := FindExecutable(opts.ExecutablePath)
	if err != nil {
		return nil, err
	}
	p := &Process{exited: make(chan struct{}), stderr: newTail(40), log: opts.Logger}
	p.profile = opts.UserDataDir
	if p.profile == "" {
		p.profile, err = os.MkdirTemp("", "tabhive-profile-")
		if err != nil {
			return nil, fmt.Errorf("create temporary profile: %w", err)
		}
		p.temp = true
	} else if err := os.MkdirAll(p.profile, 0o700); err != nil {
		return nil, fmt.Errorf("create profile directory: %w", err)
	} else if err := os.Chmod(p.profile, 0o700); err != nil {
		// The profile holds cookies and saved state: only its owner may
		// read it, whatever mode an earlier run or the user left it with.
		return nil, fmt.Errorf("make the profile directory private: %w", err)
	}
	if err := checkArgs(opts.Args); err != nil {
		p.removeDirs()
		return nil, err
	}
	if !opts.Preloading {
		if err := disablePreloading(p.profile, profileDirectory(opts.Args)); err != nil {
			p.removeDirs()
			return nil, err
		}
	}
	if p.tmpDir, err = os.MkdirTemp("", "tabhive-chromium-"); err != nil {
		p.removeDirs()
		return nil, fmt.Errorf("create Chromium's temporary directory: %w", err)
	}
	// A port file left by an earlier run would point at a dead browser.
	portFile := filepath.Join(p.profile, "DevToolsActivePort")
	os.Remove(portFile)

	args := withoutDefaults(Flags, opts.IgnoreDefaultArgs)
	if opts.DebuggingPort {
		args = append(args, "--remote-debugging-port=0")
	} else {
		args = append(args, "--remote-debugging-pipe")
	}
	args = append(args, "--user-data-dir="+p.profile)
	if opts.Headless {
		args = append(args, withoutDefaults([]string{"--headless", "--disable-gpu"}, opts.IgnoreDefaultArgs)...)
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to start as root with its sandbox on.
		args = append(args, "--no-sandbox")
	}
	args = mergeJSFlags(append(args, opts.Args...))
	args = append(args, "about:blank")

	p.cmd = exec.Command(exe, args...)
	p.cmd.Env = append(os.Environ(), "TMPDIR="+p.tmpDir)
	p.cmd.Stdout = io.Discard
	// Chromium's stderr goes through a pipe of our own rather than a Go
	// writer: exec would then make Wait wait until every process holding
	// the pipe exits, renderers included, so Exited would not mean "the
	// browser exited".
	r, w, err := os.Pipe()
	if err != nil {
		p.removeDirs()
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	p.cmd.Stderr = w
	var childEnds []*os.File // closed in this process once Chromium has them
	if !opts.DebuggingPort {
		// fd 3: Chromium reads commands; fd 4: it writes messages.
		cmdR, cmdW, err1 := os.Pipe()
		msgR, msgW, err2 := os.Pipe()
		if err := errors.Join(err1, err2); err != nil {
			for _, f := range []*os.File{r, w, cmdR, cmdW, msgR, msgW} {
				if f != nil {
					f.Close()
				}
			}
			p.removeDirs()
			return nil, fmt.Errorf("start %s: %w", exe, err)
		}
		p.cmd.ExtraFiles = []*os.File{cmdR, msgW}
		p.pipeR, p.pipeW = msgR, cmdW
		childEnds = []*os.File{cmdR, msgW}
	}
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		for _, f := range append(childEnds, r, w, p.pipeR, p.pipeW) {
			if f != nil {
				f.Close()
			}
		}
		p.removeDirs()
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	w.Close()
	for _, f := range childEnds {
		f.Close()
	}
	p.stderrPipe = r
	p.stderrDone = make(chan struct{})
	go func() { // ends when the last writer closes the pipe, or Close closes it
		defer close(p.stderrDone)
		io.Copy(p.stderr, r)
	}()
	go func() { // ends when the browser process exits
		err := p.cmd.Wait()
		close(p.exited)
		if !p.closing.Load() {
			select { // its last lines, unless a helper keeps the pipe open
			case <-p.stderrDone:
			case <-time.After(200 * time.Millisecond):
			}
			// Nobody asked it to exit: a crash, a kill from outside, or
			// the OOM killer. Say how, with Chromium's last words, so
			// that an operator (or a CI log) can tell which.
			p.log.Warn().Int("pid", p.PID()).Str("status", exitStatus(err, p.cmd.ProcessState)).
				Str("stderr", p.stderr.String()).Msg("chromium exited on its own")
		}
	}()

	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if opts.DebuggingPort {
		p.wsURL, err = waitForPort(wctx, portFile, p.exited)
	} else {
		err = p.handshake(wctx)
	}
	if err != nil {
		p.Close()
		if msg := p.stderr.String(); msg != "" {
			err = fmt.Errorf("%w; Chromium said:\n%s", err, msg)
		}
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	return p, nil
}

// withoutDefaults returns the switches of defaults that ignore does not
// name, by whole switch or by the name before its "=".
func withoutDefaults(defaults, ignore []string) []string {
	out := make([]string, 0, len(defaults))
	for _, d := range defaults {
		name, _, _ := strings.Cut(d, "=")
		if !slices.Contains(ignore, d) && !slices.Contains(ignore, name) {
			out = append(out, d)
		}
	}
	return out
}

// mergeJSFlags folds tabhive's V8 flags into a --js-flags of the user's:
// Chromium keeps only the last value of a switch given twice, so one of
// them would be lost. The user's flags come after tabhive's, and V8 lets
// the later of two contrary flags win.
func mergeJSFlags(args []string) []string {
	def := slices.Index(args, jsFlags)
	if def < 0 {
		return args
	}
	last := -1
	for i, a := range args {
		if i != def && switchName(a) == "js-flags" {
			last = i
		}
	}
	if last < 0 {
		return args
	}
	_, user, _ := strings.Cut(args[last], "=")
	_, ours, _ := strings.Cut(jsFlags, "=")
	out := slices.Clone(args)
	out[last] = "--js-flags=" + strings.TrimSpace(ours+" "+user)
	return slices.Delete(out, def, def+1)
}

// checkArgs refuses extra switches that would open the browser's control
// channel to pages (a DevTools port) or replace the pipe tabhive drives
// it through, in every spelling Chromium's command line parser accepts:
// on POSIX a switch starts with "--" or "-", its value follows "=", and
// its name is matched as written (refused here whatever its case, which
// costs nothing and holds on platforms that lowercase it). An argument
// that is not a switch is refused too: Chromium opens it as a URL before
// tabhive's URL policy is in force.
func checkArgs(args []string) error {
	for _, a := range args {
		name := switchName(a)
		switch {
		case name == "":
			return fmt.Errorf("--chrome-arg %s is refused: it is not a Chromium switch (one starting with --); tabhive opens pages itself, under its URL policy", a)
		case strings.HasPrefix(name, "remote-debugging"), name == "remote-allow-origins":
			return fmt.Errorf("--chrome-arg %s is refused: a DevTools port lets any page that finds it drive every tab of the browser; to debug alongside tabhive, start Chrome yourself and connect with --browser-url", a)
		case name == "user-data-dir":
			return fmt.Errorf("--chrome-arg %s is refused: use tabhive's --user-data-dir", a)
		}
	}
	return nil
}

// switchName returns the name of the switch a command-line argument is,
// as Chromium reads it, lowercased: "remote-debugging-port" for
// "-Remote-Debugging-Port=9222"; "" when it is not a switch (no leading
// dash, or no name: "--" ends Chromium's switches).
func switchName(arg string) string {
	rest, ok := strings.CutPrefix(arg, "--")
	if !ok {
		if rest, ok = strings.CutPrefix(arg, "-"); !ok {
			return ""
		}
	}
	name, _, _ := strings.Cut(rest, "=")
	return strings.ToLower(strings.TrimSpace(name))
}

// handshake sends one command on the DevTools pipe and waits for its
// reply, so that Start returns a browser that answers. The reply is read
// byte by byte: nothing past it may be consumed, as the connection that
// takes over the pipe reads from there.
func (p *Process) handshake(ctx context.Context) error {
	if _, err := p.pipeW.Write([]byte(`{"id":1,"method":"Browser.getVersion"}` + "\x00")); err != nil {
		return fmt.Errorf("write to the DevTools pipe: %w", err)
	}
	deadline, _ := ctx.Deadline()
	p.pipeR.SetReadDeadline(deadline)
	defer p.pipeR.SetReadDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { p.pipeR.SetReadDeadline(time.Now()) })
	defer stop()
	var msg []byte
	b := make([]byte, 1)
	for {
		if _, err := p.pipeR.Read(b); err != nil {
			select {
			case <-p.exited:
				return errors.New("chromium exited before answering on its DevTools pipe")
			default:
			}
			if ctx.Err() != nil {
				return fmt.Errorf("chromium did not answer on its DevTools pipe: %w", ctx.Err())
			}
			return fmt.Errorf("read the DevTools pipe: %w", err)
		}
		if b[0] == 0 {
			break
		}
		if len(msg) > 64<<10 {
			return errors.New("chromium's first DevTools message is too long")
		}
		msg = append(msg, b[0])
	}
	if !bytes.HasPrefix(msg, []byte(`{"id":1,`)) {
		return fmt.Errorf("unexpected first DevTools message: %.200s", msg)
	}
	return nil
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

// Pipe returns the connection's ends of the DevTools pipe: read Chromium's
// messages from r, write commands to w. Closing either makes Chromium
// exit. Nil in port mode.
func (p *Process) Pipe() (r, w *os.File) { return p.pipeR, p.pipeW }

// WebSocketURL returns the browser-level DevTools endpoint,
// ws://127.0.0.1:PORT/devtools/browser/ID, of a browser started with
// [Options.DebuggingPort]; "" for one driven over its pipe.
func (p *Process) WebSocketURL() string { return p.wsURL }

// Profile returns the profile directory Chromium runs with.
func (p *Process) Profile() string { return p.profile }

// PID returns the browser's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited returns a channel that is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// termWait is how long Close gives Chromium to exit after SIGTERM before
// it kills it.
const termWait = time.Second

// killWait bounds the wait for a Chromium killed with SIGKILL to be gone.
// A killed process cannot run on, but it is gone only once the kernel has
// torn it down, which on a loaded machine can take seconds (a browser's
// memory freed, its threads scheduled late); Close waits for that, so that
// what it removes next is no longer in use, and says so in the log when it
// is slow. Past killWait it leaves the process to the kernel.
const killWait = time.Minute

// Close stops the process and removes a temporary profile. It sends
// SIGTERM, waits up to a second, then SIGKILL, and waits for the process
// to be gone: about two seconds at most on a quiet machine, longer on a
// loaded one (see killWait). Safe to call more than once.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		p.closing.Store(true)
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exited:
			case <-time.After(termWait):
				p.kill()
			}
		}
		// Helpers that outlive the browser must not keep our copy running;
		// closing the read end makes their writes fail.
		p.stderrPipe.Close()
		if p.pipeR != nil {
			p.pipeR.Close() // already closed when a connection took the pipe: harmless
			p.pipeW.Close()
		}
		<-p.stderrDone
		if err := p.removeDirs(); err != nil && p.closeErr == nil {
			p.closeErr = err
		}
	})
	return p.closeErr
}

// kill sends SIGKILL and waits for the process to be gone, up to
// killWait, logging a wait longer than a second.
func (p *Process) kill() {
	start := time.Now()
	p.cmd.Process.Kill()
	t := time.NewTimer(killWait)
	defer t.Stop()
	select {
	case <-p.exited:
		if took := time.Since(start); took > time.Second {
			p.log.Info().Int("pid", p.PID()).Dur("took", took).Msg("chromium was slow to exit after SIGKILL (a loaded machine)")
		}
	case <-t.C:
		p.log.Warn().Int("pid", p.PID()).Dur("waited", killWait).Msg("chromium has not exited after SIGKILL; left to the kernel")
	}
}

// removeWait bounds how long removeDirs retries: Chromium's helpers may
// still be flushing into the directories for a moment after the browser
// process exits, a longer moment on a loaded machine.
const removeWait = 10 * time.Second

// removeDirs removes Chromium's temporary directory and a temporary
// profile, retrying while Chromium's helpers still write into them.
func (p *Process) removeDirs() error {
	var dirs []string
	if p.tmpDir != "" {
		dirs = append(dirs, p.tmpDir)
	}
	if p.temp {
		dirs = append(dirs, p.profile)
	}
	var errs []error
	for _, dir := range dirs {
		var err error
		deadline := time.Now().Add(removeWait)
		for pause := 10 * time.Millisecond; ; pause = min(2*pause, 250*time.Millisecond) {
			if err = os.RemoveAll(dir); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(pause)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}

// exitStatus says how a process ended: its exit code or the signal.
func exitStatus(err error, st *os.ProcessState) string {
	if st != nil {
		return st.String()
	}
	if err != nil {
		return err.Error()
	}
	return "exited"
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
