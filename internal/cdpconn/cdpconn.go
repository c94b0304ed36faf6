// Package cdpconn speaks the DevTools protocol over one channel to a
// browser and gives each owner (the supervisor, each page actor) a
// connection of its own on it, whose events are queued for that owner in
// the order Chrome sent them.
//
// # One channel, flat sessions
//
// A launched Chromium is driven over its DevTools pipe
// (--remote-debugging-pipe, file descriptors 3 and 4): it opens no TCP
// port, so no page can reach the browser's control channel. A
// browser of the user's (--browser-url, --ws-endpoint) is driven over its
// browser WebSocket. Either way there is one channel, and every connection
// on it is a CDP session: the browser's own ([DialPipe], [Dial]), and one
// per attached target ([Conn.Attach], Target.attachToTarget with flatten,
// or [Conn.Adopt] for a target Chrome attached itself, such as an
// out-of-process iframe under its page), told apart by the sessionId
// Chrome puts on every message.
//
// The channel's reader goroutine reads each message once, routes replies
// to the session's rpcc connection and events straight to the session's
// queue. Every call on the channel, whatever its session, gets an id of
// the channel's, and its reply is matched by that id alone: Chrome answers
// a call to a session it no longer knows with an error that names no
// session, which, matched by session and a per-session number, went to
// the browser's own call of the same number. Queues are unbounded so the
// reader never waits on an owner: one busy page never delays another's
// replies; owners keep their queue short by draining it even while they
// wait (ARCHITECTURE.md §2, law 5).
//
// mafredri/cdp delivers events through one stream per method, each drained
// by its own goroutine, which loses the order between methods (a navigation
// request must be seen before the navigation that it starts); here every
// event an owner wants lands in one queue, in order.
//
// # Bounds
//
// A message bigger than the channel's read limit ([Options.MaxMessageBytes])
// is never held whole: it is skipped as it is read, and the call it
// answers fails with [ErrTooLarge]'s sentence; an event that big is
// dropped. A session that is detached, or whose target goes away, has its
// connection closed: [Conn.Done] fires and calls in flight fail with an
// error for which [IsClosed] reports true.
//
// # One writer
//
// The channel's writer goroutine is the only one that writes on it, one
// message at a time from a bounded queue, each write under a deadline
// ([Options.WriteTimeout]). A browser that stops reading (a stalled
// socket) holds up no caller past its own context. A call through the
// session's rpcc connection (the typed [Conn.Client], rpcc.Invoke) is
// queued and its caller waits for the reply under its own context; rpcc
// gives the channel no context, so its message, once queued, is written
// even if the caller gave up. A streamed call ([Conn.CallStream]) waits
// for its write under its context, and its message is dropped unsent if
// the context ends while it is queued. [Conn.Send] and [Conn.Close] queue
// their command without waiting. A full queue refuses a call at once with
// [ErrQueueFull]; a write that outruns its deadline closes the channel,
// and with it every session on it and the calls waiting ([IsClosed]).
//
// # Goroutines
//
// The channel's reader and its writer, which end when the channel closes
// (the browser exits, a write fails or outruns its deadline, or the owner
// of the browser connection closes it); and one rpcc receive goroutine per
// session, which ends when the session's connection closes.
package cdpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/rpcc"
)

// DefaultMaxMessageBytes is the read limit of a channel when
// [Options.MaxMessageBytes] is zero. The biggest replies tabhive asks for
// are accessibility trees of very large pages and tall screenshots:
// measured 2026-11-30, the full accessibility tree of the Rust book's
// one-page print view (51,160 snapshot lines) is 43 MB, a 1280x16000
// screenshot 3.3 MB.
const DefaultMaxMessageBytes = 64 << 20

// ErrTooLarge is the error of a call whose reply was bigger than the
// channel's read limit. The reply was read and dropped; the session goes
// on.
var ErrTooLarge = errors.New("the browser's reply was too large to read")

// Event is one CDP event.
type Event struct {
	Method string
	Params json.RawMessage
}

// Options tune a connection. The zero value queues every event.
type Options struct {
	// Keep, if non-nil, says which events to queue; others are dropped as
	// they arrive.
	Keep func(method string) bool
	// Ready, if non-nil, is signalled (without blocking) when events are
	// queued, instead of a channel of the connection's own. An owner that
	// outlives its connections (a supervisor that reconnects) passes one
	// channel to all of them. It must have a buffer of at least one.
	Ready chan struct{}
	// MaxMessageBytes is the read limit of the channel, for the browser
	// connection that opens it ([DialPipe], [Dial]); sessions attached
	// later share it. If zero, [DefaultMaxMessageBytes].
	MaxMessageBytes int
	// WriteTimeout bounds each write on the channel, for the browser
	// connection that opens it; sessions attached later share it. If
	// zero, [DefaultWriteTimeout].
	WriteTimeout time.Duration
	// Header is sent with the WebSocket handshake of [Dial]: a browser
	// service's token, for one.
	Header http.Header
}

