package collectors

import "slices"

// TypeIssue is the [Message.Type] of a browser issue.
const TypeIssue = "issue"

// maxIssueKeys bounds the issue de-duplication cache of one document. Once
// that many distinct issues were counted, issues with a new key are dropped
// (neither listed nor counted) until the next navigation, so a page that
// raises distinct issues forever stays bounded. Repeats of counted issues are
// still recognised.
const maxIssueKeys = 1000

// maxArgs is the most arguments a [Message] keeps; [Message.ArgCount]
// still counts them all.
const maxArgs = 100

// maxFrames is the most stack lines a message keeps: chrome-devtools-mcp
// shows no more than 50 (STACK_TRACE_MAX_LINES) and counts the rest.
const maxFrames = 50

// maxIssueDetails is the most affected resources an aggregated issue keeps;
// [Message.Count] still counts them all.
const maxIssueDetails = 100

// A Message is one item of the console stream: a console API call, a
// message of the browser's own, an uncaught exception or an aggregated
// browser issue.
//
// Args, Stack, Causes and IssueDetails are never modified in place once
// stored (they are replaced, not appended to), so a copy of a Message stays
// valid while the collector updates the original.
type Message struct {
	// ID is the msgid: stamped on collection, per page, from 1.
	ID int
	// Type is the console API type as the tools show it (log, debug, info,
	// error, warn, dir, dirxml, table, trace, clear, startGroup,
	// startGroupCollapsed, endGroup, assert, profile, profileEnd, count,
	// timeEnd, verbose); the level of a message of the browser's own
	// (verbose, info, warn, error); "error" for an uncaught exception;
	// [TypeIssue] for a browser issue.
	Type string
	// Text is the message text; an exception's text ("Uncaught Error: boom");
	// an issue's title.
	Text string
	// Args are the call's arguments, at most 100 of them.
	Args []Arg
	// ArgCount is the number of arguments of the call.
	ArgCount int
	// Stack is where the message was logged or the exception thrown: at most
	// 50 lines, innermost frame first, with the asynchronous callers after
	// their marker frames (see [CallFrame.Async]); nil if unknown.
	Stack []CallFrame
	// MoreFrames is the number of stack lines beyond those in Stack.
	MoreFrames int
	// Ref is an opaque reference to an exception's value in the page (see
	// [Arg.Ref]), from which its owner can read the cause chain.
	Ref string
	// Causes is an exception's cause chain, direct cause first, once read;
	// see [Console.SetCauses].
	Causes []Cause
	// CausesRead reports whether Causes holds the cause chain as read from
	// the page (possibly none), so it need not be read again.
	CausesRead bool

	// IssueCode is the code issues are aggregated by, such as
	// "MixedContentIssue" or "GenericIssue::FormLabelForNameError".
	IssueCode string
	// Count is the number of distinct issues aggregated into an issue
	// message; 0 for other messages.
	Count int
	// IssueDetails holds the details of the first 100 aggregated issues, in
	// arrival order, as the caller rendered them.
	IssueDetails []string
}

// An Arg is one argument of a console API call.
type Arg struct {
	// Value is the argument as it is shown when it is not, or can no longer
	// be, read back from the page: a primitive as JavaScript's String()
	// gives it ("null" for null, "undefined"), an error's first line, or the
	// "[object Object]"-style placeholder of another object.
	Value string
	// Ref, if not empty, is an opaque reference the collector's owner can
	// use to read the argument's full value from the page (a CDP object id).
	// The collectors never interpret it.
	Ref string
	// Error reports whether the argument is an Error object.
	Error bool
}

// A CallFrame is one line of a stack trace. Line and Column are 0-based, as
// CDP gives them.
type CallFrame struct {
	Function string // function name; empty for anonymous code
	URL      string // script URL; empty for code without one
	ScriptID string // CDP script id
	Line     int
	Column   int
	// Async, if not empty, makes this frame a marker that the frames after
	// it belong to an asynchronous caller of the frames before it, such as
	// "setTimeout", "await" or "Promise.then". A marker has no location.
	Async string
}

// A Cause is one link of an exception's cause chain (error.cause).
type Cause struct {
	Text       string      // the cause's message, such as "TypeError: x is undefined"
	Stack      []CallFrame // where the cause was created; nil if unknown
	MoreFrames int         // stack lines beyond those in Stack
}

// ConsoleEvent is CDP Runtime.consoleAPICalled, with its arguments rendered.
type ConsoleEvent struct {
	// Type is the CDP type; "warning" is stored as "warn".
	Type  string
	Text  string      // the message text
	Args  []Arg       // the arguments
	Stack []CallFrame // the call's stack, innermost frame first
}

// ExceptionEvent is CDP Runtime.exceptionThrown.
type ExceptionEvent struct {
	// Text is the line the list shows, such as "Uncaught Error: boom".
	Text  string
	Stack []CallFrame // where it was thrown, innermost frame first
	// Ref is an opaque reference to the exception value, see [Message.Ref].
	Ref string
}

