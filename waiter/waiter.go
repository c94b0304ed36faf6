// Package waiter waits for the consequences of one action on a page: a
// navigation it started, the DOM settling, the requests it sent, or a dialog
// cutting everything short (ARCHITECTURE.md §8).
//
// A [Waiter] serves one action and is then thrown away. The page actor
// creates it before the action, feeds it the page's events from its own
// goroutine (the feed methods never block), and calls [Waiter.Run] from the
// goroutine that performs the action. Run owns all of the waiter's state; the
// feed methods only append to its queue.
//
// What "settled" means, in order of precedence:
//
//  1. A dialog opened: return at once (the renderer is paused; nothing else
//     can make progress).
//  2. A cross-document navigation of the main frame started (the page said
//     it was starting one, or Chrome reported it): wait for it to finish, up
//     to the navigation timeout, then for the new document's DOM to go
//     quiet (100 ms × CPU at least, the last 50 ms × CPU without mutation).
//  3. Otherwise the action's own work is done: nothing it caused is pending
//     in the page, and the DOM has then been quiet for a short tail
//     (15 ms × CPU); and every document request the action sent has
//     finished, up to 3 s × network.
//
// # Causal settle
//
// What the action caused is followed in the page itself (package page's
// causal tracker, [Page.Track]): from the moment the action starts until
// its input is delivered, and then from inside the work it caused, the
// page's timers (setTimeout, an interval's first tick), animation frames,
// fetches and XMLHttpRequests (and reading their responses), posted
// messages, and a navigation the document starts are counted as pending
// until they have run, transitively: a timer that starts a fetch that sets
// a timer is one chain. The wait ends when none is pending and the DOM has
// been quiet for the tail. So a click that causes nothing settles a few
// milliseconds after its input, and an effect that lands 600 ms later, or
// after 30 animation frames, is waited for.
//
// Bounds: a timer set more than the horizon (1 s × CPU) ahead, an
// interval's later ticks, and timers or frames that run on for a horizon
// without changing the DOM (an endless animation, a poll) are not waited
// for; they are reported in [Result.Pending]. "Run on for a horizon" is
// counted in the time the page asked for (timer delays, 1/60 s a frame) as
// well as in wall time since the DOM last changed or a response arrived,
// so that work a loaded machine merely runs late is still waited for (up
// to three horizons of wall time). Requests are waited for up to
// 3 s × network. The whole wait stays inside the caller's context.
//
// Limits, where the DOM-quiet tail is all there is: work scheduled by other
// means (workers, observers, CSS transitions, window.postMessage, idle
// callbacks), work in other frames, and effects that land later than the
// tail without the page scheduling anything (an image that loads). The
// tracker is the page's main world only while the action is followed, and
// it restores the page as it was when it stops: a page cannot tell it ran
// outside that window, nor, inside it, by Function.prototype.toString or
// its timer ids. Unrelated work that happens to run inside the action's
// window is counted too, a bounded over-approximation.
package waiter

import (
	"context"
	"errors"
	"time"

	"github.com/tabhive/tabhive/internal/queue"
)

// Page is what the waiter needs from the page besides its events. Its
// methods are called from Run's goroutine, one at a time.
type Page interface {
	// Track starts following what the action causes in the current
	// document: from now on, work the page schedules is the action's. A
	// timer set more than horizon ahead is reported, not followed.
	Track(ctx context.Context, horizon time.Duration) error
	// InputDone says the action's input has been delivered: from now on
	// only work scheduled by the action's own work counts.
	InputDone(ctx context.Context)
	// Settle returns once the action's work is done or its bounds are
	// reached, as [Settling] says; with Fresh it follows nothing (a new
	// document) and waits for the DOM alone. An error means the document
	// went away (a navigation) or cannot be reached.
	Settle(ctx context.Context, s Settling) (Settled, error)
}

