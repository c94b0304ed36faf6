package page

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/runtime"
)

// The evaluate engine (DESIGN §6, seed 002). A script runs under the call's
// deadline. A script still running when the deadline passes is stopped:
// Runtime.terminateExecution ends synchronous work (a while(true){}), and an
// in-page timer settles a promise that never would, so the CDP call returns
// and nothing is left pending. Either way the page stays usable: the next
// click works.

// ErrFramesMixed is returned when evaluate_script's element arguments live
// in different frames.
var ErrFramesMixed = errors.New("elements from different frames can't be evaluated together")

// ScriptError is an exception the script threw (or a syntax error in it),
// with the page's message.
type ScriptError struct{ Msg string }

func (e *ScriptError) Error() string { return e.Msg }

// ScriptTimeoutError reports a script stopped at its deadline. Terminated
// says whether Runtime.terminateExecution had to end synchronous work.
type ScriptTimeoutError struct {
	Budget     time.Duration
	Terminated bool
}

func (e *ScriptTimeoutError) Error() string {
	return fmt.Sprintf("script did not finish within %v", e.Budget.Round(time.Millisecond))
}

// Script says what evaluate_script runs.
type Script struct {
	// Source is a function declaration (Format "function", the default),
	// maybe async, or classic script text (Format "script").
	Source string
	Format string
	// Args are uids of elements, passed to the function in order.
	Args []string
	// DialogAction answers dialogs the script opens: "accept" (the
	// default), "dismiss", or any other text to accept a prompt with.
	DialogAction string
	// SkipStableDOM returns as soon as the script and any navigation it
	// started are done, without waiting for the DOM to settle.
	SkipStableDOM bool
}

// ScriptResult is a finished evaluation.
type ScriptResult struct {
	// JSON is JSON.stringify of the script's result; "undefined" when the
	// result does not serialise.
	JSON string
	ActionResult
}

// Evaluate runs a script in the page (or in the frame of its element
// arguments) and waits for its consequences like an input action. It
// returns within ctx's deadline whatever the script does.
func (a *Actor) Evaluate(ctx context.Context, s Script) (ScriptResult, error) {
	if s.Format == "" {
		s.Format = "function"
	}
	if s.Format == "script" && len(s.Args) > 0 {
		return ScriptResult{}, errors.New(`args cannot be used when format is "script"`)
	}
	return ask(ctx, a, func(ctx context.Context) (ScriptResult, error) {
		var out ScriptResult
		if err := a.needRenderer(); err != nil {
			return out, err
		}
		ec, nodes, err := a.scriptTarget(ctx, s.Args)
		if err != nil {
			return out, err
		}
		answer := dialogAnswer{accept: true}
		switch s.DialogAction {
		case "", "accept":
		case "dismiss":
			answer.accept = false
		default:
			answer.promptText = s.DialogAction
		}
		var result atomic.Pointer[string] // written on the waiter's goroutine
		start := time.Now()
		var timedOut atomic.Bool
		res, err := a.perform(ctx, actionOptions{
			skipStableDOM: s.SkipStableDOM,
			handleDialog:  func(string) (dialogAnswer, bool) { return answer, true },
		}, func(ctx context.Context) error {
			// The script's own deadline comes a little before the call's, so
			// that stopping it (grace, then terminate) fits in the budget and
			// the timeout is reported as the script's.
			if dl, ok := ctx.Deadline(); ok {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, dl.Add(-reserveFor(time.Until(dl))))
				defer cancel()
			}
			v, err := runScript(ctx, a.c, ec, nodes, s, a.hooks.ScriptTerminated)
			if err != nil {
				var te *ScriptTimeoutError
				if errors.As(err, &te) {
					timedOut.Store(true)
				}
				return err
			}
			result.Store(&v)
			return nil
		})
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// The waits' deadline passed before the script's own timeout
			// could report (a loaded machine): it is the same timeout, and
			// the script is being stopped all the same.
			timedOut.Store(true)
			err = &ScriptTimeoutError{Terminated: true}
		}
		if a.hooks.EvaluateDone != nil {
			a.hooks.EvaluateDone(time.Since(start), timedOut.Load())
		}
		if err != nil {
			return out, err
		}
		if p := result.Load(); p != nil {
			out.JSON = *p
		}
		out.ActionResult = res
		return out, nil
	})
}

