package cdpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mafredri/cdp/rpcc"
)

// Relay carries the messages of a set of sessions between the channel and
// an outside DevTools client, unchanged but for the ids of its calls: a
// tool such as Lighthouse that speaks CDP itself drives a target through
// sessions tabhive opened for it ([Relay.Attach]) and the sessions Chrome
// attaches under them (their Target.attachedToTarget events), and nothing
// else. What the client may send is the owner's business ([Relay.Send]
// sends anything on a relayed session); the relay only routes.
//
// Messages reach the client through the deliver function given to
// [Conn.NewRelay], called on the channel's reader goroutine, in the order
// Chrome sent them; it must not block.
type Relay struct {
	ch      *channel
	root    *Conn
	deliver func(msg []byte)

	mu       sync.Mutex // guards the fields below
	sessions map[string]*session
	attached []string // sessions of Attach, detached on Close
	closed   bool
}

// NewRelay returns a relay on c's channel (c must be the browser's own
// session) whose sessions' messages go to deliver.
func (c *Conn) NewRelay(deliver func(msg []byte)) *Relay {
	return &Relay{ch: c.ch, root: c, deliver: deliver, sessions: map[string]*session{}}
}

// errRelayClosed is the error of a relay's calls after Close.
var errRelayClosed = errors.New("relay closed")

// Attach attaches to a target (flatten) and relays its session; it
// returns the session's id. Chrome also announces the attachment on the
// browser's own session, whose owner ignores sessions it did not open.
func (r *Relay) Attach(ctx context.Context, targetID string) (string, error) {
	var reply struct {
		SessionID string `json:"sessionId"`
	}
	err := rpcc.Invoke(ctx, "Target.attachToTarget", map[string]any{"targetId": targetID, "flatten": true}, &reply, r.root.rpc)
	if err != nil {
		return "", fmt.Errorf("attach to target %s: %w", targetID, err)
	}
	// Nothing arrives for the session before the client enables a domain
	// on it, so registering it after the reply loses nothing.
	r.mu.Lock()
	r.attached = append(r.attached, reply.SessionID)
	r.mu.Unlock()
	if err := r.adopt(reply.SessionID); err != nil {
		r.ch.send("Target.detachFromTarget", map[string]string{"sessionId": reply.SessionID})
		return "", err
	}
	return reply.SessionID, nil
}

// Owns reports whether a session is relayed.
func (r *Relay) Owns(sessionID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[sessionID] != nil
}

// adopt registers a session as relayed. Lock order: r.mu, then ch.mu;
// the channel never takes r.mu while it holds ch.mu.
func (r *Relay) adopt(id string) error {
	s := &session{id: id, ch: r.ch, relay: r, wake: make(chan struct{}, 1)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errRelayClosed
	}
	r.ch.mu.Lock()
	defer r.ch.mu.Unlock()
	if r.ch.err != nil {
		return &closedError{r.ch.err}
	}
	if r.ch.sessions[id] != nil {
		return fmt.Errorf("session %s already has an owner", id)
	}
	r.ch.sessions[id] = s
	r.sessions[id] = s
	return nil
}

// Send writes the client's command on a relayed session; its reply goes
// to the client numbered id. It fails if the session is not relayed (or
// no longer: its target went away).
func (r *Relay) Send(sessionID string, id uint64, method string, params json.RawMessage) error {
	r.mu.Lock()
	s := r.sessions[sessionID]
	r.mu.Unlock()
	if s == nil {
		return fmt.Errorf("no session %s", sessionID)
	}
	r.ch.mu.Lock()
	if r.ch.err != nil {
		err := r.ch.err
		r.ch.mu.Unlock()
		return &closedError{err}
	}
	if r.ch.sessions[sessionID] != s {
		r.ch.mu.Unlock()
		return fmt.Errorf("no session %s", sessionID)
	}
	wire := r.ch.register(call{s: s, id: id, relayed: true})
	r.ch.mu.Unlock()
	var p any
	if len(params) > 0 {
		p = params
	}
	// Queued without waiting: a relayed client's command is answered
	// through its reply, and a write that fails closes the channel.
	_, err := r.ch.enqueue(&request{ID: wire, Method: method, Params: p, SessionID: sessionID})
	if err != nil {
		r.ch.mu.Lock()
		r.ch.takeCall(wire)
		r.ch.mu.Unlock()
	}
	return err
}

// Close stops relaying: every relayed session is forgotten, the sessions
// of Attach are detached (Chrome detaches the ones under them), and
// replies still due are dropped. Safe to call more than once.
func (r *Relay) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	sessions, attached := r.sessions, r.attached
	r.sessions = map[string]*session{}
	r.mu.Unlock()
	r.ch.mu.Lock()
	for id, s := range sessions {
		if r.ch.sessions[id] == s {
			delete(r.ch.sessions, id)
		}
		r.ch.forgetCalls(s)
	}
	r.ch.mu.Unlock()
	for _, id := range attached {
		r.ch.send("Target.detachFromTarget", map[string]string{"sessionId": id})
	}
}

// relayed is a message as the client gets it.
type relayed struct {
	ID        *uint64             `json:"id,omitempty"`
	Method    string              `json:"method,omitempty"`
	Params    json.RawMessage     `json:"params,omitempty"`
	Result    json.RawMessage     `json:"result,omitempty"`
	Error     *rpcc.ResponseError `json:"error,omitempty"`
	SessionID string              `json:"sessionId,omitempty"`
}

// event passes an event of a relayed session on. A session Chrome
// attached under it is relayed from here on: registered before the
// reader reads the next message, which may be the new session's first.
// Reader goroutine only.
func (r *Relay) event(m *message) {
	switch m.Method {
	case "Target.attachedToTarget":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.SessionID != "" {
			if err := r.adopt(p.SessionID); err != nil {
				return // closed: the client will not hear of it
			}
		}
	case "Target.detachedFromTarget":
		// route already forgot the session on the channel.
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			r.mu.Lock()
			delete(r.sessions, p.SessionID)
			r.mu.Unlock()
		}
	}
	r.send(relayed{Method: m.Method, Params: m.Params, SessionID: m.SessionID})
}

// reply passes the reply to a client's call on.
func (r *Relay) reply(sessionID string, id uint64, resp rpcc.Response) {
	msg := relayed{ID: &id, SessionID: sessionID, Result: resp.Result, Error: resp.Error}
	if msg.Error == nil && msg.Result == nil {
		msg.Result = json.RawMessage(`{}`)
	}
	r.send(msg)
}

func (r *Relay) send(m relayed) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	r.deliver(b)
}
