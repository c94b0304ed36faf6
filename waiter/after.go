package waiter

import (
	"context"
	"errors"
	"time"
)

// after is the wait that follows an action: what [Waiter.Run] has seen of
// the action's consequences and what it still waits for. It lives for one
// Run and is touched only by Run's goroutine; the one goroutine it starts
// at a time, a Settle, is waited for by startSettle and stop.
type after struct {
	w       *Waiter
	page    Page
	res     *Result // Run's result, filled in as the wait goes
	tracked bool    // the page follows the action itself (Page.Track)

	pending   map[string]bool // requests of the action still running
	scripts   map[string]bool // held in the page until loaded
	inputOver bool            // requests sent from now on are not the action's
	navDone   bool
	navOver   bool // the navigation cap has passed
	reqsOver  bool // the request cap has passed
	// probed: no navigation is to be expected any more. Following the
	// page, it says itself whether it navigates; otherwise a navigation
	// must start within the probe window.
	probed bool
	// tries counts settle waits that failed or found a navigation that
	// never started: one more is tried, then the wait ends.
	tries int

	settleDone   bool
	settleCh     chan settleResult
	settleCancel context.CancelCauseFunc
	// settling is closed when the running Settle returns: the page is not
	// safe to use from two goroutines, so a cancelled Settle is waited for
	// before another starts, and before Run returns (and its deferred Stop
	// runs).
	settling chan struct{}

	// fresh is the wait on a document nobody followed: a new one, or one
	// the tracker could not be put in; followed, on the document the
	// tracker follows.
	fresh, followed Settling

	probe, navTimer, navStart <-chan time.Time
	reqCap                    *time.Timer
	timers                    []*time.Timer // stopped by stop
}

func (w *Waiter) newAfter(page Page, res *Result, tracked bool) *after {
	cpu, net := w.cfg.CPU, w.cfg.Network
	settling := make(chan struct{})
	close(settling)
	return &after{
		w: w, page: page, res: res, tracked: tracked,
		pending:      map[string]bool{},
		scripts:      map[string]bool{},
		probed:       tracked,
		settleDone:   w.cfg.SkipStableDOM,
		settleCancel: func(error) {},
		settling:     settling,
		fresh:        Settling{Fresh: true, Min: scale(quietWindow, cpu), Tail: scale(quietTail, cpu), Max: scale(quietCap, cpu)},
		followed: Settling{
			Tail:     scale(causalTail, cpu),
			Horizon:  scale(horizon, cpu),
			Requests: scale(requestCap, net),
			Max:      max(scale(requestCap, net), scale(quietCap, cpu)),
		},
	}
}

// stop ends what the wait left running: the Settle (waited for) and the
// timers.
func (a *after) stop() {
	a.settleCancel(context.Canceled)
	<-a.settling
	if a.reqCap != nil {
		a.reqCap.Stop()
	}
	for _, t := range a.timers {
		t.Stop()
	}
}

// timer returns the channel of a new timer of d, stopped by stop.
func (a *after) timer(d time.Duration) <-chan time.Time {
	t := time.NewTimer(d)
	a.timers = append(a.timers, t)
	return t.C
}

// begin starts the first waits: on the followed document, on the
// navigation to come, or on a document nobody follows; then the probe
// window and the requests' cap.
func (a *after) begin(ctx context.Context) {
	switch {
	case a.tracked:
		a.startSettle(ctx, a.followed)
	case a.w.cfg.Navigates:
		// The new document is waited for once the navigation finished; a
		// navigation that stays in the document (a fragment) leaves the
		// probe window.
		a.settleDone = true
	default:
		a.startSettle(ctx, a.fresh)
	}
	if !a.probed {
		a.startProbe()
	}
	a.reqCap = time.NewTimer(scale(requestCap, a.w.cfg.Network))
}

func (a *after) startSettle(ctx context.Context, s Settling) {
	if a.w.cfg.SkipStableDOM {
		return
	}
	a.settleCancel(errNavigating)
	<-a.settling // prompt: its context is cancelled
	var sctx context.Context
	sctx, a.settleCancel = context.WithCancelCause(ctx)
	ch, done := make(chan settleResult, 1), make(chan struct{})
	a.settleCh, a.settleDone, a.settling = ch, false, done
	go func() { // ends when Settle does, at sctx's end at the latest
		defer close(done)
		st, err := a.page.Settle(sctx, s)
		ch <- settleResult{st, err}
	}()
}

func (a *after) startProbe() {
	a.probe = a.timer(scale(probeWindow, a.w.cfg.CPU))
}

// unfollow ends the wait on the page: what it did cannot be followed. A
// navigation still has the probe window to start.
func (a *after) unfollow(why string) {
	if a.res.Unfollowed == "" {
		a.res.Unfollowed = why
	}
	a.settleCancel(context.Canceled)
	a.settleCh, a.settleDone = nil, true
	if a.probed && !a.res.Navigated {
		a.probed = false
		a.startProbe()
	}
}

