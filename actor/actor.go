// Package actor is the runtime behind tabhive's browser supervisor and page
// actors: one goroutine that owns some state and works through a mailbox of
// messages one at a time, while other goroutines talk to it only with
// [Ask].
//
// It knows nothing about CDP or MCP. What it guarantees (ARCHITECTURE.md §2):
//
//   - [Ask] returns when the caller's context ends, even if the actor is
//     stuck in another message.
//   - A message whose context is done by the time it is dequeued is answered
//     with that context's error and never run: an agent that gave up on a
//     click must not have it happen later.
//   - A handler runs under the caller's context, which also ends when the
//     actor stops, so every CDP call inside it is bounded.
//   - A panic inside a handler becomes an error reply; the actor then stops
//     (its state may be broken) and reports a [*PanicError] to its owner.
//   - Stopping answers every message still queued with an error wrapping
//     [ErrStopped] and the stop cause.
//   - While a handler waits on something slow ([Actor.Await]), the actor
//     keeps applying the events of its [EventSource].
//
// # Goroutines
//
// [Spawn] starts the run goroutine; [Actor.Stop] ends it and waits for it.
// [Actor.Await] starts one short-lived goroutine per call; they are tracked
// and waited for before the run goroutine exits, and each one ends because
// its context is cancelled when Await returns.
package actor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/mailbox"
)

// ErrStopped is returned (wrapped with the stop cause) for messages sent to,
// or still queued in, an actor that has stopped.
var ErrStopped = errors.New("actor stopped")

// ErrBusy is returned by [Ask] when the actor's mailbox is full. Nothing was
// queued; the caller may retry later.
var ErrBusy = errors.New("actor busy: too many calls queued")

// PanicError is the error of a message whose handler panicked, and the exit
// error of the actor it panicked in.
type PanicError struct {
	Actor string // name of the actor
	Value any    // the value passed to panic
	Stack []byte // stack of the panicking goroutine
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: internal error: %v", e.Actor, e.Value)
}

// EventSource delivers events that the actor applies on its own goroutine,
// between messages and while a handler is in [Actor.Await].
type EventSource interface {
	// Ready returns a channel that receives a value when events may be
	// pending.
	Ready() <-chan struct{}
	// Apply applies every pending event. It is called only on the actor's
	// goroutine and must not block.
	Apply()
}

// Config configures an actor. The zero value of each field means its
// documented default.
type Config struct {
	// Name identifies the actor in errors and logs, e.g. "page 3".
	Name string
	// MailboxSize is the number of messages that may wait. If zero, 64.
	MailboxSize int
	// Events, if non-nil, is applied on the actor goroutine whenever it is
	// ready: while idle and while a handler awaits.
	Events EventSource
	// Init, if non-nil, runs first on the actor goroutine, under the actor's
	// lifetime context. Messages queue meanwhile. If it fails, the actor
	// stops with that error.
	Init func(ctx context.Context) error
	// OnStale, if non-nil, is called for each message dropped unrun because
	// its context ended while it was queued.
	OnStale func()
	// OnExit, if non-nil, is called once on the actor goroutine as it exits,
	// with the reason: the cause given to Stop, an Init error, or a
	// [*PanicError].
	OnExit func(err error)
	// Logger receives panics and lifecycle events. If zero, nothing is logged.
	Logger zerolog.Logger
}

// Actor is a goroutine that runs messages one at a time. Create it with
// [Spawn]; talk to it with [Ask].
type Actor struct {
	// Immutable or safe from any goroutine.
	name    string
	mb      *mailbox.Mailbox[*message]
	events  EventSource
	init    func(context.Context) error
	onStale func()
	onExit  func(error)
	log     zerolog.Logger
	ctx     context.Context // lifetime; cancelled by Stop with its cause
	cancel  context.CancelCauseFunc
	done    chan struct{}      // closed when the run goroutine has exited
	flushes chan chan struct{} // Flush's requests, each closed once served
	awaits  sync.WaitGroup

	// exitErr is written once by the run goroutine before done is closed
	// and only read after done is closed.
	exitErr error
}

type message struct {
	ctx   context.Context
	run   func(context.Context) (any, error)
	reply chan result // buffered: the handler never blocks on a caller that left
}

type result struct {
	v   any
	err error
}

// Spawn starts an actor and returns it. The actor runs until [Actor.Stop],
// a failed Init, or a handler panic.
func Spawn(cfg Config) *Actor {
	a := New(cfg)
	a.Start()
	return a
}

