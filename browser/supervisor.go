// Package browser is the supervisor actor: it launches Chromium or connects
// to a running Chrome, keeps the browser-level CDP connection (the Target
// domain), the registry of pages and their ids, and spawns and reaps one
// page actor per tab.
//
// # Who owns what
//
// The supervisor's run goroutine (package actor) owns the connection, the
// Chromium process and the registry. It publishes the registry as an
// immutable value behind an atomic pointer after each change, so listing
// pages and finding a page's actor never wait on anything: not on the
// supervisor's mailbox, and never on a renderer (ARCHITECTURE.md §2, law 7). Target
// events keep the registry current; a page actor also reports each
// navigation it completes (page.Config.OnNavigated), because the browser
// reports a new title a little after the page has it. The handlers do no
// blocking I/O except launching or connecting and creating an isolated
// context (applying events meanwhile, through actor.Await); creating and
// closing tabs, and loading a page in a new one ([Supervisor.OpenPage]),
// happen on the caller's goroutine, over the browser connection, which is
// safe for concurrent use, and through the page's actor.
//
// The state the supervisor keeps for one job it hands out through a handle
// of its own, a small value wrapping the same supervisor: [Supervisor.Storage]
// (cookies and storage state, storage.go), [Supervisor.Extensions] and
// [Supervisor.PWA] (the Extensions and PWA domains' commands), and
// [Supervisor.Workers] (extensions' service workers, workers.go); inside
// the package, link (the browser connection: launch, connect, loss,
// reconnect) and policy (the URL policy's enforcement). They change no
// ownership: each method says which goroutine may call it.
//
// # Goroutines
//
// The run goroutine, stopped by [Supervisor.Close]; page actors, each
// stopped by the supervisor when its tab goes away and all of them by Close;
// one watcher per browser connection (watch), which ends with its
// connection and is waited for by Close; short goroutines that stop a
// page actor in the background, tracked and waited for by Close; and, for
// the length of one storage state call, one goroutine per hidden tab
// (forEachOrigin, storage.go) and one that answers each tab's requests,
// all ended and waited for before the call returns; and, while a context
// has storage pending, one per batch of changes (at most one queued per
// context) that registers its script on the context's pages
// (kickPending, storage.go), bounded by pendingRefresh and tracked, like
// the stopping ones, for Close.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cdpbrowser "github.com/mafredri/cdp/protocol/browser"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/browser/storagestate"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/launch"
	"github.com/tabhive/tabhive/page"
)

// ErrNoPage is returned for a page id that does not name an open page: it
// never existed, or its tab was closed. Ids are never reused.
var ErrNoPage = errors.New("no page with that id")

// ErrLastPage is returned by [Supervisor.ClosePage] for the only open page.
var ErrLastPage = errors.New("the last open page cannot be closed")

// ErrBrowserLost is the cause of calls cut short because the browser's
// connection went away (its process died, or a connected browser closed):
// the next call relaunches or reconnects.
var ErrBrowserLost = agenterr.New("the browser connection was lost",
	"The browser connection was lost. The next call starts a new browser, or reconnects to it; call list_pages to see its pages.")

// ErrShutdown is the cause of calls cut short by [Supervisor.Close].
var ErrShutdown = errors.New("tabhive is shutting down")

// ErrBrowserNotFound is returned (wrapped) by any call that must launch the
// browser when no Chrome or Chromium binary can be found. Its message says
// what to install or which flag to pass.
var ErrBrowserNotFound = launch.ErrNotFound

