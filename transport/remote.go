package transport

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// What the streamable HTTP layer (transport/httpserve) asks of the MCP
// server: the methods of its Core, besides [Server.MCP].

// RemoteSessionOpened records that ss was made over HTTP, as soon as the
// response to its initialize names it: it counts in tabhive_sessions from
// then, not from its first call, and its private files go with it.
func (s *Server) RemoteSessionOpened(ss *mcp.ServerSession) {
	s.session(ss).remote.Store(true)
}

// BrowserReadiness returns "" when the browser is connected, else why
// not, for /readyz. A probe that finds no browser starts one (or
// reconnects) in the background, so that an instance whose browser went
// away becomes ready again without a tool call, which a balancer would
// not send it.
func (s *Server) BrowserReadiness() string {
	if s.sup.Connected() {
		return ""
	}
	if err := s.warm(); err != "" {
		return "no browser: " + err
	}
	return "no browser yet: starting or reconnecting it"
}

// MetricsGatherer returns the server's metrics, for /metrics.
func (s *Server) MetricsGatherer() prometheus.Gatherer { return s.metrics.reg }

// warm starts the browser in the background if no start is under way, and
// returns why the previous start failed, "" if none did.
func (s *Server) warm() string {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if !s.warming && s.life.Err() == nil {
		s.warming = true
		s.watchers.Add(1)
		go func() { // bounded by LaunchTimeout; Close cancels s.life
			defer s.watchers.Done()
			ctx, cancel := context.WithTimeout(s.life, s.cfg.LaunchTimeout)
			defer cancel()
			err := s.sup.Ensure(ctx)
			s.warmMu.Lock()
			defer s.warmMu.Unlock()
			s.warming = false
			s.warmErr = ""
			if err != nil {
				s.warmErr = sentence(err)
			}
		}()
	}
	return s.warmErr
}