// New returns an actor that does not run yet, for an owner that must keep a
// reference to it before its Init runs. Call [Actor.Start] once.
func New(cfg Config) *Actor {
	size := cfg.MailboxSize
	if size == 0 {
		size = 64
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	a := &Actor{
		name:    cfg.Name,
		mb:      mailbox.New[*message](size),
		events:  cfg.Events,
		init:    cfg.Init,
		onStale: cfg.OnStale,
		onExit:  cfg.OnExit,
		log:     cfg.Logger,
		ctx:     ctx,
		cancel:  cancel,
		done:    make(chan struct{}),
		flushes: make(chan chan struct{}),
	}
	return a
}

// Start starts an actor made by [New]. Messages sent before Start wait in
// the mailbox.
func (a *Actor) Start() { go a.run() }

// Name returns the actor's name.
func (a *Actor) Name() string { return a.name }

// Done returns a channel that is closed when the actor has exited.
func (a *Actor) Done() <-chan struct{} { return a.done }

// Err returns why the actor exited, or nil while it runs.
func (a *Actor) Err() error {
	select {
	case <-a.done:
		return a.exitErr
	default:
		return nil
	}
}

// Panicked reports whether the actor is stopping, or stopped, because a
// handler panicked. It is true before the panicking call's caller is
// answered.
func (a *Actor) Panicked() bool {
	var pe *PanicError
	return errors.As(context.Cause(a.ctx), &pe)
}

// Context returns the actor's lifetime context, cancelled with the stop
// cause when the actor begins to stop.
func (a *Actor) Context() context.Context { return a.ctx }

// Stop asks the actor to exit with cause and waits until it has. The
// handler in progress, if any, sees its context cancelled with cause; queued
// messages are answered with an error wrapping [ErrStopped] and cause.
// Calling Stop again, or after the actor exited, only waits.
func (a *Actor) Stop(cause error) {
	if cause == nil {
		cause = ErrStopped
	}
	a.cancel(cause)
	<-a.done
}

// Ask sends fn to a and waits for its result. fn runs on a's goroutine with
// a context that ends when ctx ends or when a stops.
//
// Ask returns ctx's cause as soon as ctx ends, whether fn is queued, running
// or stuck. If ctx is done when the message is dequeued, fn is not run.
// It returns [ErrBusy] if a's mailbox is full and an error wrapping
// [ErrStopped] if a has stopped.
func Ask[T any](ctx context.Context, a *Actor, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	m := &message{
		ctx:   ctx,
		run:   func(ctx context.Context) (any, error) { return fn(ctx) },
		reply: make(chan result, 1),
	}
	if err := a.mb.Send(ctx, m); err != nil {
		switch {
		case errors.Is(err, mailbox.ErrFull):
			return zero, fmt.Errorf("%s: %w", a.name, ErrBusy)
		case errors.Is(err, mailbox.ErrClosed):
			return zero, a.stoppedError()
		}
		return zero, err
	}
	select {
	case r := <-m.reply:
		if r.err != nil {
			return zero, r.err
		}
		v, _ := r.v.(T) // r.v is nil when fn returned the zero value of an interface type
		return v, nil
	case <-ctx.Done():
		return zero, context.Cause(ctx)
	}
}

// Await runs fn on a new goroutine and waits for it, applying the actor's
// events meanwhile (ARCHITECTURE.md §2, law 5). It must be called only from the actor's
// goroutine, inside a handler or Init.
//
// Await returns fn's error, or ctx's cause if ctx ends first. If interrupt is
// non-nil it is called after each batch of events; a non-nil error from it
// ends the wait early with that error. When Await returns early, fn's context
// is cancelled and fn is left to finish on its own; it must honour its
// context. A panic in fn is re-raised on the actor goroutine.
func (a *Actor) Await(ctx context.Context, fn func(ctx context.Context) error, interrupt func() error) error {
	if interrupt != nil {
		if err := interrupt(); err != nil {
			return err
		}
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		err      error
		panicked bool
		value    any
		stack    []byte
	}
	out := make(chan outcome, 1)
	a.awaits.Add(1)
	go func() {
		defer a.awaits.Done()
		defer func() {
			if v := recover(); v != nil {
				out <- outcome{panicked: true, value: v, stack: debug.Stack()}
			}
		}()
		out <- outcome{err: fn(fctx)}
	}()
	var ready <-chan struct{}
	if a.events != nil {
		ready = a.events.Ready()
	}
	for {
		select {
		case o := <-out:
			if o.panicked {
				panic(&PanicError{Actor: a.name, Value: o.value, Stack: o.stack})
			}
			return o.err
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ready:
			a.events.Apply()
			if interrupt != nil {
				if err := interrupt(); err != nil {
					return err
				}
			}
		case ack := <-a.flushes:
			a.events.Apply()
			close(ack)
			if interrupt != nil {
				if err := interrupt(); err != nil {
					return err
				}
			}
		}
	}
}

// Flush returns once the actor has applied every event its source held
// when Flush was called: a goroutine that got an answer through another
// path (a CDP reply) can so make sure the events that came before that
// answer have been applied. The actor serves it while idle and while a
// handler is in [Actor.Await]; a handler busy otherwise makes Flush wait,
// at most until ctx ends. Safe from any goroutine but the actor's own.
func (a *Actor) Flush(ctx context.Context) error {
	if a.events == nil {
		return nil
	}
	ack := make(chan struct{})
	select {
	case a.flushes <- ack:
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-a.ctx.Done():
		return a.stoppedError()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-a.ctx.Done():
		return a.stoppedError()
	}
}

func (a *Actor) stoppedError() error {
	if cause := context.Cause(a.ctx); cause != nil && !errors.Is(cause, ErrStopped) {
		return fmt.Errorf("%s: %w: %w", a.name, ErrStopped, cause)
	}
	return fmt.Errorf("%s: %w", a.name, ErrStopped)
}

// run is the actor goroutine.
func (a *Actor) run() {
	err := a.loop()
	a.cancel(err)
	for _, m := range a.mb.Close() {
		m.reply <- result{err: a.stoppedError()}
	}
	a.waitAwaits()
	a.exitErr = err
	if a.onExit != nil {
		a.onExit(err)
	}
	close(a.done)
}

// loop runs Init and then messages until the actor stops; it returns the
// reason.
func (a *Actor) loop() (exit error) {
	defer func() {
		if v := recover(); v != nil {
			exit = asPanicError(a.name, v)
			a.log.Error().Str("actor", a.name).Interface("panic", v).
				Bytes("stack", exit.(*PanicError).Stack).Msg("actor panicked; stopping it")
		}
	}()
	if a.init != nil {
		if err := a.init(a.ctx); err != nil {
			return err
		}
	}
	var ready <-chan struct{}
	if a.events != nil {
		ready = a.events.Ready()
	}
	for {
		select {
		case <-a.ctx.Done():
			return context.Cause(a.ctx)
		case <-ready:
			a.events.Apply()
		case ack := <-a.flushes:
			a.events.Apply()
			close(ack)
		case <-a.mb.Ready():
			// select picks at random among ready cases: a stop must win
			// over queued messages, which are then answered, not run.
			if a.ctx.Err() != nil {
				return context.Cause(a.ctx)
			}
			m, ok := a.mb.Receive()
			if !ok {
				continue
			}
			if err := a.handle(m); err != nil {
				return err
			}
		}
	}
}

// handle runs one message. It returns a non-nil error only when the handler
// panicked, which stops the actor.
func (a *Actor) handle(m *message) (exit error) {
	if m.ctx.Err() != nil {
		// The caller gave up while the message was queued: answer, don't run.
		if a.onStale != nil {
			a.onStale()
		}
		m.reply <- result{err: context.Cause(m.ctx)}
		return nil
	}
	ctx, cancel := context.WithCancelCause(m.ctx)
	stop := context.AfterFunc(a.ctx, func() { cancel(context.Cause(a.ctx)) })
	defer func() {
		stop()
		cancel(nil)
		if v := recover(); v != nil {
			pe := asPanicError(a.name, v)
			// Stopping begins before the caller hears of the panic, so
			// that its next call can tell this actor is done for
			// ([Actor.Panicked]) rather than queue behind it.
			a.cancel(pe)
			m.reply <- result{err: pe}
			a.log.Error().Str("actor", a.name).Interface("panic", pe.Value).
				Bytes("stack", pe.Stack).Msg("handler panicked; stopping the actor")
			exit = pe
		}
	}()
	v, err := m.run(ctx)
	m.reply <- result{v: v, err: err}
	return nil
}

// waitAwaits waits for Await goroutines, which end once their CDP call sees
// its cancelled context. A goroutine that ignores its context is logged
// rather than allowed to hold the actor's exit forever.
func (a *Actor) waitAwaits() {
	done := make(chan struct{})
	go func() { a.awaits.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		a.log.Warn().Str("actor", a.name).Msg("an awaited call ignored its cancelled context")
	}
}

func asPanicError(name string, v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	return &PanicError{Actor: name, Value: v, Stack: debug.Stack()}
}
