// Package waiter waits for the consequences of one action on a page: a
// navigation it started, the DOM settling, the requests it sent, or a dialog
// cutting everything short (DESIGN §5).
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
//  2. A cross-document navigation of the main frame started (within the
//     probe window of 100 ms × CPU after the action, or later while still
//     waiting): wait for it to finish, up to the navigation timeout, then
//     wait for the new document's DOM to go quiet.
//  3. Otherwise the DOM of the current document has settled: at least
//     100 ms × CPU have passed (the quiet window, in which an action's
//     effects show) and the last 50 ms × CPU saw no mutation (the tail, which
//     a burst of mutations keeps extending); and every fetch, XHR or
//     document request that the action started (sent between arming and the
//     end of the probe window) has finished, up to 3 s × network. When such
//     a request finishes after the window began, the window starts again, so
//     a response that re-renders the page is waited for.
//
// Three things make it faster and more faithful than chrome-devtools-mcp's
// sequential version: the quiet window runs concurrently with the navigation
// probe (a click that changes nothing settles in ~100 ms, not ~200 ms);
// mutations are recorded from before the action, so an effect that lands
// within the window does not restart a full window (a button whose text
// changes 50 ms after the click settles at ~100 ms, where upstream takes
// ~250 ms); and requests the action started are waited for (a search whose
// results arrive 600 ms later is not reported before they render).
package waiter

import (
	"context"
	"errors"
	"time"

	"github.com/tabhive/tabhive/internal/queue"
)

// Page is what the waiter needs from the page besides its events.
type Page interface {
	// ArmQuiet starts recording DOM mutations of the current document, so
	// that a later WaitQuiet can count mutations from before it was called.
	ArmQuiet(ctx context.Context) error
	// WaitQuiet returns once at least window has passed since the call and
	// the current document's DOM has had no mutation for the last quiet
	// (quiet <= window), or once max has passed since the call. On a
	// document without a recorder it installs one first.
	WaitQuiet(ctx context.Context, window, quiet, max time.Duration) error
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

// Base timings, before the multipliers (reference §3.8).
const (
	probeWindow   = 100 * time.Millisecond // a navigation must start within this
	quietWindow   = 100 * time.Millisecond // wait at least this long for effects to show
	quietTail     = 50 * time.Millisecond  // and this long since the last DOM mutation
	quietCap      = 3 * time.Second        // give up on quiet after this
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

// errNavigating cancels a quiet wait whose document is being replaced.
var errNavigating = errors.New("navigation started")

// Run arms the waiter, runs action and waits for its consequences. An error
// from action is returned as is and nothing is waited for. Errors of the
// waits themselves are not returned: a wait that cannot complete stops at
// its cap, and Run returns what it saw. Run returns ctx's cause if ctx ends
// first. A Waiter must not be reused after Run.
func (w *Waiter) Run(ctx context.Context, page Page, action func(ctx context.Context) error) (res Result, err error) {
	defer w.events.Close()
	cpu, net := w.cfg.CPU, w.cfg.Network
	if !w.cfg.SkipStableDOM {
		// Bounded: a paused renderer must not hang the setup (upstream #2427).
		actx, cancel := context.WithTimeout(ctx, scale(quietCap, cpu))
		page.ArmQuiet(actx) // best effort: WaitQuiet installs a recorder if this failed
		cancel()
	}
	if res, done, err := w.act(ctx, action); done {
		return res, err
	}

	var (
		pending  = map[string]bool{}
		navDone  bool
		probed   bool // the probe window has passed without a navigation
		reqsOver bool // the request cap has passed
		navOver  bool // the navigation cap has passed

		quietDone    = w.cfg.SkipStableDOM
		quietCh      chan error
		quietCancel  context.CancelCauseFunc = func(error) {}
		finishedLate bool                    // a request finished after the current quiet wait began
	)
	defer func() { quietCancel(context.Canceled) }()
	startQuiet := func() {
		if w.cfg.SkipStableDOM {
			return
		}
		quietCancel(errNavigating)
		var qctx context.Context
		qctx, quietCancel = context.WithCancelCause(ctx)
		ch := make(chan error, 1)
		quietCh = ch
		quietDone = false
		finishedLate = false
		go func() {
			ch <- page.WaitQuiet(qctx, scale(quietWindow, cpu), scale(quietTail, cpu), scale(quietCap, cpu))
		}()
	}
	startQuiet()

	probe := time.NewTimer(scale(probeWindow, cpu))
	defer probe.Stop()
	reqCap := time.NewTimer(scale(requestCap, net))
	defer reqCap.Stop()
	var navTimer <-chan time.Time

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
					quietCancel(errNavigating)
					quietCh, quietDone = nil, w.cfg.SkipStableDOM
					t := time.NewTimer(w.cfg.NavigationTimeout)
					defer t.Stop()
					navTimer = t.C
				}
			case navFinished:
				if res.Navigated && !navDone {
					navDone = true
					navTimer = nil
					startQuiet()
				}
			case requestStarted:
				// Only requests sent within the probe window count as the
				// action's own: a page that polls must not keep every
				// action waiting until the cap.
				if !probed {
					pending[e.id] = true
				}
			case requestFinished:
				if pending[e.id] {
					delete(pending, e.id)
					finishedLate = true
				}
			}
		}

		navSettled := (!res.Navigated && probed) || navDone || navOver
		reqSettled := len(pending) == 0 || reqsOver
		if navSettled && quietDone && reqSettled {
			if !finishedLate || reqsOver || w.cfg.SkipStableDOM {
				return res, nil
			}
			// A response arrived after the quiet window began; it may
			// re-render the page. Give it a fresh window.
			startQuiet()
		}

		select {
		case <-ctx.Done():
			return res, context.Cause(ctx)
		case <-w.events.Ready():
		case <-probe.C:
			probed = true
		case <-reqCap.C:
			reqsOver = true
			if len(pending) > 0 {
				res.GaveUp = "requests"
			}
		case <-navTimer:
			navOver, navTimer = true, nil
			res.GaveUp = "navigation"
			startQuiet()
		case err := <-quietCh:
			quietCh = nil
			quietDone = true
			if errors.Is(err, context.DeadlineExceeded) {
				res.GaveUp = "dom"
			}
		}
	}
}
