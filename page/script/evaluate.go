// Package script is a page's evaluate_script capability: running an
// agent's JavaScript in a page (or in the frame of its element arguments)
// under the call's deadline, answering the dialogs it opens, bounding its
// result in the page and reading a large one to a file in chunks; the
// evaluate_script tool (a service worker's script included) and --slim's
// evaluate.
//
// The capability has no per-page state: its [Slice] holds the page's
// Host. The script runs under the page's post-action waiter
// ([page.Elements.PerformAnswering]) in the document's tracker, both the
// core's.
//
// Goroutines: runScript, on the waiter's action goroutine, runs the
// evaluation on a goroutine of its own, under a context without the
// deadline, so that a script past its deadline can be stopped (its
// in-page timer, then Runtime.terminateExecution) and its call left to
// finish rather than abandoned. It ends when the script returns or is
// stopped; runScript cancels its context when it returns.
package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/internal/jsfmt"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/waiter"
)

// Slice is the script capability on one page: the page's Host, through
// which scripts run.
type Slice struct{ h *page.Host }

// hosts finds a page's Host for its scripts.
var hosts = page.RegisterStateless("script")

// The evaluate engine (ARCHITECTURE.md §9). A script runs under the call's
// deadline. A script still running when the deadline passes is stopped:
// Runtime.terminateExecution ends synchronous work (a while(true){}), and an
// in-page timer settles a promise that never would, so the CDP call returns
// and nothing is left pending. Either way the page stays usable: the next
// click works.

// ErrFramesMixed is returned when evaluate_script's element arguments live
// in different frames.
var ErrFramesMixed = agenterr.New("elements from different frames can't be evaluated together",
	"Elements from different frames can't be evaluated together.")

// ResultTooLargeError is returned when a script's result, asked for in
// [Script.Output], is longer than [Script.MaxOutput]. Nothing was written.
type ResultTooLargeError struct {
	Size, Max int64 // bytes of JSON text
}

func (e *ResultTooLargeError) Error() string {
	return fmt.Sprintf("the script's result is %d bytes of JSON, more than the %d that may be saved", e.Size, e.Max)
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
	// MaxResult bounds [page.ScriptResult.JSON], in bytes of JSON text. A longer
	// result is cut in the page, before it crosses CDP, so that a script
	// returning 50 MB costs this process MaxResult, not 50 MB.
	// If zero, [page.DefaultMaxResult].
	MaxResult int
	// Output, if non-nil, receives the whole result instead of JSON: it is
	// kept in the page and read from there in chunks of at most a few
	// hundred KiB, so that it is never held whole in memory. Errors of
	// Output's Write are returned as they are.
	Output io.Writer
	// MaxOutput bounds what is written to Output, in bytes: a longer result
	// fails with a [*ResultTooLargeError] before anything is written. If
	// zero, [DefaultMaxOutput].
	MaxOutput int64
}

// DefaultMaxOutput is [Script.MaxOutput] when none is given: 256 MiB. A
// script result is a V8 string, at most about 512 MiB of UTF-16; half that
// is more than any agent reads, and bounds what one call can put on disk.
const DefaultMaxOutput = 256 << 20