// Config says which browser to drive. The zero value of each field means its
// documented default.
type Config struct {
	// ExecutablePath is the Chrome or Chromium binary to launch. If empty,
	// the first of chromium, chromium-browser, google-chrome found on PATH.
	ExecutablePath string
	// Headless launches without a window. Without it, Chromium is headless
	// anyway when no display is available.
	Headless bool
	// Isolated launches with a temporary profile, removed on exit.
	Isolated bool
	// UserDataDir is the profile to launch with. If empty and not Isolated,
	// $XDG_CACHE_HOME/tabhive/chrome-profile (~/.cache/... by default).
	UserDataDir string
	// Args are extra Chromium switches for a launch.
	Args []string
	// Viewport is the size of a launched browser's pages, as
	// "WIDTHxHEIGHT" (fitViewport). If empty, a headless launch's window
	// is 1280x720, its pages 87 pixels shorter.
	Viewport string
	// BrowserURL connects to a running Chrome's DevTools HTTP endpoint, such
	// as http://127.0.0.1:9222, instead of launching.
	BrowserURL string
	// WSEndpoint connects to a running Chrome's browser WebSocket, such as
	// ws://127.0.0.1:9222/devtools/browser/<id>, instead of launching.
	WSEndpoint string
	// Headers are sent when connecting to BrowserURL or WSEndpoint: a
	// browser service's token, for one (--ws-headers).
	Headers http.Header
	// LaunchTimeout bounds starting or connecting to the browser. If zero,
	// 30s.
	LaunchTimeout time.Duration
	// Logger receives the supervisor's logs and those of its page actors.
	Logger zerolog.Logger
	// PageHooks are given to every page actor, to count what pages do.
	PageHooks page.Hooks
	// Policy, if non-nil, decides every request the browser makes (the URL
	// policy: --allowed-url-pattern, --blocked-url-pattern,
	// --file-navigations), launched or connected alike.
	Policy Policy
	// MaxMessageBytes is the most the supervisor reads of one message from
	// the browser; a bigger reply fails its call. If zero,
	// [cdpconn.DefaultMaxMessageBytes].
	MaxMessageBytes int
	// StorageState, if non-nil, is given to every browser context the
	// supervisor creates, before its first page opens (--storage-state;
	// storage.go).
	StorageState *storagestate.State
	// DefaultStorageState gives StorageState to the default context of
	// every browser the supervisor launches, too, before any page loads
	// (not to a browser it connects to: that one is the user's).
	DefaultStorageState bool
	// IgnoreDefaultArgs are default Chromium switches a launch leaves out
	// (--ignore-default-chrome-arg), by whole switch or by name
	// ("--disable-sync", "--disable-features"). The DevTools pipe and the
	// profile directory cannot be left out.
	IgnoreDefaultArgs []string
	// AcceptInsecureCerts makes the browser load pages whose certificate
	// it does not trust (--accept-insecure-certs), launched or connected.
	AcceptInsecureCerts bool
	// AutoConnect connects to a Chrome the user started, through the
	// DevToolsActivePort file of its profile (--auto-connect): UserDataDir
	// if given, else the default profile of Channel.
	AutoConnect bool
	// Channel is the Chrome release channel whose default profile
	// AutoConnect looks in: stable (if empty), beta, dev or canary.
	Channel string
	// IncludeAllPages counts background pages and webviews as pages
	// (--experimental-include-all-pages).
	IncludeAllPages bool
	// ExtensionWorkers attaches to extensions' service workers as they
	// start, so that their console is collected from then on
	// (--category-extensions); without it a worker is attached when first
	// used.
	ExtensionWorkers bool
}

// PageInfo describes an open page as the browser reports it.
type PageInfo struct {
	ID       int
	TargetID string
	URL      string
	Title    string
	// Context is the name of the isolated context the page lives in
	// (new_page's isolatedContext), or "" for the default one.
	Context string
	// Crashed reports that the page's renderer crashed and the page has
	// not been navigated since.
	Crashed bool
	// Opener is the id of the page that opened this one (window.open, a
	// target=_blank link), or 0: opened by a tool, or by a page that was
	// already gone.
	Opener int
}