// wait waits until the navigation, the requests and the settle wait are
// over (each done or past its cap), or a dialog cuts the wait short, and
// returns ctx's cause if ctx ends first.
func (a *after) wait(ctx context.Context) error {
	for {
		if dialog := a.apply(ctx, a.w.events.Take()); dialog {
			return nil
		}
		a.inputOver = true

		navSettled := (!a.res.Navigated && a.probed) || a.navDone || a.navOver
		reqSettled := len(a.pending) == 0 || a.reqsOver
		if navSettled && a.settleDone && reqSettled {
			return nil
		}

		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-a.w.events.Ready():
		case <-a.probe:
			a.probed, a.probe = true, nil
		case <-a.navStart:
			// The page said it navigates and Chrome reports no start: the
			// navigation was cancelled, or stayed in the document. Wait on
			// the DOM alone.
			a.navStart = nil
			a.startSettle(ctx, a.fresh)
		case <-a.reqCap.C:
			a.reqsOver = true
			if len(a.pending) > 0 {
				a.res.GaveUp = "requests"
			}
		case <-a.navTimer:
			a.navOver, a.navTimer = true, nil
			a.res.GaveUp = "navigation"
			a.startSettle(ctx, a.fresh)
		case r := <-a.settleCh:
			a.settleCh = nil
			a.settled(r)
		}
	}
}

// apply takes in the page's events, and reports whether a dialog it does
// not handle ends the wait.
func (a *after) apply(ctx context.Context, events []event) (dialog bool) {
	cpu := a.w.cfg.CPU
	for _, e := range events {
		switch e.kind {
		case dialogOpened:
			if a.w.cfg.HandleDialog != nil && a.w.cfg.HandleDialog(ctx, e.id) {
				a.res.DialogsHandled++
				continue
			}
			a.res.Dialog = true
			return true
		case navStarted:
			if !a.res.Navigated {
				a.res.Navigated = true
				a.settleCancel(errNavigating)
				a.settleCh, a.settleDone, a.navStart = nil, a.w.cfg.SkipStableDOM, nil
				a.navTimer = a.timer(a.w.cfg.NavigationTimeout)
			}
		case navFinished:
			if a.res.Navigated && !a.navDone {
				a.navDone = true
				a.navTimer = nil
				a.startSettle(ctx, a.fresh)
			}
		case requestStarted:
			// Requests sent while the action's input is delivered are its
			// own (a form posted, a document requested); what its scripts
			// fetch later the page follows itself. A page that polls must
			// not keep every action waiting.
			if !a.inputOver {
				a.pending[e.id] = true
			}
		case scriptStarted:
			// A script the document loads while the action is followed (a
			// lazily imported module) is its work: its code runs when it
			// arrives.
			if a.tracked && !a.res.Navigated && !a.scripts[e.id] {
				a.scripts[e.id], a.pending[e.id] = true, true
				hctx, cancel := context.WithTimeout(ctx, scale(stopCap, cpu))
				a.page.Hold(hctx, e.id)
				cancel()
			}
		case requestFinished:
			delete(a.pending, e.id)
			if a.scripts[e.id] {
				delete(a.scripts, e.id)
				hctx, cancel := context.WithTimeout(ctx, scale(stopCap, cpu))
				a.page.Release(hctx, e.id)
				cancel()
				if a.settleDone && !a.res.Navigated && a.res.Unfollowed == "" && !a.w.cfg.SkipStableDOM {
					// The page had settled (and stopped following) before
					// the script ran: what the script does shows in the
					// DOM going quiet after it.
					a.startSettle(ctx, a.fresh)
				}
			}
		}
	}
	return false
}

// settled takes in what a settle wait returned.
func (a *after) settled(r settleResult) {
	switch {
	case r.err != nil && errors.Is(r.err, ErrUnfollowable) && !a.res.Navigated:
		a.unfollow(unfollowedReason(r.err))
	case (r.err != nil || r.st.Reason == "navigating") && !a.res.Navigated:
		// The document went away under the wait, or said it navigates: a
		// navigation Chrome has not reported yet. Once; a page that keeps
		// saying so is not believed.
		if a.tries++; a.tries > 1 {
			if r.err != nil {
				a.unfollow("its document did not answer")
			} else {
				a.settleDone = true
			}
			return
		}
		a.navStart = a.timer(scale(navStartWait, a.w.cfg.CPU))
	case r.err != nil:
		a.settleDone = true
	default:
		a.settleDone = true
		a.res.Pending = boundPending(r.st.Pending)
		switch r.st.Reason {
		case "requests":
			a.res.GaveUp = "requests"
		case "max":
			a.res.GaveUp = "dom"
		}
	}
}
