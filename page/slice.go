package page

// Capabilities: what a page can do beyond its core (frames, dialogs,
// sessions, the mailbox) lives in packages of its own, each owning a slice
// of per-page state that the page's run goroutine holds for it. See
// [Register].

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/rpcc"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// A Slice is one capability's state on one page. The page's run goroutine
// owns it: its methods run there, in calls made through [Do] or as the
// page applies events, never elsewhere (ARCHITECTURE.md §2, law 1). A
// slice that registered events implements [Applier]; one that holds
// something to let go of (a process, a file) implements [Closer]; a
// capability with no state of its own needs neither.
type Slice any

// An Applier is a [Slice] that applies the events its capability
// registered for.
type Applier interface {
	// Apply applies one event of those the capability registered for,
	// received on session s.
	Apply(s *Session, ev cdpconn.Event) error
}

// A Closer is a [Slice] that lets go of what it holds as the page's actor
// exits, after its last call has ended. Close must return within a bound
// of its own.
type Closer interface {
	Close()
}

// Capability describes one kind of [Slice] to [Register].
type Capability[S Slice] struct {
	// Name names the capability in logs and panics.
	Name string
	// Events are the CDP events the slice applies: the page's sessions
	// queue them, and its run goroutine hands each to Apply after the
	// core has applied it (frames first, then the slices, in registration
	// order).
	Events []string
	// New makes the slice of a page that is starting. It runs before the
	// page's goroutine starts and must not call the browser.
	New func(h *Host) S
}

// Key finds a capability's slice on a page.
type Key[S Slice] struct{ i int }

// Of returns page a's slice. Any goroutine may call it: the slice is made
// before the page starts and never replaced. Its state is still the run
// goroutine's: reach it only through [Do] or Apply.
func (k Key[S]) Of(a *Actor) S { return a.slices[k.i].(S) }

// capability is a registered Capability without its type parameter.
type capability struct {
	name   string
	events []string
	new    func(h *Host) Slice
}

// registry holds the registered capabilities, in registration order, and
// sliceEvents which of them apply each event. Both are written only by
// Register during package initialization, before any page starts, and
// read-only after; started enforces that.
var (
	registry    []capability
	sliceEvents = map[string][]int{}
	started     atomic.Bool
)

// Register adds a capability to every page started after it, and returns
// the key that finds its slice. Call it from a package-level variable's
// initializer, as image.RegisterFormat is used: a capability is on when
// its package is imported. It panics if a page has already started.
func Register[S Slice](c Capability[S]) Key[S] {
	if started.Load() {
		panic(fmt.Sprintf("page: capability %s registered after a page started", c.Name))
	}
	if _, ok := any(*new(S)).(Applier); len(c.Events) > 0 && !ok {
		panic(fmt.Sprintf("page: capability %s registers events but its slice has no Apply", c.Name))
	}
	i := len(registry)
	registry = append(registry, capability{
		name:   c.Name,
		events: c.Events,
		new:    func(h *Host) Slice { return c.New(h) },
	})
	for _, m := range c.Events {
		sliceEvents[m] = append(sliceEvents[m], i)
	}
	return Key[S]{i}
}

// A ChildSetUp is a [Slice] that acts on each new session of an
// out-of-process iframe before its renderer runs (the page's emulation,
// its request routes). SetUpChild runs on the run goroutine as the
// session attaches; the function it returns, if not nil, runs on the
// goroutine that sets the session up, with what it captured, and must
// touch no slice state. An error fails setting the session up.
type ChildSetUp interface {
	SetUpChild() func(ctx context.Context, s *Session) error
}

// childSetUps collects what the slices do to a new child session.
func (a *Actor) childSetUps() []func(context.Context, *Session) error {
	var fns []func(context.Context, *Session) error
	for _, sl := range a.slices {
		if cs, ok := sl.(ChildSetUp); ok {
			if fn := cs.SetUpChild(); fn != nil {
				fns = append(fns, fn)
			}
		}
	}
	return fns
}

// newSlices makes a starting page's slices.
func (a *Actor) newSlices() {
	started.Store(true)
	a.slices = make([]Slice, len(registry))
	for i, c := range registry {
		a.slices[i] = c.new(&Host{a: a})
	}
}