// Supervisor owns the browser and its pages. Its methods are safe for
// concurrent use.
type Supervisor struct {
	// Immutable or safe from any goroutine.
	cfg       Config
	log       zerolog.Logger
	act       *actor.Actor
	snapshots page.SnapshotCounter // snapshot ids for every page of the process
	nextID    atomic.Int64         // page ids, never reused (ARCHITECTURE.md §3)
	// generation counts browsers: 1 after the first launch or connection,
	// one more after each relaunch or reconnection.
	generation atomic.Int64
	pid        atomic.Int64           // of the launched browser, 0 if none
	profile    atomic.Pointer[string] // of the launched browser, nil if none
	view       atomic.Pointer[registry]
	ready      chan struct{} // event signal shared by successive connections
	closing    chan struct{} // closed when Close starts: ends reconnecting
	closeOnce  sync.Once
	stops      sync.WaitGroup
	watchers   sync.WaitGroup // one per browser connection: see watch
	traces     TraceSlot      // the browser's one performance recording

	// Owned by the run goroutine; never touched elsewhere. After the run
	// goroutine exits, Close reads them.
	conn     *cdpconn.Conn
	proc     *launch.Process
	launched bool              // we started the browser: close it, don't just disconnect
	pages    map[string]*entry // by target id
	gone     map[string]bool   // targets closed on this connection
	// contexts maps an isolated context's name to its browser context id,
	// and contextNames the other way; both reset with the connection.
	contexts     map[string]string
	contextNames map[string]string
	// discovered is set once the targets that existed when we connected
	// have been registered; targets created after that get an actor at once.
	discovered bool
	// visited are the origins each browser context's pages have shown, by
	// context id ("" for the default one), for save_storage_state; loading
	// are the contexts being given Config.StorageState (storage.go). Both
	// reset with the connection.
	visited map[string]map[string]bool
	loading map[string]*stateLoad
	// pending is the localStorage a state load left for each context's
	// pages to apply (storage.go), by context id.
	pending map[string]*pendingStorage
	// workers are extensions' service workers, by target id (workers.go);
	// workerSeq numbers them. workerView is their published list, safe
	// from any goroutine.
	workers    map[string]*workerEntry
	workerSeq  int
	workerView atomic.Pointer[[]WorkerInfo]
	// retry is the backoff of attempts to connect to a browser (remote.go).
	retry retryState
}

// entry is the supervisor's record of one page target.
type entry struct {
	PageInfo
	actor     *page.Actor // nil until first needed (connected mode)
	contextID string      // the page's browser context, "" for the default one
	// closing is set while a call of ClosePageOf closes the tab: the page
	// no longer counts as open for the last-page checks.
	closing bool
}

// registry is an immutable view of the open pages, published after every
// change.
type registry struct {
	pages  []entry         // ordered by id
	byID   map[int]entry   // same entries
	done   <-chan struct{} // closed when the browser connection is gone
	exited <-chan struct{} // closed when a launched browser exited; nil if none
	conn   *cdpconn.Conn   // the browser connection, nil when there is none
}

// New returns a supervisor. The browser is launched or connected on first
// need, so a client that only lists tools never starts one.
func New(cfg Config) *Supervisor {
	if cfg.LaunchTimeout == 0 {
		cfg.LaunchTimeout = 30 * time.Second
	}
	s := &Supervisor{
		cfg:     cfg,
		log:     cfg.Logger.With().Str("actor", "browser").Logger(),
		ready:   make(chan struct{}, 1),
		closing: make(chan struct{}),
		pages:   map[string]*entry{},
		gone:    map[string]bool{},
	}
	s.resetContexts()
	s.view.Store(&registry{byID: map[int]entry{}})
	s.act = actor.New(actor.Config{
		Name:        "browser",
		MailboxSize: 1024,
		Events:      (*supervisorEvents)(s),
		Logger:      s.log,
	})
	s.act.Start()
	return s
}

// Traces returns the browser's trace slot: a page takes it before it
// records a performance trace, as Chrome records one at a time.
func (s *Supervisor) Traces() *TraceSlot { return &s.traces }

// up reports whether the browser connection is alive, from the published
// view.
func (r *registry) up() bool {
	if r.done == nil {
		return false
	}
	select {
	case <-r.done:
		return false
	case <-r.exited:
		return false
	default:
		return true
	}
}

// Ensure launches or connects to the browser if that has not happened yet,
// or if the connection was lost.
func (s *Supervisor) Ensure(ctx context.Context) error {
	if s.view.Load().up() {
		return nil
	}
	_, err := actor.Ask(ctx, s.act, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.link().ensure(ctx)
	})
	return err
}

// Pages lists the open pages, ordered by id. It answers from the registry,
// which Target events keep current: it never waits on a page.
func (s *Supervisor) Pages(ctx context.Context) ([]PageInfo, error) {
	if err := s.Ensure(ctx); err != nil {
		return nil, err
	}
	v := s.view.Load()
	out := make([]PageInfo, len(v.pages))
	for i, e := range v.pages {
		out[i] = e.PageInfo
	}
	return out, nil
}

