package httpserve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Connection slots (--max-connections). A connection is pre-auth from its
// accept until one of its requests passes the Host, Origin and token
// checks; then it is authenticated until it closes. The two are counted
// apart, so that clients without the token cannot keep out one that has
// it:
//
//   - at most max connections are authenticated; a request that would
//     authenticate one more is answered 503, naming the flag, and its
//     connection closed;
//   - at most max connections are pre-auth; when another is accepted, the
//     oldest pre-auth one is closed to make room (a client with the token
//     sends its request at once, and so is past this stage in a
//     round trip, long before a flood of new connections reaches it);
//   - a pre-auth connection that has sent nothing is closed
//     preAuthTimeout after its accept, where an authenticated one may
//     idle for the server's idle timeout; once its first bytes arrive,
//     the server's header timeout bounds it instead, and its request is
//     checked as soon as its headers are read (on a loaded machine a
//     request may wait longer than preAuthTimeout to be handled, and
//     must not be cut off mid-way);
//   - a request that is refused (any 4xx or 5xx answer: 401, 403, 404,
//     413...) closes its connection once answered (see [closeOnError]), so
//     a refused client must connect again, as a pre-auth connection.

// preAuthTimeout bounds a connection's life before its first request that
// passes the checks: connect, send headers, be checked. A client sends its
// request as soon as it has connected.
const preAuthTimeout = 5 * time.Second

// LimitListener returns a listener that keeps at most max authenticated and
// max pre-auth connections open (max <= 0: ln itself), as described above.
// Serve it with an http.Server from [Server.HTTPServer], whose handler
// authenticates connections. Closing the returned listener closes the
// pre-auth connections' timers; connections are closed by their server.
func LimitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, max: max, preAuth: preAuthTimeout}
}

type limitListener struct {
	net.Listener
	max     int
	preAuth time.Duration // preAuthTimeout, shorter in tests

	mu     sync.Mutex     // guards the fields below
	pre    []*limitedConn // pre-auth connections, oldest first
	authed int            // authenticated connections open
}

// Accept returns the next connection, as a pre-auth one, closing the
// oldest pre-auth connection if there are max already.
func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l, state: connPreAuth}
	l.mu.Lock()
	var evict *limitedConn
	if len(l.pre) >= l.max {
		evict = l.pre[0]
		l.dropPreLocked(evict)
	}
	l.pre = append(l.pre, lc)
	lc.timer = time.AfterFunc(l.preAuth, lc.expire) // stopped by promote or Close
	l.mu.Unlock()
	if evict != nil {
		evict.Conn.Close() // its server sees the error and calls Close
	}
	return lc, nil
}

// dropPreLocked removes c from the pre-auth connections and stops its
// timer. l.mu is held.
func (l *limitListener) dropPreLocked(c *limitedConn) {
	for i, p := range l.pre {
		if p == c {
			l.pre = append(l.pre[:i], l.pre[i+1:]...)
			break
		}
	}
	c.state = connGone
	c.timer.Stop()
}

// Connection states.
const (
	connPreAuth = iota
	connAuthed
	connGone // closed, evicted or timed out
)

// limitedConn is a connection of a limitListener.
type limitedConn struct {
	net.Conn
	l     *limitListener
	state int         // guarded by l.mu
	timer *time.Timer // closes it if still pre-auth; set before Accept returns
	// started is set by the first Read that returns bytes.
	started atomic.Bool
}

// Read stops the pre-auth timer at the first bytes of a request: from
// there the server's header timeout bounds the connection, and its
// request's checks decide.
func (c *limitedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.started.Load() {
		c.started.Store(true)
		c.timer.Stop()
	}
	return n, err
}

// promote counts c as authenticated, if it is not already, and reports
// whether there was room.
func (c *limitedConn) promote() bool {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	switch c.state {
	case connAuthed:
		return true
	case connGone:
		return false
	}
	if l.authed >= l.max {
		return false
	}
	l.dropPreLocked(c)
	c.state = connAuthed
	l.authed++
	return true
}

// expire closes c if it is still pre-auth.
func (c *limitedConn) expire() {
	c.l.mu.Lock()
	pre := c.state == connPreAuth
	if pre {
		c.l.dropPreLocked(c)
	}
	c.l.mu.Unlock()
	if pre {
		c.Conn.Close()
	}
}

// Close closes the connection and gives its slot back.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	switch c.state {
	case connPreAuth:
		c.l.dropPreLocked(c)
	case connAuthed:
		c.l.authed--
		c.state = connGone
	}
	c.l.mu.Unlock()
	return err
}

// CloseWrite half-closes a TCP connection, as net/http does to end one
// gracefully; the embedded net.Conn would hide the method.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// connKey is the context key of a request's *limitedConn.
type connKey struct{}

// connContext is the http.Server's ConnContext: it lets the handler find
// the connection a request came on.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// authenticate counts the connection of r, a request that passed the
// checks, as authenticated, and reports whether there was room; if not, it
// has answered r with a 503 that names --max-connections. A connection of
// a listener without limits always has room.
func authenticate(w http.ResponseWriter, r *http.Request) bool {
	lc, ok := r.Context().Value(connKey{}).(*limitedConn)
	if !ok || lc.promote() {
		return true
	}
	w.Header().Set("Retry-After", "1")
	http.Error(w, fmt.Sprintf("Service Unavailable: tabhive has %d connections open, the most allowed (--max-connections). Try again when a client has disconnected.", lc.l.max), http.StatusServiceUnavailable)
	return false
}

// closeOnError closes the connection of a request answered with an error
// status (4xx, 5xx) once the answer is sent: a refused client, with or
// without the token, does not keep its connection.
type closeOnError struct {
	http.ResponseWriter
}

func (w closeOnError) WriteHeader(code int) {
	if code >= 400 {
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush lets the SDK stream through the wrapper.
func (w closeOnError) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w closeOnError) Unwrap() http.ResponseWriter { return w.ResponseWriter }