// scriptTarget picks the execution context to run in: the main frame's, or
// that of the frame the element arguments live in, and resolves those
// elements in it. It runs on the actor goroutine.
func (a *Actor) scriptTarget(ctx context.Context, uids []string) (runtime.ExecutionContextID, []dom.BackendNodeID, error) {
	frameID := a.mainFrame
	var nodes []dom.BackendNodeID
	for i, uid := range uids {
		n, err := a.resolve(uid)
		if err != nil {
			return 0, nil, err
		}
		if i == 0 {
			frameID = n.FrameID
		} else if n.FrameID != frameID {
			return 0, nil, ErrFramesMixed
		}
		id, err := a.nodeID(ctx, n)
		if err != nil {
			return 0, nil, err
		}
		nodes = append(nodes, id)
	}
	f := a.frames[frameID]
	if f == nil || f.context == 0 {
		return 0, nil, fmt.Errorf("the frame has no script context yet; try again once it has loaded")
	}
	return f.context, nodes, nil
}

// runScript evaluates s in context ec with nodes as arguments. It runs on
// the waiter's goroutine and uses only the CDP client. When ctx ends first
// it stops the script and returns a [*ScriptTimeoutError]; onTerminate, if
// non-nil, is called when it had to send Runtime.terminateExecution.
func runScript(ctx context.Context, c *cdp.Client, ec runtime.ExecutionContextID, nodes []dom.BackendNodeID, s Script, onTerminate func()) (string, error) {
	dl, hasDeadline := ctx.Deadline()
	budget := time.Duration(0)
	if hasDeadline {
		budget = time.Until(dl)
	}
	// The call itself runs under a context of its own, so that it can be
	// left to finish (it returns promptly once the script is stopped)
	// rather than be abandoned with its reply still pending.
	callCtx, cancelCall := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelCall()
	type outcome struct {
		v   string
		err error
	}
	done := make(chan outcome, 1)
	go func() { // ends when the script ends, is terminated, or callCtx is cancelled
		v, err := evaluate(callCtx, c, ec, nodes, s, budget)
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
	}
	// Out of time. A promise still pending is settled by the in-page timer,
	// which fires at the same deadline: give it a moment. Only a script
	// still running synchronously needs terminating, and only then may we
	// terminate: Chrome's terminateExecution also ends the *next* script
	// when none is running.
	select {
	case <-done:
		return "", &ScriptTimeoutError{Budget: budget}
	case <-time.After(terminateGrace):
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
	defer cancel()
	if err := c.Runtime.TerminateExecution(tctx); err == nil && onTerminate != nil {
		onTerminate()
	}
	select {
	case <-done:
	case <-tctx.Done():
	}
	return "", &ScriptTimeoutError{Budget: budget, Terminated: true}
}

// terminateGrace is how long a timed-out script may take to settle by
// itself (its in-page timer) before it is terminated.
const terminateGrace = 50 * time.Millisecond

// scriptReserve is the least of a call's budget kept for stopping a script
// that ran out of time: the grace, then terminateExecution's round trip.
const scriptReserve = terminateGrace + 100*time.Millisecond

// reserveFor returns the part of the time left that is kept for stopping a
// script: scriptReserve, or a fifth of it when that is more, so that on a
// loaded machine the script's own timeout still comes before the call's;
// never more than maxScriptReserve, so that a long budget (the default
// 30 s) is the script's to use, less a second at most.
func reserveFor(left time.Duration) time.Duration {
	return min(max(scriptReserve, left/5), maxScriptReserve)
}

// maxScriptReserve bounds reserveFor: stopping a script takes the grace and
// one round trip, which a loaded machine stretches to a few hundred ms.
const maxScriptReserve = 750 * time.Millisecond

// functionWrapper runs the agent's function with its arguments and a timer
// that rejects a promise still pending at the deadline.
const functionWrapper = `async function (__tabhiveBudget, ...args) {
  const fn = (
%s
);
  let timer;
  const late = new Promise((_, reject) => {
    if (__tabhiveBudget > 0) timer = setTimeout(() => reject(new Error('tabhive: script timed out')), __tabhiveBudget);
  });
  try {
    return JSON.stringify(await Promise.race([Promise.resolve().then(() => fn(...args)), late]));
  } finally {
    clearTimeout(timer);
  }
}`

// stringifyJS serialises a value the way evaluate_script reports it.
const stringifyJS = `function (v) { return JSON.stringify(v); }`

func evaluate(ctx context.Context, c *cdp.Client, ec runtime.ExecutionContextID, nodes []dom.BackendNodeID, s Script, budget time.Duration) (string, error) {
	if s.Format == "script" {
		return evaluateScript(ctx, c, ec, s.Source)
	}
	src := strings.TrimRight(strings.TrimSpace(s.Source), ";")
	args := make([]runtime.CallArgument, 0, len(nodes)+1)
	b, _ := json.Marshal(budget.Milliseconds())
	args = append(args, runtime.CallArgument{Value: b})
	for _, n := range nodes {
		r, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(n).SetExecutionContextID(ec))
		if isNodeGone(err) || err == nil && r.Object.ObjectID == nil {
			return "", errNodeGone
		}
		if err != nil {
			return "", err
		}
		defer releaseObject(c, *r.Object.ObjectID)
		args = append(args, runtime.CallArgument{ObjectID: r.Object.ObjectID})
	}
	r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(fmt.Sprintf(functionWrapper, src)).
		SetExecutionContextID(ec).SetArguments(args).SetAwaitPromise(true).SetReturnByValue(true).
		// As Puppeteer's evaluate, which upstream uses: a script may open a
		// popup or go full screen as a click could.
		SetUserGesture(true))
	if err != nil {
		return "", err
	}
	return stringResult(r.Result, r.ExceptionDetails)
}

