package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/tabhive/tabhive/waiter"
)

// fakePage models a document whose DOM mutates at given offsets from the
// start of the test, and the work an action causes in it; Settle follows
// the contract of the page's causal tracker.
type fakePage struct {
	t0        time.Time
	mu        sync.Mutex
	mutations []time.Duration // offsets from t0
	work      []work
	// navigateAt, if not zero, is when the document says it starts a
	// navigation.
	navigateAt time.Duration
	trackErr   error
	// settleErr, if set, is what every Settle returns.
	settleErr error
	tracked   int
	inputDone int
	stopped   int
	settles   int
	holds     []string // keys held and not released
	released  []string
}

// work is something the action caused: pending until its end (an offset
// from t0; 0: never ends).
type work struct {
	what    string
	end     time.Duration
	net     bool
	ignored bool // set past the horizon: reported, never waited for
}

func (p *fakePage) Track(context.Context, time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tracked++
	return p.trackErr
}

func (p *fakePage) InputDone(context.Context) { p.mu.Lock(); p.inputDone++; p.mu.Unlock() }

func (p *fakePage) Stop(context.Context) { p.mu.Lock(); p.stopped++; p.mu.Unlock() }

func (p *fakePage) Hold(_ context.Context, key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holds = append(p.holds, key)
}

func (p *fakePage) Release(_ context.Context, key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, k := range p.holds {
		if k == key {
			p.holds = append(p.holds[:i], p.holds[i+1:]...)
		}
	}
	p.released = append(p.released, key)
}

// held reports whether a script is held: pending as the page sees it.
func (p *fakePage) held() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.holds) > 0
}

func (p *fakePage) lastMutation(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.t0
	for _, m := range p.mutations {
		if at := p.t0.Add(m); !at.After(now) && at.After(last) {
			last = at
		}
	}
	return last
}

// pending returns the work still pending at now, and whether requests are
// among it.
func (p *fakePage) pending(now time.Time, fresh bool) (all []string, net bool) {
	for _, w := range p.work {
		switch {
		case fresh:
		case w.ignored:
			all = append(all, w.what)
		case w.end == 0 || p.t0.Add(w.end).After(now):
			all = append(all, w.what)
			net = net || w.net
		}
	}
	return all, net
}

func (p *fakePage) waits(now time.Time, fresh bool) bool {
	for _, w := range p.work {
		if !fresh && !w.ignored && (w.end == 0 || p.t0.Add(w.end).After(now)) {
			return true
		}
	}
	return false
}

