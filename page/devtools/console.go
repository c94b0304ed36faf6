package devtools

// The console: messages as collected (slice.go), with what only the page
// can tell (an object argument's value, an exception's cause chain) read
// when asked for.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/jsfmt"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/internal/format"
	"github.com/tabhive/tabhive/page/js"
)

// ErrNoMessage is returned by [Slice.ConsoleMessage] for a msgid that names
// no message kept for the page: never collected, or dropped with its
// navigation or by the limits.
var ErrNoMessage = errors.New("no console message with that msgid")

// maxStackLines is the most stack lines a reply shows
// (chrome-devtools-mcp's STACK_TRACE_MAX_LINES); the rest are counted.
const maxStackLines = 50

// applyLogEntry records one of the browser's own messages (CDP
// Log.entryAdded: "Failed to load resource: ...", interventions, ...) in
// the console stream, as chrome-devtools-mcp lists them: those of the
// page's own session, except what its workers logged (Puppeteer's page
// listens to Log there only, and skips source "worker").
func (sl *Slice) applyLogEntry(s *page.Session, params json.RawMessage) error {
	if !s.IsTop() {
		return nil
	}
	var e struct {
		Entry struct {
			Source     string             `json:"source"`
			Level      string             `json:"level"`
			Text       string             `json:"text"`
			StackTrace *format.StackTrace `json:"stackTrace"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	if e.Entry.Source == "worker" {
		return nil
	}
	sl.console.LogEntryAdded(collectors.LogEvent{Level: e.Entry.Level, Text: e.Entry.Text, Stack: format.Stack(e.Entry.StackTrace)})
	return nil
}

// enableLog turns on the Log domain on the page's own session top, whose
// entries applyLogEntry records. Chrome replays the entries it kept from
// before, as it does console calls for Runtime.enable.
func enableLog(ctx context.Context, top *page.Session) error {
	return rpcc.Invoke(ctx, "Log.enable", nil, nil, top.RPC())
}

// ConsoleFilter selects console messages for [Slice.ConsoleMessages].
type ConsoleFilter struct {
	// Types keeps only messages of these types (log, error, warn, ...,
	// issue); empty keeps all. An uncaught exception has type error.
	Types []string
	// IncludePreserved lists the current and the two previous navigations
	// instead of the current one only.
	IncludePreserved bool
	// StackTraces asks for the cause chains of exceptions to be read from
	// the page, as a listing with stack traces shows them.
	StackTraces bool
}

// ConsoleList is a page's console messages.
type ConsoleList struct {
	// Messages are in the order they were collected.
	Messages []collectors.Message
	page.State
}

// causeBudget bounds reading the cause chains of a listing: a page with a
// thousand exceptions must not make a listing slow.
const causeBudget = 2 * time.Second

// ConsoleMessages returns the page's console messages, uncaught exceptions
// and issues that f selects.
func (sl *Slice) ConsoleMessages(ctx context.Context, f ConsoleFilter) (ConsoleList, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (ConsoleList, error) {
		filter := collectors.MessageFilter{Types: f.Types, IncludePreserved: f.IncludePreserved}
		if f.StackTraces && h.NeedRenderer() == nil {
			rctx, cancel := context.WithTimeout(ctx, causeBudget)
			for _, m := range sl.console.List(filter) {
				if m.Ref != "" && !m.CausesRead && rctx.Err() == nil {
					sl.readCauses(rctx, m)
				}
			}
			cancel()
		}
		return ConsoleList{Messages: sl.console.List(filter), State: h.State()}, nil
	})
}

// ConsoleArg is one argument of a console message as get_console_message
// shows it.
type ConsoleArg struct {
	// Text is the argument's value: for an object, its JSON as read from the
	// page now; for an error, its message.
	Text string
	// Gone reports that the object could not be read from the page (it was
	// collected with its document, or cannot be serialised); Text is empty.
	Gone bool
	// Error reports an Error object; Stack, MoreFrames and Causes describe
	// it.
	Error      bool
	Stack      []collectors.CallFrame
	MoreFrames int
	Causes     []collectors.Cause
}

// ConsoleDetail is one console message with its arguments read from the
// page.
type ConsoleDetail struct {
	collectors.Message
	// Args are the message's arguments, read from the page where they are
	// objects.
	Args []ConsoleArg
	page.State
}

// ConsoleMessage returns the message with the given msgid, or
// [ErrNoMessage]. Object arguments are read from the page, as
// chrome-devtools-mcp does; while a dialog blocks the page, they are shown
// as listed instead.
func (sl *Slice) ConsoleMessage(ctx context.Context, id int) (ConsoleDetail, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (ConsoleDetail, error) {
		h.ApplyEvents()
		m, ok := sl.console.Message(id)
		if !ok {
			return ConsoleDetail{}, ErrNoMessage
		}
		if m.Ref != "" && !m.CausesRead && h.NeedRenderer() == nil {
			sl.readCauses(ctx, m)
			m, _ = sl.console.Message(id)
		}
		d := ConsoleDetail{Message: m, Args: make([]ConsoleArg, len(m.Args))}
		rctx, cancel := context.WithTimeout(ctx, argsBudget)
		defer cancel()
		for i, arg := range m.Args {
			d.Args[i] = sl.readArg(rctx, arg)
		}
		d.State = h.State()
		return d, nil
	})
}

// argsBudget bounds reading a message's arguments from the page; those not
// read in time are shown as listed.
const argsBudget = 5 * time.Second

// maxCauses bounds a cause chain, which a page can make circular.
const maxCauses = 10

// detailReadTimeout bounds one read from the page for a message's details.
const detailReadTimeout = 2 * time.Second

// readCauses reads the cause chain of exception m and records it.
func (sl *Slice) readCauses(ctx context.Context, m collectors.Message) {
	causes, err := sl.causeChain(ctx, m.Ref)
	if unanswered(ctx, err) {
		return // not read; try again next time
	}
	sl.console.SetCauses(m.ID, causes)
}

// unanswered reports whether err means the page did not answer (in time, or
// because a dialog blocks it), rather than that what was asked for is gone.
func unanswered(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	var de *page.DialogError
	return errors.As(err, &de) || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)
}

// causeChain follows error.cause from the object ref.
func (sl *Slice) causeChain(ctx context.Context, ref string) ([]collectors.Cause, error) {
	var out []collectors.Cause
	for len(out) < maxCauses {
		cause, err := sl.objectProperty(ctx, ref, "cause")
		if err != nil || cause == nil {
			return out, err
		}
		c := collectors.Cause{Text: format.Thrown(*cause)}
		var d *format.ExceptionDetails
		if cause.ObjectID != "" {
			if d, err = sl.errorDetails(ctx, sameSession(ref, cause.ObjectID)); err != nil {
				return out, err
			}
		}
		if d == nil {
			// Not an Error: shown by its value, and the chain ends here,
			// as upstream has it.
			return append(out, c), nil
		}
		c.Text = d.Text
		c.Stack = format.Stack(d.StackTrace)
		out = append(out, c)
		ref = sameSession(ref, cause.ObjectID)
	}
	return out, nil
}

// objectProperty returns the named property of the object ref, or nil if it
// has none.
func (sl *Slice) objectProperty(ctx context.Context, ref, name string) (*format.RemoteObject, error) {
	var reply struct {
		Result []struct {
			Name  string               `json:"name"`
			Value *format.RemoteObject `json:"value"`
		} `json:"result"`
	}
	s, id := sl.objectRef(ref)
	err := sl.invoke(ctx, s, "Runtime.getProperties", map[string]any{"objectId": id}, &reply)
	if err != nil {
		return nil, err
	}
	for _, p := range reply.Result {
		if p.Name == name {
			return p.Value, nil
		}
	}
	return nil, nil
}

// errorDetails reads the details of an Error object, or nil if it is
// not one.
func (sl *Slice) errorDetails(ctx context.Context, ref string) (*format.ExceptionDetails, error) {
	var reply struct {
		ExceptionDetails *format.ExceptionDetails `json:"exceptionDetails"`
	}
	s, id := sl.objectRef(ref)
	if err := sl.invoke(ctx, s, "Runtime.getExceptionDetails", map[string]any{"errorObjectId": id}, &reply); err != nil {
		return nil, err
	}
	return reply.ExceptionDetails, nil
}

// readArg reads one argument for get_console_message, as
// chrome-devtools-mcp does: a primitive as listed, an error with its stack
// and causes, another object as the JSON of its value. An argument that
// cannot be read in time, or while a dialog blocks the page, is shown as
// listed.
func (sl *Slice) readArg(ctx context.Context, arg collectors.Arg) ConsoleArg {
	listed := ConsoleArg{Text: arg.Value, Error: arg.Error}
	if arg.Ref == "" || sl.h.NeedRenderer() != nil || ctx.Err() != nil {
		return listed
	}
	if arg.Error {
		out := ConsoleArg{Text: arg.Value, Error: true}
		if d, err := sl.errorDetails(ctx, arg.Ref); err == nil && d != nil {
			out.Text = d.Text
			out.Stack = format.Stack(d.StackTrace)
			if len(out.Stack) > maxStackLines {
				out.MoreFrames = len(out.Stack) - maxStackLines
				out.Stack = out.Stack[:maxStackLines]
			}
		}
		out.Causes, _ = sl.causeChain(ctx, arg.Ref)
		return out
	}
	var reply struct {
		Result           format.RemoteObject `json:"result"`
		ExceptionDetails json.RawMessage     `json:"exceptionDetails"`
	}
	s, id := sl.objectRef(arg.Ref)
	err := sl.invoke(ctx, s, "Runtime.callFunctionOn", map[string]any{
		"functionDeclaration": js.Identity,
		"objectId":            id,
		"arguments":           []map[string]any{{"objectId": id}},
		"returnByValue":       true,
		"awaitPromise":        true,
	}, &reply)
	if unanswered(ctx, err) {
		return listed // not read in time: not necessarily gone
	}
	if err != nil || reply.ExceptionDetails != nil || reply.Result.Type == "undefined" {
		return ConsoleArg{Gone: true}
	}
	r := reply.Result
	switch {
	case r.UnserializableValue != "" || r.Type == "string" || r.Type == "number" || r.Type == "boolean" || r.Type == "bigint":
		return ConsoleArg{Text: format.Value(r)}
	case len(r.Value) > 0:
		return ConsoleArg{Text: jsfmt.Stringify(r.Value, nil)}
	}
	return ConsoleArg{Gone: true}
}

// invoke invokes a CDP method on session s, bounded by detailReadTimeout,
// while the page keeps applying events.
func (sl *Slice) invoke(ctx context.Context, s *page.Session, method string, args, reply any) error {
	ctx, cancel := context.WithTimeout(ctx, detailReadTimeout)
	defer cancel()
	return sl.h.Call(ctx, func(ctx context.Context) error {
		return rpcc.Invoke(ctx, method, args, reply, s.RPC())
	})
}

// refSep separates the session id from the object id in the ref of an
// object an out-of-process iframe logged: object ids are per renderer, so
// the ref says which session can read it.
const refSep = "@"

// sessionRef is the ref under which an object of session s is collected:
// the object id itself for the page's own session, tagged with the
// session's id for an out-of-process iframe's.
func sessionRef(s *page.Session, objectID string) string {
	if objectID == "" || s.IsTop() {
		return objectID
	}
	return s.ID() + refSep + objectID
}

// sameSession returns the ref of objectID, read through the session of
// ref.
func sameSession(ref, objectID string) string {
	if sid, _, ok := strings.Cut(ref, refSep); ok && objectID != "" {
		return sid + refSep + objectID
	}
	return objectID
}

// objectRef returns the session that can read the object ref names, and
// its object id. The session of an iframe gone since is closed: the read
// fails and the argument is shown as listed.
func (sl *Slice) objectRef(ref string) (*page.Session, string) {
	sid, id, ok := strings.Cut(ref, refSep)
	if !ok {
		return sl.h.Top(), ref
	}
	if s := sl.h.Child(sid); s != nil {
		return s, id
	}
	return sl.h.Top(), "" // its frame is gone, and the object with it
}
