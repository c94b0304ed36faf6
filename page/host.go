package page

// Host: the narrow handle a capability's slice has on its page's core, and
// the methods of [Session] that capabilities use. Host holds the core's
// own services (the page's session, its frames and sessions, the waits
// that keep events flowing); the rest it hands out as sub-handles, each
// one job, each in its own host_*.go: [Elements] (host_snapshot.go,
// host_input.go), [Dialogs] (host_dialogs.go), [Loads] (host_loads.go)
// and [Owner] (host_owner.go). What the core offers one capability only
// is in that capability's host_<capability>.go.

import (
	"context"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/rpcc"
	"github.com/rs/zerolog"
)

// Host is the narrow handle a capability's slice has on its page: the
// page's own session, its frames and the sessions that reach them, the
// wait that keeps events flowing, and the checks every call makes; its
// sub-handles ([Host.Elements], [Host.Dialogs], [Host.Loads],
// [Host.Owner]) reach the rest. Its methods run on the page's run
// goroutine (inside [Do] or Apply) unless they say otherwise.
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

// Life returns the page's lifetime context, which ends when its actor
// stops: a bound for work that must outlive the call that started it (the
// renderer goes on writing a heap snapshot whose call gave up). Safe from
// any goroutine.
func (h *Host) Life() context.Context { return h.a.act.Context() }

// Post runs fn on the run goroutine, among the events it applies next.
// Safe from any goroutine: it is how an Await goroutine hands back a
// change to the slice's state.
func (h *Host) Post(fn func()) { h.a.posted.Push(fn) }

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