func (p *fakePage) Settle(ctx context.Context, s waiter.Settling) (waiter.Settled, error) {
	p.mu.Lock()
	p.settles++
	err := p.settleErr
	p.mu.Unlock()
	if err != nil {
		return waiter.Settled{}, err
	}
	start := time.Now()
	for {
		now := time.Now()
		pending, net := p.pending(now, s.Fresh)
		quiet := now.Sub(p.lastMutation(now))
		since := now.Sub(start)
		switch {
		case !s.Fresh && p.navigateAt != 0 && !p.t0.Add(p.navigateAt).After(now):
			return waiter.Settled{Reason: "navigating"}, nil
		case !p.waits(now, s.Fresh) && !p.held() && quiet >= s.Tail && since >= s.Min:
			return waiter.Settled{Reason: "settled", Pending: pending}, nil
		case p.waits(now, s.Fresh) && !net && quiet >= s.Horizon:
			return waiter.Settled{Reason: "horizon", Pending: pending}, nil
		case net && since >= s.Requests:
			return waiter.Settled{Reason: "requests", Pending: pending}, nil
		case since >= s.Max:
			return waiter.Settled{Reason: "max", Pending: pending}, nil
		}
		select {
		case <-ctx.Done():
			return waiter.Settled{}, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// after runs fn at offset d from now, in the bubble.
func after(d time.Duration, fn func()) { go func() { time.Sleep(d); fn() }() }

// ms shortens the durations of runTests.
const ms = time.Millisecond

// runTests are TestRun's cases: what the page does (its mutations, the
// work the action causes, the events the actor feeds) and what Run
// returns, after how long in the bubble's time.
var runTests = []struct {
	name       string
	cfg        waiter.Config
	mutations  []time.Duration
	work       []work
	navigateAt time.Duration
	trackErr   error
	events     func(w *waiter.Waiter)
	want       waiter.Result
	wantTime   time.Duration
}{
	{
		name:     "an action that causes nothing settles after the tail",
		wantTime: 15 * ms,
	},
	{
		name:     "cpu multiplier scales the tail",
		cfg:      waiter.Config{CPU: 4},
		wantTime: 60 * ms,
	},
	{
		name:      "a timer's effect 120ms later is waited for",
		work:      []work{{what: "a timer of 120 ms", end: 120 * ms}},
		mutations: []time.Duration{120 * ms},
		wantTime:  135 * ms,
	},
	{
		name:      "a chain of timers and a fetch, 600ms in all",
		work:      []work{{what: "a timer of 50 ms", end: 50 * ms}, {what: "a fetch of /x", end: 350 * ms, net: true}, {what: "a timer of 250 ms", end: 600 * ms}},
		mutations: []time.Duration{600 * ms},
		wantTime:  615 * ms,
	},
	{
		name:     "a timer past the horizon is reported, not waited for",
		work:     []work{{what: "a timer of 5 s", ignored: true}},
		want:     waiter.Result{Pending: []string{"a timer of 5 s"}},
		wantTime: 15 * ms,
	},
	{
		name:     "an animation that never changes the page is given up after the horizon",
		work:     []work{{what: "an animation frame"}},
		want:     waiter.Result{Pending: []string{"an animation frame"}},
		wantTime: time.Second,
	},
	{
		name:     "a fetch that never ends stops at the request cap",
		work:     []work{{what: "a fetch of /slow", net: true}},
		want:     waiter.Result{GaveUp: "requests", Pending: []string{"a fetch of /slow"}},
		wantTime: 3 * time.Second,
	},
	{
		name:       "the page starts a navigation: waited for, then the new document's quiet",
		work:       []work{{what: "a timer of 100 ms", end: 100 * ms}},
		navigateAt: 100 * ms,
		events: func(w *waiter.Waiter) {
			after(130*ms, w.NavigationStarted)
			after(400*ms, w.NavigationFinished)
		},
		want:     waiter.Result{Navigated: true},
		wantTime: 500 * ms,
	},
	{
		name:       "a navigation the page announced but Chrome never started",
		work:       []work{{what: "a timer of 100 ms", end: 100 * ms}},
		navigateAt: 100 * ms,
		want:       waiter.Result{},
		wantTime:   1200 * ms,
	},
	{
		name: "a navigation Chrome reports is waited for, even unannounced",
		events: func(w *waiter.Waiter) {
			after(5*ms, w.NavigationStarted)
			after(300*ms, w.NavigationFinished)
		},
		want:     waiter.Result{Navigated: true},
		wantTime: 400 * ms,
	},
	{
		name: "navigation that never finishes stops at its cap",
		cfg:  waiter.Config{NavigationTimeout: time.Second},
		events: func(w *waiter.Waiter) {
			after(5*ms, w.NavigationStarted)
		},
		want:     waiter.Result{Navigated: true, GaveUp: "navigation"},
		wantTime: 1105 * ms,
	},
	{
		name: "a document request sent during the action is waited for",
		events: func(w *waiter.Waiter) {
			w.RequestStarted("r1")
			after(600*ms, func() { w.RequestFinished("r1") })
		},
		wantTime: 600 * ms,
	},
	{
		name: "a request sent after the action is not its own",
		events: func(w *waiter.Waiter) {
			after(5*ms, func() { w.RequestStarted("poll") })
		},
		wantTime: 15 * ms,
	},
	{
		name:      "dialog ends the wait at once",
		work:      []work{{what: "a timer of 150 ms", end: 150 * ms}},
		mutations: []time.Duration{10 * ms, 80 * ms},
		events: func(w *waiter.Waiter) {
			after(20*ms, func() { w.DialogOpened("alert") })
		},
		want:     waiter.Result{Dialog: true},
		wantTime: 20 * ms,
	},
	{
		name:     "a page that cannot be followed falls back to the probe and a quiet window",
		trackErr: errors.New("document gone"),
		wantTime: 100 * ms,
	},
	{
		name: "skip stable DOM still waits for navigation",
		cfg:  waiter.Config{SkipStableDOM: true},
		events: func(w *waiter.Waiter) {
			after(30*ms, w.NavigationStarted)
			after(200*ms, w.NavigationFinished)
		},
		want:     waiter.Result{Navigated: true},
		wantTime: 200 * ms,
	},
	{
		name:     "skip stable DOM: a probe window for a navigation",
		cfg:      waiter.Config{SkipStableDOM: true},
		wantTime: 100 * ms,
	},
}

func TestRun(t *testing.T) {
	for _, tt := range runTests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &fakePage{t0: time.Now(), mutations: tt.mutations, work: tt.work, navigateAt: tt.navigateAt, trackErr: tt.trackErr}
				w := waiter.New(tt.cfg)
				start := time.Now()
				got, err := w.Run(context.Background(), p, func(context.Context) error {
					if tt.events != nil {
						tt.events(w)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("Run = %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Run = %+v, want %+v", got, tt.want)
				}
				if took := time.Since(start); took != tt.wantTime {
					t.Errorf("Run took %v, want %v", took, tt.wantTime)
				}
				if want := 1; tt.cfg.SkipStableDOM && p.tracked != 0 || !tt.cfg.SkipStableDOM && p.tracked != want {
					t.Errorf("Track called %d times", p.tracked)
				}
				if !tt.cfg.SkipStableDOM && tt.trackErr == nil && p.inputDone != 1 {
					t.Errorf("InputDone called %d times, want 1", p.inputDone)
				}
				time.Sleep(time.Minute) // let the scripted events that came too late finish
			})
		})
	}
}