// applySlices hands ev to the slices that registered for it.
func (a *Actor) applySlices(s *Session, ev cdpconn.Event) error {
	for _, i := range sliceEvents[ev.Method] {
		if err := a.slices[i].(Applier).Apply(s, ev); err != nil {
			return fmt.Errorf("%s: %w", registry[i].name, err)
		}
	}
	return nil
}

// closeSlices closes every slice, as the actor exits.
func (a *Actor) closeSlices() {
	for _, sl := range a.slices {
		if c, ok := sl.(Closer); ok {
			c.Close()
		}
	}
}

// Host is the narrow handle a capability's slice has on its page: the
// page's own session, the wait that keeps events flowing, and the checks
// every call makes. Its methods run on the page's run goroutine (inside
// [Do] or Apply) unless they say otherwise.
type Host struct{ a *Actor }

// ID returns the page id. Safe from any goroutine.
func (h *Host) ID() int { return h.a.id }

// Log returns the page's logger. Safe from any goroutine.
func (h *Host) Log() *zerolog.Logger { return &h.a.log }

// Top returns the page's own session. Valid once the page has attached,
// which every call and event comes after.
func (h *Host) Top() *Session { return h.a.top }

// Client returns the page's own session's CDP client.
func (h *Host) Client() *cdp.Client { return h.a.c }

// NeedRenderer fails with a [*DialogError] while a dialog is open:
// anything that needs the page's JavaScript or layout would hang until it
// is handled (ARCHITECTURE.md §2, law 6).
func (h *Host) NeedRenderer() error { return h.a.needRenderer() }

// Call runs one blocking CDP exchange while the page keeps applying
// events; a dialog opening or the renderer crashing meanwhile ends it at
// once with its error.
func (h *Host) Call(ctx context.Context, fn func(ctx context.Context) error) error {
	return h.a.call(ctx, fn)
}

// Await runs slow work on a goroutine of its own while the page keeps
// applying events, as [actor.Actor.Await] does; interrupt, if not nil, is
// checked after each batch of events and ends the wait with its error.
func (h *Host) Await(ctx context.Context, fn func(ctx context.Context) error, interrupt func() error) error {
	return h.a.act.Await(ctx, fn, interrupt)
}

// Crashed returns [ErrCrashed] once the page's renderer has crashed: an
// interrupt for Await.
func (h *Host) Crashed() error { return h.a.crashCheck() }

// OnAll runs fn on the page's session and on each of its out-of-process
// iframes' at once, and returns the page's error; an iframe's is logged.
func (h *Host) OnAll(ctx context.Context, fn func(ctx context.Context, s *Session) error) error {
	return h.a.children.onAll(ctx, fn)
}

// SessionOf returns the session that reaches frame id: the page's own for
// a frame not known to live elsewhere.
func (h *Host) SessionOf(frameID string) *Session { return h.a.frames.sessionOf(frameID) }

// MainFrame returns the id of the page's main frame.
func (h *Host) MainFrame() string { return h.a.frames.main }

// URL returns the main frame's URL, fragment included.
func (h *Host) URL() string { return h.a.frames.url }

// Do runs fn on the page's run goroutine, as every call to the page does:
// in arrival order, under ctx's deadline, failing at once on a crashed
// renderer, and with the page's own reason when its connection closes.
func Do[T any](ctx context.Context, h *Host, fn func(ctx context.Context) (T, error)) (T, error) {
	return ask(ctx, h.a, fn)
}

// ID returns the session's CDP session id. Safe from any goroutine.
func (s *Session) ID() string { return s.id }

// Client returns the session's CDP client. Safe from any goroutine.
func (s *Session) Client() *cdp.Client { return s.c }

// Send sends a command on the session without waiting for its reply, for
// acknowledgements made while applying events. Safe from any goroutine.
func (s *Session) Send(method string, params any) error { return s.conn.Send(method, params) }

// IsTop reports whether s is the page's own session rather than an
// out-of-process iframe's.
func (s *Session) IsTop() bool { return s.parent == nil }

// RPC returns the session's raw connection, for commands the CDP client
// does not type (Page.printToPDF's stream). Safe from any goroutine.
func (s *Session) RPC() *rpcc.Conn { return s.conn.RPC() }

// State returns what every page-scoped reply reports about the page: its
// open dialog and what it emulates.
func (h *Host) State() State { return h.a.state() }
