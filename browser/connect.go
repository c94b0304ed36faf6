package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	cdpbrowser "github.com/mafredri/cdp/protocol/browser"
	"github.com/mafredri/cdp/protocol/target"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/launch"
	"github.com/tabhive/tabhive/page"
)

// link is the handle on the supervisor's connection to its browser:
// launching or connecting, losing it, relaunching or reconnecting
// (connect.go, remote.go). Its state is the supervisor's; each method says
// which goroutine runs it.
type link struct{ s *Supervisor }

// link returns the handle on the browser connection.
func (s *Supervisor) link() link { return link{s} }

// targetEvents are the browser-level events the supervisor applies.
var targetEvents = map[string]bool{
	"Fetch.requestPaused":      true,
	"Target.targetCreated":     true,
	"Target.targetInfoChanged": true,
	"Target.targetDestroyed":   true,
	"Target.targetCrashed":     true,
}

// ensure launches or connects if there is no live connection. A browser
// connected to (not launched) is tried again only after a backoff once an
// attempt failed (see remote.go). Run goroutine only.
func (l link) ensure(ctx context.Context) error {
	if l.s.conn != nil {
		select {
		case <-l.s.conn.Done():
			l.lost()
		default:
			return nil
		}
	}
	if !l.remote() {
		return l.start(ctx)
	}
	if err := l.s.retry.wait(); err != nil {
		return err
	}
	err := l.start(ctx)
	l.s.retry.record(err)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrShutdown) {
		return &ConnectError{Err: err}
	}
	return err
}

// start launches or connects. Run goroutine only.
func (l link) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.s.cfg.LaunchTimeout)
	defer cancel()
	var (
		proc  *launch.Process
		wsURL string
	)
	err := l.s.act.Await(ctx, func(ctx context.Context) (err error) {
		proc, wsURL, err = l.endpoint(ctx)
		return err
	}, nil)
	if err != nil {
		return err
	}
	l.s.proc, l.s.launched = proc, proc != nil
	opts := cdpconn.Options{Keep: func(m string) bool { return targetEvents[m] }, Ready: l.s.ready, MaxMessageBytes: l.s.cfg.MaxMessageBytes, Header: l.s.cfg.Headers}
	var conn *cdpconn.Conn
	if proc != nil {
		l.s.pid.Store(int64(proc.PID()))
		profileDir := proc.Profile()
		l.s.profile.Store(&profileDir)
		r, w := proc.Pipe()
		conn, err = cdpconn.DialPipe(ctx, r, w, opts)
	} else {
		conn, err = cdpconn.Dial(ctx, wsURL, opts)
	}
	if err != nil {
		l.stopProcess()
		return fmt.Errorf("connect to the browser: %w", err)
	}
	l.s.conn = conn
	l.s.discovered = false
	l.s.gone = map[string]bool{}
	l.s.resetContexts()
	// Requests are decided from the first: before discovery, so that no
	// page the agents will see loads anything unchecked.
	if err := l.s.policy().intercept(ctx, conn); err != nil {
		l.disconnect()
		return err
	}
	if err := l.s.certificates(ctx, conn); err != nil {
		l.disconnect()
		return err
	}
	// Discovery reports every existing target as created, before its reply.
	err = l.s.act.Await(ctx, func(ctx context.Context) error {
		return conn.Client.Target.SetDiscoverTargets(ctx, target.NewSetDiscoverTargetsArgs(true))
	}, nil)
	if err != nil {
		l.disconnect()
		return fmt.Errorf("discover targets: %w", err)
	}
	(*supervisorEvents)(l.s).Apply()
	l.s.discovered = true
	if l.s.launched && l.s.cfg.Viewport != "" {
		for _, e := range l.s.pages {
			err := l.s.act.Await(ctx, func(ctx context.Context) error { return l.s.fitViewport(ctx, conn, e.TargetID) }, nil)
			if err != nil {
				l.s.log.Warn().Err(err).Msg("sizing the first window to --viewport")
			}
		}
	}
	if l.s.launched {
		// Our own browser: its first tab gets an actor now, like every tab
		// opened later. A connected browser's existing tabs get theirs when
		// first used, so a Chrome with hundreds of tabs is not flooded.
		for _, e := range l.s.pages {
			l.s.spawn(e)
		}
	}
	l.s.publish()
	if l.s.launched && l.s.cfg.StorageState != nil && l.s.cfg.DefaultStorageState {
		// Our own browser's default context starts from the state too,
		// before any tool loads a page in it.
		err := l.s.act.Await(ctx, func(ctx context.Context) error {
			_, _, err := l.s.Storage().applyState(ctx, conn, "", l.s.cfg.StorageState, false, false)
			return err
		}, nil)
		if err != nil {
			l.lost()
			return fmt.Errorf("give the browser the storage state of --storage-state: %w", err)
		}
	}
	l.s.generation.Add(1)
	l.s.watchers.Add(1)
	go l.watch(conn, l.s.proc)
	l.s.log.Info().Bool("launched", l.s.launched).Int("pages", len(l.s.pages)).Int64("generation", l.s.generation.Load()).Msg("browser ready")
	return nil
}

