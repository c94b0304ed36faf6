package page

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/emulation"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/mailbox"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/snapshot"
	"github.com/tabhive/tabhive/waiter"
)

// Config describes the page target an actor drives. The zero value of each
// optional field means its documented default.
type Config struct {
	// ID is the page id agents use, from the supervisor's process-wide
	// counter.
	ID int
	// TargetID is Chrome's target id.
	TargetID string
	// Attach opens the page's CDP session (a flat session on the browser's
	// channel, attached to TargetID), queueing the events opts keeps.
	Attach func(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error)
	// Snapshots hands out snapshot ids; one counter serves every page. If
	// nil, the page gets a counter of its own.
	Snapshots *SnapshotCounter
	// Logger receives the actor's logs, tagged with its page id.
	Logger zerolog.Logger
	// OnNavigated, if non-nil, is told of each navigation that
	// [Actor.Navigate] completed, with the main frame's URL and the
	// document's title, before Navigate returns: the browser reports a new
	// title a little after the document has it, and a page list made as soon
	// as the navigation returns must show it. A page that navigated has a
	// renderer again, even if it had crashed. It runs on a goroutine of its
	// own while the actor keeps applying its events, and may block until ctx
	// ends.
	OnNavigated func(ctx context.Context, url, title string)
	// ConnectTimeout bounds connecting and enabling domains. If zero, 30s:
	// the first tab of a browser just launched, on a machine whose cores
	// are saturated, took 14.5 s to attach and enable them.
	ConnectTimeout time.Duration
	// Hooks let the owner count what the page does.
	Hooks Hooks
	// Grant, if non-nil, grants a permission (such as "geolocation") in a
	// browser context ("" for the default one) over a connection that
	// outlives the page. Chrome withdraws a grant when the session that
	// made it detaches, so a grant from the page's own session would vanish
	// when any page that granted the same goes away. If nil, the page's own
	// session grants.
	Grant func(ctx context.Context, browserContextID, permission string) error
	// Blocked, if non-nil, says why the URL policy refuses a request, or
	// returns nil: routes never fulfil or continue a request it refuses
	// (page/route).
	Blocked func(url string) error
	// Relay, if non-nil, opens a relay on the browser's channel for an
	// outside DevTools client (page/lighthouse); without one the page cannot
	// be audited.
	Relay func(deliver func(msg []byte)) *cdpconn.Relay
}

// SnapshotCounter hands out snapshot ids, the first part of every uid. Its
// owner shares one among all the pages of the process ([Config.Snapshots]),
// so that a uid names one snapshot of one page (ARCHITECTURE.md §3). The zero value
// starts at 1; a SnapshotCounter must not be copied after first use.
type SnapshotCounter struct{ c snapshot.Counter }

// Hooks are called when things worth counting happen on a page. Nil hooks
// are skipped. They run on the page's goroutines and must not block.
type Hooks struct {
	// EvaluateDone is called after each evaluate_script, with its duration
	// and whether it ran out of time.
	EvaluateDone func(d time.Duration, timedOut bool)
	// ScriptTerminated is called when Runtime.terminateExecution is sent to
	// stop a script still running past its deadline.
	ScriptTerminated func()
	// DialogOpened is called when a JavaScript dialog opens.
	DialogOpened func()
	// StaleDropped is called for a call dropped unrun because its caller's
	// deadline passed while it waited in the page's mailbox.
	StaleDropped func()
	// Exiting is called when the actor has stopped taking calls and
	// begins to let go of its tab (a loaded machine's slow exit, in tests).
	Exiting func()
}