// Evaluate runs a script in page a (or in the frame of its element
// arguments) and waits for its consequences like an input action. It
// returns within ctx's deadline whatever the script does.
func Evaluate(ctx context.Context, a *page.Actor, s Script) (page.ScriptResult, error) {
	if s.Format == "" {
		s.Format = "function"
	}
	if s.Format == "script" && len(s.Args) > 0 {
		return page.ScriptResult{}, errors.New(`args cannot be used when format is "script"`)
	}
	if s.MaxResult <= 0 {
		s.MaxResult = page.DefaultMaxResult
	}
	if s.MaxOutput <= 0 {
		s.MaxOutput = DefaultMaxOutput
	}
	sl := &Slice{h: hosts.Of(a)}
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (page.ScriptResult, error) {
		var out page.ScriptResult
		if err := h.NeedRenderer(); err != nil {
			return out, err
		}
		ec, frameID, nodes, err := sl.target(ctx, s.Args)
		if err != nil {
			return out, err
		}
		// The script runs in the frame of its element arguments, through
		// the session that reaches it (an out-of-process iframe's own).
		sess := h.Top()
		if len(s.Args) > 0 {
			sess = h.SessionOf(frameID)
		}
		answer := page.DialogAnswer{Accept: true}
		switch s.DialogAction {
		case "", "accept":
		case "dismiss":
			answer.Accept = false
		default:
			answer.PromptText = s.DialogAction
		}
		hooks := h.Owner().Hooks()
		var result atomic.Pointer[scriptValue] // written on the waiter's goroutine
		start := time.Now()
		var timedOut atomic.Bool
		res, err := h.Elements().PerformAnswering(ctx, s.SkipStableDOM, answer, func(ctx context.Context, _ *page.Progress) error {
			// The script's own deadline comes a little before the call's, so
			// that stopping it (grace, then terminate) fits in the budget and
			// the timeout is reported as the script's.
			sctx := ctx
			if dl, ok := ctx.Deadline(); ok {
				var cancel context.CancelFunc
				sctx, cancel = context.WithDeadline(ctx, dl.Add(-reserveFor(time.Until(dl))))
				defer cancel()
			}
			v, err := runScript(sctx, sess, ec, nodes, s, hooks.ScriptTerminated)
			if err != nil {
				var te *page.ScriptTimeoutError
				if errors.As(err, &te) {
					timedOut.Store(true)
				}
				return err
			}
			if v.kept != nil {
				// Read the result now, before a navigation the script started
				// can take its context (and the result) away.
				defer sess.ReleaseObject(*v.kept)
				if v.size, err = saveResult(ctx, sess, *v.kept, s.Output, s.MaxOutput); err != nil {
					return err
				}
			}
			result.Store(&v)
			return nil
		})
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// The waits' deadline passed before the script's own timeout
			// could report (a loaded machine): it is the same timeout, and
			// the script is being stopped all the same.
			timedOut.Store(true)
			err = &page.ScriptTimeoutError{Terminated: true}
		}
		if hooks.EvaluateDone != nil {
			hooks.EvaluateDone(time.Since(start), timedOut.Load())
		}
		if err != nil {
			return out, err
		}
		if v := result.Load(); v != nil {
			out.JSON, out.Size, out.Cut = v.json, v.size, v.cut
		}
		out.ActionResult = res
		return out, nil
	})
}

// target picks the execution context to run in: the main frame's, or that
// of the frame the element arguments live in (frameID), and resolves those
// elements in it. It runs on the run goroutine.
func (sl *Slice) target(ctx context.Context, uids []string) (ec runtime.ExecutionContextID, frameID string, nodes []dom.BackendNodeID, err error) {
	h := sl.h
	frameID = h.MainFrame()
	for i, uid := range uids {
		n, err := h.Elements().Resolve(uid)
		if err != nil {
			return 0, "", nil, err
		}
		if i == 0 {
			frameID = n.FrameID
		} else if n.FrameID != frameID {
			return 0, "", nil, ErrFramesMixed
		}
		id, err := h.Elements().BackendNodeID(ctx, n)
		if err != nil {
			return 0, "", nil, err
		}
		nodes = append(nodes, id)
	}
	if ec = h.ScriptContext(frameID); ec == 0 {
		return 0, "", nil, fmt.Errorf("the frame has no script context yet; try again once it has loaded")
	}
	return ec, frameID, nodes, nil
}