// evaluateScript runs classic script text and serialises its completion
// value.
func evaluateScript(ctx context.Context, c *cdp.Client, ec runtime.ExecutionContextID, src string) (string, error) {
	r, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(src).SetContextID(ec).SetAwaitPromise(true).SetUserGesture(true))
	if err != nil {
		return "", err
	}
	if r.ExceptionDetails != nil {
		return "", &ScriptError{Msg: exceptionText(r.ExceptionDetails)}
	}
	arg := runtime.CallArgument{ObjectID: r.Result.ObjectID, Value: r.Result.Value, UnserializableValue: r.Result.UnserializableValue}
	if r.Result.ObjectID != nil {
		defer releaseObject(c, *r.Result.ObjectID)
	}
	s, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(stringifyJS).
		SetExecutionContextID(ec).SetArguments([]runtime.CallArgument{arg}).SetReturnByValue(true))
	if err != nil {
		return "", err
	}
	return stringResult(s.Result, s.ExceptionDetails)
}

func stringResult(v runtime.RemoteObject, exc *runtime.ExceptionDetails) (string, error) {
	if exc != nil {
		msg := exceptionText(exc)
		if strings.Contains(msg, "tabhive: script timed out") {
			return "", &ScriptTimeoutError{}
		}
		return "", &ScriptError{Msg: msg}
	}
	var out *string
	if len(v.Value) == 0 || json.Unmarshal(v.Value, &out) != nil || out == nil {
		return "undefined", nil
	}
	return *out, nil
}