// Actor drives one page target. Its exported methods may be called from any
// goroutine; each becomes a message that runs on the actor's goroutine, in
// arrival order.
type Actor struct {
	// Immutable or safe from any goroutine.
	id       int
	targetID string
	attach   func(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error)
	log      zerolog.Logger
	act      *actor.Actor
	counter  *SnapshotCounter
	timeout  time.Duration
	hooks    Hooks
	grant    func(ctx context.Context, browserContextID, permission string) error
	blocked  func(url string) error
	relay    func(deliver func(msg []byte)) *cdpconn.Relay
	// onNavigated is Config.OnNavigated.
	onNavigated func(ctx context.Context, url, title string)

	// Written once, then read-only: conn is the page's CDP session and c
	// its client.
	// Lifecycle: nil until init attaches, on the run goroutine, before the
	// loop runs any message; an actor whose init fails stops without
	// running one. They are never written again: the goroutines that read
	// them (Await's, the waiter's, the connection watcher) are all started
	// after the write, and OnExit closes conn once the loop has ended.
	conn *cdpconn.Conn
	c    *cdp.Client
	// top is the page's own session (conn and c), written with them.
	top *Session

	// ready is signalled when any of the page's sessions has queued events,
	// or posted has work: the one channel the actor runtime waits on.
	ready chan struct{}
	// posted holds work for the run goroutine from the goroutines that set
	// up child sessions (oopif.go): each func is the result of one, run in
	// Apply. Safe from any goroutine.
	posted *mailbox.Queue[func()]

	// Owned by the run goroutine; never touched elsewhere.
	// frames is the page's frame tree (frames.go).
	frames *frameTree
	// children are the sessions of the page's out-of-process iframes
	// (oopif.go); the actor closes them as it exits.
	children *children

	// dialogs is the page's JavaScript dialog state (dialog.go).
	dialogs dialogs

	// waiter is the post-action waiter of the action in progress, if any;
	// events are forwarded to it.
	waiter *waiter.Waiter
	// leftTrackers are the probes of actions whose wait ended with a
	// dialog open, stopped once it is closed (stopLeftTrackers).
	leftTrackers []waiter.Page

	// pace is what the emulation in force implies for the core's waits,
	// published by the emulation capability (host_emulation.go); nil means
	// nothing is emulated. The exception to this group: any goroutine may
	// load it ([Actor.Timeouts]).
	pace paceCell

	ids     *snapshot.IDs
	snap    *snapshot.Node            // latest snapshot, or nil
	uids    map[string]*snapshot.Node // uid index of snap
	crashed bool

	// slices are the registered capabilities' state on this page
	// (slice.go), by registration order: made before the run goroutine
	// starts, then owned by it.
	slices sliceSet
}

// Dialog is an open JavaScript dialog.
type Dialog struct {
	Type          string // alert, confirm, prompt or beforeunload
	Message       string
	DefaultPrompt string
}

// Start spawns the actor for a page. It returns at once; connecting happens
// on the actor's goroutine, and calls made meanwhile wait in its mailbox.
func Start(cfg Config) *Actor {
	a := &Actor{
		id:          cfg.ID,
		targetID:    cfg.TargetID,
		attach:      cfg.Attach,
		log:         cfg.Logger.With().Int("page", cfg.ID).Logger(),
		counter:     cfg.Snapshots,
		timeout:     cfg.ConnectTimeout,
		hooks:       cfg.Hooks,
		grant:       cfg.Grant,
		blocked:     cfg.Blocked,
		relay:       cfg.Relay,
		onNavigated: cfg.OnNavigated,
		frames:      newFrameTree(),
		ready:       make(chan struct{}, 1),
	}
	if a.counter == nil {
		a.counter = new(SnapshotCounter)
	}
	if a.timeout == 0 {
		a.timeout = 30 * time.Second
	}
	a.posted = mailbox.NewQueue[func()](0, a.ready)
	a.children = &children{
		byID:    map[string]*Session{},
		frames:  a.frames,
		log:     a.log,
		timeout: a.timeout,
		ready:   a.ready,
		posted:  a.posted,
		call:    a.call,
		drain:   a.drainEvents,
	}
	a.ids = snapshot.NewIDs(&a.counter.c)
	a.slices = newSliceSet(&Host{a: a})
	a.act = actor.New(actor.Config{
		Name:    fmt.Sprintf("page %d", cfg.ID),
		Events:  (*eventSource)(a),
		Init:    a.init,
		OnStale: cfg.Hooks.StaleDropped,
		OnExit: func(error) {
			if cfg.Hooks.Exiting != nil {
				cfg.Hooks.Exiting()
			}
			a.slices.close()
			a.children.close()
			if a.conn != nil {
				a.conn.Close()
			}
		},
		Logger: a.log,
	})
	a.act.Start()
	return a
}