// Page returns the actor of page id, starting it if it has none or its
// previous one stopped while the tab is still open.
func (s *Supervisor) Page(ctx context.Context, id int) (*page.Actor, error) {
	if err := s.Ensure(ctx); err != nil {
		return nil, err
	}
	e, ok := s.view.Load().byID[id]
	if !ok {
		return nil, ErrNoPage
	}
	if a := e.actor; a != nil && a.Err() == nil {
		if !a.Panicked() {
			return a, nil
		}
		// Its handler panicked and it is on its way out: a call queued
		// on it would fail with that panic too. The next actor starts
		// once this one has let go of the tab.
		select {
		case <-a.Done():
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	return actor.Ask(ctx, s.act, func(context.Context) (*page.Actor, error) {
		e := s.pages[e.TargetID]
		if e == nil {
			return nil, ErrNoPage
		}
		return s.spawn(e), nil
	})
}

// Debugger attaches a CDP session of its own to page id, beside its
// actor's, for tests that must do to a page what no tool does (crash its
// renderer). The caller closes it.
func (s *Supervisor) Debugger(ctx context.Context, id int) (*cdpconn.Conn, error) {
	v := s.view.Load()
	e, ok := v.byID[id]
	if !ok || v.conn == nil {
		return nil, ErrNoPage
	}
	return v.conn.Attach(ctx, e.TargetID, cdpconn.Options{Keep: func(string) bool { return false }})
}

// BrowserPID returns the process id of the Chromium this supervisor
// launched and still runs, or 0.
func (s *Supervisor) BrowserPID() int { return int(s.pid.Load()) }

// ProfileDir returns the profile directory of the Chromium this supervisor
// launched, or "" when it runs none (not started yet, or connected to a
// browser of the user's). No tool may read, write or upload from it: it
// holds the browser's cookies, and its DevToolsActivePort when one is open.
func (s *Supervisor) ProfileDir() string {
	if p := s.profile.Load(); p != nil {
		return *p
	}
	return ""
}

// Generation counts the browsers this supervisor has driven: 0 before the
// first launch or connection, then one more after each relaunch or
// reconnection. Sessions compare it to tell an agent that page ids changed.
func (s *Supervisor) Generation() int64 { return s.generation.Load() }

// Count returns the number of open pages, from the registry; it never
// starts the browser.
func (s *Supervisor) Count() int { return len(s.view.Load().pages) }

// Info returns what the browser reports about page id.
func (s *Supervisor) Info(id int) (PageInfo, bool) {
	e, ok := s.view.Load().byID[id]
	return e.PageInfo, ok
}

// navigated records what a page actor reported at the end of a navigation
// (page.Config.OnNavigated), ahead of the browser's own update, so that a
// page list made at once shows the page's title; a crashed page that
// navigated has a renderer again. The Target events already received are
// applied first, so that the URL compared is the browser's latest.
func (s *Supervisor) navigated(ctx context.Context, targetID, url, title string) {
	actor.Ask(ctx, s.act, func(context.Context) (struct{}, error) {
		(*supervisorEvents)(s).Apply()
		e := s.pages[targetID]
		if e == nil {
			return struct{}{}, nil
		}
		e.Crashed = false
		if e.URL == url {
			e.Title = title
		}
		s.publish()
		return struct{}{}, nil
	})
	s.Storage().settlePending(ctx, targetID)
}

// NewPageOptions tune [Supervisor.NewPage].
type NewPageOptions struct {
	// Background opens the tab without bringing it to the front.
	Background bool
	// Context names an isolated browser context to open the page in,
	// created on first use; "" is the default context.
	Context string
}

// NewPage opens a tab on about:blank and returns it with its actor.
func (s *Supervisor) NewPage(ctx context.Context, opts NewPageOptions) (PageInfo, *page.Actor, error) {
	if err := s.Ensure(ctx); err != nil {
		return PageInfo{}, nil, err
	}
	type where struct {
		conn      *cdpconn.Conn
		contextID string
		load      *stateLoad // the context's storage state, being given
		first     bool       // this call gives it
		fit       bool       // the page's window is sized to Viewport
	}
	w, err := actor.Ask(ctx, s.act, func(ctx context.Context) (where, error) {
		if err := s.link().ensure(ctx); err != nil {
			return where{}, err
		}
		var id string
		if opts.Context != "" {
			var err error
			if id, err = s.contextID(ctx, opts.Context); err != nil {
				return where{}, err
			}
		}
		load, first := s.Storage().claimLoad(id)
		return where{s.conn, id, load, first, s.launched && s.cfg.Viewport != ""}, nil
	})
	if err != nil {
		return PageInfo{}, nil, err
	}
	if err := s.Storage().awaitState(ctx, w.conn, opts.Context, w.contextID, w.load, w.first); err != nil {
		return PageInfo{}, nil, err
	}
	targetID, err := createTarget(ctx, w.conn, opts.Background, w.contextID)
	if err != nil {
		return PageInfo{}, nil, fmt.Errorf("open a tab: %w", lostIfClosed(err))
	}
	if w.fit {
		// A new context's first tab opens a window of its own.
		if err := s.fitViewport(ctx, w.conn, targetID); err != nil {
			s.log.Warn().Err(err).Msg("sizing a new window to --viewport")
		}
	}
	type result struct {
		info  PageInfo
		actor *page.Actor
	}
	r, err := actor.Ask(ctx, s.act, func(context.Context) (result, error) {
		e := s.register(targetID, "page", "about:blank", "", w.contextID)
		return result{e.PageInfo, s.spawn(e)}, nil
	})
	if err == nil {
		// Before its first document: the context's pending storage.
		s.Storage().settlePending(ctx, targetID)
	}
	return r.info, r.actor, err
}

// OpenPageOptions tune [Supervisor.OpenPage]. The zero value opens a
// foreground tab in the default context and waits for the page's default
// navigation timeout.
type OpenPageOptions struct {
	// Background opens the tab without bringing it to the front.
	Background bool
	// Context names an isolated browser context to open the page in,
	// created on first use; "" is the default context.
	Context string
	// Timeout bounds the wait for the page to load. If zero, the page's
	// default (see [page.Actor.Timeouts]).
	Timeout time.Duration
	// Opened, if non-nil, is called exactly once, on the caller's
	// goroutine, before the page navigates: with the new page's id as soon
	// as its tab exists, or with 0 when no tab could be opened. A caller
	// that counts the pages it opened learns of this one before any popup
	// it opens while loading.
	Opened func(id int)
}

// OpenPage opens a tab, loads url in it and waits for it to settle, as
// new_page does. about:blank is not navigated to: a new tab shows it
// already. If the page cannot be loaded, its tab is closed again and the
// navigation's error returned unwrapped (a [*page.NavigationError] when
// Chrome refused or could not load url): the caller asked for a loaded
// page and gets none.
func (s *Supervisor) OpenPage(ctx context.Context, url string, opts OpenPageOptions) (PageInfo, error) {
	info, p, err := s.NewPage(ctx, NewPageOptions{Background: opts.Background, Context: opts.Context})
	if opts.Opened != nil {
		opts.Opened(info.ID) // 0 when it failed
	}
	if err != nil {
		return PageInfo{}, err
	}
	if url == "about:blank" {
		return info, nil
	}
	// The actor tells the registry the page's new URL and title before
	// Navigate returns (see navigated).
	if _, err := p.Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: url, Timeout: opts.Timeout}); err != nil {
		// Leave nothing behind, even when the caller has given up.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		s.ClosePage(cctx, info.ID)
		return PageInfo{}, err
	}
	if now, ok := s.Info(info.ID); ok {
		info = now
	}
	return info, nil
}

