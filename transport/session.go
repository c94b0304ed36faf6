package transport

import (
	"context"
	"strings"
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
	ss *mcp.ServerSession // nil in tests that drive tools directly
	// isolated, when not empty, is the browser context this session's pages
	// live in (--isolate-sessions): the session sees and touches only them.
	isolated string
	sandbox  *sandbox.Sandbox // where this client's file-writing tools may write
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
	// generation is the browser generation this session last saw.
	generation int64
	// opened are the pages this session opened, for the per-session limit.
	opened map[int]bool
	// firstPage serialises giving an isolated session its first page.
	firstPage sync.Mutex
}

// owns reports whether the session may see and act on page p: any page
// when sessions share the browser, only those of its own contexts when
// isolated.
func (s *session) owns(p browser.PageInfo) bool {
	return s.isolated == "" || p.Context == s.isolated || strings.HasPrefix(p.Context, s.isolated+"/")
}

// contextName returns the browser context for new_page's isolatedContext:
// the name itself when sessions share the browser; inside the session's own
// namespace when isolated.
func (s *session) contextName(name string) string {
	switch {
	case s.isolated == "":
		return name
	case name == "":
		return s.isolated
	}
	return s.isolated + "/" + name
}

// displayContext is how a page's context is shown to this session: an
// isolated session does not see its own namespace.
func (s *session) displayContext(name string) string {
	if s.isolated == "" {
		return name
	}
	if name == s.isolated {
		return ""
	}
	return strings.TrimPrefix(name, s.isolated+"/")
}

// opening records a page this session opened.
func (s *session) opening(id int) {
	s.mu.Lock()
	if s.opened == nil {
		s.opened = map[int]bool{}
	}
	s.opened[id] = true
	s.mu.Unlock()
}

// openCount returns how many pages the session opened that are still open.
func (s *session) openCount(pages []browser.PageInfo) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range pages {
		if s.opened[p.ID] {
			n++
		}
	}
	return n
}

// browserChanged records the browser generation a call runs against and
// reports whether the browser was relaunched or reconnected since the
// session's previous call: the reply then says page ids changed, once.
func (s *session) browserChanged(gen int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.generation != 0 && gen != s.generation
	s.generation = gen
	return changed
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
