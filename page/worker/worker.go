// Package worker drives one service worker target (an extension's
// background service worker): its console, collected from the moment it is
// attached, and scripts run in it (evaluate_script's serviceWorkerId). A
// [Worker] is an actor as a page is, much smaller: one CDP session with
// Runtime enabled, a console collector, and no frames, snapshots, dialogs
// or emulation. The supervisor starts one per extension service worker it
// sees (browser/workers.go); the tools find it through
// browser/extensions.Worker.
//
// Goroutines: the run goroutine (package actor), started by [Start], which
// attaches and enables Runtime (init), then runs messages one at a time,
// applying the session's events between and during them; the Await
// goroutines of its CDP exchanges; and the script call of Evaluate, which
// runs under a context of its own so that a script past its deadline can
// be stopped (Runtime.terminateExecution) and its call left to finish.
// [Worker.Stop] ends them all; the session closes on the way out.
package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/internal/format"
	"github.com/tabhive/tabhive/page/js"
)

// Config describes the worker target a [Worker] drives.
type Config struct {
	// ID is the worker id agents use (sw-1, ...).
	ID string
	// TargetID is Chrome's target id.
	TargetID string
	// Attach opens the worker's CDP session, queueing the events opts
	// keeps.
	Attach func(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error)
	// Logger receives the actor's logs, tagged with the worker id.
	Logger zerolog.Logger
}

// Worker drives one service worker target. Its methods may be called from
// any goroutine; each is a message to the worker's actor.
type Worker struct {
	// Immutable or safe from any goroutine.
	id     string
	attach func(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error)
	log    zerolog.Logger
	act    *actor.Actor
	ready  chan struct{}

	// Written once by init before any message runs, then read-only.
	conn *cdpconn.Conn
	c    *cdp.Client

	// Owned by the run goroutine.
	console *collectors.Console
}

// workerEvents are the events a worker's session queues.
var workerEvents = map[string]bool{
	"Runtime.consoleAPICalled": true,
	"Runtime.exceptionThrown":  true,
}

// Start spawns the actor of a service worker. It returns at once;
// attaching happens on the actor's goroutine.
func Start(cfg Config) *Worker {
	w := &Worker{
		id:      cfg.ID,
		attach:  cfg.Attach,
		log:     cfg.Logger.With().Str("worker", cfg.ID).Logger(),
		ready:   make(chan struct{}, 1),
		console: collectors.NewConsole(collectors.Config{}),
	}
	w.act = actor.New(actor.Config{
		Name:   "service worker " + cfg.ID,
		Events: (*workerSource)(w),
		Init:   w.init,
		OnExit: func(error) {
			if w.conn != nil {
				w.conn.Close()
			}
		},
		Logger: w.log,
	})
	w.act.Start()
	return w
}

// ID returns the worker id.
func (w *Worker) ID() string { return w.id }

// Stop stops the actor with cause and waits for it.
func (w *Worker) Stop(cause error) { w.act.Stop(cause) }

// Err returns why the worker's actor stopped, or nil while it runs.
func (w *Worker) Err() error { return w.act.Err() }

func (w *Worker) init(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := w.attach(ctx, cdpconn.Options{Keep: func(m string) bool { return workerEvents[m] }, Ready: w.ready})
	if err != nil {
		return fmt.Errorf("%w (%w)", page.ErrDisconnected, err)
	}
	w.conn, w.c = conn, conn.Client
	// A worker attached while it waits for a debugger would stay paused;
	// an extension's is not, so this is a no-op but for such targets.
	return w.act.Await(ctx, func(ctx context.Context) error {
		if err := w.c.Runtime.Enable(ctx); err != nil {
			return err
		}
		w.c.Runtime.RunIfWaitingForDebugger(ctx)
		return nil
	}, nil)
}

// workerSource lets the actor runtime drain the worker's events.
type workerSource Worker

func (s *workerSource) Ready() <-chan struct{} { return s.ready }

func (s *workerSource) Apply() {
	w := (*Worker)(s)
	if w.conn == nil {
		return
	}
	for _, ev := range w.conn.Take() {
		switch ev.Method {
		case "Runtime.consoleAPICalled":
			if ce, err := format.ConsoleAPICalled(ev.Params); err == nil {
				// Objects are not kept: get_console_message reads pages'.
				for i := range ce.Args {
					ce.Args[i].Ref = ""
				}
				w.console.ConsoleAPICalled(ce)
			}
		case "Runtime.exceptionThrown":
			if x, _, err := format.ExceptionThrown(ev.Params); err == nil {
				w.console.ExceptionThrown(x)
			}
		}
	}
}

// ConsoleMessages returns the worker's console messages and uncaught
// exceptions of the given types (all if none), since it was attached.
func (w *Worker) ConsoleMessages(ctx context.Context, types []string) ([]collectors.Message, error) {
	return actor.Ask(ctx, w.act, func(context.Context) ([]collectors.Message, error) {
		(*workerSource)(w).Apply()
		return w.console.List(collectors.MessageFilter{Types: types, IncludePreserved: true}), nil
	})
}

// Evaluate runs a script in the worker and returns its result, as
// [page.Actor.Evaluate] does for a page: format "function" (the default) calls
// a function declaration, "script" evaluates classic script text; the
// result's JSON is cut past maxResult bytes. A script still running when
// ctx ends is terminated.
func (w *Worker) Evaluate(ctx context.Context, source, fmtName string, maxResult int) (page.ScriptResult, error) {
	if maxResult <= 0 {
		maxResult = page.DefaultMaxResult
	}
	return actor.Ask(ctx, w.act, func(ctx context.Context) (page.ScriptResult, error) {
		run := "(\n" + source + "\n)()"
		if fmtName == "script" {
			b, _ := json.Marshal(source)
			run = "(0, eval)(" + string(b) + ")"
		}
		expr := strings.NewReplacer("__RUN__", run, "__MAX__", strconv.Itoa(maxResult)).Replace(js.WorkerWrapper)
		var r *runtime.EvaluateReply
		callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		done := make(chan error, 1)
		go func() { // ends when the script ends, is terminated, or callCtx ends
			var err error
			r, err = w.c.Runtime.Evaluate(callCtx, runtime.NewEvaluateArgs(expr).SetAwaitPromise(true).SetReturnByValue(true).SetUserGesture(true))
			done <- err
		}()
		var err error
		err = w.act.Await(ctx, func(ctx context.Context) error {
			select {
			case err := <-done:
				done <- err
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}, nil)
		if err != nil {
			// Out of time: stop the script, then leave its call a moment to
			// return.
			tctx, tcancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
			w.c.Runtime.TerminateExecution(tctx)
			select {
			case <-done:
			case <-tctx.Done():
			}
			tcancel()
			return page.ScriptResult{}, &page.ScriptTimeoutError{Terminated: true}
		}
		if err := <-done; err != nil {
			return page.ScriptResult{}, err
		}
		if r.ExceptionDetails != nil {
			return page.ScriptResult{}, &page.ScriptError{Msg: page.ExceptionText(r.ExceptionDetails)}
		}
		var b struct {
			JSON string `json:"json"`
			Size int64  `json:"size"`
		}
		if err := json.Unmarshal(r.Result.Value, &b); err != nil {
			return page.ScriptResult{}, fmt.Errorf("read the worker's result: %w", err)
		}
		return page.ScriptResult{JSON: b.JSON, Size: b.Size, Cut: int64(len(b.JSON)) < b.Size}, nil
	})
}