// lostIfClosed says [ErrBrowserLost] for a browser-level call that failed
// because the browser connection closed, rather than rpcc's socket error.
func lostIfClosed(err error) error {
	if cdpconn.IsClosed(err) {
		return ErrBrowserLost
	}
	return err
}

// ClosePage closes page id's tab. It refuses with [ErrLastPage] when it is
// the only open page, so the browser keeps a window.
func (s *Supervisor) ClosePage(ctx context.Context, id int) error {
	return s.ClosePageOf(ctx, id, nil)
}

// ClosePageOf closes page id's tab as [Supervisor.ClosePage] does, for an
// owner of some of the pages (an MCP session): when mine is not nil, a page
// it does not report as the owner's is no page ([ErrNoPage]), and the last
// of the owner's pages is refused with [ErrLastPage] as the browser's last
// one is. mine runs on the supervisor's goroutine: it must be quick and
// must not block.
//
// The checks and the decision to close are made on the supervisor's
// goroutine, and a page being closed no longer counts as open, so two
// calls closing the last two pages at once cannot both pass: one closes
// its page, the other is refused. The tab itself is closed on the
// caller's goroutine.
func (s *Supervisor) ClosePageOf(ctx context.Context, id int, mine func(PageInfo) bool) error {
	type plan struct {
		conn     *cdpconn.Conn
		targetID string
	}
	p, err := actor.Ask(ctx, s.act, func(ctx context.Context) (plan, error) {
		if err := s.link().ensure(ctx); err != nil {
			return plan{}, err
		}
		var target *entry
		open, owned := 0, 0
		for _, e := range s.pages {
			if e.closing {
				continue
			}
			open++
			if mine != nil && mine(e.PageInfo) {
				owned++
			}
			if e.ID == id {
				target = e
			}
		}
		switch {
		case target == nil, mine != nil && !mine(target.PageInfo):
			return plan{}, ErrNoPage
		case open == 1, mine != nil && owned == 1:
			return plan{}, ErrLastPage
		}
		target.closing = true
		return plan{s.conn, target.TargetID}, nil
	})
	if err != nil {
		return err
	}
	cerr := closeTarget(ctx, p.conn, p.targetID)
	// Record the outcome even when the caller has given up: a page left
	// marked as closing would never count as open again. The bound is
	// generous: on a loaded machine the supervisor may be busy for seconds.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	gone := false
	_, err = actor.Ask(rctx, s.act, func(context.Context) (struct{}, error) {
		if cerr != nil {
			e := s.pages[p.targetID]
			if e != nil {
				e.closing = false
			}
			// The tab closed by itself meanwhile (its page called
			// window.close(), or the browser's target events got here
			// first): Chrome no longer knows the target.
			gone = e == nil || isNoTarget(cerr)
			return struct{}{}, nil
		}
		s.unregister(p.targetID, page.ErrClosed)
		return struct{}{}, nil
	})
	switch {
	case cerr != nil && gone:
		return ErrNoPage
	case cerr != nil:
		return fmt.Errorf("close page %d: %w", id, lostIfClosed(cerr))
	}
	return err
}

