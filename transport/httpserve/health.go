package httpserve

import (
	"context"
	"fmt"
	"net/http"
	"sync"
)

// Health and drain, for balancers and orchestrators:
//
//   - GET /healthz answers 200 while the process serves HTTP at all.
//   - GET /readyz answers 200 when the instance should get new sessions:
//     its browser is connected and it has room under --max-sessions, and it
//     is not draining; 503 with the reason otherwise. A readiness probe
//     that finds no browser starts one (or reconnects) in the background,
//     so an instance whose browser went away becomes ready again without a
//     tool call, which a balancer would not send it.
//   - [Server.Drain] (on SIGTERM) stops taking sessions and requests at
//     once and waits for the requests in flight to be answered.
//
// Both endpoints are exempt from --auth-token (probes carry no token) but
// not from the Host and Origin checks.

// Paths of the health endpoints.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
)

// drainGate counts the requests of open sessions in flight, and, once
// draining, refuses new ones so that the count only goes down. Safe for
// concurrent use.
type drainGate struct {
	mu       sync.Mutex
	draining bool
	n        int           // requests in flight
	idle     chan struct{} // made by drain; closed when draining and n is 0
}

// enter counts a request in flight, unless the gate is draining and the
// request is one to refuse (refusable); it reports whether it was counted.
func (g *drainGate) enter(refusable bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.draining && refusable {
		return false
	}
	g.n++
	return true
}

// exit ends a request counted by enter.
func (g *drainGate) exit() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.draining && g.n == 0 {
		close(g.idle)
		g.idle = nil
	}
}

// drain starts draining and returns a channel closed when no request is
// in flight.
func (g *drainGate) drain() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.draining {
		g.draining = true
		g.idle = make(chan struct{})
		if g.n == 0 {
			close(g.idle)
			g.idle = nil
		}
	}
	if g.idle == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return g.idle
}

func (g *drainGate) isDraining() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.draining
}

// Drain makes the HTTP endpoint stop taking work: new sessions get 503,
// requests of open sessions get 404 saying the instance is shutting down
// (their clients start a new session, which the balancer gives to another
// instance), and /readyz answers 503, all at once. It then waits until
// the requests in flight have been answered, or ctx ends, whose error it
// returns. Notifications and answers to the server's own requests still
// pass, so that a call in flight that waits on the client can finish.
func (s *Server) Drain(ctx context.Context) error {
	idle := s.gate.drain()
	s.cfg.Logger.Info().Msg("draining: no new sessions or calls; waiting for the calls in flight")
	select {
	case <-idle:
		return nil
	default:
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// draining answers a request refused while draining.
func (s *Server) drainingReply(w http.ResponseWriter, r *http.Request) {
	inst := ""
	if s.cfg.InstanceID != "" {
		inst = " (" + s.cfg.InstanceID + ")"
	}
	writeRPCError(w, r, http.StatusNotFound, fmt.Sprintf("This tabhive instance%s is shutting down: it finishes the calls in flight and takes no new ones; start a new session (initialize without Mcp-Session-Id), which goes to another instance.", inst))
}

// health serves /healthz and /readyz.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path == HealthzPath {
		fmt.Fprintln(w, "ok")
		return
	}
	open, max := s.slots.count()
	var why string
	switch {
	case s.gate.isDraining():
		why = "draining: shutting down, no new sessions"
	case max > 0 && open >= max:
		why = fmt.Sprintf("full: %d sessions open, the most allowed (--max-sessions)", open)
	default:
		why = s.core.BrowserReadiness()
	}
	if why != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "not ready:", why)
		return
	}
	if max > 0 {
		fmt.Fprintf(w, "ready: browser connected, %d of %d sessions\n", open, max)
		return
	}
	fmt.Fprintf(w, "ready: browser connected, %d sessions\n", open)
}
