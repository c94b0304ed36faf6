package transport

// Snapshots an agent can afford: the bound on a snapshot's size
// in a reply (--snapshot-max-bytes), the outline sent instead, and the
// diff against the session's previous snapshot of a page.

import (
	"context"
	"fmt"

	"github.com/tabhive/tabhive/page/snapshot"
)

// DefaultSnapshotMaxBytes is the bound on a snapshot's text in a reply when
// [Config.SnapshotMaxBytes] is zero: 256 KB, about 64k tokens.
const DefaultSnapshotMaxBytes = 256 << 10

// outlineMaxBytes bounds the outline sent in place of a snapshot over the
// bound, with the sentences around it: under 16 KB, whatever the page.
const outlineMaxBytes = 14 << 10

// maxSeenPages and maxSeenBytes bound what a session keeps for diffs: the
// latest snapshot of at most 16 pages, 32 MiB of text in all; the oldest
// is forgotten first, and a snapshot larger than the whole budget is not
// kept (a diff against it then sends the whole snapshot, bounded).
const (
	maxSeenPages = 16
	maxSeenBytes = 32 << 20
)

// seenSnapshot is the latest default snapshot a session received of a page.
type seenSnapshot struct {
	seq  int64 // [page.Snapshot.Seq]: later snapshots have larger ones
	text string
}

// The session, not the page actor, owns what it has seen of each page
// (ARCHITECTURE.md §2, law 1: one owner per piece of state). A page is shared by every
// session (ARCHITECTURE.md §4), and what one session was shown is not what another
// was: a diff against another session's snapshot would hide from this one
// the changes that happened in between. The page actor keeps owning the
// tree and its uids; the session keeps only the text it was sent, which
// is immutable and so shares nothing with the actor. s.mu guards the map
// as it guards the rest of the session's state, never across a call.

// lastSnapshot returns the text of the latest default snapshot the session
// received of page id.
func (s *session) lastSnapshot(id int) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen, ok := s.snapshots[id]
	return seen.text, ok
}

// sawSnapshot records a default snapshot of page id the session received,
// unless it already has a later one (two calls on one page may finish in
// either order). A seq of 0 is unknown, taken as the latest.
func (s *session) sawSnapshot(id int, seq int64, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snapshots == nil {
		s.snapshots = map[int]seenSnapshot{}
	}
	if old, ok := s.snapshots[id]; ok && seq != 0 && old.seq > seq {
		return
	}
	if len(text) > maxSeenBytes {
		delete(s.snapshots, id)
		return
	}
	s.snapshots[id] = seenSnapshot{seq: seq, text: text}
	for {
		total, oldest, first := 0, 0, true
		for pid, seen := range s.snapshots {
			total += len(seen.text)
			if pid != id && (first || seen.seq < s.snapshots[oldest].seq) {
				oldest, first = pid, false
			}
		}
		if first || len(s.snapshots) <= maxSeenPages && total <= maxSeenBytes {
			return
		}
		delete(s.snapshots, oldest)
	}
}

// snapshotMax is the bound on a snapshot's text in a reply; 0 for none.
func (s *Server) snapshotMax() int {
	switch n := s.cfg.SnapshotMaxBytes; {
	case n == 0:
		return DefaultSnapshotMaxBytes
	case n < 0:
		return 0
	default:
		return n
	}
}

// showSnapshot puts a snapshot's text in the reply under title (the
// default title when empty), or, when it is over the bound, saves it to a
// file in the session's private directory and puts its outline in its
// place.
func (c *call) showSnapshot(ctx context.Context, title, text string) {
	c.showBounded(ctx, title, text, text)
}

// showBounded is showSnapshot for a text, such as a diff, whose outline is
// that of another: the page's snapshot.
func (c *call) showBounded(ctx context.Context, title, text, outlined string) {
	c.r.snapshotTitle = title
	max := c.s.snapshotMax()
	if max == 0 || len(text) <= max {
		c.r.snapshot = &text
		return
	}
	saved := "it could not be saved"
	path, err := c.sandbox(ctx).TempFile("snapshot.txt", []byte(text))
	if err == nil {
		saved = "saved to " + path
	} else {
		saved += " (" + rootCause(err) + ")"
	}
	what := "The snapshot"
	if title != "" {
		what = "What changed"
	}
	out := fmt.Sprintf("%s is %s, over the %s bound (--snapshot-max-bytes): %s. "+
		"The page's outline follows: landmarks and headings, with their uids and the nodes each holds. "+
		"Ask for the part you need with take_snapshot's uid (a part's root, such as one below), depth (levels shown), "+
		"query (text or /regex/ in names and values) or inViewport.\n", what, size(len(text)), size(max), saved)
	out += snapshot.Outline(outlined, outlineMaxBytes)
	c.r.snapshot = &out
}

// showDiff puts in the reply what changed on page c.pageID since the
// session's previous snapshot of it, full being the page's snapshot now;
// without a previous snapshot, or when the diff is not the smaller of the
// two (snapshot.Whole), the whole snapshot instead.
func (c *call) showDiff(ctx context.Context, full string) {
	prev, ok := c.sess.lastSnapshot(c.pageID)
	if !ok {
		c.r.line("This session has no previous snapshot of this page to compare with: here is the whole snapshot. The next diff compares with it.")
		c.showSnapshot(ctx, "", full)
		return
	}
	diff, st := snapshot.Diff(prev, full)
	if why := snapshot.Whole(diff, full, st); why != "" {
		c.r.line("%s", why)
		c.showSnapshot(ctx, "", full)
		return
	}
	c.showBounded(ctx, "## Changes since your previous snapshot of this page", diff, full)
}

// size writes a byte count as people read it: 812 bytes, 14.2 KB, 2.1 MB.
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n%(1<<10) == 0 && n < 1<<20:
		return fmt.Sprintf("%d KB", n>>10)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