// TestDialogDuringAction: an alert() in a click handler keeps the click's
// input event unacknowledged; the wait must end at the dialog anyway.
func TestDialogDuringAction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := waiter.New(waiter.Config{})
		start := time.Now()
		actionCancelled := make(chan struct{})
		res, err := w.Run(context.Background(), &fakePage{t0: start}, func(ctx context.Context) error {
			after(10*time.Millisecond, func() { w.DialogOpened("alert") })
			<-ctx.Done() // the mouse event is never acknowledged
			close(actionCancelled)
			return ctx.Err()
		})
		if err != nil || !res.Dialog {
			t.Fatalf("Run = %+v, %v, want Dialog and no error", res, err)
		}
		if took := time.Since(start); took != 10*time.Millisecond {
			t.Fatalf("Run took %v, want 10ms", took)
		}
		<-actionCancelled
	})
}

// TestHandledDialogContinues: a dialog the caller handles (a beforeunload
// during navigate_page, evaluate_script's dialogAction) does not end the wait.
func TestHandledDialogContinues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var offered []string
		w := waiter.New(waiter.Config{HandleDialog: func(_ context.Context, typ string) bool {
			offered = append(offered, typ)
			return typ == "beforeunload"
		}})
		start := time.Now()
		res, err := w.Run(context.Background(), &fakePage{t0: start}, func(context.Context) error {
			// As Page.navigate: the dialog opens, and the navigation has
			// started by the time the command returns.
			after(10*time.Millisecond, func() { w.DialogOpened("beforeunload") })
			after(200*time.Millisecond, w.NavigationFinished)
			time.Sleep(20 * time.Millisecond) // the command's latency, on the bubble's clock
			w.NavigationStarted()
			return nil
		})
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
		want := waiter.Result{Navigated: true, DialogsHandled: 1}
		if !reflect.DeepEqual(res, want) {
			t.Fatalf("Run = %+v, want %+v", res, want)
		}
		if took := time.Since(start); took != 300*time.Millisecond {
			t.Fatalf("Run took %v, want 300ms", took)
		}
		if len(offered) != 1 || offered[0] != "beforeunload" {
			t.Fatalf("HandleDialog offered %q, want [beforeunload]", offered)
		}
		time.Sleep(time.Minute) // the bubble's clock: let the scripted events finish
	})
}

func TestRunActionError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("no such node")
		start := time.Now()
		_, err := waiter.New(waiter.Config{}).Run(context.Background(), &fakePage{t0: start},
			func(context.Context) error { return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("Run = %v, want the action's error", err)
		}
		if took := time.Since(start); took != 0 {
			t.Fatalf("Run waited %v after a failed action, want 0", took)
		}
	})
}

func TestRunHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		w := waiter.New(waiter.Config{})
		start := time.Now()
		_, err := w.Run(ctx, &fakePage{t0: start}, func(context.Context) error {
			w.NavigationStarted() // never finishes; cap is 3s
			return nil
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Run = %v, want deadline exceeded", err)
		}
		if took := time.Since(start); took != 500*time.Millisecond {
			t.Fatalf("Run returned after %v, want at the 500ms deadline", took)
		}
	})
}

// TestActionWaitDoesNotSpin: events that arrive while the action runs (a
// request it started) are held for the wait after it, and the waiter sleeps
// meanwhile. It once put them back and woke itself at once, burning a core
// for as long as each click or key press took. Real time, not a synctest
// bubble: a spinning goroutine would keep the bubble's clock from moving.
func TestActionWaitDoesNotSpin(t *testing.T) {
	w := waiter.New(waiter.Config{SkipStableDOM: true})
	started, release := make(chan struct{}), make(chan struct{})
	out := make(chan error, 1)
	go func() {
		_, err := w.Run(context.Background(), &fakePage{t0: time.Now()}, func(context.Context) error {
			w.RequestStarted("r1")
			close(started)
			<-release
			return nil
		})
		out <- err
	}()
	<-started
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	time.Sleep(100 * time.Millisecond) // the action runs: see what the waiter does meanwhile
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > 10_000 {
		t.Errorf("%d allocations in 100ms while the action ran: the waiter spins", n)
	}
	close(release)
	// Past the 100ms probe window, only the request the action started
	// keeps Run waiting: it must not have returned before it finished, a
	// non-event watched for a while, as nothing announces it.
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-out:
		t.Fatalf("Run returned (%v) before the request the action started finished", err)
	default:
	}
	w.RequestFinished("r1")
	if err := <-out; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestRunStopsFollowing: following ends on every path, the action's
// failure and the caller's deadline included, except with a dialog left
// open (its renderer answers nothing until it is handled). A tracker left
// behind once kept wrapping the page's timers for five minutes, and each
// retried click stacked another.
func TestRunStopsFollowing(t *testing.T) {
	boom := errors.New("did not become interactive")
	for _, tt := range []struct {
		name     string
		deadline time.Duration
		action   func(w *waiter.Waiter) error
		stops    int
	}{
		{name: "settled", action: func(*waiter.Waiter) error { return nil }, stops: 1},
		{name: "the action failed", action: func(*waiter.Waiter) error { return boom }, stops: 1},
		{name: "the deadline passed", deadline: 50 * time.Millisecond, action: func(w *waiter.Waiter) error {
			w.NavigationStarted() // never finishes
			return nil
		}, stops: 1},
		{name: "a dialog is left open", action: func(w *waiter.Waiter) error {
			w.DialogOpened("alert")
			return nil
		}, stops: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				if tt.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.deadline)
					defer cancel()
				}
				p := &fakePage{t0: time.Now()}
				w := waiter.New(waiter.Config{})
				w.Run(ctx, p, func(context.Context) error { return tt.action(w) })
				if p.stopped != tt.stops {
					t.Errorf("Stop called %d times, want %d", p.stopped, tt.stops)
				}
			})
		})
	}
}

// TestRunUnfollowable: a page whose state keeps it from being followed (a
// late tracker that the page's replaced built-ins break) is tried once
// more, then given the probe window for a navigation, and the result says
// why. It used to be read as "a navigation is coming", retried every second
// until the deadline, and reported as a success.
func TestRunUnfollowable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broken := fmt.Errorf("%w: TypeError: MutationObserver is not a constructor", waiter.ErrUnfollowable)
		p := &fakePage{t0: time.Now(), trackErr: broken, settleErr: broken}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		res, err := waiter.New(waiter.Config{}).Run(ctx, p, func(context.Context) error { return nil })
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
		if took := time.Since(start); took != 100*time.Millisecond {
			t.Errorf("Run took %v, want the 100ms probe window", took)
		}
		if res.Unfollowed != "TypeError: MutationObserver is not a constructor" {
			t.Errorf("Unfollowed = %q", res.Unfollowed)
		}
		if p.tracked != 1 || p.settles != 1 {
			t.Errorf("Track called %d times and Settle %d, want one each (one retry)", p.tracked, p.settles)
		}
	})
}