// endpoint launches Chromium, or resolves the endpoint of the browser to
// connect to: it returns the launched process (driven over its pipe) or the
// browser WebSocket URL.
func (l link) endpoint(ctx context.Context) (*launch.Process, string, error) {
	switch {
	case l.s.cfg.AutoConnect:
		ws, err := autoConnectEndpoint(l.s.cfg.UserDataDir, l.s.cfg.Channel)
		return nil, ws, err
	case l.s.cfg.WSEndpoint != "":
		return nil, l.s.cfg.WSEndpoint, nil
	case l.s.cfg.BrowserURL != "":
		ws, err := resolveBrowserURL(ctx, l.s.cfg.BrowserURL, l.s.cfg.Headers)
		if err != nil {
			return nil, "", fmt.Errorf("could not connect to Chrome at %s; check that it is running with --remote-debugging-port: %w", l.s.cfg.BrowserURL, err)
		}
		return nil, ws, nil
	}
	profile := l.s.cfg.UserDataDir
	if profile == "" && !l.s.cfg.Isolated {
		profile = DefaultProfile()
	}
	args := append([]string{}, l.s.cfg.Args...)
	args = append(args, l.s.policy().hostRules(args)...)
	headless := l.s.cfg.Headless || !hasDisplay()
	if headless || l.s.cfg.Viewport != "" {
		// The page gets the size of --viewport: fitViewport, once the
		// window is there.
		w, h := viewport(l.s.cfg.Viewport)
		args = append(args, fmt.Sprintf("--window-size=%d,%d", w, h))
	}
	proc, err := launch.Start(ctx, launch.Options{
		ExecutablePath:    l.s.cfg.ExecutablePath,
		Headless:          headless,
		UserDataDir:       profile,
		Args:              args,
		IgnoreDefaultArgs: l.s.cfg.IgnoreDefaultArgs,
		StartTimeout:      l.s.cfg.LaunchTimeout,
		Logger:            l.s.log,
	})
	if err != nil {
		if profile != "" && inUse(profile) {
			return nil, "", fmt.Errorf("the browser is already running for %s; use --isolated to run multiple browser instances", profile)
		}
		return nil, "", err
	}
	l.s.log.Info().Int("pid", proc.PID()).Bool("headless", headless).Msg("chromium started")
	return proc, "", nil
}

// lost forgets a browser whose connection went away: its pages and actors
// are gone with it. Page ids keep counting from where they were. Run
// goroutine only.
func (l link) lost() {
	l.s.log.Warn().Msg("browser connection lost")
	l.s.Workers().stop(ErrBrowserLost)
	for id := range l.s.pages {
		l.s.unregister(id, ErrBrowserLost)
	}
	l.disconnect()
	l.s.publish()
}

// disconnect closes the connection, and the browser if we launched it.
func (l link) disconnect() error {
	if l.s.conn != nil {
		if l.s.launched {
			// Ask nicely first: Chromium then flushes its profile.
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			l.s.conn.Client.Browser.Close(ctx)
			cancel()
		}
		l.s.conn.Close()
		l.s.conn = nil
	}
	return l.stopProcess()
}

func (l link) stopProcess() error {
	if l.s.proc == nil {
		return nil
	}
	l.s.pid.Store(0)
	l.s.profile.Store(nil)
	err := l.s.proc.Close()
	l.s.proc = nil
	return err
}

// supervisorEvents applies the browser connection's events on the run
// goroutine.
type supervisorEvents Supervisor

func (e *supervisorEvents) Ready() <-chan struct{} { return e.ready }

func (e *supervisorEvents) Apply() {
	s := (*Supervisor)(e)
	if s.conn == nil {
		return
	}
	for _, ev := range s.conn.Take() {
		if err := s.apply(ev); err != nil {
			s.log.Debug().Err(err).Str("method", ev.Method).Msg("undecodable event")
		}
	}
}