// LogEvent is one of the browser's own messages, from CDP Log.entryAdded:
// a resource that failed to load, an intervention, a violation, and the
// like. Chrome logs them itself; the page's scripts did not.
type LogEvent struct {
	// Level is the CDP level (verbose, info, warning, error); "warning" is
	// stored as "warn", as for a console API call.
	Level string
	// Text is the message, such as "Failed to load resource: the server
	// responded with a status of 404 (Not Found)".
	Text  string
	Stack []CallFrame // where it was logged, innermost frame first; often nil
}

// IssueEvent is one browser issue, from CDP Audits.issueAdded. (One CDP
// issue may make several, as DevTools splits a cookie issue by reason.)
type IssueEvent struct {
	// Code is the code issues are aggregated by, see [Message.IssueCode].
	Code string
	// Key identifies the issue within its code, like DevTools' primaryKey
	// (for instance the canonical JSON of its details). An issue whose code
	// and key were already seen in this document is dropped.
	Key string
	// Title is the human title, used for the aggregate's [Message.Text].
	Title string
	// Details is the issue's details as text, appended to the aggregate's
	// [Message.IssueDetails].
	Details string
}

// MessageFilter selects messages for [Console.List].
type MessageFilter struct {
	// Types keeps only messages whose [Message.Type] is one of these. Empty
	// keeps all.
	Types []string
	// IncludePreserved lists the last three navigations, oldest first,
	// instead of the current one only.
	IncludePreserved bool
}

// Console collects a page's console messages, uncaught exceptions and browser
// issues in one stream of navigation segments.
//
// Issues are de-duplicated twice, as chrome-devtools-mcp does: an issue whose code and key were seen is dropped, and the remaining
// issues are aggregated into one message per code whose [Message.Count]
// grows. Both caches are per document and reset on a main-frame
// cross-document navigation.
//
// Create one with [NewConsole]; the zero Console is not usable. A Console is
// not safe for concurrent use: one page actor owns it.
type Console struct {
	store *Store[*Message]
	// seenIssues holds the code+key of each issue counted in this document.
	// Lifecycle: cleared on split; at most maxIssueKeys entries.
	seenIssues map[issueKey]struct{}
	// aggregates maps an issue code to its message in the current segment.
	// Lifecycle: cleared on split; an entry leaves with its message when the
	// segment limit drops it, and the next issue of that code starts a new
	// aggregate.
	aggregates map[string]*Message
	// strs shares repeated script URLs and function names; reset on
	// navigation.
	strs interner
}

type issueKey struct{ code, key string }

// NewConsole returns an empty console collector with the limits of cfg.
func NewConsole(cfg Config) *Console {
	limit := cfg.MaxMessages
	if limit <= 0 {
		limit = DefaultMaxMessages
	}
	c := &Console{
		seenIssues: make(map[issueKey]struct{}),
		aggregates: make(map[string]*Message),
	}
	c.store = NewSizedStore(limit, cfg.maxBytes(), (*Message).size, c.dropped)
	return c
}

// dropped forgets m if it is the current aggregate of its issue code.
func (c *Console) dropped(m *Message) {
	if m.Type == TypeIssue && c.aggregates[m.IssueCode] == m {
		delete(c.aggregates, m.IssueCode)
	}
}

// ConsoleAPICalled records a console API call.
func (c *Console) ConsoleAPICalled(ev ConsoleEvent) {
	typ := ev.Type
	if typ == "warning" {
		typ = "warn"
	}
	m := &Message{Type: typ, Text: clip(ev.Text), ArgCount: len(ev.Args)}
	m.Stack, m.MoreFrames = c.keepFrames(ev.Stack)
	args := ev.Args[:min(len(ev.Args), maxArgs)]
	if len(args) > 0 {
		m.Args = make([]Arg, len(args))
		for i, a := range args {
			a.Value = clip(a.Value)
			m.Args[i] = a
		}
	}
	c.add(m)
}

// LogEntryAdded records one of the browser's own messages as a message of
// its level with no arguments, in the same stream and id sequence as
// console API calls, as chrome-devtools-mcp lists them (Puppeteer turns
// Log.entryAdded into console messages).
func (c *Console) LogEntryAdded(ev LogEvent) {
	typ := ev.Level
	if typ == "warning" {
		typ = "warn"
	}
	m := &Message{Type: typ, Text: clip(ev.Text)}
	m.Stack, m.MoreFrames = c.keepFrames(ev.Stack)
	c.add(m)
}

// ExceptionThrown records an uncaught exception as an "error" message.
func (c *Console) ExceptionThrown(ev ExceptionEvent) {
	m := &Message{Type: "error", Text: clip(ev.Text), Ref: ev.Ref}
	m.Stack, m.MoreFrames = c.keepFrames(ev.Stack)
	c.add(m)
}

