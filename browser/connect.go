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
func (s *Supervisor) ensure(ctx context.Context) error {
	if s.conn != nil {
		select {
		case <-s.conn.Done():
			s.lost()
		default:
			return nil
		}
	}
	if !s.remote() {
		return s.start(ctx)
	}
	if err := s.retry.wait(); err != nil {
		return err
	}
	err := s.start(ctx)
	s.retry.record(err)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrShutdown) {
		return &ConnectError{Err: err}
	}
	return err
}

// start launches or connects. Run goroutine only.
func (s *Supervisor) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.LaunchTimeout)
	defer cancel()
	var (
		proc  *launch.Process
		wsURL string
	)
	err := s.act.Await(ctx, func(ctx context.Context) (err error) {
		proc, wsURL, err = s.endpoint(ctx)
		return err
	}, nil)
	if err != nil {
		return err
	}
	s.proc, s.launched = proc, proc != nil
	opts := cdpconn.Options{Keep: func(m string) bool { return targetEvents[m] }, Ready: s.ready, MaxMessageBytes: s.cfg.MaxMessageBytes, Header: s.cfg.Headers}
	var conn *cdpconn.Conn
	if proc != nil {
		s.pid.Store(int64(proc.PID()))
		profileDir := proc.Profile()
		s.profile.Store(&profileDir)
		r, w := proc.Pipe()
		conn, err = cdpconn.DialPipe(ctx, r, w, opts)
	} else {
		conn, err = cdpconn.Dial(ctx, wsURL, opts)
	}
	if err != nil {
		s.stopProcess()
		return fmt.Errorf("connect to the browser: %w", err)
	}
	s.conn = conn
	s.discovered = false
	s.gone = map[string]bool{}
	s.resetContexts()
	// Requests are decided from the first: before discovery, so that no
	// page the agents will see loads anything unchecked.
	if err := s.intercept(ctx, conn); err != nil {
		s.disconnect()
		return err
	}
	if err := s.certificates(ctx, conn); err != nil {
		s.disconnect()
		return err
	}
	// Discovery reports every existing target as created, before its reply.
	err = s.act.Await(ctx, func(ctx context.Context) error {
		return conn.Client.Target.SetDiscoverTargets(ctx, target.NewSetDiscoverTargetsArgs(true))
	}, nil)
	if err != nil {
		s.disconnect()
		return fmt.Errorf("discover targets: %w", err)
	}
	(*supervisorEvents)(s).Apply()
	s.discovered = true
	if s.launched && s.cfg.Viewport != "" {
		for _, e := range s.pages {
			err := s.act.Await(ctx, func(ctx context.Context) error { return s.fitViewport(ctx, conn, e.TargetID) }, nil)
			if err != nil {
				s.log.Warn().Err(err).Msg("sizing the first window to --viewport")
			}
		}
	}
	if s.launched {
		// Our own browser: its first tab gets an actor now, like every tab
		// opened later. A connected browser's existing tabs get theirs when
		// first used, so a Chrome with hundreds of tabs is not flooded.
		for _, e := range s.pages {
			s.spawn(e)
		}
	}
	s.publish()
	if s.launched && s.cfg.StorageState != nil && s.cfg.DefaultStorageState {
		// Our own browser's default context starts from the state too,
		// before any tool loads a page in it.
		err := s.act.Await(ctx, func(ctx context.Context) error {
			_, _, err := s.Storage().applyState(ctx, conn, "", s.cfg.StorageState, false, false)
			return err
		}, nil)
		if err != nil {
			s.lost()
			return fmt.Errorf("give the browser the storage state of --storage-state: %w", err)
		}
	}
	s.generation.Add(1)
	s.watchers.Add(1)
	go s.watch(conn, s.proc)
	s.log.Info().Bool("launched", s.launched).Int("pages", len(s.pages)).Int64("generation", s.generation.Load()).Msg("browser ready")
	return nil
}

// endpoint launches Chromium, or resolves the endpoint of the browser to
// connect to: it returns the launched process (driven over its pipe) or the
// browser WebSocket URL.
func (s *Supervisor) endpoint(ctx context.Context) (*launch.Process, string, error) {
	switch {
	case s.cfg.AutoConnect:
		ws, err := autoConnectEndpoint(s.cfg.UserDataDir, s.cfg.Channel)
		return nil, ws, err
	case s.cfg.WSEndpoint != "":
		return nil, s.cfg.WSEndpoint, nil
	case s.cfg.BrowserURL != "":
		ws, err := resolveBrowserURL(ctx, s.cfg.BrowserURL, s.cfg.Headers)
		if err != nil {
			return nil, "", fmt.Errorf("could not connect to Chrome at %s; check that it is running with --remote-debugging-port: %w", s.cfg.BrowserURL, err)
		}
		return nil, ws, nil
	}
	profile := s.cfg.UserDataDir
	if profile == "" && !s.cfg.Isolated {
		profile = DefaultProfile()
	}
	args := append([]string{}, s.cfg.Args...)
	args = append(args, s.hostRules(args)...)
	headless := s.cfg.Headless || !hasDisplay()
	if headless || s.cfg.Viewport != "" {
		// The page gets the size of --viewport: fitViewport, once the
		// window is there.
		w, h := viewport(s.cfg.Viewport)
		args = append(args, fmt.Sprintf("--window-size=%d,%d", w, h))
	}
	proc, err := launch.Start(ctx, launch.Options{
		ExecutablePath:    s.cfg.ExecutablePath,
		Headless:          headless,
		UserDataDir:       profile,
		Args:              args,
		IgnoreDefaultArgs: s.cfg.IgnoreDefaultArgs,
		StartTimeout:      s.cfg.LaunchTimeout,
		Logger:            s.log,
	})
	if err != nil {
		if profile != "" && inUse(profile) {
			return nil, "", fmt.Errorf("the browser is already running for %s; use --isolated to run multiple browser instances", profile)
		}
		return nil, "", err
	}
	s.log.Info().Int("pid", proc.PID()).Bool("headless", headless).Msg("chromium started")
	return proc, "", nil
}

// lost forgets a browser whose connection went away: its pages and actors
// are gone with it. Page ids keep counting from where they were. Run
// goroutine only.
func (s *Supervisor) lost() {
	s.log.Warn().Msg("browser connection lost")
	s.Workers().stop(ErrBrowserLost)
	for id := range s.pages {
		s.unregister(id, ErrBrowserLost)
	}
	s.disconnect()
	s.publish()
}

// disconnect closes the connection, and the browser if we launched it.
func (s *Supervisor) disconnect() error {
	if s.conn != nil {
		if s.launched {
			// Ask nicely first: Chromium then flushes its profile.
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			s.conn.Client.Browser.Close(ctx)
			cancel()
		}
		s.conn.Close()
		s.conn = nil
	}
	return s.stopProcess()
}

func (s *Supervisor) stopProcess() error {
	if s.proc == nil {
		return nil
	}
	s.pid.Store(0)
	s.profile.Store(nil)
	err := s.proc.Close()
	s.proc = nil
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
		return s.requestPaused(ev.Params)
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
