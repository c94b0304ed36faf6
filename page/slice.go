package page

// Capabilities: what a page can do beyond its core (frames, dialogs,
// sessions, the mailbox) lives in packages of its own, each owning a slice
// of per-page state that the page's run goroutine holds for it. See
// [Register].

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/actor"
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

// A HostKey finds the [Host] of a page for a capability that keeps no
// state on it ([RegisterStateless]).
type HostKey struct{ k Key[hostOnly] }

// hostOnly is the slice of a capability that keeps no state: the Host its
// calls reach the page through.
type hostOnly struct{ h *Host }

// RegisterStateless registers a capability that keeps no state on a page
// and applies no event, so that its calls reach the page through the Host
// the key finds. Like [Register], it must run during package
// initialization.
func RegisterStateless(name string) HostKey {
	return HostKey{Register(Capability[hostOnly]{
		Name: name,
		New:  func(h *Host) hostOnly { return hostOnly{h} },
	})}
}

// Of returns page a's Host.
func (k HostKey) Of(a *Actor) *Host { return k.k.Of(a).h }

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

// An Enabler is a [Slice] that turns on CDP domains of its own as its
// page starts: after the page's own (Page, Runtime, Network, ...), before
// its frame tree is read, so that what they report is complete from the
// first event. Enable runs while the page keeps applying events, on a
// goroutine of its own: it may call the browser through [Host.Client] and
// [Host.Top], and must touch no slice state. It is best effort: an error
// is logged and the page starts all the same.
type Enabler interface {
	Enable(ctx context.Context) error
}

// A MockRecorder is a [Slice] told of each request a route answered
// itself rather than letting it reach the network,
// so that its listing can say so. requestID is the request's CDP Network
// id, how the words the listing shows ("fulfilled by route 2").
type MockRecorder interface {
	Mocked(requestID, url, how string)
}

// A Reporter is a [Slice] that reports part of its page's [State], which
// every page-scoped reply carries. Report runs on the run goroutine; what
// it returns crosses to other goroutines and must share no memory with
// the slice.
type Reporter interface {
	Report() any
}

// A Restorer is a [Slice] whose settings on the page's own session a run
// of Lighthouse replaces with its own: Restore sets them again, on the
// run goroutine, once Lighthouse has let go of the page.
type Restorer interface {
	Restore(ctx context.Context) error
}

// An Explainer is a [Slice] that may know better why a call to the page
// failed (a route redirected one of its requests to a URL the policy
// blocks). CallStarts runs on the run goroutine as each call starts; the
// function it returns, if not nil, runs there when the call failed (not
// by its connection closing) and returns the call's error, or one that
// explains it and wraps it.
type Explainer interface {
	CallStarts() func(err error) error
}

// sliceSet is a page's slices, one per registered capability, in
// registration order: made before the run goroutine starts, then owned by
// it. Its methods run there, each a loop over the slices that implement
// one of the optional interfaces above.
type sliceSet []Slice

// newSliceSet makes the slices of a page that is starting.
func newSliceSet(h *Host) sliceSet {
	started.Store(true)
	ss := make(sliceSet, len(registry))
	for i, c := range registry {
		ss[i] = c.new(h)
	}
	return ss
}

// apply hands ev to the slices that registered for it.
func (ss sliceSet) apply(s *Session, ev cdpconn.Event) error {
	for _, i := range sliceEvents[ev.Method] {
		if err := ss[i].(Applier).Apply(s, ev); err != nil {
			return fmt.Errorf("%s: %w", registry[i].name, err)
		}
	}
	return nil
}

// enable runs the slices' Enable, one after the other, as the page starts,
// each on an Await goroutine of act while the page keeps applying events;
// an error is logged.
func (ss sliceSet) enable(ctx context.Context, act *actor.Actor, log zerolog.Logger) {
	for i, sl := range ss {
		if en, ok := sl.(Enabler); ok {
			if err := act.Await(ctx, en.Enable, nil); err != nil {
				log.Debug().Err(err).Msg("enable " + registry[i].name)
			}
		}
	}
}

// childSetUps collects what the slices do to a new child session.
func (ss sliceSet) childSetUps() []func(context.Context, *Session) error {
	var fns []func(context.Context, *Session) error
	for _, sl := range ss {
		if cs, ok := sl.(ChildSetUp); ok {
			if fn := cs.SetUpChild(); fn != nil {
				fns = append(fns, fn)
			}
		}
	}
	return fns
}

// callStarts collects what the slices that explain errors need to know of
// a call that starts.
func (ss sliceSet) callStarts() []func(error) error {
	var fns []func(error) error
	for _, sl := range ss {
		if ex, ok := sl.(Explainer); ok {
			if fn := ex.CallStarts(); fn != nil {
				fns = append(fns, fn)
			}
		}
	}
	return fns
}

// explain passes a failed call's error through the slices' explanations.
func explain(err error, fns []func(error) error) error {
	for _, fn := range fns {
		err = fn(err)
	}
	return err
}

// mocked tells the slices that a route answered a request itself
// ([Host.Mocked]).
func (ss sliceSet) mocked(requestID, url, how string) {
	for _, sl := range ss {
		if m, ok := sl.(MockRecorder); ok {
			m.Mocked(requestID, url, how)
		}
	}
}

// reports collects the slices' parts of the page's State.
func (ss sliceSet) reports() []any {
	var parts []any
	for _, sl := range ss {
		if r, ok := sl.(Reporter); ok {
			parts = append(parts, r.Report())
		}
	}
	return parts
}

// restore sets the slices' settings again after Lighthouse.
func (ss sliceSet) restore(ctx context.Context) error {
	var errs []error
	for _, sl := range ss {
		if r, ok := sl.(Restorer); ok {
			errs = append(errs, r.Restore(ctx))
		}
	}
	return errors.Join(errs...)
}

// close closes every slice, as the actor exits.
func (ss sliceSet) close() {
	for _, sl := range ss {
		if c, ok := sl.(Closer); ok {
			c.Close()
		}
	}
}
