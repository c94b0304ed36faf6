package browser

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/launch"
)

// A browser connected to (--ws-endpoint, --browser-url) rather than
// launched may be on another machine, behind a browser service: when its
// connection goes away, the supervisor connects again on its own, with a
// backoff, so that the instance is ready again without waiting for a tool
// call (a balancer sends none to an instance that is not ready). While an
// attempt has failed and the next is not due, a call that needs the
// browser fails at once with the last attempt's error and when the next
// is due, instead of each waiting out a connection attempt of its own.

// Backoff between attempts to connect: the first retry after minRetry,
// doubling up to maxRetry.
const (
	minRetry = 250 * time.Millisecond
	maxRetry = 30 * time.Second
)

// Connected reports whether the browser connection is up, from the
// published registry: it never starts the browser nor waits.
func (s *Supervisor) Connected() bool { return s.view.Load().up() }

// remote reports whether the supervisor connects to a browser rather than
// launching one.
func (l link) remote() bool { return l.s.cfg.WSEndpoint != "" || l.s.cfg.BrowserURL != "" }

// retryState is the backoff of connection attempts. Owned by the run
// goroutine; at is published for the reconnecting goroutine.
type retryState struct {
	delay time.Duration // before the next attempt after a failure; 0 after a success
	err   error         // the last attempt's, nil after a success
	at    atomic.Int64  // when the next attempt is due, Unix nanoseconds; 0: now
}

// wait returns the last attempt's error if the next is not due yet.
func (r *retryState) wait() error {
	left := time.Until(time.Unix(0, r.at.Load()))
	if r.err == nil || left <= 0 {
		return nil
	}
	return &ConnectError{Err: r.err, Retry: left.Round(100*time.Millisecond) + 100*time.Millisecond}
}

// ConnectError is a failure to reach a browser tabhive connects to (not
// one it launched): its text says why, and when tabhive tries again, for
// the agent to read as it is.
type ConnectError struct {
	Err   error         // why the attempt failed
	Retry time.Duration // when the next attempt is due; 0: at the next call
}

func (e *ConnectError) Error() string {
	if e.Retry > 0 {
		return fmt.Sprintf("%v; tabhive connects again in %v", e.Err, e.Retry)
	}
	return e.Err.Error()
}

func (e *ConnectError) Unwrap() error { return e.Err }

// AgentSentence is the Error text: why, and when tabhive tries again.
func (e *ConnectError) AgentSentence() string { return agenterr.OwnSentence(e) }

// record notes an attempt's outcome.
func (r *retryState) record(err error) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrShutdown) {
		if err == nil {
			r.delay, r.err = 0, nil
			r.at.Store(0)
		}
		return
	}
	r.delay = min(max(2*r.delay, minRetry), maxRetry)
	r.err = err
	r.at.Store(time.Now().Add(r.delay).UnixNano())
}

// retryIn returns how long until the next attempt is due.
func (r *retryState) retryIn() time.Duration {
	return max(time.Until(time.Unix(0, r.at.Load())), 0)
}

// watch waits for a browser connection to go away, or for the browser we
// launched to exit, and then has the supervisor forget it at once, so that
// its pages drop out of the page list and the next call relaunches or
// reconnects. A browser connected to is then connected again in the
// background, with a backoff, until that succeeds or the supervisor
// closes. It ends with the connection (and the reconnection), which
// Close ends.
func (l link) watch(conn *cdpconn.Conn, proc *launch.Process) {
	defer l.s.watchers.Done()
	var exited <-chan struct{}
	if proc != nil {
		exited = proc.Exited()
	}
	select {
	case <-conn.Done():
	case <-exited:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	forgot, err := actor.Ask(ctx, l.s.act, func(context.Context) (bool, error) {
		if l.s.conn == conn {
			l.lost()
		}
		// Forgotten now or by a call that found it gone first; if no
		// connection replaced it yet, this watcher makes one.
		return l.s.conn == nil, nil
	})
	if err == nil && forgot && l.remote() {
		l.reconnect()
	}
}

// reconnect connects again to a browser whose connection went away,
// first at once, then each time the backoff allows, until it succeeds or
// the supervisor closes.
func (l link) reconnect() {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-l.s.closing:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.s.cfg.LaunchTimeout)
		err := l.s.Ensure(ctx)
		cancel()
		if err == nil {
			l.s.log.Info().Msg("reconnected to the browser")
			return
		}
		if errors.Is(err, ErrShutdown) {
			return
		}
		l.s.log.Warn().Err(err).Msg("reconnecting to the browser")
		t.Reset(max(l.s.retry.retryIn(), 10*time.Millisecond))
	}
}
