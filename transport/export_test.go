package transport

import (
	"context"
	"errors"
)

// LookUpPage looks page id up as a tool call of a new session of s does
// before it drives the page, and reports whether the session got the
// page's actor. With sharing, the session is one that shares the browser
// whatever s's settings.
func LookUpPage(ctx context.Context, s *Server, id int, sharing bool) (bool, error) {
	sess := s.newSession(nil)
	if sharing {
		sess = &session{}
	}
	c := &call{s: s, sess: sess, r: &reply{}}
	a, err := c.pageActor(ctx, id)
	return a != nil, err
}

// IsNoPage reports whether err is the "No page found" refusal.
func IsNoPage(err error) bool {
	var np *noPageError
	return errors.As(err, &np)
}

// HeapsLoaded returns the bytes the server's loaded heap snapshots hold,
// and how many there are (loading ones included).
func HeapsLoaded(s *Server) (int64, int) { return s.heaps.Loaded() }
