package waiter

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tabhive/tabhive/mailbox"
)

// Page is what the waiter needs from the page besides its events. Its
// methods are called from Run's goroutine, one at a time, except Settle,
// which runs on a goroutine of its own while Run may call Hold and
// Release.
type Page interface {
	// Track starts following what the action causes in the current
	// document: from now on, work the page schedules is the action's. A
	// timer set more than horizon ahead is reported, not followed. An error
	// wrapping [ErrUnfollowable] says the page's state keeps it from being
	// followed; any other, that the document went away.
	Track(ctx context.Context, horizon time.Duration) error
	// InputDone says the action's input has been delivered: from now on
	// only work scheduled by the action's own work counts.
	InputDone(ctx context.Context)
	// Hold says a script the document requested (an import(), a <script>
	// added) is loading: it is pending, and what runs meanwhile counts, until
	// Release with the same key.
	Hold(ctx context.Context, key string)
	Release(ctx context.Context, key string)
	// Settle returns once the action's work is done or its bounds are
	// reached, as [Settling] says; with Fresh it follows nothing (a new
	// document) and waits for the DOM alone. An error wrapping
	// [ErrUnfollowable] says the page cannot be followed; any other, that
	// the document went away (a navigation) or cannot be reached.
	Settle(ctx context.Context, s Settling) (Settled, error)
	// Stop ends following in every document Track or Settle followed. Run
	// calls it on every path, except when it returns with a dialog open
	// (the renderer is paused until the dialog is handled): then the caller
	// must, once the dialog is closed.
	Stop(ctx context.Context)
}

// ErrUnfollowable marks an error of [Page] that says the page cannot be
// followed: its state broke what following it needs (a document that
// predates the tracker, whose scripts replaced a built-in it relies on).
// The wait then falls back to a short window.
var ErrUnfollowable = errors.New("the page could not be followed")

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

// A settle wait that ends with a result (not an error) has stopped
// following: the page does it as it answers, which spares a round trip.

// Settled is what the page said when it settled.
type Settled struct {
	// Reason is "settled", "navigating" (the document started a
	// navigation), "horizon" (timers or frames gave no sign of ending),
	// "requests" (requests outran their bound) or "max".
	Reason string
	// Pending summarises the action's work still scheduled, one entry per
	// kind, such as "a timer of 5 s" or "17 timers, the nearest of 1.2 s".
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
	// Navigates says the action is a navigation command (navigate_page,
	// new_page): the document it leaves is not followed, only the
	// navigation and then the new document. Following the old one cost a
	// tracker's setup and a settle wait that the navigation cancels.
	Navigates bool
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
	stopCap       = 500 * time.Millisecond // bound on one call that ends or holds following
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
	// Pending summarises work the action caused that was left pending and
	// not waited for, one entry per kind, such as "a timer of 5 s": set
	// further ahead than the horizon, or running on without changing the
	// page. It holds at most [MaxPending] entries of at most
	// [MaxPendingBytes] bytes each, whatever the page scheduled.
	Pending []string
	// Unfollowed, if not empty, says why the action's work could not be
	// followed in the page; the wait then gave a navigation the probe
	// window to start, and waited for nothing else.
	Unfollowed string
}

// Bounds of [Result.Pending]: a page that schedules 200,000 timers gets one
// line that counts them, and a line is cut (a fetch's URL may be long).
const (
	MaxPending      = 12
	MaxPendingBytes = 200
)

// boundPending applies the bounds of [Result.Pending] to what a page said.
func boundPending(p []string) []string {
	if len(p) > MaxPending {
		p = p[:MaxPending]
	}
	out := make([]string, 0, len(p))
	for _, s := range p {
		if len(s) > MaxPendingBytes {
			cut := MaxPendingBytes - len("…")
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut] + "…"
		}
		if s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

type kind int

const (
	navStarted kind = iota
	navFinished
	dialogOpened
	requestStarted
	requestFinished
	scriptStarted
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
	events *mailbox.Queue[event]
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
	return &Waiter{cfg: cfg, events: mailbox.NewQueue[event](0, nil)}
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

// ScriptStarted reports that the document requested a script (an
// import(), a <script> added), by its CDP request id: the action's work
// goes on once it has loaded. RequestFinished reports its end.
func (w *Waiter) ScriptStarted(id string) { w.push(event{kind: scriptStarted, id: id}) }

// RequestFinished reports that a request finished or failed.
func (w *Waiter) RequestFinished(id string) { w.push(event{kind: requestFinished, id: id}) }

// push queues e for Run; after Run returned it is dropped (ErrClosed).
func (w *Waiter) push(e event) { w.events.Push(e) }

// act runs action while watching for dialogs: a dialog that the action
// opens (an alert() in a click handler) keeps the action's input event from
// being acknowledged until the dialog closes. done reports that Run must
// return res and err now.
func (w *Waiter) act(ctx context.Context, res *Result, action func(ctx context.Context) error) (done bool, err error) {
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
			return err != nil, err
		case <-ctx.Done():
			return true, context.Cause(ctx)
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
				return true, nil
			}
		}
	}
}

// errNavigating cancels a settle wait whose document is being replaced.
var errNavigating = errors.New("navigation started")

// unfollowedReason is what an [ErrUnfollowable] error says after the
// sentinel, bounded: it is shown to the agent.
func unfollowedReason(err error) string {
	s := strings.TrimPrefix(err.Error(), ErrUnfollowable.Error())
	s = strings.TrimLeft(s, ": ")
	if s == "" {
		return "its document did not answer"
	}
	if len(s) > MaxPendingBytes {
		cut := MaxPendingBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// Run arms the waiter, runs action and waits for its consequences. An error
// from action is returned as is and nothing is waited for. Errors of the
// waits themselves are not returned: a wait that cannot complete stops at
// its cap, and Run returns what it saw. Run returns ctx's cause if ctx ends
// first. A Waiter must not be reused after Run.
func (w *Waiter) Run(ctx context.Context, page Page, action func(ctx context.Context) error) (res Result, err error) {
	defer w.events.Close()
	// Following ends on every path, whatever ended the wait, under a bound
	// of its own; except with a dialog open, whose renderer answers nothing
	// until the dialog is handled (Page.Stop says who stops it then).
	defer func() {
		if res.Dialog {
			return
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), scale(stopCap, w.cfg.CPU))
		defer cancel()
		page.Stop(sctx)
	}()
	tracked := w.track(ctx, page)
	if done, err := w.act(ctx, &res, action); done {
		return res, err
	}
	if tracked {
		ictx, cancel := context.WithTimeout(ctx, scale(quietCap, w.cfg.CPU))
		page.InputDone(ictx)
		cancel()
	}
	aw := w.newAfter(page, &res, tracked)
	defer aw.stop()
	aw.begin(ctx)
	return res, aw.wait(ctx)
}

// track starts following the page for the action, unless the action
// navigates or is not to be waited for, and reports whether it does.
// Nothing followed (the document was going away, or its state keeps it
// from being followed): the wait falls back to a probe window and the DOM
// going quiet, which tries the page once more.
func (w *Waiter) track(ctx context.Context, page Page) bool {
	if w.cfg.SkipStableDOM || w.cfg.Navigates {
		return false
	}
	// Bounded: a paused renderer must not hang the setup (upstream #2427).
	tctx, cancel := context.WithTimeout(ctx, scale(quietCap, w.cfg.CPU))
	defer cancel()
	return page.Track(tctx, scale(horizon, w.cfg.CPU)) == nil
}

// settleResult is what one [Page.Settle] returned.
type settleResult struct {
	st  Settled
	err error
}