// ID returns the page id.
func (a *Actor) ID() int { return a.id }

// TargetID returns Chrome's id for the page's target.
func (a *Actor) TargetID() string { return a.targetID }

// Done returns a channel that is closed when the actor has stopped.
func (a *Actor) Done() <-chan struct{} { return a.act.Done() }

// Err returns why the actor stopped, or nil while it runs.
func (a *Actor) Err() error { return a.act.Err() }

// Panicked reports whether the actor is stopping, or stopped, because one
// of its handlers panicked: a caller told of the panic sees it at once.
func (a *Actor) Panicked() bool { return a.act.Panicked() }

// Stop stops the actor with cause and waits for it. Calls in progress and
// queued fail with an error wrapping cause.
func (a *Actor) Stop(cause error) { a.act.Stop(cause) }

// init connects to the target and enables the domains the actor listens to.
func (a *Actor) init(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	conn, err := a.attach(ctx, cdpconn.Options{Keep: keepEvent, Ready: a.ready})
	if err != nil {
		return fmt.Errorf("%w (%w)", ErrDisconnected, err)
	}
	a.conn, a.c = conn, conn.Client
	a.top = &Session{id: conn.SessionID(), conn: conn, c: conn.Client}
	a.frames.top = a.top
	// Stop when the session goes away: target closed, browser gone.
	// Whoever owns the actor knows which (the target was destroyed, the
	// browser was lost) and stops it with that cause; the session alone
	// cannot tell, so it waits goneWait for the owner first. The actor's
	// lifetime context bounds this goroutine.
	go func() {
		select {
		case <-conn.Done():
		case <-a.act.Context().Done():
			return
		}
		t := time.NewTimer(goneWait)
		defer t.Stop()
		select {
		case <-t.C:
			a.act.Stop(ErrDisconnected)
		case <-a.act.Context().Done():
		}
	}()
	err = a.act.Await(ctx, func(ctx context.Context) error {
		g, ctx := errgroup.WithContext(ctx)
		g.Go(func() error { return a.c.Page.Enable(ctx) })
		g.Go(func() error { return installTracker(ctx, a.c) })
		g.Go(func() error { return walker.InstallOnNewDocuments(ctx, a.c) })
		g.Go(func() error { return a.c.Runtime.Enable(ctx) })
		g.Go(func() error { return a.c.Network.Enable(ctx, nil) })
		g.Go(func() error { return a.c.Inspector.Enable(ctx) })
		// Every page behaves as if focused, so timers and focus-dependent
		// behaviour do not differ between an agent's background tabs and
		// its foreground one.
		g.Go(func() error {
			return a.c.Emulation.SetFocusEmulationEnabled(ctx, emulation.NewSetFocusEmulationEnabledArgs(true))
		})
		// Out-of-process iframes (oopif.go). The page's own renderer is
		// not paused: it was attached, not auto-attached. Best effort: a
		// Chrome that refuses it still drives the page, without them.
		g.Go(func() error {
			if err := setAutoAttach(ctx, a.conn); err != nil && ctx.Err() == nil {
				a.log.Warn().Err(err).Msg("attach to out-of-process iframes")
			}
			return nil
		})
		return g.Wait()
	}, nil)
	if err != nil {
		return a.initError(ctx, "enable domains", err)
	}
	// What the capabilities turn on themselves (the collectors' issues and
	// asynchronous stacks), once Runtime is on (Chrome refuses the stack
	// depth before). Best effort: a page without them still works.
	a.slices.enable(ctx, a.act, a.log)
	var tree *page.GetFrameTreeReply
	err = a.act.Await(ctx, func(ctx context.Context) (err error) {
		tree, err = a.c.Page.GetFrameTree(ctx)
		return err
	}, nil)
	if err != nil {
		return a.initError(ctx, "get frame tree", err)
	}
	a.frames.main = string(tree.FrameTree.Frame.ID)
	a.frames.addTree(a.top, tree.FrameTree)
	a.log.Debug().Str("url", a.frames.url).Msg("page actor ready")
	return nil
}

