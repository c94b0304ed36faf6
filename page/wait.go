package page

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/waiter"
)

// causalProbe implements [waiter.Page] over a page's CDP client, with the
// causal tracker of the document (tracker.go). One serves one action, on
// the waiter's goroutine; it touches no actor state. The controllers it
// reaches are remote objects of its own object group, released when it
// stops; it stops every tracker it began, on every path (the waiter's
// Stop), but those of documents since replaced, which ended with them
// (forgetLeft).
type causalProbe struct {
	c   *cdp.Client
	log zerolog.Logger // the actor's
	// cached, if set, is the controller the actor found in the current
	// document before (frame.tracker); last is the one the probe last
	// began following in, for the actor to keep if its document is still
	// the frame's when the wait is over.
	cached, last runtime.RemoteObjectID
	// context is the execution context to track in: 0 for the main
	// frame's main world, an out-of-process iframe's default world for
	// an action in it (see framesProbe).
	context runtime.ExecutionContextID
	group   string
	// mu guards tracker: Hold and Release read it on the waiter's
	// goroutine while a Settle, on a goroutine of its own, may begin
	// following a new document.
	mu      sync.Mutex
	tracker runtime.RemoteObjectID // the document's followed now, "" if none
	// begun are the trackers begun, to stop: the action's document's, and
	// a new document's after a navigation.
	begun []runtime.RemoteObjectID
	// endPending says the action's input is done and the tracker followed
	// has not been told yet: the settle that follows at once tells it in
	// the same call (js.TrackerEndSettle).
	endPending bool
	// missing is what a late install could not wrap (tracker.go).
	missing string
	// flush makes the actor apply the events that came before a settle's
	// answer ([actor.Actor.Flush]).
	flush func(context.Context) error
	// title is the document's title as the last settle that read one
	// ended, in the document of controller titleIn; guarded by mu.
	title   string
	titleIn runtime.RemoteObjectID
}

// settledTitle returns the title the last settle read and the controller
// of its document ("" if none read one).
func (p *causalProbe) settledTitle() (string, runtime.RemoteObjectID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.title, p.titleIn
}

func newProbe(log zerolog.Logger, c *cdp.Client, context runtime.ExecutionContextID, cached runtime.RemoteObjectID, flush func(ctx context.Context) error) *causalProbe {
	return &causalProbe{c: c, log: log, context: context, cached: cached, group: trackerGroup, flush: flush}
}

func (p *causalProbe) following() runtime.RemoteObjectID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tracker
}

func (p *causalProbe) follow(id runtime.RemoteObjectID) {
	p.mu.Lock()
	p.tracker, p.endPending = id, false
	p.mu.Unlock()
}

// takeEnd reports whether the input's end is still to be told to the
// tracker followed, and clears it.
func (p *causalProbe) takeEnd() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	end := p.endPending
	p.endPending = false
	return end
}

// trackerGroup is the object group of the references to controllers: kept
// for the document's life (the actor caches one per frame), freed with its
// execution context.
const trackerGroup = "tabhive-tracker"

// begin finds the tracker of the current document and begins following
// in it.
func (p *causalProbe) begin(ctx context.Context, counting bool, horizon time.Duration) error {
	if id := p.cached; id != "" {
		p.cached = ""
		// The document of a cached controller may have gone: then it is
		// looked up in the current one.
		if err := trackerCall(ctx, p.c, id, js.TrackerBegin, nil, counting, horizon.Milliseconds()); err == nil {
			p.follow(id)
			p.last = id
			p.begun = append(p.begun, id)
			return nil
		}
	}
	id, late, err := p.lookup(ctx)
	if err != nil {
		return err
	}
	if err := trackerCall(ctx, p.c, id, js.TrackerBegin, nil, counting, horizon.Milliseconds()); err != nil {
		p.follow("")
		return err
	}
	if late {
		p.readMissing(ctx, id)
	}
	return nil
}

// lookup finds the tracker of the current document (trackerOf) and
// follows it: it is begun next, and so stopped with the others.
func (p *causalProbe) lookup(ctx context.Context) (id runtime.RemoteObjectID, late bool, err error) {
	id, late, err = trackerOf(ctx, p.c, p.context, p.group)
	if err != nil {
		p.follow("")
		return "", false, err
	}
	p.follow(id)
	p.last = id
	p.begun = append(p.forgetLeft(contextOf(id)), id)
	return id, late, nil
}

