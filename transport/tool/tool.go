// Package tool is what a capability needs to declare MCP tools of its own:
// a [Tool] with its typed arguments, its budget and its handler, and the
// [Call] a handler sees. Package transport serves the tools: it decodes
// and checks the arguments against the argument type's fields (their json,
// desc, enum and range tags), routes page-scoped calls to their page,
// gives each call its deadline, and renders the reply in
// chrome-devtools-mcp's order and wording (ARCHITECTURE.md §11).
//
// A capability's package declares its tools beside its page slice, and the
// transport lists them (transport/tools.go):
//
//	func Tools(cfg Config) []*tool.Tool {
//		return []*tool.Tool{
//			tool.Define(tool.Tool{Name: "screencast_stop", Page: true, Description: "..."},
//				tool.Fixed[stopArgs](2*time.Minute), runStop),
//		}
//	}
package tool

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// Tool is one MCP tool: its name, description and kind. Make one with
// [Define], which adds its arguments, budget and handler.
type Tool struct {
	Name        string
	Description string
	// ReadOnly is the tool's readOnlyHint.
	ReadOnly bool
	// Page marks a page-scoped tool: it takes an optional pageId, runs on
	// that page or the session's selected one ([Call.Page]), and its
	// reply carries the page's open-dialog notice.
	Page bool
	// Action marks a tool that changes the page: when it runs out of
	// budget, the reply says the action may still take effect.
	Action bool
	// NoBrowser marks a tool that never needs the browser (it reads
	// files): calling it does not start one.
	NoBrowser bool

	argType reflect.Type
	budget  func(args any) time.Duration
	run     func(ctx context.Context, c Call, args any) error
}

// Define makes a tool from a typed handler. A's exported fields are the
// tool's arguments; budget gives the call's deadline from them.
func Define[A any](t Tool, budget func(*A) time.Duration, run func(ctx context.Context, c Call, a *A) error) *Tool {
	t.argType = reflect.TypeFor[A]()
	t.budget = func(a any) time.Duration { return budget(a.(*A)) }
	t.run = func(ctx context.Context, c Call, a any) error { return run(ctx, c, a.(*A)) }
	return &t
}

// Fixed is a budget that does not depend on the arguments.
func Fixed[A any](d time.Duration) func(*A) time.Duration { return func(*A) time.Duration { return d } }

// ArgType is the type of the tool's arguments (a struct).
func (t *Tool) ArgType() reflect.Type { return t.argType }

// Budget is the deadline of a call with args (a pointer to the tool's
// argument type).
func (t *Tool) Budget(args any) time.Duration { return t.budget(args) }

// Run runs the tool's handler.
func (t *Tool) Run(ctx context.Context, c Call, args any) error { return t.run(ctx, c, args) }

// Call is one tool call in progress, as its handler sees it.
type Call interface {
	// Page is the page a page-scoped call runs on.
	Page() *page.Actor
	// Sandbox is the file sandbox of the call's session, recording the
	// files the call writes so that its reply links them.
	Sandbox(ctx context.Context) *sandbox.Sandbox
	// Sentence is the one sentence an agent reads for err, as the reply
	// would say it.
	Sentence(err error) string
	// PageID is the id of the page a page-scoped call runs on.
	PageID() int
	// Browser is the supervisor of the browser the server drives, for
	// what a browser context keeps (cookies, storage states).
	Browser() *browser.Supervisor
	// NoPage turns err into the sentence for the call's page being gone
	// if it says so ([browser.ErrNoPage]), and returns any other err.
	NoPage(err error) error
	// Budget is the call's deadline, from its start.
	Budget() time.Duration
	// OutOfBudget reports whether err says the call's budget ran out (not
	// a shorter bound of one of its steps).
	OutOfBudget(err error) bool
	// Owner is the MCP session the call belongs to, as a key for what the
	// server keeps per session (loaded heap snapshots).
	Owner() any
	// Progress returns how a long call reports its progress (done of
	// total, described by message) as MCP progress notifications, when
	// the client asked for them; else report is nil. Report never blocks:
	// only the latest report waits to be sent. Stop must be called before
	// the call returns.
	Progress(ctx context.Context, message func(done, total int) string) (report func(done, total int), stop func())
	// ResultLimit is the most of a script's result, in bytes of JSON, that
	// the reply holds inline.
	ResultLimit() int
	// Acted reports what an input action did: line, then the navigation,
	// the page's state, and the snapshot taken after it, or with diff
	// what changed since the agent's previous snapshot of the page.
	Acted(ctx context.Context, res page.InputResult, diff bool, line string)
	// Isolated reports whether the call's session has a browser context
	// of its own (--isolate-sessions), from which what belongs to the
	// whole browser (extensions, installed web apps) is out of reach.
	Isolated() bool
	// Opened records page id, which the call opened, as the session's
	// own: it counts toward the session's page limit, and its popups are
	// the session's too.
	Opened(id int)
	// Notify sends one progress notification (progress so far, described
	// by message) when the client asked for them, and does nothing
	// otherwise. Best effort: it waits at most a few seconds for the
	// client, and a notification it cannot send is lost. For a call that
	// reports from its own goroutine at a slow pace; [Call.Progress]
	// forwards frequent reports without blocking.
	Notify(ctx context.Context, progress float64, message string)
	// PageGiven reports whether the call named its page (pageId).
	PageGiven() bool
	// TargetRequired reports whether a call that may run in a page or in
	// a service worker must name one: pages are routed by id
	// (--page-id-routing) and the extensions' workers offered
	// (--category-extensions).
	TargetRequired() bool
	// Reply is the call's reply, to which the tool adds its parts beside
	// what the transport adds (the snapshot, the page list, the state).
	Reply() Reply
	// Snapshots are the snapshots of the call's page its session received
	// and the one the reply carries.
	Snapshots() Snapshots
}

