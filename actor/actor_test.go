package actor_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tabhive/tabhive/actor"
)

// TestAskReturnsAtDeadlineWhenStuck: a handler that ignores its context must
// not hold the caller past its deadline (ARCHITECTURE.md §2, law 4).
func TestAskReturnsAtDeadlineWhenStuck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := actor.Spawn(actor.Config{Name: "stuck"})
		release := make(chan struct{})
		go actor.Ask(context.Background(), a, func(context.Context) (int, error) {
			<-release // stuck, deaf to its context
			return 0, nil
		})
		synctest.Wait()

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		_, err := actor.Ask(ctx, a, func(context.Context) (int, error) { return 1, nil })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Ask = %v, want deadline exceeded", err)
		}
		if got := time.Since(start); got != time.Second {
			t.Fatalf("Ask returned after %v, want exactly the 1s deadline", got)
		}
		close(release)
		a.Stop(nil)
	})
}

// TestStaleMessageNotRun: a message whose context ended while it was queued is
// answered with that error and never executed.
func TestStaleMessageNotRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stale atomic.Int32
		a := actor.Spawn(actor.Config{Name: "busy", OnStale: func() { stale.Add(1) }})
		defer a.Stop(nil)
		release := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			_, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) {
				<-release
				return 0, nil
			})
			first <- err
		}()
		synctest.Wait()

		var ran atomic.Bool
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := actor.Ask(ctx, a, func(context.Context) (int, error) {
			ran.Store(true)
			return 0, nil
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Ask = %v, want deadline exceeded", err)
		}
		close(release)
		if err := <-first; err != nil {
			t.Fatalf("first Ask = %v", err)
		}
		// A later message proves the stale one was dequeued.
		if _, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) { return 0, nil }); err != nil {
			t.Fatalf("third Ask = %v", err)
		}
		if ran.Load() {
			t.Fatal("stale message was executed")
		}
		if got := stale.Load(); got != 1 {
			t.Fatalf("OnStale called %d times, want 1", got)
		}
	})
}

func TestPanicBecomesErrorAndStopsActor(t *testing.T) {
	exited := make(chan error, 1)
	a := actor.Spawn(actor.Config{Name: "page 7", OnExit: func(err error) { exited <- err }})
	_, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) {
		var m map[string]int
		m["boom"] = 1 // nil map write panics
		return 0, nil
	})
	var pe *actor.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Ask = %v, want *PanicError", err)
	}
	if pe.Actor != "page 7" || len(pe.Stack) == 0 {
		t.Fatalf("PanicError = {Actor: %q, stack %d bytes}, want actor %q and a stack", pe.Actor, len(pe.Stack), "page 7")
	}
	if err := <-exited; !errors.As(err, &pe) {
		t.Fatalf("OnExit(%v), want *PanicError", err)
	}
	<-a.Done()
	if _, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) { return 0, nil }); !errors.Is(err, actor.ErrStopped) {
		t.Fatalf("Ask after panic = %v, want ErrStopped", err)
	}
}

func TestStopDrainsQueuedWithCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := actor.Spawn(actor.Config{Name: "page 1"})
		started := make(chan struct{})
		inflight := make(chan error, 1)
		go func() {
			_, err := actor.Ask(context.Background(), a, func(ctx context.Context) (int, error) {
				close(started)
				<-ctx.Done() // honours its context
				return 0, context.Cause(ctx)
			})
			inflight <- err
		}()
		<-started
		var ran atomic.Int32
		queued := make(chan error, 3)
		for i := 0; i < 3; i++ {
			go func() {
				_, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) {
					ran.Add(1)
					return 0, nil
				})
				queued <- err
			}()
		}
		synctest.Wait()

		closed := errors.New("target closed")
		a.Stop(closed)
		if err := <-inflight; !errors.Is(err, closed) {
			t.Fatalf("in-flight handler got %v, want the stop cause", err)
		}
		for i := 0; i < 3; i++ {
			if err := <-queued; !errors.Is(err, actor.ErrStopped) || !errors.Is(err, closed) {
				t.Fatalf("queued Ask = %v, want ErrStopped wrapping the cause", err)
			}
		}
		if ran.Load() != 0 {
			t.Fatalf("%d queued messages ran after Stop", ran.Load())
		}
		if !errors.Is(a.Err(), closed) {
			t.Fatalf("Err() = %v, want the stop cause", a.Err())
		}
	})
}

func TestBusyWhenMailboxFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := actor.Spawn(actor.Config{Name: "small", MailboxSize: 1})
		defer a.Stop(nil)
		release := make(chan struct{})
		block := func(context.Context) (int, error) { <-release; return 0, nil }
		go actor.Ask(context.Background(), a, block) // running
		synctest.Wait()
		go actor.Ask(context.Background(), a, block) // queued
		synctest.Wait()
		_, err := actor.Ask(context.Background(), a, block)
		if !errors.Is(err, actor.ErrBusy) {
			t.Fatalf("Ask on full mailbox = %v, want ErrBusy", err)
		}
		close(release)
	})
}

// events is a fake EventSource: Push from any goroutine, applied on the actor.
type events struct {
	ready   chan struct{}
	pending atomic.Int32
	applied int // owned by the actor goroutine
}

func newEvents() *events { return &events{ready: make(chan struct{}, 1)} }

func (e *events) Push() {
	e.pending.Add(1)
	select {
	case e.ready <- struct{}{}:
	default:
	}
}
func (e *events) Ready() <-chan struct{} { return e.ready }
func (e *events) Apply()                 { e.applied += int(e.pending.Swap(0)) }