// runScript evaluates s in context ec of session sess with nodes as
// arguments. It runs on the waiter's goroutine and uses only the session. When ctx ends first
// it stops the script and returns a [*ScriptTimeoutError]; onTerminate, if
// non-nil, is called when it had to send Runtime.terminateExecution.
func runScript(ctx context.Context, sess *page.Session, ec runtime.ExecutionContextID, nodes []dom.BackendNodeID, s Script, onTerminate func()) (scriptValue, error) {
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
		v   scriptValue
		err error
	}
	done := make(chan outcome, 1)
	go func() { // ends when the script ends, is terminated, or callCtx is cancelled
		v, err := evaluate(callCtx, sess, ec, nodes, s, budget)
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
	case o := <-done:
		o.v.release(sess)
		return scriptValue{}, &page.ScriptTimeoutError{Budget: budget}
	case <-time.After(terminateGrace):
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
	defer cancel()
	if err := sess.Client().Runtime.TerminateExecution(tctx); err == nil && onTerminate != nil {
		onTerminate()
	}
	select {
	case o := <-done:
		o.v.release(sess)
	case <-tctx.Done():
	}
	return scriptValue{}, &page.ScriptTimeoutError{Budget: budget, Terminated: true}
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

// scriptValue is what a script returned: its JSON text inline (whole, or
// its head when cut), or a handle on it kept in the page.
type scriptValue struct {
	json string
	size int64 // bytes of the whole JSON text
	cut  bool
	// kept, when the result is to be saved, is the page-side object that
	// holds it (the tracker's keepResult); the caller reads it with
	// saveResult and releases it.
	kept *runtime.RemoteObjectID
}

// release frees the page-side result of a script that is no longer wanted.
func (v scriptValue) release(sess *page.Session) {
	if v.kept != nil {
		sess.ReleaseObject(*v.kept)
	}
}

// A result is bounded in the page, before it crosses CDP: a script
// returning a 50 MB string used to cost 52 MB of CDP message, a 52 MB
// reply and half a GB of heap. The machinery that runs the script, times
// it out, serialises its result and bounds it is the document's tracker
// (tracker.go, js/causal.js): it holds the browser's own setTimeout,
// Promise, JSON.stringify and TextEncoder, taken before the page's scripts
// ran, so that a page that replaces them can neither stall evaluate_script
// nor make it carry more than the limit. A result to be saved to a file is
// kept in the page, in an object returned by reference, from which
// saveResult reads slices.
//
// The wrappers (js.FunctionWrapper, js.ScriptWrapper) end with checks made of syntax alone (typeof, the
// length of a string), which no page can replace: whatever the machinery
// returned (a late tracker holds what the page left in place), no more
// than the limit crosses CDP by value.

// ErrUnreadable is returned for a script whose result the page would not
// let be read: its own scripts broke what the result is serialised with
// in a document that predates the page's actor. Reloading the page gives
// it a document tabhive follows from its start.
var ErrUnreadable = errors.New("the script's result could not be read safely: the page's own scripts replaced the built-ins it is read with. Reload the page (navigate_page with type reload) and run the script again")

// evaluate makes the CDP call that runs s, through the tracker's wrapper,
// and reads what the wrapper returned.
func evaluate(ctx context.Context, sess *page.Session, ec runtime.ExecutionContextID, nodes []dom.BackendNodeID, s Script, budget time.Duration) (scriptValue, error) {
	c := sess.Client()
	keep := s.Output != nil
	group := page.NewObjectGroup("eval")
	defer sess.ReleaseGroup(ctx, group)
	tracker, err := sess.Tracker(ctx, ec, group)
	if errors.Is(err, waiter.ErrUnfollowable) {
		return scriptValue{}, ErrUnreadable
	}
	if err != nil {
		return scriptValue{}, err
	}
	nums := make([]runtime.CallArgument, 0, 3)
	for _, v := range []any{budget.Milliseconds(), s.MaxResult, keep} {
		b, _ := json.Marshal(v)
		nums = append(nums, runtime.CallArgument{Value: b})
	}
	var r *runtime.CallFunctionOnReply
	if s.Format == "script" {
		src, _ := json.Marshal(s.Source)
		args := append([]runtime.CallArgument{{Value: src}}, nums...)
		r, err = c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.ScriptWrapper).SetObjectID(tracker).
			SetArguments(args).SetAwaitPromise(true).SetReturnByValue(!keep).SetUserGesture(true))
	} else {
		src := strings.TrimRight(strings.TrimSpace(s.Source), ";")
		args := make([]runtime.CallArgument, 0, len(nodes)+4)
		args = append(append(args, runtime.CallArgument{ObjectID: &tracker}), nums...)
		for _, n := range nodes {
			r, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(n).SetExecutionContextID(ec).SetObjectGroup(group))
			if page.IsNodeGone(err) || err == nil && r.Object.ObjectID == nil {
				return scriptValue{}, page.ErrNodeGone
			}
			if err != nil {
				return scriptValue{}, err
			}
			args = append(args, runtime.CallArgument{ObjectID: r.Object.ObjectID})
		}
		r, err = c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(strings.Replace(js.FunctionWrapper, "__SOURCE__", src, 1)).
			SetExecutionContextID(ec).SetArguments(args).SetAwaitPromise(true).SetReturnByValue(!keep).
			// As Puppeteer's evaluate, which upstream uses: a script may open a
			// popup or go full screen as a click could.
			SetUserGesture(true))
	}
	if err != nil {
		return scriptValue{}, err
	}
	return boundResult(r.Result, r.ExceptionDetails, keep)
}

// boundResult reads what the wrappers returned: by value, or by reference
// when the result is kept in the page.
func boundResult(v runtime.RemoteObject, exc *runtime.ExceptionDetails, kept bool) (scriptValue, error) {
	if exc != nil {
		msg := page.ExceptionText(exc)
		switch {
		case strings.Contains(msg, "tabhive: script timed out"):
			return scriptValue{}, &page.ScriptTimeoutError{}
		case strings.Contains(msg, "tabhive: the page"):
			return scriptValue{}, ErrUnreadable
		}
		return scriptValue{}, &page.ScriptError{Msg: thrownText(exc)}
	}
	if kept {
		if v.ObjectID == nil {
			return scriptValue{}, ErrUnreadable
		}
		return scriptValue{kept: v.ObjectID}, nil
	}
	var b struct {
		JSON *string `json:"json"`
		Size int64   `json:"size"`
		Bad  bool    `json:"bad"`
	}
	if err := json.Unmarshal(v.Value, &b); err != nil || b.Bad {
		return scriptValue{}, ErrUnreadable
	}
	if b.JSON == nil {
		return scriptValue{json: "undefined", size: int64(len("undefined"))}, nil
	}
	out := scriptValue{json: *b.JSON, size: int64(len(*b.JSON))}
	if b.Size > out.size {
		out.size, out.cut = b.Size, true
	}
	return out, nil
}