// forgetLeft returns the trackers begun, without those of documents the
// world has left: the lookup that found a tracker in context now runs in
// the world's current document, so a tracker begun in another context of
// the same world was in a document since replaced. Such a tracker stopped
// itself as its document was hidden (causal.js, on pagehide), or went
// with its document: a stop call would cost a round trip to a document
// that is gone.
func (p *causalProbe) forgetLeft(now runtime.ExecutionContextID) []runtime.RemoteObjectID {
	if now == 0 {
		return p.begun
	}
	kept := p.begun[:0]
	for _, b := range p.begun {
		if c := contextOf(b); c == 0 || c == now {
			kept = append(kept, b)
		}
	}
	return kept
}

// readMissing records what a late install of tracker id could not wrap.
func (p *causalProbe) readMissing(ctx context.Context, id runtime.RemoteObjectID) {
	var st struct {
		Missing string `json:"missing"`
	}
	if trackerCall(ctx, p.c, id, js.TrackerState, &st) == nil {
		p.missing = st.Missing
	}
}

func (p *causalProbe) Track(ctx context.Context, horizon time.Duration) error {
	return p.begin(ctx, true, horizon)
}

// InputDone leaves the end of the input to the settle the waiter starts at
// once (waiter.Run), which tells the tracker in the same call: one round
// trip fewer per action. Nothing the page runs between the two calls'
// times is the action's either way.
func (p *causalProbe) InputDone(ctx context.Context) {
	p.mu.Lock()
	p.endPending = p.tracker != ""
	p.mu.Unlock()
}

func (p *causalProbe) Hold(ctx context.Context, key string) {
	if id := p.following(); id != "" {
		trackerCall(ctx, p.c, id, js.TrackerHold, nil, key)
	}
}

func (p *causalProbe) Release(ctx context.Context, key string) {
	if id := p.following(); id != "" {
		trackerCall(ctx, p.c, id, js.TrackerRelease, nil, key)
	}
}

// Settle waits for the document to settle, and logs why it stopped at
// debug level: the reason is what explains an action's time (work done,
// work past the horizon, a cap), and what the settle tests assert on.
//
// Before it returns, the actor applies the events that arrived before the
// settle's answer: the answer comes straight to this goroutine, the events
// through the actor, which may lag on a loaded machine. A request the
// action started before the page settled (a module it imports) is then on
// the waiter's queue when it reads the settle, and waited for.
func (p *causalProbe) Settle(ctx context.Context, s waiter.Settling) (waiter.Settled, error) {
	st, err := p.settle(ctx, s)
	if err == nil && p.flush != nil {
		p.flush(ctx) // fails only as ctx ends, which the waiter sees itself
	}
	p.log.Debug().Err(err).Str("reason", st.Reason).Bool("fresh", s.Fresh).Bool("oopif", p.context != 0).
		Strs("pending", st.Pending).Msg("settle returned")
	return st, err
}

func (p *causalProbe) settle(ctx context.Context, s waiter.Settling) (waiter.Settled, error) {
	opts := map[string]int64{
		"tail": s.Tail.Milliseconds(), "min": s.Min.Milliseconds(), "horizon": s.Horizon.Milliseconds(),
		"requests": s.Requests.Milliseconds(), "max": s.Max.Milliseconds(),
	}
	var st struct {
		Reason  string  `json:"reason"`
		Pending string  `json:"pending"`
		Title   *string `json:"title"`
	}
	id, err := p.settleCall(ctx, s, opts, &st)
	if err != nil {
		return waiter.Settled{}, err
	}
	if st.Title != nil {
		p.mu.Lock()
		p.title, p.titleIn = *st.Title, id
		p.mu.Unlock()
	}
	// Settled, the tracker stopped itself.
	for i, b := range p.begun {
		if b == id {
			p.begun = append(p.begun[:i], p.begun[i+1:]...)
			break
		}
	}
	out := waiter.Settled{Reason: st.Reason}
	if st.Pending != "" {
		out.Pending = strings.Split(st.Pending, "\n")
	}
	if st.Reason == "stopped" {
		// Stopped under the wait: its lifetime ran out, or another action
		// began in the document.
		return out, fmt.Errorf("%w: it stopped being followed", waiter.ErrUnfollowable)
	}
	return out, nil
}