// Settling says when the page's work counts as settled.
type Settling struct {
	// Tail is how long the DOM must have been quiet once nothing is
	// pending.
	Tail time.Duration
	// Min is the least time the wait takes from its call.
	Min time.Duration
	// Horizon bounds timers and animation frames: pending ones are given up
	// once the DOM has not changed for this long.
	Horizon time.Duration
	// Requests bounds the wait for pending fetches and XMLHttpRequests.
	Requests time.Duration
	// Max bounds the whole wait.
	Max time.Duration
	// Fresh waits on a document whose work nobody followed.
	Fresh bool
}

// Settled is what the page said when it settled.
type Settled struct {
	// Reason is "settled", "navigating" (the document started a
	// navigation), "horizon" (timers or frames gave no sign of ending),
	// "requests" (requests outran their bound) or "max".
	Reason string
	// Pending describes the action's work left pending, such as "a timer
	// of 5 s".
	Pending []string
}

// Config sets the timing of one wait. The zero value of each field means its
// documented default.
type Config struct {
	// CPU is the CPU slowdown being emulated. If zero, 1.
	CPU float64
	// Network is the network slowdown being emulated (Slow 3G = 10). If
	// zero, 1.
	Network float64
	// NavigationTimeout bounds the wait for a started navigation to finish.
	// If zero, 3 s × Network.
	NavigationTimeout time.Duration
	// SkipStableDOM waits only for navigation and requests, not for the DOM
	// to go quiet.
	SkipStableDOM bool
	// HandleDialog, if non-nil, is offered each dialog that opens, with its
	// type (alert, confirm, prompt, beforeunload). If it handles the dialog
	// it returns true and the wait goes on; otherwise the wait stops there.
	// It runs on Run's goroutine.
	HandleDialog func(ctx context.Context, typ string) bool
}

// Base timings, before the multipliers.
const (
	causalTail    = 15 * time.Millisecond  // DOM quiet after the action's work is done
	horizon       = time.Second            // timers further ahead, and work without effect this long, are not waited for
	probeWindow   = 100 * time.Millisecond // without following the page: a navigation must start within this
	navStartWait  = time.Second            // the page said it navigates: Chrome reports the start within this
	quietWindow   = 100 * time.Millisecond // a new document: wait at least this long for its effects to show
	quietTail     = 50 * time.Millisecond  // and this long since its last DOM mutation
	quietCap      = 3 * time.Second        // give up on the DOM after this
	navigationCap = 3 * time.Second        // default wait for a started navigation
	requestCap    = 3 * time.Second        // give up on pending requests after this
)

// Result says what the wait saw.
type Result struct {
	// Navigated reports that a cross-document navigation of the main frame
	// started after the action.
	Navigated bool
	// Dialog reports that a JavaScript dialog opened and was left open; the
	// wait stopped there.
	Dialog bool
	// DialogsHandled counts dialogs that HandleDialog took care of.
	DialogsHandled int
	// GaveUp names a sub-wait that hit its cap ("navigation", "dom",
	// "requests"), or is empty. Capped waits are not errors.
	GaveUp string
	// Pending describes work the action caused that was left pending and
	// not waited for, such as "a timer of 5 s": set further ahead than the
	// horizon, or running on without changing the page.
	Pending []string
}

type kind int

const (
	navStarted kind = iota
	navFinished
	dialogOpened
	requestStarted
	requestFinished
)

type event struct {
	kind kind
	id   string // request id, or dialog type
}

// Waiter waits for the consequences of one action. Create it with [New].
type Waiter struct {
	cfg Config
	// events are fed by the page actor and taken by Run; closed when Run
	// returns, after which feeding drops them.
	events *queue.Queue[event]
}

// New returns a waiter for one action.
func New(cfg Config) *Waiter {
	if cfg.CPU < 1 {
		cfg.CPU = 1
	}
	if cfg.Network < 1 {
		cfg.Network = 1
	}
	if cfg.NavigationTimeout <= 0 {
		cfg.NavigationTimeout = scale(navigationCap, cfg.Network)
	}
	return &Waiter{cfg: cfg, events: queue.New[event](0, nil)}
}

func scale(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }

// NavigationStarted reports that the main frame began a cross-document
// navigation (not a fragment or history.pushState change).
func (w *Waiter) NavigationStarted() { w.push(event{kind: navStarted}) }

