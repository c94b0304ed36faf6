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

// A Message is one item of the console stream: a console API call, an
// uncaught exception or an aggregated browser issue.
//
// Args, Stack, Causes and IssueDetails are never modified in place once
// stored (an issue's details are replaced, not appended to), so a copy of a
// Message stays valid while the collector updates the original.
type Message struct {
	// ID is the msgid: stamped on collection, per page, from 1.
	ID int
	// Type is the console API type as the tools show it (log, debug, info,
	// error, warn, dir, dirxml, table, trace, clear, startGroup,
	// startGroupCollapsed, endGroup, assert, profile, profileEnd, count,
	// timeEnd, verbose); "error" for an uncaught exception; [TypeIssue] for a
	// browser issue.
	Type string
	// Text is the message text; an exception's text ("Uncaught Error: boom");
	// an issue's title (empty if the caller had none).
	Text string
	// Args are the call's arguments, already rendered as text.
	Args []string
	// Stack is where the message was logged or the exception thrown, innermost
	// frame first; nil if unknown.
	Stack []CallFrame
	// Causes is an exception's cause chain, direct cause first.
	Causes []Cause

	// IssueCode is an issue's CDP InspectorIssueCode, such as
	// "MixedContentIssue"; issues are aggregated by it.
	IssueCode string
	// Count is the number of distinct issues aggregated into an issue
	// message; 0 for other messages.
	Count int
	// IssueDetails holds the details of each aggregated issue, in arrival
	// order, as the caller rendered them.
	IssueDetails []string
}

// A CallFrame is one stack frame. Line and Column are 0-based, as CDP gives
// them.
type CallFrame struct {
	Function string // function name; empty for anonymous code
	URL      string // script URL
	Line     int
	Column   int
}

// A Cause is one link of an exception's cause chain (error.cause).
type Cause struct {
	Text  string      // the cause's message, such as "TypeError: x is undefined"
	Stack []CallFrame // where the cause was created; nil if unknown
}

// ConsoleEvent is CDP Runtime.consoleAPICalled, with its arguments rendered.
type ConsoleEvent struct {
	// Type is the CDP type; "warning" is stored as "warn".
	Type  string
	Text  string      // the message text
	Args  []string    // the arguments, rendered as text
	Stack []CallFrame // the call's stack, innermost frame first
}

// ExceptionEvent is CDP Runtime.exceptionThrown.
type ExceptionEvent struct {
	// Text is the line the list shows, such as "Uncaught Error: boom".
	Text   string
	Stack  []CallFrame // where it was thrown, innermost frame first
	Causes []Cause     // the cause chain, direct cause first
}

// IssueEvent is CDP Audits.issueAdded.
type IssueEvent struct {
	// Code is the CDP InspectorIssueCode.
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
// Issues are de-duplicated twice, as chrome-devtools-mcp does (seed 000
// §5.5): an issue whose code and key were seen is dropped, and the remaining
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
	c.store = NewStore(limit, c.dropped)
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
	c.add(&Message{Type: typ, Text: ev.Text, Args: ev.Args, Stack: ev.Stack})
}

// ExceptionThrown records an uncaught exception as an "error" message.
func (c *Console) ExceptionThrown(ev ExceptionEvent) {
	c.add(&Message{Type: "error", Text: ev.Text, Stack: ev.Stack, Causes: ev.Causes})
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
	if m := c.aggregates[ev.Code]; m != nil {
		m.Count++
		// Clip so the append copies: a Message copy handed out earlier must
		// not see its backing array written.
		m.IssueDetails = append(slices.Clip(m.IssueDetails), ev.Details)
		return
	}
	m := &Message{
		Type:         TypeIssue,
		Text:         ev.Title,
		IssueCode:    ev.Code,
		Count:        1,
		IssueDetails: []string{ev.Details},
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
}

func (c *Console) add(m *Message) {
	m.ID = c.store.Add(m)
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
// consecutive identical messages (Times >= 1). Its ID is the first one's.
type Grouped struct {
	Message
	Times int
}

// Group folds runs of consecutive identical messages (same type, text and
// args) into one entry with a repeat count, keeping the first message's id,
// as the DevTools console does. Issues are never folded. Paginate the result,
// not the input: chrome-devtools-mcp pages after grouping.
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
	return a.Type != TypeIssue && a.Type == b.Type && a.Text == b.Text && slices.Equal(a.Args, b.Args)
}