// keepFrames returns a copy of the first maxFrames lines of a stack and
// counts the rest.
func (c *Console) keepFrames(stack []CallFrame) ([]CallFrame, int) {
	if len(stack) == 0 {
		return nil, 0
	}
	kept := make([]CallFrame, min(len(stack), maxFrames))
	for i := range kept {
		f := stack[i]
		f.Function, f.URL, f.ScriptID, f.Async = c.strs.get(f.Function), c.strs.get(f.URL), c.strs.get(f.ScriptID), c.strs.get(f.Async)
		kept[i] = f
	}
	return kept, len(stack) - len(kept)
}

// SetCauses records the cause chain of the exception with the given msgid,
// as its owner read it from the page, and marks it read. It does nothing if
// no kept message has that id. Each cause's stack is cut to 50 lines.
func (c *Console) SetCauses(id int, causes []Cause) {
	m, ok := c.store.Get(id)
	if !ok {
		return
	}
	kept := make([]Cause, len(causes))
	for i, cause := range causes {
		cause.Text = clip(cause.Text)
		var more int
		cause.Stack, more = c.keepFrames(cause.Stack)
		cause.MoreFrames += more
		kept[i] = cause
	}
	m.Causes, m.CausesRead = kept, true
}

// IssueAdded records a browser issue: dropped if its code and key were seen
// in this document, else counted in the aggregate message of its code, which
// is created at the end of the stream for the first issue of a code.
func (c *Console) IssueAdded(ev IssueEvent) {
	k := issueKey{ev.Code, ev.Key}
	if _, ok := c.seenIssues[k]; ok {
		return
	}
	if len(c.seenIssues) >= maxIssueKeys {
		return
	}
	c.seenIssues[k] = struct{}{}
	details := clip(ev.Details)
	if m := c.aggregates[ev.Code]; m != nil {
		m.Count++
		if len(m.IssueDetails) < maxIssueDetails {
			// Clip so the append copies: a Message copy handed out earlier
			// must not see its backing array written.
			m.IssueDetails = append(slices.Clip(m.IssueDetails), details)
		}
		return
	}
	m := &Message{
		Type:         TypeIssue,
		Text:         clip(ev.Title),
		IssueCode:    ev.Code,
		Count:        1,
		IssueDetails: []string{details},
	}
	c.add(m)
	c.aggregates[ev.Code] = m
}

// FrameNavigated opens a new segment and resets the issue caches if nav is a
// main-frame cross-document navigation, and does nothing otherwise.
func (c *Console) FrameNavigated(nav Navigation) {
	if !nav.splits() {
		return
	}
	c.store.Split()
	clear(c.seenIssues)
	clear(c.aggregates)
	c.strs.reset()
}

func (c *Console) add(m *Message) {
	m.ID = c.store.Add(m)
}

// size estimates the bytes m holds, for [Config.MaxBytes]. Issue details
// added later are not counted; there are at most maxIssueDetails of them.
func (m *Message) size() int {
	n := 64 + len(m.Type) + len(m.Text) + len(m.Ref)
	for _, a := range m.Args {
		n += 24 + len(a.Value) + len(a.Ref)
	}
	for _, f := range m.Stack {
		n += 48 + len(f.Function) + len(f.URL) + len(f.ScriptID) + len(f.Async)
	}
	for _, d := range m.IssueDetails {
		n += len(d)
	}
	return n
}

// List returns copies of the messages f selects, in the order they were
// collected.
func (c *Console) List(f MessageFilter) []Message {
	all := c.store.List(f.IncludePreserved)
	out := make([]Message, 0, len(all))
	for _, m := range all {
		if len(f.Types) > 0 && !slices.Contains(f.Types, m.Type) {
			continue
		}
		out = append(out, *m)
	}
	return out
}

// Message returns a copy of the message with the given msgid and true, or
// false if no kept segment holds it.
func (c *Console) Message(id int) (Message, bool) {
	m, ok := c.store.Get(id)
	if !ok {
		return Message{}, false
	}
	return *m, true
}

// Grouped is one entry of a console listing: a message standing for Times
// consecutive repeated messages (Times >= 1). Its ID is the first one's.
type Grouped struct {
	Message
	Times int
}

// Group folds runs of consecutive repeated messages into one entry with a
// repeat count, keeping the first message's id. As in chrome-devtools-mcp
// (ConsoleFormatter.groupConsecutive), messages repeat when their type, text
// and number of arguments are equal, whatever the arguments' values; issues
// are never folded. Paginate the result, not the input: chrome-devtools-mcp
// pages after grouping.
func Group(msgs []Message) []Grouped {
	var out []Grouped
	for _, m := range msgs {
		if n := len(out); n > 0 && repeats(out[n-1].Message, m) {
			out[n-1].Times++
			continue
		}
		out = append(out, Grouped{Message: m, Times: 1})
	}
	return out
}

// repeats reports whether b repeats a for grouping.
func repeats(a, b Message) bool {
	return a.Type != TypeIssue && b.Type != TypeIssue && a.Type == b.Type && a.Text == b.Text && a.ArgCount == b.ArgCount
}
