// Package cdpconn dials one DevTools WebSocket and hands its events to one
// owner, in the order Chrome sent them.
//
// mafredri/cdp delivers events through one stream per method, each drained
// by its own goroutine, which loses the order between methods (a navigation
// request must be seen before the navigation that it starts) and needs a
// goroutine per subscription. Here a codec sits under rpcc instead: replies
// go to rpcc as usual, and every event whose method the owner wants is
// appended to a single queue that the owner drains on its own goroutine. The
// queue is unbounded so the socket reader never waits on the owner; the owner
// keeps it short by draining it even while it waits (actor law 5).
package cdpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/gorilla/websocket"
	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/rpcc"
)

// writeBufferSize is the size of one WebSocket frame we send. A bigger
// message goes out as several frames, which Chrome reassembles (checked up
// to 120 MiB), so unlike rpcc's own dialer, whose buffer bounds the whole
// message, ours needs no big buffer.
const writeBufferSize = 16 << 10

// writeBuffers lends write buffers to connections only while they write, so
// that idle tabs hold none. It is shared by every connection of the
// process.
var writeBuffers sync.Pool

// Event is one CDP event.
type Event struct {
	Method string
	Params json.RawMessage
}

// Conn is a DevTools connection whose events are queued for one owner.
type Conn struct {
	// Client is the typed CDP client on this connection. Its event methods
	// (Page.JavascriptDialogOpening and so on) receive nothing: events arrive
	// through [Conn.Take].
	Client *cdp.Client
	rpc    *rpcc.Conn
	queue  queue
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
}

// Dial connects to a DevTools WebSocket URL. Events whose method keep
// accepts are queued; a nil keep queues every event.
func Dial(ctx context.Context, url string, keep func(method string) bool) (*Conn, error) {
	return DialOptions(ctx, url, Options{Keep: keep})
}

// DialOptions is [Dial] with all options.
func DialOptions(ctx context.Context, url string, opts Options) (*Conn, error) {
	keep := opts.Keep
	c := &Conn{}
	c.queue.ready = opts.Ready
	if c.queue.ready == nil {
		c.queue.ready = make(chan struct{}, 1)
	}
	rpc, err := rpcc.DialContext(ctx, url,
		rpcc.WithDialer(dialWebSocket),
		rpcc.WithCodec(func(rw io.ReadWriter) rpcc.Codec {
			return &codec{w: rw, dec: json.NewDecoder(rw), keep: keep, q: &c.queue}
		}))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	c.rpc = rpc
	c.Client = cdp.NewClient(rpc)
	return c, nil
}

// Ready returns a channel that receives a value when events may be queued.
func (c *Conn) Ready() <-chan struct{} { return c.queue.ready }

// Take removes and returns every queued event, oldest first.
func (c *Conn) Take() []Event { return c.queue.take() }

// Done returns a channel that is closed when the connection is gone: closed
// by us, by Chrome (target closed or crashed), or by a broken socket.
func (c *Conn) Done() <-chan struct{} { return c.rpc.Context().Done() }

// RPC returns the underlying rpcc connection, for raw invocations of methods
// that cdp does not generate.
func (c *Conn) RPC() *rpcc.Conn { return c.rpc }

// IsClosed reports whether err says a call failed because its connection
// closed (the target went away, the browser exited, or we closed it),
// rather than because Chrome answered with an error.
func IsClosed(err error) bool {
	var c interface{ Closed() bool }
	return errors.As(err, &c) && c.Closed()
}

// Close closes the connection. Calls in flight fail at once.
func (c *Conn) Close() error { return c.rpc.Close() }

// codec is rpcc's JSON codec, except that events are diverted to the queue
// and each request is written as one WebSocket message (of as many frames
// as it takes).
type codec struct {
	w    io.Writer
	dec  *json.Decoder
	keep func(string) bool
	q    *queue
}

func (c *codec) WriteRequest(r *rpcc.Request) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = c.w.Write(b)
	return err
}

func (c *codec) ReadResponse(r *rpcc.Response) error {
	for {
		// Fresh slices each time: the queue keeps the params of events.
		*r = rpcc.Response{}
		if err := c.dec.Decode(r); err != nil {
			return err
		}
		if r.Method == "" {
			return nil // a reply, for rpcc
		}
		if c.keep == nil || c.keep(r.Method) {
			c.q.push(Event{Method: r.Method, Params: r.Args})
		}
	}
}

// queue is an unbounded FIFO with a one-token ready channel.
type queue struct {
	ready  chan struct{}
	mu     sync.Mutex // guards events
	events []Event
}

func (q *queue) push(e Event) {
	q.mu.Lock()
	q.events = append(q.events, e)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *queue) take() []Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	ev := q.events
	q.events = nil
	return ev
}

// dialWebSocket connects to a DevTools WebSocket with pooled write buffers.
func dialWebSocket(ctx context.Context, url string) (io.ReadWriteCloser, error) {
	d := websocket.Dialer{WriteBufferSize: writeBufferSize, WriteBufferPool: &writeBuffers}
	conn, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	return &socket{conn: conn}, nil
}

// socket reads a WebSocket's messages as one stream, and writes each Write
// as one message.
type socket struct {
	conn *websocket.Conn
	r    io.Reader // the message being read; only the rpcc reader reads
}

func (s *socket) Read(p []byte) (int, error) {
	for {
		if s.r != nil {
			n, err := s.r.Read(p)
			if err != io.EOF {
				return n, err
			}
			if n > 0 {
				return n, nil
			}
		}
		_, r, err := s.conn.NextReader()
		if err != nil {
			return 0, err
		}
		s.r = r
	}
}

// Write sends p as one text message. rpcc serialises writes.
func (s *socket) Write(p []byte) (int, error) {
	if err := s.conn.WriteMessage(websocket.TextMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (s *socket) Close() error { return s.conn.Close() }