// isNoTarget reports whether err is Chrome's answer to a command about a
// target it does not know.
func isNoTarget(err error) bool {
	return !cdpconn.IsClosed(err) && strings.Contains(err.Error(), "No target with given id")
}

// connection returns the live browser connection.
func (s *Supervisor) connection(ctx context.Context) (*cdpconn.Conn, error) {
	return actor.Ask(ctx, s.act, func(ctx context.Context) (*cdpconn.Conn, error) {
		if err := s.link().ensure(ctx); err != nil {
			return nil, err
		}
		return s.conn, nil
	})
}

// Close stops every page actor and the supervisor, then closes a browser
// that was launched or disconnects from one that was connected to
// (ARCHITECTURE.md §2, law 9). It returns within a few seconds whatever the browser does.
func (s *Supervisor) Close() error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.act.Stop(ErrShutdown)
	// The run goroutine has exited: its state is ours now.
	s.Workers().stop(ErrShutdown)
	var wg sync.WaitGroup
	for _, e := range s.pages {
		if e.actor != nil {
			wg.Add(1)
			go func() { defer wg.Done(); e.actor.Stop(ErrShutdown) }()
		}
	}
	wg.Wait()
	s.stops.Wait()
	err := s.link().disconnect()
	s.watchers.Wait()
	return err
}