// settleCall makes the call that waits for the document to settle, and
// returns the controller it waited on. A document nobody followed gets a
// tracker that counts nothing and waits for its DOM alone: once its
// controller is found, begun and waited on in one call.
func (p *causalProbe) settleCall(ctx context.Context, s waiter.Settling, opts map[string]int64, out any) (runtime.RemoteObjectID, error) {
	if !s.Fresh && p.following() != "" {
		id, fn := p.following(), js.TrackerSettle
		if p.takeEnd() {
			fn = js.TrackerEndSettle
		}
		return id, trackerCall(ctx, p.c, id, fn, out, opts)
	}
	if p.cached != "" {
		// Tried first, and looked up again if its document has gone.
		if err := p.begin(ctx, false, s.Horizon); err != nil {
			return "", err
		}
		id := p.following()
		return id, trackerCall(ctx, p.c, id, js.TrackerSettle, out, opts)
	}
	id, late, err := p.lookup(ctx)
	if err != nil {
		return "", err
	}
	if late {
		// What a late install could not wrap is read once it is begun.
		if err := trackerCall(ctx, p.c, id, js.TrackerBegin, nil, false, s.Horizon.Milliseconds()); err != nil {
			p.follow("")
			return "", err
		}
		p.readMissing(ctx, id)
		return id, trackerCall(ctx, p.c, id, js.TrackerSettle, out, opts)
	}
	if err := trackerCall(ctx, p.c, id, js.TrackerBeginSettle, out, false, s.Horizon.Milliseconds(), opts); err != nil {
		return "", err
	}
	return id, nil
}

// Stop stops every tracker the probe began and has not seen settle. The
// references stay in trackerGroup, for the actor to reuse, and go with
// their documents.
func (p *causalProbe) Stop(ctx context.Context) {
	for _, id := range p.begun {
		trackerCall(ctx, p.c, id, js.TrackerStop, nil)
	}
	p.begun = nil
	p.follow("")
}

// framesProbe implements [waiter.Page] for an action on an element of an
// out-of-process iframe: the iframe's renderer runs what the action causes
// there, out of the page's sight, so a tracker follows it in the frame's
// document as well as in the page's. The page's tracker decides
// navigations and errors; the frame's adds its pending work and keeps the
// wait going until its own work is done. A frame whose tracker fails (its
// document went away) is not waited for.
type framesProbe struct {
	top, frame *causalProbe
}

func (p *framesProbe) Track(ctx context.Context, horizon time.Duration) error {
	if err := p.top.Track(ctx, horizon); err != nil {
		return err
	}
	if err := p.frame.Track(ctx, horizon); err != nil {
		p.frame.follow("")
	}
	return nil
}

func (p *framesProbe) InputDone(ctx context.Context) {
	p.top.InputDone(ctx)
	p.frame.InputDone(ctx)
}

func (p *framesProbe) Hold(ctx context.Context, key string)    { p.top.Hold(ctx, key) }
func (p *framesProbe) Release(ctx context.Context, key string) { p.top.Release(ctx, key) }

func (p *framesProbe) Settle(ctx context.Context, s waiter.Settling) (waiter.Settled, error) {
	if p.frame.following() == "" || s.Fresh {
		return p.top.Settle(ctx, s)
	}
	type outcome struct {
		st  waiter.Settled
		err error
	}
	frame := make(chan outcome, 1)
	go func() { // waited for below; ends with ctx at the latest
		st, err := p.frame.Settle(ctx, s)
		frame <- outcome{st, err}
	}()
	st, err := p.top.Settle(ctx, s)
	f := <-frame
	if err != nil || st.Reason == "navigating" || f.err != nil {
		return st, err
	}
	if st.Reason == "settled" && f.st.Reason != "navigating" {
		st.Reason = f.st.Reason
	}
	st.Pending = append(st.Pending, f.st.Pending...)
	return st, nil
}

func (p *framesProbe) Stop(ctx context.Context) {
	p.top.Stop(ctx)
	p.frame.Stop(ctx)
}

// headroom is how much of a call's budget an inner wait leaves unused, so
// that the page's own result, not the caller's deadline, ends the call
// (ARCHITECTURE.md §2, law 3).
func headroom(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	h := time.Until(dl) / 10
	return min(max(h, 20*time.Millisecond), 250*time.Millisecond)
}

// within returns a context that ends headroom before ctx does.
func within(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, dl.Add(-headroom(ctx)))
}

// ActionResult is what an input or navigation action did.
type ActionResult struct {
	// NavigatedTo is the main frame's new URL if the action changed it
	// (a cross-document navigation or a same-document one such as
	// history.pushState), else "".
	NavigatedTo string
	// Dialog reports that the action opened a JavaScript dialog; State.Dialog
	// says which.
	Dialog bool
	// Answered are the dialogs the action answered itself, as its caller
	// asked (evaluate_script's dialogAction), in the order they opened: at
	// most maxAnswered of them. Such a dialog is closed; it is not
	// State.Dialog.
	Answered []AnsweredDialog
	// Pending summarises work the action caused that was not waited for,
	// one entry per kind, such as "a timer of 5 s": set too far ahead, or
	// running on without changing the page (package waiter).
	Pending []string
	// Unfollowed, if not empty, says why the action's work could not be
	// followed in the page: only a short window was waited.
	Unfollowed string
	State
	// title is the main frame's document's title as the wait's last
	// settle in it ended, if titled: a navigation's reply lists it
	// without asking the page again.
	title  string
	titled bool
}

