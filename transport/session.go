package transport

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// session is one MCP client's state: its own selected page (DESIGN §4), so
// that select_page in one session never moves another's.
//
// A session's tool calls may run concurrently (the SDK does not serialise
// them), so its fields are guarded by mu; calls on the same page are then
// ordered by that page's actor.
type session struct {
	ss      *mcp.ServerSession // nil in tests that drive tools directly
	sandbox *sandbox.Sandbox   // where this client's file-writing tools may write
	// rootsCapable reports that the client declared the roots capability.
	rootsCapable bool
	// background counts the session's short-lived goroutines (roots
	// requests); the server waits for it on Close.
	background *sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	selected int        // page id; 0 until a page is selected
	// fallback is set when the selected page was found closed and another
	// was selected in its place; the next page list reports it once.
	fallback bool
	// rootsStale is set until the client's roots were fetched, and again
	// when it says they changed.
	rootsStale bool
	// fetching is non-nil while a roots/list request is in flight, and
	// closed when it ends.
	fetching chan struct{}
}

// rootsTimeout bounds asking the client for its roots: a client that
// declares roots but never answers must not hold a tool call (upstream
// #2476).
const rootsTimeout = 5 * time.Second

// files returns the session's sandbox with the client's roots. If they are
// being fetched, or must be fetched again, it waits for that, but no longer
// than rootsTimeout and never holding anything another call needs.
func (s *session) files(ctx context.Context) *sandbox.Sandbox {
	if done := s.fetchRoots(); done != nil {
		ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
		defer cancel()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	return s.sandbox
}

// fetchRoots starts asking the client for its roots if they are stale and
// no request is in flight, and returns a channel closed when the request
// in flight (if any) ends. The request runs on its own goroutine, bounded
// by rootsTimeout.
func (s *session) fetchRoots() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fetching != nil {
		return s.fetching
	}
	if !s.rootsStale || s.ss == nil {
		return nil
	}
	s.rootsStale = false
	done := make(chan struct{})
	s.fetching = done
	s.background.Add(1)
	go func() { // ends within rootsTimeout
		defer s.background.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), rootsTimeout)
		defer cancel()
		r, err := s.ss.ListRoots(ctx, nil)
		s.mu.Lock()
		s.fetching = nil
		if err != nil {
			s.rootsStale = true // try again next time
		}
		s.mu.Unlock()
		if err != nil {
			return
		}
		uris := make([]string, len(r.Roots))
		for i, root := range r.Roots {
			uris[i] = root.URI
		}
		s.sandbox.SetRoots(uris) // a root that does not resolve is skipped
	}()
	return done
}

// rootsChanged fetches the client's roots again.
func (s *session) rootsChanged() {
	s.mu.Lock()
	s.rootsStale = true
	s.mu.Unlock()
	s.fetchRoots()
}

// selectedPage returns the session's page id for a page-scoped tool called
// without pageId: the selected page, or the first page when none was ever
// selected. closed reports that the selected page no longer exists.
func (s *session) selectedPage(pages []browser.PageInfo) (id int, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.selected == 0 {
		if len(pages) == 0 {
			return 0, false
		}
		s.selected = pages[0].ID
		return s.selected, false
	}
	for _, p := range pages {
		if p.ID == s.selected {
			return s.selected, false
		}
	}
	return s.selected, true
}

// pageList returns the selected page for a page list, falling back to the
// first page when the selected one was closed; note reports the fallback
// once.
func (s *session) pageList(pages []browser.PageInfo) (selected int, note bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := false
	for _, p := range pages {
		if p.ID == s.selected {
			found = true
		}
	}
	if !found && len(pages) > 0 {
		if s.selected != 0 {
			s.fallback = true
		}
		s.selected = pages[0].ID
	}
	note, s.fallback = s.fallback, false
	return s.selected, note
}

// selectPage makes id the session's selected page.
func (s *session) selectPage(id int) {
	s.mu.Lock()
	s.selected = id
	s.fallback = false
	s.mu.Unlock()
}
