package transport

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// session is one MCP client's state: its own selected page (ARCHITECTURE.md §4), so
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
	// rootsCapable reports that the client declared the roots capability
	// and that its roots apply.
	rootsCapable bool
	// contextReady is set once the isolated session's browser context
	// exists, with the storage state it starts from.
	contextReady atomic.Bool
	// rootsIgnored reports that the client declared roots over HTTP, where
	// they are ignored unless Config.TrustClientRoots.
	rootsIgnored bool
	// background counts the session's short-lived goroutines (roots
	// requests); the server waits for it on Close.
	background *sync.WaitGroup
	// written are the files the session's tools wrote, its resources.
	written sessionFiles
	// remote is set for a session over HTTP, whose client is on another
	// machine: its private directory goes when it ends.
	remote atomic.Bool

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
	// opened are the pages this session opened with new_page, for the
	// per-session limit.
	opened map[int]bool
	// pending counts new_page calls that took a place under the limit and
	// have not yet recorded the page they opened (see reservePage).
	// Invariant: while it is not 0, no page is taken for a popup.
	pending int
	// given is the page an isolated session was given as its first, as a
	// fresh browser has one; 0 if none. It counts toward the limit like a
	// page the session opened.
	given int

	// snapshots are the latest default snapshot the session received of
	// each page, by page id, for diffs (see snapshots.go for why the
	// session owns them).
	snapshots map[int]seenSnapshot
	// ledger counts what all sessions of the server keep for diffs; nil
	// in tests that make a bare session.
	ledger *seenLedger

	// firstPage serialises giving an isolated session its first page.
	firstPage sync.Mutex
	// trimming is held by the call closing the session's popups beyond
	// the limit; a call that finds it held leaves that to the holder.
	trimming sync.Mutex
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

// The per-session page limit (--max-pages-per-session) counts the pages a
// session opened with new_page, and the popups (window.open, a
// target=_blank link) they opened, and those popups' popups: an isolated
// session's are told by its browser context, a shared session's by their
// opener. The page an isolated session was given first counts too: a
// session holds at most the limit, whatever it started with.

// reservePage takes a place under limit for a page new_page is about to
// open, and reports whether the session had one. pages are the pages the
// session sees. Every place taken is given back by recordOpened.
func (s *session) reservePage(pages []browser.PageInfo, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, _ := s.countLocked(pages); n+s.pending >= limit {
		return false
	}
	s.pending++
	return true
}

// recordOpened records the page a new_page call opened (0: none) and gives
// back the place reservePage took for it, if reserved.
func (s *session) recordOpened(id int, reserved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if reserved {
		s.pending--
	}
	if id == 0 {
		return
	}
	if s.opened == nil {
		s.opened = map[int]bool{}
	}
	s.opened[id] = true
}

// setGiven records the page an isolated session was given first.
func (s *session) setGiven(id int) {
	s.mu.Lock()
	s.given = id
	s.mu.Unlock()
}

// countLocked returns how many of pages count toward the session's limit,
// and which of those are popups, in the order of pages. s.mu is held.
func (s *session) countLocked(pages []browser.PageInfo) (n int, popups []int) {
	openers := make(map[int]int, len(pages))
	for _, p := range pages {
		openers[p.ID] = p.Opener
	}
	for _, p := range pages {
		switch {
		case s.opened[p.ID], s.isolated != "" && p.ID == s.given:
			n++
		case s.isolated != "", s.openedByLocked(p.Opener, openers):
			n++
			popups = append(popups, p.ID)
		}
	}
	return n, popups
}

// openedByLocked reports whether the page id, or the page that opened it,
// and so on up, is one the session opened with new_page. s.mu is held.
func (s *session) openedByLocked(id int, openers map[int]int) bool {
	for hops := 0; id != 0 && hops < len(openers); hops++ {
		if s.opened[id] {
			return true
		}
		id = openers[id]
	}
	return false
}

// excessPopups returns the popups to close so that the session keeps no
// more than limit pages, newest first: none while a new_page is under way,
// whose page cannot yet be told from a popup.
func (s *session) excessPopups(pages []browser.PageInfo, limit int) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending > 0 {
		return nil
	}
	n, popups := s.countLocked(pages)
	slices.Sort(popups)
	slices.Reverse(popups)
	return popups[:min(max(n-limit, 0), len(popups))]
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