// spawn returns e's running actor, starting one if needed. Run goroutine
// only.
//
// An actor that stopped while its tab is still open (a handler panicked, its
// session was lost) is not reaped when it exits: it stays in its entry,
// costing nothing, until the page's next use finds it stopped ([Supervisor.Page]
// checks Err) and spawn starts a fresh one, or the tab closes.
func (s *Supervisor) spawn(e *entry) *page.Actor {
	if e.actor != nil && e.actor.Err() == nil {
		return e.actor
	}
	conn, targetID := s.conn, e.TargetID
	e.actor = page.Start(page.Config{
		ID:       e.ID,
		TargetID: e.TargetID,
		// The page's session lives on this browser connection; after a
		// relaunch the page is gone with it.
		Attach: func(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error) {
			return conn.Attach(ctx, targetID, opts)
		},
		Snapshots: &s.snapshots,
		Logger:    s.cfg.Logger,
		Hooks:     s.cfg.PageHooks,
		Grant:     s.grant,
		Blocked:   s.blocked,
		Relay:     conn.NewRelay,
		OnNavigated: func(ctx context.Context, url, title string) {
			s.navigated(ctx, targetID, url, title)
		},
	})
	s.publish()
	return e.actor
}

// register records a page target, giving it the next page id, or returns
// the existing record. Run goroutine only.
func (s *Supervisor) register(targetID, typ, url, title, contextID string) *entry {
	if e := s.pages[targetID]; e != nil {
		return e
	}
	e := &entry{PageInfo: PageInfo{ID: int(s.nextID.Add(1)), TargetID: targetID, URL: url, Title: title, Context: s.contextNames[contextID]}, contextID: contextID}
	s.pages[targetID] = e
	s.log.Debug().Int("page", e.ID).Str("target", targetID).Msg("page registered")
	s.publish()
	return e
}

// unregister forgets a target and stops its actor in the background. Run
// goroutine only.
func (s *Supervisor) unregister(targetID string, cause error) {
	e := s.pages[targetID]
	if e == nil {
		return
	}
	delete(s.pages, targetID)
	s.gone[targetID] = true
	if e.actor != nil {
		a := e.actor
		s.stops.Add(1)
		go func() { defer s.stops.Done(); a.Stop(cause) }()
	}
	s.log.Debug().Int("page", e.ID).Msg("page gone")
	s.publish()
}

// publish makes the current registry visible to readers. Run goroutine
// only.
func (s *Supervisor) publish() {
	r := &registry{byID: make(map[int]entry, len(s.pages))}
	for _, e := range s.pages {
		r.pages = append(r.pages, *e)
		r.byID[e.ID] = *e
	}
	slices.SortFunc(r.pages, func(a, b entry) int { return a.ID - b.ID })
	if s.conn != nil {
		r.done = s.conn.Done()
		r.conn = s.conn
	}
	if s.proc != nil {
		r.exited = s.proc.Exited()
	}
	s.view.Store(r)
}

// Local reports whether the browser runs on this machine: launched by us,
// or connected to on a loopback address. Files it uploads are then read
// from this machine's disk, so they go through the file sandbox.
func (s *Supervisor) Local() bool {
	endpoint := s.cfg.WSEndpoint
	if endpoint == "" {
		endpoint = s.cfg.BrowserURL
	}
	if endpoint == "" {
		return true
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

func (s *Supervisor) resetContexts() {
	s.contexts = map[string]string{}
	s.contextNames = map[string]string{}
	s.visited = map[string]map[string]bool{}
	s.loading = map[string]*stateLoad{}
	s.pending = map[string]*pendingStorage{}
}

// blocked says why the URL policy refuses a request for url, or returns
// nil; for page actors, whose routes must not get round it.
func (s *Supervisor) blocked(url string) error {
	if s.cfg.Policy == nil {
		return nil
	}
	return s.cfg.Policy.Request(url)
}

// grant grants a permission in a browser context over the browser-level
// connection, which lives as long as the browser: a grant made on a page's
// own session would be withdrawn when that session detaches.
func (s *Supervisor) grant(ctx context.Context, browserContextID, permission string) error {
	conn, err := s.connection(ctx)
	if err != nil {
		return err
	}
	args := cdpbrowser.NewSetPermissionArgs(cdpbrowser.PermissionDescriptor{Name: permission}, cdpbrowser.PermissionSettingGranted)
	if browserContextID != "" {
		args.SetBrowserContextID(cdpbrowser.ContextID(browserContextID))
	}
	return conn.Client.Browser.SetPermission(ctx, args)
}