// NavigationFinished reports that the main frame's document finished
// loading, or stopped loading without one.
func (w *Waiter) NavigationFinished() { w.push(event{kind: navFinished}) }

// DialogOpened reports that a JavaScript dialog of type typ opened on the
// page.
func (w *Waiter) DialogOpened(typ string) { w.push(event{kind: dialogOpened, id: typ}) }

// RequestStarted reports a request worth waiting for (fetch, XHR or a
// document), identified by its CDP request id.
func (w *Waiter) RequestStarted(id string) { w.push(event{kind: requestStarted, id: id}) }

// RequestFinished reports that a request finished or failed.
func (w *Waiter) RequestFinished(id string) { w.push(event{kind: requestFinished, id: id}) }

// push queues e for Run; after Run returned it is dropped (ErrClosed).
func (w *Waiter) push(e event) { w.events.Push(e) }

// act runs action while watching for dialogs: a dialog that the action
// opens (an alert() in a click handler) keeps the action's input event from
// being acknowledged until the dialog closes. done reports that Run must
// return res and err now.
func (w *Waiter) act(ctx context.Context, action func(ctx context.Context) error) (res Result, done bool, err error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the action's CDP call if we return early
	result := make(chan error, 1)
	// The goroutine ends when action returns, which it does once actx is
	// cancelled at the latest.
	go func() { result <- action(actx) }()
	// Events other than dialogs are held here and put back at the head of
	// the queue once, when the action is over, for the wait after it:
	// putting them back at each wake-up would signal ready again and spin
	// until the action returns.
	var held []event
	defer func() { w.events.PushFront(held) }()
	for {
		select {
		case err := <-result:
			return res, err != nil, err
		case <-ctx.Done():
			return res, true, context.Cause(ctx)
		case <-w.events.Ready():
			for _, e := range w.events.Take() {
				if e.kind != dialogOpened {
					held = append(held, e)
					continue
				}
				if w.cfg.HandleDialog != nil && w.cfg.HandleDialog(ctx, e.id) {
					res.DialogsHandled++
					continue
				}
				res.Dialog = true
				return res, true, nil
			}
		}
	}
}

// errNavigating cancels a settle wait whose document is being replaced.
var errNavigating = errors.New("navigation started")