// actionOptions tunes one waited action.
type actionOptions struct {
	navigationTimeout time.Duration // 0: waiter default
	skipStableDOM     bool
	navigates         bool // a navigation command: waiter.Config.Navigates
	// handleDialog, if non-nil, answers dialogs of the types it accepts
	// while the action runs, instead of stopping at them.
	handleDialog func(typ string) (answer dialogAnswer, ok bool)
	// gate names an action that marks its decisive step with
	// [Progress.commit] ("click", "fill"): a dialog that opens before
	// that step cut the action short, and perform fails with a
	// [*DialogError] naming it rather than report the action done. "" for
	// actions without one.
	gate string
	// frame, if set, is the default world of the out-of-process iframe
	// the action's element is in, where the action's effects are followed
	// too (framesProbe).
	frame scriptContext
}

// Progress is how far a gated action got. perform hands one to its
// action, which passes it down to the step that decides the action.
type Progress struct{ committed atomic.Bool }

// Commit marks that the action is about to take its decisive step: the
// mouse release of a click, the insertion of a fill's text. A dialog that
// opens during or after that step was opened by the action; one that opens
// before it stopped the action (the click's mouse move opened an alert, so
// there was no click). Marking a nil progress does nothing.
func (p *Progress) Commit() {
	if p != nil {
		p.committed.Store(true)
	}
}

// dialogAnswer is how to close a dialog.
type dialogAnswer struct {
	accept     bool
	promptText string
}

// AnsweredDialog is a dialog an action answered itself.
type AnsweredDialog struct {
	Dialog
	Accepted bool
	// PromptText is the text an accepted prompt was given; "" for other
	// dialogs.
	PromptText string
}

// openedDialog is a dialog that opened and the client of the session that
// answers it: an out-of-process iframe's own, or the page's.
type openedDialog struct {
	c *cdp.Client
	d Dialog
}

// maxAnswered bounds [ActionResult.Answered]: a script that opens alerts
// in a loop is answered every time, but reported only so often.
const maxAnswered = 10

// actionError marks an error of the action itself, as opposed to the waits
// after it.
type actionError struct{ err error }

func (e *actionError) Error() string { return e.err.Error() }
func (e *actionError) Unwrap() error { return e.err }

