package cdpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/mailbox"
)

// channel is one connection to a browser carrying every session's
// messages.
type channel struct {
	// Fixed at creation.
	io           frameIO
	limit        int
	writeTimeout time.Duration
	// out is the bounded queue of messages for the writer goroutine, the
	// only one that writes on io; quit is closed when the channel closes,
	// and ends the writer.
	out  chan *outgoing
	quit chan struct{}

	// sendID numbers the commands of [Conn.Send] (see nextSendID).
	sendID atomic.Uint32

	mu       sync.Mutex // guards the fields below
	sessions map[string]*session
	// wireID numbers every call on the channel, and calls maps each id
	// waiting for its reply to the session that made it and the id its
	// rpcc connection gave it. Each session numbers its own calls from 1,
	// and Chrome answers a call to a session it no longer knows with an
	// error that carries no session id: matched by session and id, that
	// reply went to the browser's call with the same number (a CreateTarget
	// failing with "Session with given id not found").
	wireID uint64
	calls  map[uint64]call
	err    error // why the channel closed; nil while open

	// streaming counts the pending calls whose reply is streamed (see
	// stream.go); while it is 0 the reader does not look for them.
	streaming atomic.Int32
}

// call is a command on the wire waiting for its reply.
type call struct {
	s  *session
	id uint64  // the session's own id for it
	st *stream // for a streamed call ([Conn.CallStream]): where its reply goes
	// relayed, for a call a [Relay]'s client made: its reply goes back to
	// that client, numbered id.
	relayed bool
}

// deliver hands a reply to the caller waiting for it.
func (c call) deliver(r rpcc.Response) {
	if c.st != nil {
		c.st.deliver(r)
		return
	}
	if c.relayed {
		c.s.relay.reply(c.s.id, c.id, r)
		return
	}
	r.ID = c.id
	c.s.reply(r)
}

// frameIO reads and writes whole messages on a channel.
type frameIO interface {
	// readFrame reads the next message into f, keeping at most limit
	// bytes of it.
	readFrame(f *frame, limit int) error
	// writeFrame writes one message, giving up at deadline where the
	// channel can (a WebSocket, a pollable pipe). Only the writer
	// goroutine calls it.
	writeFrame(b []byte, deadline time.Time) error
	// Close unblocks a pending readFrame or writeFrame and releases the
	// channel.
	Close() error
}

// DialPipe opens the browser connection of a Chromium started with
// --remote-debugging-pipe: commands are written to w (the browser's fd 3)
// and messages read from r (its fd 4), each a JSON text ended by a NUL
// byte. Closing the connection closes both.
func DialPipe(ctx context.Context, r io.ReadCloser, w io.WriteCloser, opts Options) (*Conn, error) {
	return open(ctx, &pipeIO{r: bufio.NewReaderSize(r, 64<<10), rc: r, w: w}, opts)
}