// Run arms the waiter, runs action and waits for its consequences. An error
// from action is returned as is and nothing is waited for. Errors of the
// waits themselves are not returned: a wait that cannot complete stops at
// its cap, and Run returns what it saw. Run returns ctx's cause if ctx ends
// first. A Waiter must not be reused after Run.
func (w *Waiter) Run(ctx context.Context, page Page, action func(ctx context.Context) error) (res Result, err error) {
	defer w.events.Close()
	cpu, net := w.cfg.CPU, w.cfg.Network
	follow := !w.cfg.SkipStableDOM
	if follow {
		// Bounded: a paused renderer must not hang the setup (upstream #2427).
		tctx, cancel := context.WithTimeout(ctx, scale(quietCap, cpu))
		if page.Track(tctx, scale(horizon, cpu)) != nil {
			// Nothing followed (the document was going away, say): the
			// wait falls back to a probe window and the DOM going quiet.
			follow = false
		}
		cancel()
	}
	res, done, err := w.act(ctx, action)
	if done {
		return res, err
	}
	if follow {
		ictx, cancel := context.WithTimeout(ctx, scale(quietCap, cpu))
		page.InputDone(ictx)
		cancel()
	}

	var (
		pending   = map[string]bool{}
		inputOver bool // requests sent from now on are not the action's
		navDone   bool
		navOver   bool // the navigation cap has passed
		reqsOver  bool // the request cap has passed
		// probed: no navigation is to be expected any more. Following the
		// page, it says itself whether it navigates; otherwise a
		// navigation must start within the probe window.
		probed = follow

		settleDone   = w.cfg.SkipStableDOM
		settleCh     chan settleResult
		settleCancel context.CancelCauseFunc = func(error) {}
	)
	defer func() { settleCancel(context.Canceled) }()
	startSettle := func(s Settling) {
		if w.cfg.SkipStableDOM {
			return
		}
		settleCancel(errNavigating)
		var sctx context.Context
		sctx, settleCancel = context.WithCancelCause(ctx)
		ch := make(chan settleResult, 1)
		settleCh, settleDone = ch, false
		go func() { // ends when Settle does, at sctx's end at the latest
			st, err := page.Settle(sctx, s)
			ch <- settleResult{st, err}
		}()
	}
	// fresh is the wait on a document nobody followed: a new one, or one
	// the tracker could not be put in.
	fresh := Settling{Fresh: true, Min: scale(quietWindow, cpu), Tail: scale(quietTail, cpu), Max: scale(quietCap, cpu)}
	if follow {
		startSettle(Settling{
			Tail:     scale(causalTail, cpu),
			Horizon:  scale(horizon, cpu),
			Requests: scale(requestCap, net),
			Max:      max(scale(requestCap, net), scale(quietCap, cpu)),
		})
	} else {
		startSettle(fresh)
	}

	var probe <-chan time.Time
	if !probed {
		t := time.NewTimer(scale(probeWindow, cpu))
		defer t.Stop()
		probe = t.C
	}
	reqCap := time.NewTimer(scale(requestCap, net))
	defer reqCap.Stop()
	var navTimer, navStart <-chan time.Time

	for {
		for _, e := range w.events.Take() {
			switch e.kind {
			case dialogOpened:
				if w.cfg.HandleDialog != nil && w.cfg.HandleDialog(ctx, e.id) {
					res.DialogsHandled++
					continue
				}
				res.Dialog = true
				return res, nil
			case navStarted:
				if !res.Navigated {
					res.Navigated = true
					settleCancel(errNavigating)
					settleCh, settleDone, navStart = nil, w.cfg.SkipStableDOM, nil
					t := time.NewTimer(w.cfg.NavigationTimeout)
					defer t.Stop()
					navTimer = t.C
				}
			case navFinished:
				if res.Navigated && !navDone {
					navDone = true
					navTimer = nil
					startSettle(fresh)
				}
			case requestStarted:
				// Requests sent while the action's input is delivered
				// are its own (a form posted, a document requested); what
				// its scripts fetch later the page follows itself. A page
				// that polls must not keep every action waiting.
				if !inputOver {
					pending[e.id] = true
				}
			case requestFinished:
				delete(pending, e.id)
			}
		}
		inputOver = true

		navSettled := (!res.Navigated && probed) || navDone || navOver
		reqSettled := len(pending) == 0 || reqsOver
		if navSettled && settleDone && reqSettled {
			return res, nil
		}

		select {
		case <-ctx.Done():
			return res, context.Cause(ctx)
		case <-w.events.Ready():
		case <-probe:
			probed, probe = true, nil
		case <-navStart:
			// The page said it navigates and Chrome reports no start: the
			// navigation was cancelled, or stayed in the document. Wait on
			// the DOM alone.
			navStart = nil
			startSettle(fresh)
		case <-reqCap.C:
			reqsOver = true
			if len(pending) > 0 {
				res.GaveUp = "requests"
			}
		case <-navTimer:
			navOver, navTimer = true, nil
			res.GaveUp = "navigation"
			startSettle(fresh)
		case r := <-settleCh:
			settleCh = nil
			switch {
			case r.err != nil && !res.Navigated:
				// The document went away under the wait: a navigation
				// Chrome has not reported yet.
				fallthrough
			case r.st.Reason == "navigating" && !res.Navigated:
				t := time.NewTimer(scale(navStartWait, cpu))
				defer t.Stop()
				navStart = t.C
			case r.err != nil:
				settleDone = true
			default:
				settleDone = true
				res.Pending = r.st.Pending
				switch r.st.Reason {
				case "requests":
					res.GaveUp = "requests"
				case "max":
					res.GaveUp = "dom"
				}
			}
		}
	}
}

// settleResult is what one [Page.Settle] returned.
type settleResult struct {
	st  Settled
	err error
}