// Reply is the parts of a call's reply a tool adds: its text, the
// page's state, attachments and structured fields.
type Reply interface {
	// Line adds a line to the reply's text.
	Line(format string, a ...any)
	// Lines adds lines, already formatted, to the reply's text.
	Lines(lines ...string)
	// Section adds a block of text after the reply's snapshot, such as a
	// listing, already rendered.
	Section(text string)
	// State reports the page's state (its open dialog, what it
	// emulates) as of the end of the call.
	State(s page.State)
	// Navigated reports where an action took the page, if anywhere, and
	// the work it caused that was not waited for.
	Navigated(to string, pending []string)
	// Unfollowed reports why an action's work could not be followed in
	// the page ("" if it was), which the reply says.
	Unfollowed(reason string)
	// Pages appends the page list to the reply.
	Pages()
	// Image attaches an image, encoded as mimeType says, to the reply.
	Image(data []byte, mimeType string)
	// Data sets one of the reply's structuredContent fields, beside the
	// fields every reply has (lighthouse_audit's "lighthouseResult").
	Data(name string, v any)
}

// Snapshots is the page snapshots of a call's session: those of the
// call's page it received (which diffs are against), and the one the
// call's reply carries.
type Snapshots interface {
	// Show puts a snapshot's text in the reply; over the server's
	// bound (--snapshot-max-bytes), the page's outline instead, with the
	// file in the session's directory the text was saved to.
	Show(ctx context.Context, text string)
	// ShowDiff puts in the reply what changed on the call's page since
	// the session's previous snapshot of it, full being the page's whole
	// snapshot now; the whole snapshot when the session has none or the
	// diff would not be smaller. It is bounded as Show is.
	ShowDiff(ctx context.Context, full string)
	// Saw records the default snapshot of the call's page the
	// session received, for its later diffs; seq orders the page's
	// snapshots (0: unknown, taken as the latest).
	Saw(seq int64, full string)
	// Has reports whether the session has received a default
	// snapshot of the call's page to diff against.
	Has() bool
	// Saved reports that the snapshot was saved to path rather
	// than sent in the reply.
	Saved(path string)
}

// Reported is a capability's part of a page's [page.State] (what a
// [page.Reporter] slice reports), as every page-scoped reply words it:
// lines after the tool's own and before the open-dialog notice, none when
// there is nothing to say.
type Reported interface {
	ReplyLines() []string
}

// A Snapshotter is the arguments of a tool that may end with a snapshot
// of the page (includeSnapshot) or a diff against the last one
// (includeDiff): that snapshot is a take_snapshot's work on top of the
// action's, and the call's budget grows by take_snapshot's.
type Snapshotter interface{ WithSnapshot() bool }

// Budgets: how long a call may take when the tool has no timeout
// argument, or on top of it. Each is generous enough for its slowest
// legitimate case on a loaded machine.
const (
	// ListBudget is a call that lists or reads what the server or the
	// browser keeps.
	ListBudget = 10 * time.Second
	// InputBudget is a call that acts on the page: 5 s actionability, a
	// navigation's wait, settling and a snapshot.
	InputBudget = 20 * time.Second
	// Overhead is added to a tool's own timeout.
	Overhead = 10 * time.Second
	// SnapshotBudget is a take_snapshot call, and what a snapshot at the
	// end of an action adds to the action's budget (see [Snapshotter]).
	SnapshotBudget = 30 * time.Second
	// MaxTimeout bounds a tool's timeout argument: five minutes, ten
	// times the longest default budget (a script's 30 s), and longer than
	// any page load an agent would wait for. A long timeout holds only its
	// own page (pages run in parallel), but one HTTP session could hold
	// many pages, each with a call and its reply pending, so the bound is
	// what a shared server can afford.
	MaxTimeout = 5 * time.Minute
)

// Millis turns a timeout argument in milliseconds (nil or 0: def) into a
// duration of at most [MaxTimeout]. Decoding has already refused negative
// and absurd values; Millis treats them as def and MaxTimeout all the
// same.
func Millis(ms *int, def time.Duration) time.Duration {
	switch {
	case ms == nil || *ms <= 0:
		return def
	case *ms >= int(MaxTimeout/time.Millisecond):
		return MaxTimeout
	}
	return time.Duration(*ms) * time.Millisecond
}

// ArgError is bad input: one sentence that says what to send instead,
// reported without the "Error: " prefix of a failed tool, as
// chrome-devtools-mcp reports its validation errors.
type ArgError struct{ Msg string }

func (e *ArgError) Error() string         { return e.Msg }
func (e *ArgError) AgentSentence() string { return e.Msg }

// Plural is n and word, with an s unless n is 1: "1 byte", "3 bytes".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// BadArgs makes an [ArgError].
func BadArgs(format string, a ...any) error { return &ArgError{fmt.Sprintf(format, a...)} }