// Dial opens the browser connection of a running Chrome over its browser
// WebSocket, ws://HOST:PORT/devtools/browser/ID.
func Dial(ctx context.Context, url string, opts Options) (*Conn, error) {
	d := websocket.Dialer{WriteBufferSize: writeBufferSize, WriteBufferPool: &writeBuffers}
	ws, resp, err := d.DialContext(ctx, url, opts.Header)
	if err != nil {
		if resp != nil {
			// The handshake's answer says more than "bad handshake": a
			// browser service refusing a token answers 401 or 403.
			return nil, fmt.Errorf("connect to %s: %w (the endpoint answered %s)", url, err, resp.Status)
		}
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	return open(ctx, &wsIO{conn: ws}, opts)
}

func open(ctx context.Context, fio frameIO, opts Options) (*Conn, error) {
	ch := &channel{
		io: fio, limit: opts.MaxMessageBytes, writeTimeout: opts.WriteTimeout,
		out: make(chan *outgoing, writeQueueLen), quit: make(chan struct{}),
		sessions: map[string]*session{}, calls: map[uint64]call{},
	}
	if ch.limit <= 0 {
		ch.limit = DefaultMaxMessageBytes
	}
	if ch.writeTimeout <= 0 {
		ch.writeTimeout = DefaultWriteTimeout
	}
	c, err := ch.open(ctx, "", opts)
	if err != nil {
		fio.Close()
		return nil, err
	}
	go ch.read()      // ends when the channel closes
	go ch.writeLoop() // ends when the channel closes (quit)
	return c, nil
}

// open registers a session and gives it an rpcc connection.
func (ch *channel) open(ctx context.Context, id string, opts Options) (*Conn, error) {
	s := &session{id: id, ch: ch, keep: opts.Keep, events: mailbox.NewQueue[Event](0, opts.Ready), wake: make(chan struct{}, 1)}
	ch.mu.Lock()
	if ch.err != nil {
		err := ch.err
		ch.mu.Unlock()
		return nil, &closedError{err}
	}
	ch.sessions[id] = s
	ch.mu.Unlock()
	rpc, err := rpcc.DialContext(ctx, "session:"+id,
		rpcc.WithDialer(func(context.Context, string) (io.ReadWriteCloser, error) { return s, nil }),
		rpcc.WithCodec(func(io.ReadWriter) rpcc.Codec { return s }))
	if err != nil {
		ch.remove(s)
		return nil, err
	}
	return &Conn{Client: cdp.NewClient(rpc), rpc: rpc, ch: ch, sess: s}, nil
}

// remove forgets a session and closes it, and reports whether it was
// still registered.
func (ch *channel) remove(s *session) bool {
	ch.mu.Lock()
	registered := ch.sessions[s.id] == s
	if registered {
		delete(ch.sessions, s.id)
	}
	ch.forgetCalls(s)
	ch.mu.Unlock()
	s.closeWith(io.EOF)
	return registered
}

// close closes the channel and every session on it. Safe to call more
// than once; the first error wins.
func (ch *channel) close(err error) {
	ch.mu.Lock()
	if ch.err != nil {
		ch.mu.Unlock()
		return
	}
	ch.err = err
	sessions := ch.sessions
	ch.sessions = map[string]*session{}
	ch.calls = map[uint64]call{}
	close(ch.quit)
	ch.mu.Unlock()
	ch.io.Close()
	for _, s := range sessions {
		s.closeWith(err)
	}
}

// send writes a command on the browser's own session without waiting for
// its reply.
func (ch *channel) send(method string, params any) error {
	return ch.sendOn("", method, params)
}

// sendOn queues a command without waiting for it to be written: it fails
// only if the channel is closed or its queue is full. A write that fails
// closes the channel.
func (ch *channel) sendOn(sessionID, method string, params any) error {
	_, err := ch.enqueue(&request{ID: ch.nextSendID(), Method: method, Params: params, SessionID: sessionID})
	return err
}

// nextSendID returns an id for a command whose reply nobody waits for.
// Chrome takes ids that fit in 32 bits only; these run in the top half of
// that range, which the channel's call ids (see callID) do not reach, so
// their replies match no pending call and are dropped.
func (ch *channel) nextSendID() uint64 {
	return 1<<30 + uint64(ch.sendID.Add(1)%(1<<30))
}

// callID registers a call of session s, numbered id by its rpcc
// connection, and returns the id it goes on the wire with: unique on the
// channel, below the ids of nextSendID. ch.mu must be held.
func (ch *channel) callID(s *session, id uint64) uint64 {
	return ch.register(call{s: s, id: id})
}

// register registers a call and returns its wire id. ch.mu must be held.
func (ch *channel) register(c call) uint64 {
	for {
		ch.wireID = ch.wireID%(1<<30-1) + 1
		if _, busy := ch.calls[ch.wireID]; !busy {
			break
		}
	}
	ch.calls[ch.wireID] = c
	return ch.wireID
}

// lookupStream returns the stream of the pending call with wire id id, if
// it is a streamed one.
func (ch *channel) lookupStream(id uint64) *stream {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.calls[id].st
}

// takeCall returns the call a reply with wire id id answers, and forgets
// it. ch.mu must be held.
func (ch *channel) takeCall(id uint64) (call, bool) {
	c, ok := ch.calls[id]
	if ok {
		delete(ch.calls, id)
	}
	return c, ok
}

// forgetCalls drops the calls of a closed session: no reply will be read
// for them. ch.mu must be held.
func (ch *channel) forgetCalls(s *session) {
	for id, c := range ch.calls {
		if c.s == s {
			delete(ch.calls, id)
		}
	}
}

// request is a command on the wire.
type request struct {
	ID        uint64 `json:"id"`
	Method    string `json:"method"`
	Params    any    `json:"params,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// writeQueueLen is how many messages may wait for the writer. Chrome
// reads its end as fast as we write, so the queue is nearly always empty;
// it fills only when the browser stops reading, and then a call is
// refused at once rather than waiting behind the others.
const writeQueueLen = 1024

// DefaultWriteTimeout bounds one write on the channel when
// [Options.WriteTimeout] is zero. A write that takes longer means the
// browser stopped reading its end (a stalled socket): the channel is
// closed, as a message cut off mid-way leaves nothing the browser can
// read. The biggest messages tabhive writes (a route's fulfilled body)
// take milliseconds.
const DefaultWriteTimeout = 30 * time.Second

// ErrQueueFull is the error of a call made while the channel's writer
// has [writeQueueLen] messages waiting: the browser is not reading them.
var ErrQueueFull = errors.New("the browser is not reading its commands (too many are waiting to be sent); retry, and if it persists restart the browser")

// outgoing is one message waiting for the writer.
type outgoing struct {
	b     []byte
	state atomic.Int32 // queued, then written or dropped
	done  chan error   // buffered: the writer never waits on it
}

const (
	queued  int32 = iota
	taken         // the writer took it: it is being or was written
	dropped       // its caller gave up while it was queued: never written
)

// enqueue queues a message for the writer without waiting.
func (ch *channel) enqueue(r *request) (*outgoing, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", r.Method, err)
	}
	ch.mu.Lock()
	err = ch.err
	ch.mu.Unlock()
	if err != nil {
		return nil, &closedError{err}
	}
	m := &outgoing{b: b, done: make(chan error, 1)}
	select {
	case ch.out <- m:
		return m, nil
	default:
		return nil, ErrQueueFull
	}
}

// write queues a message and waits until the writer has written it, the
// channel closes, or ctx ends. A message whose ctx ends while
// it is queued is dropped unsent; one already being written finishes under
// the channel's write deadline, and the caller is not kept waiting for it.
func (ch *channel) write(ctx context.Context, r *request) error {
	m, err := ch.enqueue(r)
	if err != nil {
		return err
	}
	select {
	case err := <-m.done:
		return err
	case <-ctx.Done():
		m.state.CompareAndSwap(queued, dropped)
		return ctx.Err()
	case <-ch.quit:
		select {
		case err := <-m.done: // written, or failed, just before
			return err
		default:
		}
		ch.mu.Lock()
		err := ch.err
		ch.mu.Unlock()
		return &closedError{err}
	}
}

// writeLoop is the channel's writer: the one goroutine that writes on it,
// each message under the write deadline, until the channel closes. A write
// that fails or outruns its deadline closes the channel: the other end is
// gone (a dead browser's pipe, a dropped socket) or stopped reading, and a
// message cut off mid-way leaves the stream unreadable.
func (ch *channel) writeLoop() {
	for {
		select {
		case <-ch.quit:
			return
		case m := <-ch.out:
			if !m.state.CompareAndSwap(queued, taken) {
				continue // its caller gave up
			}
			if err := ch.io.writeFrame(m.b, time.Now().Add(ch.writeTimeout)); err != nil {
				m.done <- &closedError{err}
				ch.close(err)
				return
			}
			m.done <- nil
		}
	}
}

// message is any message Chrome sends: a reply (ID set) or an event
// (Method set), for the session named by SessionID ("" for the browser's
// own).
type message struct {
	ID        uint64              `json:"id"`
	Result    json.RawMessage     `json:"result"`
	Error     *rpcc.ResponseError `json:"error"`
	Method    string              `json:"method"`
	Params    json.RawMessage     `json:"params"`
	SessionID string              `json:"sessionId"`
}

// read reads messages and routes each to its session until the channel
// fails.
func (ch *channel) read() {
	f := frame{
		pending: func() bool { return ch.streaming.Load() > 0 },
		lookup:  ch.lookupStream,
	}
	for {
		if cap(f.buf) > 1<<20 {
			f.buf = nil // do not keep a big buffer for the next small message
		}
		if err := ch.io.readFrame(&f, ch.limit); err != nil {
			ch.close(err)
			return
		}
		if f.over {
			ch.tooLarge(&f)
			continue
		}
		var m message
		if !parseMessage(f.buf, &m) {
			continue // not CDP; nothing to route it to
		}
		ch.route(&m)
		if m.Result != nil || m.Params != nil {
			f.buf = nil // they are slices of it, handed on with the message
		}
	}
}

func (ch *channel) route(m *message) {
	if m.Method == "Target.detachedFromTarget" {
		// The target went away or was detached: its session is over. A
		// session Chrome attached itself (an out-of-process iframe) is
		// reported detached on its parent's session, not the browser's.
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.SessionID != "" {
			ch.mu.Lock()
			s := ch.sessions[p.SessionID]
			delete(ch.sessions, p.SessionID)
			if s != nil {
				ch.forgetCalls(s)
			}
			ch.mu.Unlock()
			if s != nil {
				// Closed once the event is on the parent's queue, so that
				// whoever wakes at the session's end finds it there.
				defer s.closeWith(errDetached)
			}
		}
	}
	if m.Method == "" {
		// A reply: to the call with its id, whatever session it names.
		ch.mu.Lock()
		c, ok := ch.takeCall(m.ID)
		ch.mu.Unlock()
		if ok {
			c.deliver(rpcc.Response{Result: m.Result, Error: m.Error})
		}
		return // otherwise a Send's, or a closed session's
	}
	ch.mu.Lock()
	s := ch.sessions[m.SessionID]
	ch.mu.Unlock()
	if s == nil {
		return // a session already closed, or one we never attached
	}
	if s.relay != nil {
		s.relay.event(m)
		return
	}
	if s.keep == nil || s.keep(m.Method) {
		s.events.Push(Event{Method: m.Method, Params: m.Params}) // never full, never closed
	}
}

// tooLarge answers the call a message too big to read was the reply to,
// if it was one: Chrome writes a reply's id first.
func (ch *channel) tooLarge(f *frame) {
	head := f.buf
	id, ok := leadingID(head)
	if !ok {
		return // an event: dropped
	}
	ch.mu.Lock()
	c, ok := ch.takeCall(id)
	ch.mu.Unlock()
	if !ok {
		return
	}
	c.deliver(rpcc.Response{Error: &rpcc.ResponseError{
		Code: tooLargeCode,
		Message: fmt.Sprintf("%s: it was %s, more than the %s tabhive reads; ask for less (a smaller area, a file, fewer items)",
			ErrTooLarge, megabytes(f.size), megabytes(ch.limit)),
	}})
}

// tooLargeCode marks the error reply made for a message too large to read.
const tooLargeCode = -32099

// IsTooLarge reports whether err is the error of a call whose reply was
// bigger than the channel's read limit.
func IsTooLarge(err error) bool {
	var re *rpcc.ResponseError
	return errors.As(err, &re) && re.Code == tooLargeCode
}

func megabytes(n int) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
}

// leadingID returns the id of a reply from the start of its text,
// {"id":123,...}.
func leadingID(head []byte) (uint64, bool) {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte(`{"id":`))
	if !ok {
		return 0, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	id, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	return id, err == nil
}

// errDetached closes the session of a target that went away.
var errDetached = errors.New("session detached from its target")

// closedError is the error of a call on a channel that has closed.
type closedError struct{ err error }

func (e *closedError) Error() string { return "cdp connection closed: " + e.err.Error() }
func (e *closedError) Unwrap() error { return e.err }
func (e *closedError) Closed() bool  { return true }

// session is one CDP session on a channel: the rpcc connection's transport
// and codec.
type session struct {
	id     string
	ch     *channel
	relay  *Relay // non-nil for a session whose messages go to a relay's client (relay.go)
	keep   func(string) bool
	events *mailbox.Queue[Event] // unbounded: the reader never waits on an owner

	mu      sync.Mutex // guards replies and err
	replies []rpcc.Response
	err     error // set when the session is closed
	wake    chan struct{}
}

func (s *session) reply(r rpcc.Response) {
	s.mu.Lock()
	if s.err == nil {
		s.replies = append(s.replies, r)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *session) closeWith(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// ReadResponse implements rpcc.Codec: the next reply for this session.
// Replies that arrived before the session closed are still delivered.
func (s *session) ReadResponse(r *rpcc.Response) error {
	for {
		s.mu.Lock()
		if len(s.replies) > 0 {
			*r = s.replies[0]
			s.replies[0] = rpcc.Response{}
			s.replies = s.replies[1:]
			s.mu.Unlock()
			return nil
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			return err
		}
		<-s.wake
	}
}

// WriteRequest implements rpcc.Codec. The call goes on the wire with an id
// of the channel's (see channel.calls).
func (s *session) WriteRequest(r *rpcc.Request) error {
	s.ch.mu.Lock()
	if s.ch.err != nil {
		err := s.ch.err
		s.ch.mu.Unlock()
		return &closedError{err}
	}
	id := s.ch.callID(s, r.ID)
	s.ch.mu.Unlock()
	// Queued without waiting for the write: rpcc gives its codec no
	// context, and waiting here would hold rpcc's lock on the session
	// for every later call of it. The caller waits for the reply under its
	// own context; a write that fails closes the channel, and with it the
	// session and the calls waiting on it.
	_, err := s.ch.enqueue(&request{ID: id, Method: r.Method, Params: r.Args, SessionID: s.id})
	if err != nil {
		s.ch.mu.Lock()
		s.ch.takeCall(id)
		s.ch.mu.Unlock()
	}
	return err
}

// Read, Write and Close make the session the io.ReadWriteCloser rpcc
// dials; only Close is used, when rpcc closes the connection.
func (s *session) Read([]byte) (int, error)    { return 0, io.EOF }
func (s *session) Write(p []byte) (int, error) { return len(p), nil }
func (s *session) Close() error {
	s.closeWith(io.EOF)
	return nil
}

// frame is one message as read, bounded: up to the limit it is all in
// buf; past it, buf keeps only its head, where a reply's id is.
type frame struct {
	buf  []byte
	size int
	over bool

	// For streamed replies (stream.go): pending reports whether any call
	// is streamed, lookup finds a call's stream by its wire id; both fixed.
	pending func() bool
	lookup  func(id uint64) *stream
	phase   int     // where the reading of a streamed reply is
	st      *stream // the stream of this frame's reply, once known
}

// headLen is how much is kept from its start: enough for its id.
const headLen = 256

func (f *frame) reset() {
	f.buf, f.size, f.over = f.buf[:0], 0, false
	f.phase, f.st = phaseUnknown, nil
}

func (f *frame) write(p []byte, limit int) {
	f.size += len(p)
	if f.phase == phaseUnknown {
		// Decided on the frame's first bytes, which come after any call
		// they answer was registered.
		f.phase = phaseNormal
		if f.pending != nil && f.pending() {
			f.phase = phaseHead
		}
	}
	if f.phase != phaseNormal {
		if p = f.stream(p); len(p) == 0 {
			return
		}
	}
	if !f.over {
		if len(f.buf)+len(p) <= limit {
			f.buf = append(f.buf, p...)
			return
		}
		f.over = true
		if n := headLen - len(f.buf); n > 0 {
			f.buf = append(f.buf, p[:min(n, len(p))]...)
		}
		f.buf = f.buf[:min(len(f.buf), headLen)]
	}
}

// pipeIO is the DevTools pipe: NUL-terminated JSON messages.
type pipeIO struct {
	r  *bufio.Reader
	rc io.Closer
	w  io.WriteCloser
}

func (p *pipeIO) readFrame(f *frame, limit int) error {
	f.reset()
	for {
		chunk, err := p.r.ReadSlice(0)
		switch err {
		case nil:
			f.write(chunk[:len(chunk)-1], limit)
			return nil
		case bufio.ErrBufferFull:
			f.write(chunk, limit)
		default:
			return err
		}
	}
}

// writeFrame sets a write deadline when the pipe is pollable (os.Pipe's
// ends are: Go makes them non-blocking); on another writer (an io.Pipe in
// tests) the write has no deadline of its own, and closing the channel
// ends it.
func (p *pipeIO) writeFrame(b []byte, deadline time.Time) error {
	if d, ok := p.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		if err := d.SetWriteDeadline(deadline); err != nil && !errors.Is(err, os.ErrNoDeadline) {
			return err
		}
	}
	_, err := p.w.Write(append(b, 0))
	return err
}

func (p *pipeIO) Close() error {
	return errors.Join(p.w.Close(), p.rc.Close())
}

// writeBufferSize is the size of one WebSocket frame we send. A bigger
// message goes out as several frames, which Chrome reassembles (checked up
// to 120 MiB), so our connections need no big buffer.
const writeBufferSize = 16 << 10

// writeBuffers lends write buffers to connections only while they write.
var writeBuffers sync.Pool

// wsIO is a browser WebSocket: one message per CDP message.
type wsIO struct {
	conn    *websocket.Conn
	scratch []byte // only the reader uses it
}

func (s *wsIO) readFrame(f *frame, limit int) error {
	f.reset()
	_, r, err := s.conn.NextReader()
	if err != nil {
		return err
	}
	if s.scratch == nil {
		s.scratch = make([]byte, 32<<10)
	}
	for {
		n, err := r.Read(s.scratch)
		f.write(s.scratch[:n], limit)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *wsIO) writeFrame(b []byte, deadline time.Time) error {
	if err := s.conn.SetWriteDeadline(deadline); err != nil {
		return err
	}
	return s.conn.WriteMessage(websocket.TextMessage, b)
}

func (s *wsIO) Close() error { return s.conn.Close() }
