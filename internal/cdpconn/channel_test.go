package cdpconn_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// fakePipe is the browser's end of a DevTools pipe: it reads commands and
// lets the test answer them.
type fakePipe struct {
	t    *testing.T
	cmds chan command
	w    io.WriteCloser // to the connection
	wmu  sync.Mutex
	r    io.ReadCloser // from the connection
}

type command struct {
	ID        uint64          `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
}

// newPipe returns a connection over a fake pipe. The fake answers
// Target.attachToTarget with session ids S1, S2, ...; every other command
// goes to cmds for the test to answer.
func newPipe(t *testing.T, opts cdpconn.Options) (*cdpconn.Conn, *fakePipe) {
	t.Helper()
	toConnR, toConnW := io.Pipe()
	toFakeR, toFakeW := io.Pipe()
	f := &fakePipe{t: t, cmds: make(chan command, 100), w: toConnW, r: toFakeR}
	go f.serve() // ends when the connection closes its end
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cdpconn.DialPipe(ctx, toConnR, toFakeW, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, f
}

func (f *fakePipe) serve() {
	defer close(f.cmds)
	br := bufio.NewReader(f.r)
	n := 0
	for {
		c, err := readCommand(br)
		if errors.Is(err, errNotJSON) {
			f.t.Error(err)
		}
		if err != nil {
			return
		}
		if c.Method == "Target.attachToTarget" {
			n++
			f.send(fmt.Sprintf(`{"id":%d,"result":{"sessionId":"S%d"}}`, c.ID, n))
			continue
		}
		f.cmds <- c
	}
}

// errNotJSON is readCommand's error for a message that is not a command.
var errNotJSON = errors.New("not a JSON command")

// readCommand reads the next command the connection wrote to a pipe: a
// JSON message and its NUL.
func readCommand(br *bufio.Reader) (command, error) {
	b, err := br.ReadBytes(0)
	if err != nil {
		return command{}, err
	}
	var c command
	if err := json.Unmarshal(b[:len(b)-1], &c); err != nil {
		return command{}, fmt.Errorf("connection wrote %q: %w (%v)", b, errNotJSON, err)
	}
	return c, nil
}

// send writes one message to the connection.
func (f *fakePipe) send(msg string) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.w.Write(append([]byte(msg), 0))
}

// reply answers c with result, on c's session.
func (f *fakePipe) reply(c command, result string) {
	sid := ""
	if c.SessionID != "" {
		sid = fmt.Sprintf(`,"sessionId":%q`, c.SessionID)
	}
	f.send(fmt.Sprintf(`{"id":%d,"result":%s%s}`, c.ID, result, sid))
}

// next returns the next command the connection sent.
func (f *fakePipe) next() command {
	f.t.Helper()
	select {
	case c, ok := <-f.cmds:
		if !ok {
			f.t.Fatal("connection closed")
		}
		return c
	case <-time.After(5 * time.Second):
		f.t.Fatal("no command")
	}
	return command{}
}

func ctx5(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// call invokes method on c in the background and returns its error when
// it ends.
func call(ctx context.Context, c *cdpconn.Conn, method string, reply any) <-chan error {
	done := make(chan error, 1)
	go func() { done <- rpcc.Invoke(ctx, method, nil, reply, c.RPC()) }()
	return done
}

// Replies and events reach the session they name, and commands carry their
// session's id; events come in the order they were sent.
func TestSessionsAreRouted(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	ctx := ctx5(t)
	a, err := root.Attach(ctx, "TA", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := root.Attach(ctx, "TB", cdpconn.Options{Keep: func(m string) bool { return m != "Noise.x" }})
	if err != nil {
		t.Fatal(err)
	}
	if a.SessionID() != "S1" || b.SessionID() != "S2" {
		t.Fatalf("session ids %q %q, want S1 S2", a.SessionID(), b.SessionID())
	}
	var ra, rb struct{ Who string }
	da := call(ctx, a, "Who.am", &ra)
	db := call(ctx, b, "Who.am", &rb)
	for range 2 {
		c := f.next()
		f.send(`{"method":"Page.x","params":{"n":1},"sessionId":"` + c.SessionID + `"}`)
		f.send(`{"method":"Noise.x","params":{},"sessionId":"` + c.SessionID + `"}`)
		f.send(`{"method":"Page.y","params":{"n":2},"sessionId":"` + c.SessionID + `"}`)
		f.reply(c, `{"who":"`+c.SessionID+`"}`)
	}
	if err := <-da; err != nil || ra.Who != "S1" {
		t.Fatalf("session A: reply %+v, %v; want S1", ra, err)
	}
	if err := <-db; err != nil || rb.Who != "S2" {
		t.Fatalf("session B: reply %+v, %v; want S2", rb, err)
	}
	events := func(c *cdpconn.Conn) string {
		var s []string
		for _, e := range c.Take() {
			s = append(s, e.Method+string(e.Params))
		}
		return strings.Join(s, " ")
	}
	if got, want := events(a), `Page.x{"n":1} Noise.x{} Page.y{"n":2}`; got != want {
		t.Errorf("session A events %q, want %q", got, want)
	}
	if got, want := events(b), `Page.x{"n":1} Page.y{"n":2}`; got != want {
		t.Errorf("session B events %q, want %q (Noise filtered)", got, want)
	}
	if got := events(root); got != "" {
		t.Errorf("browser session got the pages' events: %q", got)
	}
}

// A target that goes away closes its session only: calls in flight fail
// as closed, Done fires, and the other sessions go on.
func TestDetachedTargetClosesItsSession(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	ctx := ctx5(t)
	a, _ := root.Attach(ctx, "TA", cdpconn.Options{})
	b, _ := root.Attach(ctx, "TB", cdpconn.Options{})
	pending := call(ctx, a, "Slow.call", nil)
	f.next() // never answered
	f.send(`{"method":"Target.detachedFromTarget","params":{"sessionId":"S1","targetId":"TA"}}`)
	select {
	case <-a.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("session A not done after its target detached")
	}
	if err := <-pending; !cdpconn.IsClosed(err) {
		t.Fatalf("call in flight on a detached session: %v, want a closed error", err)
	}
	if err := rpcc.Invoke(ctx, "After.detach", nil, nil, a.RPC()); !cdpconn.IsClosed(err) {
		t.Fatalf("call after detach: %v, want a closed error", err)
	}
	done := call(ctx, b, "Still.there", nil)
	f.reply(f.next(), `{}`)
	if err := <-done; err != nil {
		t.Fatalf("session B after A detached: %v", err)
	}
}

// Closing an attached session detaches it from its target, without
// waiting for the answer.
func TestCloseDetaches(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	a, _ := root.Attach(ctx5(t), "TA", cdpconn.Options{})
	a.Close()
	c := f.next()
	if c.Method != "Target.detachFromTarget" || c.SessionID != "" || !strings.Contains(string(c.Params), `"S1"`) {
		t.Fatalf("after Close the connection sent %+v, want Target.detachFromTarget of S1 on the browser session", c)
	}
	select {
	case <-a.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("closed session not done")
	}
}

// A message over the read limit is skipped as it is read: the call it
// answers fails with a sentence saying so, an event that big is dropped,
// and the session goes on.
func TestMessageOverLimit(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{MaxMessageBytes: 64 << 10})
	ctx := ctx5(t)
	a, _ := root.Attach(ctx, "TA", cdpconn.Options{})
	big := strings.Repeat("x", 1<<20)
	done := call(ctx, a, "Runtime.evaluate", nil)
	c := f.next()
	f.send(`{"method":"Big.event","params":{"s":"` + big + `"},"sessionId":"S1"}`)
	f.send(`{"method":"Small.event","params":{},"sessionId":"S1"}`)
	f.reply(c, `{"s":"`+big+`"}`)
	err := <-done
	if !cdpconn.IsTooLarge(err) {
		t.Fatalf("reply of 1 MiB with a 64 KiB limit: %v, want a too-large error", err)
	}
	if !strings.Contains(err.Error(), "1.0 MB, more than the 0.1 MB tabhive reads") {
		t.Errorf("error %q does not say how big the reply was and the limit", err)
	}
	var r struct{ OK bool }
	done = call(ctx, a, "Next.call", &r)
	f.reply(f.next(), `{"ok":true}`)
	if err := <-done; err != nil || !r.OK {
		t.Fatalf("call after a too-large reply: %+v, %v", r, err)
	}
	var got []string
	for _, e := range a.Take() {
		got = append(got, e.Method)
	}
	if strings.Join(got, " ") != "Small.event" {
		t.Fatalf("events %v, want only Small.event (the big one dropped)", got)
	}
}

// When the browser's end of the pipe closes (the browser exited), every
// session is done and calls fail as closed.
func TestPipeClosedEndsEverySession(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	ctx := ctx5(t)
	a, _ := root.Attach(ctx, "TA", cdpconn.Options{})
	pending := call(ctx, a, "Slow.call", nil)
	f.next()
	f.w.Close()
	for _, c := range []*cdpconn.Conn{root, a} {
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("session %q not done after the pipe closed", c.SessionID())
		}
	}
	if err := <-pending; !cdpconn.IsClosed(err) {
		t.Fatalf("call in flight when the pipe closed: %v, want a closed error", err)
	}
	if _, err := root.Attach(ctx, "TB", cdpconn.Options{}); !cdpconn.IsClosed(err) {
		t.Fatalf("Attach on a closed channel: %v, want a closed error", err)
	}
}

// A session Chrome attached on its own under a page's session (an
// out-of-process iframe) is adopted: its messages are routed to
// it, its detachment reported on the parent's session closes it, and
// closing it detaches it through the parent's session.
func TestAdoptedSession(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	ctx := ctx5(t)
	page, _ := root.Attach(ctx, "TA", cdpconn.Options{})
	child, err := page.Adopt(ctx, "C1", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Who string }
	done := call(ctx, child, "Who.am", &r)
	c := f.next()
	if c.SessionID != "C1" {
		t.Fatalf("the adopted session's command went on session %q, want C1", c.SessionID)
	}
	f.send(`{"method":"Page.x","params":{},"sessionId":"C1"}`)
	f.reply(c, `{"who":"child"}`)
	if err := <-done; err != nil || r.Who != "child" {
		t.Fatalf("adopted session: reply %+v, %v", r, err)
	}
	if evs := child.Take(); len(evs) != 1 || evs[0].Method != "Page.x" {
		t.Errorf("adopted session events %+v, want Page.x", evs)
	}
	f.send(`{"method":"Target.detachedFromTarget","params":{"sessionId":"C1","targetId":"TC"},"sessionId":"S1"}`)
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("adopted session not done after Chrome detached it on its parent's session")
	}
	if evs := page.Take(); len(evs) != 1 || evs[0].Method != "Target.detachedFromTarget" {
		t.Errorf("parent session events %+v, want the detachment", evs)
	}

	other, _ := page.Adopt(ctx, "C2", cdpconn.Options{})
	other.Close()
	c = f.next()
	if c.Method != "Target.detachFromTarget" || c.SessionID != "S1" || !strings.Contains(string(c.Params), `"C2"`) {
		t.Fatalf("after Close the connection sent %+v, want Target.detachFromTarget of C2 on the parent's session S1", c)
	}
}

// Chrome answers a call to a session it no longer knows with an error that
// names no session. That reply belongs to the call that was sent, not to
// the browser session's call that its session happened to number the same
// (a CreateTarget once failed with "Session with given id not found").
func TestSessionlessErrorReachesItsCall(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	ctx := ctx5(t)
	a, err := root.Attach(ctx, "TA", cdpconn.Options{}) // the browser's call 1
	if err != nil {
		t.Fatal(err)
	}
	first := call(ctx, a, "First.call", nil) // a's call 1
	f.reply(f.next(), `{}`)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	gone := call(ctx, a, "Gone.call", nil) // a's call 2
	cg := f.next()
	create := call(ctx, root, "Target.createTarget", nil) // the browser's call 2
	cc := f.next()
	if cg.ID == cc.ID {
		t.Fatalf("two calls on the wire with id %d", cg.ID)
	}
	f.send(fmt.Sprintf(`{"id":%d,"error":{"code":-32001,"message":"Session with given id not found."}}`, cg.ID))
	if err := <-gone; err == nil || !strings.Contains(err.Error(), "Session with given id not found") {
		t.Errorf("call on the gone session = %v, want Chrome's error", err)
	}
	select {
	case err := <-create:
		t.Fatalf("the browser's call got another's reply: %v", err)
	default:
	}
	f.reply(cc, `{"targetId":"T9"}`)
	if err := <-create; err != nil {
		t.Errorf("the browser's call = %v, want its own reply", err)
	}
}