// initError is why init failed at step: when the connection closed under
// it (the tab closed, the browser died as the page was opening), the reason
// its owner gives, as for a call (goneCause), not rpcc's socket error.
func (a *Actor) initError(ctx context.Context, step string, err error) error {
	if cdpconn.IsClosed(err) {
		return a.goneCause(ctx)
	}
	return fmt.Errorf("%s: %w", step, err)
}

// ask runs fn on the actor's goroutine. Every exported method goes through
// it. A page whose renderer crashed fails at once, except for navigating,
// which starts a new renderer. A call cut short by the page's connection
// closing fails with the reason (see goneCause), whatever step it was at.
func ask[T any](ctx context.Context, a *Actor, fn func(ctx context.Context) (T, error)) (T, error) {
	return actor.Ask(ctx, a.act, func(ctx context.Context) (T, error) {
		var zero T
		if a.crashed {
			return zero, ErrCrashed
		}
		explainers := a.slices.callStarts()
		v, err := fn(ctx)
		if err != nil && cdpconn.IsClosed(err) {
			return zero, a.goneCause(ctx)
		}
		if err != nil {
			err = explain(err, explainers)
		}
		return v, err
	})
}

// goneWait bounds how long a page whose connection closed waits for its
// owner to say why (page closed, browser lost) before it stops itself with
// [ErrDisconnected].
const goneWait = time.Second

// goneCause is why a call failed whose connection closed under it: the stop
// cause the owner gives within goneWait, else [ErrDisconnected]. The actor
// has nothing left to do meanwhile: its connection is gone.
func (a *Actor) goneCause(ctx context.Context) error {
	life := a.act.Context()
	t := time.NewTimer(goneWait)
	defer t.Stop()
	select {
	case <-life.Done():
		return context.Cause(life)
	case <-t.C:
	case <-ctx.Done():
	}
	return ErrDisconnected
}

// call runs one blocking CDP exchange while the actor keeps applying events.
// If a dialog opens meanwhile, call returns a [*DialogError] at once: the
// renderer is paused and the exchange would not finish until it closes.
func (a *Actor) call(ctx context.Context, fn func(ctx context.Context) error) error {
	seq := a.dialogs.seq
	return a.act.Await(ctx, fn, func() error {
		if err := a.dialogs.openedSince(seq); err != nil {
			return err
		}
		return a.crashCheck()
	})
}

// needRenderer fails fast with a [*DialogError] while a dialog is open:
// anything that needs the page's JavaScript or layout would hang until the
// dialog is handled (ARCHITECTURE.md §2, law 6).
func (a *Actor) needRenderer() error { return a.dialogs.blocking() }

// State is what every page-scoped reply reports about the page besides the
// tool's own result.
type State struct {
	// Dialog is the dialog open at the end of the call, or nil.
	Dialog *Dialog
	// Parts are the capabilities' parts of the state, in registration
	// order: what each [Reporter] slice reports (the emulation in force).
	Parts []any
}

func (a *Actor) state() State {
	return State{Dialog: a.dialogs.current(), Parts: a.slices.reports()}
}

// State returns the page's current state.
func (a *Actor) State(ctx context.Context) (State, error) {
	return actor.Ask(ctx, a.act, func(context.Context) (State, error) { return a.state(), nil })
}

// URL returns the main frame's URL as the actor last saw it.
func (a *Actor) URL(ctx context.Context) (string, error) {
	return actor.Ask(ctx, a.act, func(context.Context) (string, error) { return a.frames.url, nil })
}

// errDialog reports whether err says a dialog interrupted the call.
func errDialog(err error) (*DialogError, bool) {
	var de *DialogError
	ok := errors.As(err, &de)
	return de, ok
}

// crashCheck is an Await interrupt that ends a wait when the renderer
// crashed.
func (a *Actor) crashCheck() error {
	if a.crashed {
		return ErrCrashed
	}
	return nil
}
