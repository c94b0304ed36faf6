package waiter_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tabhive/tabhive/waiter"
)

// fakePage models a document whose DOM mutates at given offsets from the
// start of the test; WaitQuiet follows the contract of the real recorder.
type fakePage struct {
	t0        time.Time
	mu        sync.Mutex
	mutations []time.Duration // offsets from t0
	armed     int
}

func (p *fakePage) ArmQuiet(context.Context) error { p.mu.Lock(); p.armed++; p.mu.Unlock(); return nil }

func (p *fakePage) lastMutation(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var last time.Time
	for _, m := range p.mutations {
		if at := p.t0.Add(m); !at.After(now) && at.After(last) {
			last = at
		}
	}
	return last
}

func (p *fakePage) WaitQuiet(ctx context.Context, window, quiet, max time.Duration) error {
	start := time.Now()
	for {
		now := time.Now()
		if now.Sub(start) >= window && now.Sub(p.lastMutation(now)) >= quiet {
			return nil
		}
		if now.Sub(start) >= max {
			return context.DeadlineExceeded
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// after runs fn at offset d from now, in the bubble.
func after(d time.Duration, fn func()) { go func() { time.Sleep(d); fn() }() }

func TestRun(t *testing.T) {
	tests := []struct {
		name      string
		cfg       waiter.Config
		mutations []time.Duration
		events    func(w *waiter.Waiter)
		want      waiter.Result
		wantTime  time.Duration
	}{
		{
			name:     "no-op settles after one quiet window",
			wantTime: 100 * time.Millisecond,
		},
		{
			name:     "cpu multiplier scales the window",
			cfg:      waiter.Config{CPU: 4},
			wantTime: 400 * time.Millisecond,
		},
		{
			name:      "mutation 50ms later lands within the window",
			mutations: []time.Duration{50 * time.Millisecond},
			wantTime:  100 * time.Millisecond,
		},
		{
			name:      "mutation late in the window extends it by the tail",
			mutations: []time.Duration{80 * time.Millisecond},
			wantTime:  130 * time.Millisecond,
		},
		{
			name:      "a burst of mutations is waited out",
			mutations: []time.Duration{20 * time.Millisecond, 60 * time.Millisecond, 100 * time.Millisecond, 140 * time.Millisecond, 180 * time.Millisecond, 220 * time.Millisecond},
			wantTime:  270 * time.Millisecond,
		},
		{
			name: "navigation is waited for, then the new document's quiet",
			events: func(w *waiter.Waiter) {
				after(30*time.Millisecond, w.NavigationStarted)
				after(300*time.Millisecond, w.NavigationFinished)
			},
			want:     waiter.Result{Navigated: true},
			wantTime: 400 * time.Millisecond,
		},
		{
			name: "navigation that never finishes stops at its cap",
			cfg:  waiter.Config{NavigationTimeout: time.Second},
			events: func(w *waiter.Waiter) {
				after(30*time.Millisecond, w.NavigationStarted)
			},
			want:     waiter.Result{Navigated: true, GaveUp: "navigation"},
			wantTime: 1130 * time.Millisecond,
		},
		{
			name:      "request started by the action delays until its response renders",
			mutations: []time.Duration{601 * time.Millisecond, 660 * time.Millisecond},
			events: func(w *waiter.Waiter) {
				after(5*time.Millisecond, func() { w.RequestStarted("r1") })
				after(600*time.Millisecond, func() { w.RequestFinished("r1") })
			},
			wantTime: 710 * time.Millisecond,
		},
		{
			name: "request that never finishes stops at the cap",
			events: func(w *waiter.Waiter) {
				after(5*time.Millisecond, func() { w.RequestStarted("long") })
			},
			want:     waiter.Result{GaveUp: "requests"},
			wantTime: 3 * time.Second,
		},
		{
			name: "requests after the probe window are not the action's",
			events: func(w *waiter.Waiter) {
				after(95*time.Millisecond, func() {}) // keep ordering obvious
				after(150*time.Millisecond, func() { w.RequestStarted("poll") })
			},
			wantTime: 100 * time.Millisecond,
		},
		{
			name:      "dialog ends the wait at once",
			mutations: []time.Duration{10 * time.Millisecond, 80 * time.Millisecond, 150 * time.Millisecond},
			events: func(w *waiter.Waiter) {
				after(20*time.Millisecond, func() { w.DialogOpened("alert") })
			},
			want:     waiter.Result{Dialog: true},
			wantTime: 20 * time.Millisecond,
		},
		{
			name: "skip stable DOM still waits for navigation",
			cfg:  waiter.Config{SkipStableDOM: true},
			events: func(w *waiter.Waiter) {
				after(30*time.Millisecond, w.NavigationStarted)
				after(200*time.Millisecond, w.NavigationFinished)
			},
			want:     waiter.Result{Navigated: true},
			wantTime: 200 * time.Millisecond,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &fakePage{t0: time.Now(), mutations: tt.mutations}
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
				if got != tt.want {
					t.Errorf("Run = %+v, want %+v", got, tt.want)
				}
				if took := time.Since(start); took != tt.wantTime {
					t.Errorf("Run took %v, want %v", took, tt.wantTime)
				}
				if p.armed != 1 && !tt.cfg.SkipStableDOM {
					t.Errorf("ArmQuiet called %d times, want 1", p.armed)
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
			after(10*time.Millisecond, func() { w.DialogOpened("beforeunload") })
			after(20*time.Millisecond, w.NavigationStarted)
			after(200*time.Millisecond, w.NavigationFinished)
			return nil
		})
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
		want := waiter.Result{Navigated: true, DialogsHandled: 1}
		if res != want {
			t.Fatalf("Run = %+v, want %+v", res, want)
		}
		if took := time.Since(start); took != 300*time.Millisecond {
			t.Fatalf("Run took %v, want 300ms", took)
		}
		if len(offered) != 1 || offered[0] != "beforeunload" {
			t.Fatalf("HandleDialog offered %q, want [beforeunload]", offered)
		}
		time.Sleep(time.Minute)
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
	type ran struct {
		took time.Duration
		err  error
	}
	out := make(chan ran, 1)
	start := time.Now()
	go func() {
		_, err := w.Run(context.Background(), &fakePage{t0: start}, func(context.Context) error {
			w.RequestStarted("r1")
			close(started)
			<-release
			return nil
		})
		out <- ran{time.Since(start), err}
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
	time.Sleep(100 * time.Millisecond)
	w.RequestFinished("r1") // the request the action started is still waited for
	r := <-out
	if r.err != nil {
		t.Fatalf("Run: %v", r.err)
	}
	if r.took < 200*time.Millisecond {
		t.Errorf("Run returned after %v, before the request the action started finished (200ms)", r.took)
	}
}