// thrownText is what a script threw, as [page.ScriptError.Msg] holds it: an
// Error's first line ("TypeError: x is undefined"), another value as
// JavaScript's String gives it. Chrome describes no string, null or
// undefined, and its text for them is only "Uncaught (in promise)".
func thrownText(exc *runtime.ExceptionDetails) string {
	o := exc.Exception
	switch {
	case o == nil || o.Description != nil:
		return page.ExceptionText(exc)
	case o.Type == "undefined":
		return "undefined"
	case len(o.Value) > 0:
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	return page.ExceptionText(exc)
}

// chunkUnits is how many UTF-16 code units of a kept result one CDP round
// trip reads: at most 768 KiB of UTF-8. Reading 50 MB takes about 200 round
// trips and two seconds on a loaded two-core machine; much larger chunks
// were slower there, and cost more memory per call.
const chunkUnits = 256 << 10

// saveResult writes the result kept in the page object kept to w, a chunk
// at a time, and returns how many bytes it wrote. A result longer than max
// bytes fails with a [*ResultTooLargeError] before anything is written.
// Chunks are read over the session's raw connection, straight into a
// string: through its client they would be scanned twice more on the way
// (a RemoteObject's raw value, then the string in it), which is most of
// the time a 50 MB result takes on this side.
func saveResult(ctx context.Context, sess *page.Session, kept runtime.RemoteObjectID, w io.Writer, max int64) (int64, error) {
	rpc := sess.RPC()
	var size *int64
	if err := callResult(ctx, sess.Client(), kept, js.ResultSize, &size); err != nil {
		return 0, err
	}
	if size == nil {
		n, err := io.WriteString(w, "undefined")
		return int64(n), err
	}
	if *size > max {
		return 0, &ResultTooLargeError{Size: *size, Max: max}
	}
	var written int64
	for from := 0; written < *size; {
		part, err := readChunk(ctx, rpc, kept, from)
		if err != nil {
			return written, err
		}
		if part == "" {
			return written, fmt.Errorf("read the script's result from the page: it ended at %d of %d bytes", written, *size)
		}
		n, err := io.WriteString(w, part)
		written += int64(n)
		if err != nil {
			return written, err
		}
		from += jsfmt.Length(part)
	}
	return written, nil
}

// readChunk reads the slice of a kept result that starts at from
// (js.ReadChunk).
func readChunk(ctx context.Context, rpc *rpcc.Conn, kept runtime.RemoteObjectID, from int) (string, error) {
	args := runtime.NewCallFunctionOnArgs(js.ReadChunk).SetObjectID(kept).SetReturnByValue(true).SetArguments([]runtime.CallArgument{
		{Value: json.RawMessage(strconv.Itoa(from))}, {Value: json.RawMessage(strconv.Itoa(chunkUnits))},
	})
	var reply struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *runtime.ExceptionDetails `json:"exceptionDetails"`
	}
	if err := rpcc.Invoke(ctx, "Runtime.callFunctionOn", args, &reply, rpc); err != nil {
		return "", fmt.Errorf("read the script's result from the page: %w", err)
	}
	if reply.ExceptionDetails != nil {
		return "", ErrUnreadable
	}
	var part *string
	if err := json.Unmarshal(reply.Result.Value, &part); err != nil || part == nil {
		return "", ErrUnreadable
	}
	return *part, nil
}

// callResult calls fn on the page object obj with args and decodes its value
// into out.
func callResult(ctx context.Context, c *cdp.Client, obj runtime.RemoteObjectID, fn string, out any, args ...int) error {
	call := make([]runtime.CallArgument, len(args))
	for i, v := range args {
		call[i] = runtime.CallArgument{Value: json.RawMessage(strconv.Itoa(v))}
	}
	r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(fn).SetObjectID(obj).SetArguments(call).SetReturnByValue(true))
	if err != nil {
		return fmt.Errorf("read the script's result from the page: %w", err)
	}
	// What a page returns is not trusted to have the shape asked for.
	if r.ExceptionDetails != nil || json.Unmarshal(r.Result.Value, out) != nil {
		return ErrUnreadable
	}
	return nil
}