// Conn is one CDP session on a browser channel, whose events are queued
// for one owner.
type Conn struct {
	// Client is the typed CDP client on this session. Its event methods
	// (Page.JavascriptDialogOpening and so on) receive nothing: events
	// arrive through [Conn.Take].
	Client *cdp.Client
	rpc    *rpcc.Conn
	ch     *channel
	sess   *session
	// parent is the session that detaches this one on Close: "" (the
	// browser's) for an attached target, the parent's id for an adopted
	// one.
	parent string
}

// Ready returns a channel that receives a value when events may be queued.
func (c *Conn) Ready() <-chan struct{} { return c.sess.events.Ready() }

// Take removes and returns every queued event, oldest first.
func (c *Conn) Take() []Event { return c.sess.events.Take() }

// Done returns a channel that is closed when the session is gone: closed
// by us, detached by Chrome (its target closed), or its channel gone (the
// browser exited, or its socket broke).
func (c *Conn) Done() <-chan struct{} { return c.rpc.Context().Done() }

// RPC returns the session's rpcc connection, for raw invocations of methods
// that cdp does not generate.
func (c *Conn) RPC() *rpcc.Conn { return c.rpc }

// SessionID returns the CDP session id, "" for the browser's own session.
func (c *Conn) SessionID() string { return c.sess.id }

// IsClosed reports whether err says a call failed because its connection
// closed (the target went away, the browser exited, or we closed it),
// rather than because Chrome answered with an error.
func IsClosed(err error) bool {
	var c interface{ Closed() bool }
	return errors.As(err, &c) && c.Closed()
}

// Close closes the session: calls in flight fail at once. A target's
// session is detached from its target (without waiting for Chrome's
// answer); closing the browser's own session closes the channel and with
// it every session on it.
func (c *Conn) Close() error {
	if c.sess.id == "" {
		c.ch.close(errClosedByOwner)
		return c.rpc.Close()
	}
	if c.ch.remove(c.sess) {
		c.ch.sendOn(c.parent, "Target.detachFromTarget", map[string]string{"sessionId": c.sess.id})
	}
	return c.rpc.Close()
}

// Send queues a command on the session without waiting for it to be
// written or for its reply, which is dropped. It is for answers that must
// not hold up their sender, such as continuing a paused request; it fails
// only if the channel is closed or its write queue is full
// ([ErrQueueFull]).
func (c *Conn) Send(method string, params any) error {
	return c.ch.sendOn(c.sess.id, method, params)
}

// Attach attaches to a target over c's channel (c must be the browser's
// own session) and returns the target's session. Its events are queued as
// opts says; opts.MaxMessageBytes is ignored.
func (c *Conn) Attach(ctx context.Context, targetID string, opts Options) (*Conn, error) {
	var reply struct {
		SessionID string `json:"sessionId"`
	}
	err := rpcc.Invoke(ctx, "Target.attachToTarget", map[string]any{"targetId": targetID, "flatten": true}, &reply, c.rpc)
	if err != nil {
		return nil, fmt.Errorf("attach to target %s: %w", targetID, err)
	}
	// Nothing arrives for the session before the owner enables a domain
	// on it, so registering it after the reply loses nothing.
	s, err := c.ch.open(ctx, reply.SessionID, opts)
	if err != nil {
		c.ch.send("Target.detachFromTarget", map[string]string{"sessionId": reply.SessionID})
		return nil, err
	}
	return s, nil
}

// Adopt returns the connection of a session Chrome attached on its own:
// one that Target.setAutoAttach (flatten) on c's session announced with
// Target.attachedToTarget, such as an out-of-process iframe's. Its events
// are queued as opts says; opts.MaxMessageBytes is ignored. Adopt makes no
// call: a target attached with waitForDebuggerOnStart sends nothing before
// the owner enables a domain on it, so registering the session when the
// event is applied loses nothing. Closing the connection detaches the
// session; Chrome also closes it when the target goes away or its parent
// session detaches.
func (c *Conn) Adopt(ctx context.Context, sessionID string, opts Options) (*Conn, error) {
	s, err := c.ch.open(ctx, sessionID, opts)
	if err != nil {
		return nil, err
	}
	s.parent = c.sess.id
	return s, nil
}

// errClosedByOwner closes a channel whose browser connection was closed.
var errClosedByOwner = errors.New("connection closed")