// TestRunDocumentNeverAnswers: a settle wait that fails without a
// navigation being reported is retried once after the navigation wait,
// then the wait ends: not at the deadline.
func TestRunDocumentNeverAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &fakePage{t0: time.Now(), settleErr: errors.New("Cannot find context with specified id")}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		res, err := waiter.New(waiter.Config{}).Run(ctx, p, func(context.Context) error { return nil })
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
		// The navigation wait once, then the probe window for a
		// navigation to start.
		if took := time.Since(start); took != 1100*time.Millisecond {
			t.Errorf("Run took %v, want the 1s navigation wait and the 100ms probe window", took)
		}
		if res.Unfollowed == "" || p.settles != 2 {
			t.Errorf("Run = %+v after %d settle waits, want Unfollowed after 2", res, p.settles)
		}
	})
}

// TestRunScriptLoads: a script the document requests while the action is
// followed (a lazily imported module) is held in the page until it has
// loaded, and the wait goes on until then.
func TestRunScriptLoads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &fakePage{t0: time.Now(), mutations: []time.Duration{300 * time.Millisecond}}
		w := waiter.New(waiter.Config{})
		start := time.Now()
		res, err := w.Run(context.Background(), p, func(context.Context) error {
			after(5*time.Millisecond, func() { w.ScriptStarted("m1") })
			after(300*time.Millisecond, func() { w.RequestFinished("m1") })
			return nil
		})
		if err != nil || !reflect.DeepEqual(res, waiter.Result{}) {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		if took := time.Since(start); took != 315*time.Millisecond {
			t.Errorf("Run took %v, before the script's effect and the tail", took)
		}
		if len(p.released) != 1 || p.released[0] != "m1" || p.held() {
			t.Errorf("released %q, still held: %v", p.released, p.held())
		}
	})
}

// pendingPage settles at once with what it was given as pending.
type pendingPage struct {
	fakePage
	pending []string
}

func (p *pendingPage) Settle(context.Context, waiter.Settling) (waiter.Settled, error) {
	return waiter.Settled{Reason: "settled", Pending: p.pending}, nil
}

// TestRunBoundsPending: whatever the page says is pending, the result
// holds at most MaxPending entries of at most MaxPendingBytes each.
func TestRunBoundsPending(t *testing.T) {
	long := strings.Repeat("é", 1000)
	var many []string
	for i := range 200 {
		many = append(many, fmt.Sprintf("a fetch of /%d%s", i, long))
	}
	p := &pendingPage{pending: many}
	res, err := waiter.New(waiter.Config{}).Run(context.Background(), p, func(context.Context) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pending) != waiter.MaxPending {
		t.Fatalf("%d pending entries, want %d", len(res.Pending), waiter.MaxPending)
	}
	for _, s := range res.Pending {
		if len(s) > waiter.MaxPendingBytes || !utf8.ValidString(s) || !strings.HasSuffix(s, "…") {
			t.Errorf("entry of %d bytes: %q", len(s), s)
		}
	}
}

// TestRunNavigates: a navigation command follows nothing in the document
// it leaves (no tracker set up there, no settle wait that the navigation
// cancels): it waits for the navigation, then for the new document's DOM.
func TestRunNavigates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &fakePage{t0: time.Now()}
		w := waiter.New(waiter.Config{Navigates: true})
		start := time.Now()
		res, err := w.Run(context.Background(), p, func(context.Context) error {
			w.NavigationStarted()
			after(300*time.Millisecond, w.NavigationFinished)
			return nil
		})
		if err != nil || !reflect.DeepEqual(res, waiter.Result{Navigated: true}) {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		if took := time.Since(start); took != 400*time.Millisecond {
			t.Errorf("Run took %v, want the navigation and the new document's 100ms", took)
		}
		if p.tracked != 0 || p.settles != 1 || p.stopped != 1 {
			t.Errorf("Track %d, Settle %d, Stop %d: want 0, 1 (the new document), 1", p.tracked, p.settles, p.stopped)
		}
	})
}
