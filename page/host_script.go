package page

// What the evaluate_script capability (page/script) needs of the page's
// core: the execution context of a frame, the post-action waiter that
// answers the dialogs a script opens ([Elements.PerformAnswering]), the
// document's tracker (which runs the script and bounds its result), and
// object groups. The hooks that count scripts are the owner's
// ([Owner.Hooks]).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"
)

// ScriptContext returns the execution context of frame frameID's main
// world, or 0 while it has none (the frame is not known, or not loaded
// yet).
func (h *Host) ScriptContext(frameID string) runtime.ExecutionContextID {
	if f := h.a.frames.byID[frameID]; f != nil {
		return f.context
	}
	return 0
}

// DialogAnswer is how an action answers the JavaScript dialogs it opens.
type DialogAnswer struct {
	Accept bool
	// PromptText is what a prompt is accepted with.
	PromptText string
}

// PerformAnswering performs action under the post-action waiter, as an
// input action is, answering each dialog it opens with answer instead of
// stopping at it; with skipStableDOM the waiter does not wait for the DOM
// to settle. Of the dialogs answered, the last is kept for handle_dialog
// while no other is open, as chrome-devtools-mcp keeps reporting it.
func (e Elements) PerformAnswering(ctx context.Context, skipStableDOM bool, answer DialogAnswer, action func(ctx context.Context, p *Progress) error) (ActionResult, error) {
	a := e.a
	ans := dialogAnswer{accept: answer.Accept, promptText: answer.PromptText}
	res, err := a.perform(ctx, actionOptions{
		skipStableDOM: skipStableDOM,
		handleDialog:  func(string) (dialogAnswer, bool) { return ans, true },
	}, action)
	if n := len(res.Answered); n > 0 && a.dialogs.open == nil {
		last := res.Answered[n-1]
		a.dialogs.answered = &last
	}
	return res, err
}

// NewObjectGroup returns a fresh CDP object group name for what: remote
// objects made in it are freed together ([Session.ReleaseGroup]). Safe
// from any goroutine.
func NewObjectGroup(what string) string { return newGroup(what) }

// ReleaseGroup frees the remote objects of group, under a second of its
// own even if ctx has ended. Safe from any goroutine.
func (s *Session) ReleaseGroup(ctx context.Context, group string) { releaseGroup(s.c, ctx, group) }

// Tracker returns the controller of the document's tracker in execution
// context ec, as a remote object of group, installing one in a document
// that has none. An exception the page's own scripts cause in a late
// install is an error wrapping waiter.ErrUnfollowable. Safe from any
// goroutine.
func (s *Session) Tracker(ctx context.Context, ec runtime.ExecutionContextID, group string) (runtime.RemoteObjectID, error) {
	id, _, err := trackerOf(ctx, s.c, ec, group)
	return id, err
}

// The results and errors of a script run, shared by a page's
// (page/script) and a service worker's (page/worker).

// ScriptError is an exception the script threw (or a syntax error in it).
// Msg is the page's message: an Error's first line ("TypeError: x"), or
// the value thrown.
type ScriptError struct{ Msg string }

func (e *ScriptError) Error() string { return e.Msg }

// AgentSentence is chrome-devtools-mcp's "Error: boom" for an Error (the
// reply adds "Error: "); another class keeps its name ("Error: TypeError:
// x"), which upstream drops.
func (e *ScriptError) AgentSentence() string {
	if msg, ok := strings.CutPrefix(e.Msg, "Error: "); ok {
		return msg
	}
	return e.Msg
}

// ScriptTimeoutError reports a script stopped at its deadline. Terminated
// says whether Runtime.terminateExecution had to end synchronous work.
type ScriptTimeoutError struct {
	Budget     time.Duration
	Terminated bool
}

func (e *ScriptTimeoutError) Error() string {
	if e.Budget <= 0 {
		// Stopped by a deadline other than the script's own (the
		// caller's): no budget of its own to name.
		return "script did not finish in time"
	}
	return fmt.Sprintf("script did not finish within %v", e.Budget.Round(time.Millisecond))
}

// DefaultMaxResult is the most of a result a script run returns inline
// when the caller gives no bound (page/script's Script.MaxResult): 4 MiB,
// more than any agent's context holds.
const DefaultMaxResult = 4 << 20

// ScriptResult is a finished evaluation.
type ScriptResult struct {
	// JSON is JSON.stringify of the script's result; "undefined" when the
	// result does not serialise. When Cut is set it is only the head of the
	// result, cut at a character boundary. Empty when the result went to
	// a file (page/script's Script.Output).
	JSON string
	// Size is the length of the whole result's JSON text, in bytes of
	// UTF-8: what was written to the file, or what JSON would hold
	// had it not been cut.
	Size int64
	// Cut reports that the result was longer than the bound asked for and
	// JSON holds only its first bytes.
	Cut bool
	ActionResult
}