// perform runs action and waits for its consequences (package waiter). It
// returns an error only when the action itself failed or the caller's
// context ended; waits that run out of budget after a successful action are
// reported as done. A dialog opened by the action is a result, not an error.
// The action runs on the waiter's goroutine with the action's progress, to
// mark its decisive step on (see [Progress.commit]).
func (a *Actor) perform(ctx context.Context, opts actionOptions, action func(ctx context.Context, p *Progress) error) (ActionResult, error) {
	before := a.frames.url
	pace := a.pace.load()
	cfg := waiter.Config{
		CPU:               max(pace.CPU, 1),
		Network:           pace.NetworkFactor,
		NavigationTimeout: opts.navigationTimeout,
		SkipStableDOM:     opts.skipStableDOM,
		Navigates:         opts.navigates,
	}
	// answered receives, from the waiter's goroutine, the dialogs it
	// answered; sends never block.
	answered := make(chan AnsweredDialog, maxAnswered)
	if opts.handleDialog != nil {
		// The dialog is answered on the session of the frame that opened
		// it (an out-of-process iframe's has its own), which apply sends
		// here, with the dialog, before it tells the waiter.
		opened := make(chan openedDialog, 8)
		a.dialogs.opened = opened
		defer func() { a.dialogs.opened = nil }()
		top := a.c
		cfg.HandleDialog = func(ctx context.Context, typ string) bool {
			ans, ok := opts.handleDialog(typ)
			if !ok {
				return false
			}
			od := openedDialog{c: top, d: Dialog{Type: typ}}
			select {
			case od = <-opened:
			default:
			}
			ctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			// An error means the dialog is already gone: handled either way.
			od.c.Page.HandleJavaScriptDialog(ctx, handleArgs(ans))
			rec := AnsweredDialog{Dialog: od.d, Accepted: ans.accept}
			if ans.accept && od.d.Type == "prompt" {
				rec.PromptText = ans.promptText
			}
			select {
			case answered <- rec:
			default:
			}
			return true
		}
	}
	a.stopLeftTrackers(ctx)
	main := a.frames.byID[a.frames.main]
	var cached runtime.RemoteObjectID
	if main != nil && main.context != 0 && main.trackerIn == main.context && !opts.navigates {
		cached = main.tracker
	}
	top := newProbe(a.log, a.c, 0, cached, a.act.Flush)
	var probe waiter.Page = top
	if opts.frame.c != nil {
		probe = &framesProbe{top: top, frame: newProbe(a.log, opts.frame.c, opts.frame.id, "", a.act.Flush)}
	}
	w := waiter.New(cfg)
	a.waiter = w
	defer func() { a.waiter = nil }()

	wctx, cancel := within(ctx)
	defer cancel()
	var acted atomic.Bool // written by the waiter goroutine, read here after it
	progress := &Progress{}
	// The waiter stops at dialogs itself (or handles them), so the wait is
	// interrupted only by a crash.
	// What the wait saw, from the Await goroutine, which may still run when
	// Await returns at the deadline: then nothing is read.
	waited := make(chan waiter.Result, 1)
	err := a.act.Await(wctx, func(ctx context.Context) error {
		r, err := w.Run(ctx, probe, func(ctx context.Context) error {
			if err := action(ctx, progress); err != nil {
				return &actionError{err}
			}
			acted.Store(true)
			return nil
		})
		waited <- r
		return err
	}, a.crashCheck)
	var res ActionResult
	select {
	case r := <-waited:
		// The wait is over: the probe is the actor's to read again.
		if main := a.frames.byID[a.frames.main]; main != nil && top.last != "" && main.context != 0 && contextOf(top.last) == main.context {
			// The document last followed is still the frame's (a new
			// document has a new context): keep its controller for the
			// next action.
			main.tracker, main.trackerIn = top.last, main.context
		}
		if t, in := top.settledTitle(); in != "" && a.frames.mainContext() != 0 && contextOf(in) == a.frames.mainContext() {
			res.title, res.titled = t, true
		}
		res.Pending, res.Unfollowed = r.Pending, r.Unfollowed
		if r.Dialog {
			// Its renderer is paused: the trackers are stopped once the
			// dialog is closed (stopLeftTrackers).
			a.leftTrackers = append(a.leftTrackers, probe)
		}
	default:
		// The wait is still running past the deadline (a renderer that
		// does not answer); it stops its trackers itself as it ends.
	}
	// Dialogs answered, whether or not the action then failed (a script
	// that throws after its alert).
	for len(answered) > 0 {
		res.Answered = append(res.Answered, <-answered)
	}
	var ae *actionError
	switch _, isDialog := errDialog(err); {
	case err == nil:
	case isDialog:
		res.Dialog = true
	case errors.As(err, &ae):
		return res, ae.err
	case errors.Is(err, ErrCrashed), ctx.Err() != nil:
		return res, err
	case wctx.Err() != nil && acted.Load():
		// Only the waits ran out of budget: the action happened.
	default:
		return res, err
	}
	(*eventSource)(a).Apply() // report what has already arrived
	if a.dialogs.open != nil {
		res.Dialog = true
		if opts.gate != "" && !progress.committed.Load() && !acted.Load() {
			return res, &DialogError{Dialog: *a.dialogs.open, Cut: opts.gate}
		}
	}
	if a.frames.url != before {
		res.NavigatedTo = a.frames.url
	}
	res.State = a.state()
	return res, nil
}

// stopLeftTrackers stops the trackers of actions whose wait ended with a
// dialog open, once no dialog is open: its renderer was paused then.
func (a *Actor) stopLeftTrackers(ctx context.Context) {
	if len(a.leftTrackers) == 0 || a.dialogs.open != nil {
		return
	}
	left := a.leftTrackers
	a.leftTrackers = nil
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	a.act.Await(sctx, func(ctx context.Context) error {
		for _, p := range left {
			p.Stop(ctx)
		}
		return nil
	}, nil)
}

// jsonArg makes a by-value argument for Runtime.callFunctionOn.
func jsonArg(v any) (runtime.CallArgument, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return runtime.CallArgument{}, err
	}
	return runtime.CallArgument{Value: b}, nil
}

// DefaultWaitForTimeout is wait_for's budget when the caller gives none and
// nothing is emulated; an emulated slow CPU stretches it (see
// [Actor.Timeouts]), as upstream.
const DefaultWaitForTimeout = 5 * time.Second

// scriptContext is an execution context and the client of the session it
// lives in: context ids are per renderer, so out-of-process iframes'
// contexts are reached through their own sessions.
type scriptContext struct {
	c  *cdp.Client
	id runtime.ExecutionContextID
}