// TestAwaitAppliesEvents: while a handler waits on a slow call, events keep
// being applied, and an interrupt ends the wait early (how a dialog cuts a
// click's wait short).
func TestAwaitAppliesEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := newEvents()
		a := actor.Spawn(actor.Config{Name: "page", Events: ev})
		defer a.Stop(nil)

		dialog := errors.New("dialog opened")
		var fnCancelled atomic.Bool
		got := make(chan error, 1)
		go func() {
			_, err := actor.Ask(context.Background(), a, func(ctx context.Context) (int, error) {
				err := a.Await(ctx, func(ctx context.Context) error {
					<-ctx.Done() // a slow CDP call
					fnCancelled.Store(true)
					return ctx.Err()
				}, func() error {
					if ev.applied >= 3 {
						return dialog
					}
					return nil
				})
				return ev.applied, err
			})
			got <- err
		}()
		for i := 0; i < 3; i++ {
			synctest.Wait()
			ev.Push()
		}
		if err := <-got; !errors.Is(err, dialog) {
			t.Fatalf("Await = %v, want the interrupt error", err)
		}
		synctest.Wait()
		if !fnCancelled.Load() {
			t.Fatal("awaited call's context was not cancelled after the interrupt")
		}
	})
}

func TestAwaitPanicStopsActor(t *testing.T) {
	exited := make(chan error, 1)
	a := actor.Spawn(actor.Config{Name: "page", OnExit: func(err error) { exited <- err }})
	_, err := actor.Ask(context.Background(), a, func(ctx context.Context) (int, error) {
		return 0, a.Await(ctx, func(context.Context) error { panic("in await") }, nil)
	})
	var pe *actor.PanicError
	if !errors.As(err, &pe) || pe.Value != "in await" {
		t.Fatalf("Ask = %v, want *PanicError with the value", err)
	}
	if err := <-exited; !errors.As(err, &pe) {
		t.Fatalf("OnExit(%v), want *PanicError", err)
	}
}

func TestInitFailureStops(t *testing.T) {
	boom := errors.New("dial failed")
	a := actor.Spawn(actor.Config{Name: "page", Init: func(context.Context) error { return boom }})
	<-a.Done()
	if !errors.Is(a.Err(), boom) {
		t.Fatalf("Err() = %v, want the init error", a.Err())
	}
	if _, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) { return 0, nil }); !errors.Is(err, boom) {
		t.Fatalf("Ask after failed init = %v, want it to wrap the init error", err)
	}
}

func Example() {
	counter := 0 // owned by the actor goroutine
	a := actor.Spawn(actor.Config{Name: "counter"})
	for i := 0; i < 3; i++ {
		n, _ := actor.Ask(context.Background(), a, func(context.Context) (int, error) {
			counter++
			return counter, nil
		})
		fmt.Println(n)
	}
	a.Stop(nil)
	_, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) { return 0, nil })
	fmt.Println(err)
	// Output:
	// 1
	// 2
	// 3
	// counter: actor stopped
}

// TestPanickedBeforeTheCallerHears: the caller told of a handler's panic
// finds the actor already stopping, so that its next call is not queued
// on it (the supervisor starts a fresh one instead).
func TestPanickedBeforeTheCallerHears(t *testing.T) {
	for i := range 200 {
		a := actor.Spawn(actor.Config{Name: "page"})
		if a.Panicked() {
			t.Fatal("a new actor says it panicked")
		}
		_, err := actor.Ask(context.Background(), a, func(context.Context) (int, error) { panic("boom") })
		var pe *actor.PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("Ask = %v, want *PanicError", err)
		}
		if !a.Panicked() {
			t.Fatalf("round %d: the caller heard of the panic before the actor began to stop", i)
		}
		<-a.Done()
		if !a.Panicked() {
			t.Fatal("a stopped actor no longer says it panicked")
		}
	}
	stopped := actor.Spawn(actor.Config{Name: "page"})
	stopped.Stop(nil)
	if stopped.Panicked() {
		t.Error("an actor stopped without a panic says it panicked")
	}
}

// TestFlush: events the source holds but has not signalled (the pump has
// not reached them) are applied before Flush returns, whether the actor is
// in Await or idle; a handler busy outside Await holds Flush only until its
// context ends, and a stopped actor answers at once.
func TestFlush(t *testing.T) {
	ev := newEvents()
	a := actor.Spawn(actor.Config{Name: "page", Events: ev})

	ev.pending.Add(2) // held, not signalled
	got, err := actor.Ask(context.Background(), a, func(ctx context.Context) (int, error) {
		var seen int
		err := a.Await(ctx, func(ctx context.Context) error {
			if err := a.Flush(ctx); err != nil {
				return err
			}
			seen = ev.applied // ordered by Flush's answer
			return nil
		}, nil)
		return seen, err
	})
	if err != nil || got != 2 {
		t.Fatalf("in Await: Flush then applied = %d, %v; want 2, nil", got, err)
	}

	ev.pending.Add(1)
	if err := a.Flush(context.Background()); err != nil {
		t.Fatalf("idle: Flush = %v", err)
	}
	if n, _ := actor.Ask(context.Background(), a, func(context.Context) (int, error) { return ev.applied, nil }); n != 3 {
		t.Fatalf("idle: applied = %d after Flush, want 3", n)
	}

	release := make(chan struct{})
	busy := make(chan struct{})
	go actor.Ask(context.Background(), a, func(context.Context) (int, error) {
		close(busy)
		<-release // busy, not in Await
		return 0, nil
	})
	<-busy
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	err = a.Flush(ctx)
	cancel()
	close(release)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("busy handler: Flush = %v, want its context's deadline", err)
	}

	a.Stop(nil)
	if err := a.Flush(context.Background()); !errors.Is(err, actor.ErrStopped) {
		t.Fatalf("stopped: Flush = %v, want ErrStopped", err)
	}
}