func (s *Supervisor) apply(ev cdpconn.Event) error {
	switch ev.Method {
	case "Fetch.requestPaused":
		return s.policy().requestPaused(ev.Params)
	case "Target.targetCreated", "Target.targetInfoChanged":
		var e struct {
			TargetInfo target.Info `json:"targetInfo"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		info := e.TargetInfo
		if s.Workers().track(info) {
			return nil
		}
		if !isPage(info) && !s.allPages(info) {
			return nil
		}
		id := string(info.TargetID)
		existing := s.pages[id]
		if existing == nil {
			// Only a creation makes a page; late updates of a tab we already
			// closed must not bring it back under a new id.
			if ev.Method != "Target.targetCreated" || s.gone[id] {
				return nil
			}
			var contextID string
			if info.BrowserContextID != nil {
				contextID = string(*info.BrowserContextID)
			}
			existing = s.register(id, info.Type, info.URL, info.Title, contextID)
			if info.OpenerID != nil {
				if opener := s.pages[string(*info.OpenerID)]; opener != nil {
					existing.Opener = opener.ID
				}
			}
			if s.discovered {
				// A tab the browser or a page opened (window.open, a
				// target=_blank link) gets its own actor at once.
				s.spawn(existing)
			}
			s.Storage().kickPending(contextID) // storage.go
		}
		existing.URL, existing.Title = info.URL, info.Title
		s.Storage().visit(existing.contextID, existing.TargetID, info.URL)
		s.publish()
	case "Target.targetDestroyed":
		var e struct {
			TargetID string `json:"targetId"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		s.Workers().untrack(e.TargetID)
		s.unregister(e.TargetID, page.ErrClosed)
	case "Target.targetCrashed":
		var e struct {
			TargetID string `json:"targetId"`
			Status   string `json:"status"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		s.log.Warn().Str("target", e.TargetID).Str("status", e.Status).Msg("renderer crashed")
		if en := s.pages[e.TargetID]; en != nil {
			en.Crashed = true
			s.publish()
		}
	}
	return nil
}

// isPage reports whether a target is a tab agents may drive: a page, but
// not DevTools or Chrome's internal pages other than the new-tab page.
func isPage(t target.Info) bool {
	if t.Type != "page" {
		return false
	}
	u := t.URL
	switch {
	case strings.HasPrefix(u, "devtools://"), strings.HasPrefix(u, "chrome-untrusted://"):
		return false
	case strings.HasPrefix(u, "chrome://"):
		return strings.HasPrefix(u, "chrome://newtab") || strings.HasPrefix(u, "chrome://inspect")
	}
	return true
}

// createTarget opens a page as a tab. Not in a window of its own, though a
// background tab renders less (Chrome sends a mouse move with the next
// animation frame, and a background tab may wait up to a second for one,
// even with the focus emulation page actors turn on): a window per page
// made each new_page cost the browser's UI thread a window, and the
// harness's interact scenario at 8 agents ran at 2.7 iterations/s instead
// of 3.6 (docs/BENCHMARKS.md, 2026-11-29).
func createTarget(ctx context.Context, conn *cdpconn.Conn, background bool, contextID string) (string, error) {
	args := target.NewCreateTargetArgs("about:blank")
	if background {
		args.SetBackground(true)
	}
	if contextID != "" {
		args.SetBrowserContextID(cdpbrowser.ContextID(contextID))
	}
	r, err := conn.Client.Target.CreateTarget(ctx, args)
	if err != nil {
		return "", err
	}
	return string(r.TargetID), nil
}

func closeTarget(ctx context.Context, conn *cdpconn.Conn, targetID string) error {
	_, err := conn.Client.Target.CloseTarget(ctx, target.NewCloseTargetArgs(target.ID(targetID)))
	return err
}

// resolveBrowserURL asks a DevTools HTTP endpoint for its browser WebSocket.
func resolveBrowserURL(ctx context.Context, raw string, header http.Header) (string, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/") + "/json/version")
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %s", u, resp.Status)
	}
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", fmt.Errorf("read %s: %w", u, err)
	}
	if v.WebSocketDebuggerURL == "" {
		return "", fmt.Errorf("%s names no webSocketDebuggerUrl", u)
	}
	return v.WebSocketDebuggerURL, nil
}

func hasDisplay() bool {
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// DefaultProfile returns the profile directory a launch uses when given
// none and not --isolated: $XDG_CACHE_HOME/tabhive/chrome-profile
// (~/.cache/... by default).
func DefaultProfile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "tabhive", "chrome-profile")
}

// inUse reports whether another Chromium holds the profile's lock.
func inUse(profile string) bool {
	_, err := os.Lstat(filepath.Join(profile, "SingletonLock"))
	return err == nil
}

// viewport parses "WIDTHxHEIGHT", defaulting to 1280x720.
func viewport(s string) (w, h int) {
	if _, err := fmt.Sscanf(s, "%dx%d", &w, &h); err != nil || w <= 0 || h <= 0 {
		return 1280, 720
	}
	return w, h
}
