package transport

// Snapshots an agent can afford: the bound on a snapshot's size
// in a reply (--snapshot-max-bytes), the outline sent instead, and the
// diff against the session's previous snapshot of a page.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tabhive/tabhive/internal/agenterr"
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

// maxServerSeenBytes bounds what all sessions together keep for diffs:
// 64 MiB of text, the oldest snapshot forgotten first whichever session
// it is of. Each session's own bound (maxSeenBytes) keeps one session
// from taking it all; this one keeps many sessions from multiplying it.
const maxServerSeenBytes = 64 << 20

// seenSnapshot is the latest default snapshot a session received of a page.
type seenSnapshot struct {
	seq  int64 // [page.Snapshot.Seq]: later snapshots have larger ones
	text string
	// stamp orders every snapshot kept by any session of the server, for
	// the server-wide bound: later ones have larger stamps.
	stamp int64
}

// seenLedger counts what the sessions of one server keep for diffs, and
// chooses what to forget when together they keep more than max. It owns
// the accounting only; each session owns its texts. Its mutex guards
// bookkeeping and is never held while a session's is taken: a session
// may call it under its own lock, and it hands back what to forget for
// the caller to tell each session, one at a time.
type seenLedger struct {
	max   int
	clock atomic.Int64 // stamps

	mu      sync.Mutex // guards the fields below
	total   int
	entries map[seenKey]seenEntry
}

type seenKey struct {
	sess *session
	page int
}

type seenEntry struct {
	size  int
	stamp int64
}

// seenVictim is a snapshot the ledger chose to forget.
type seenVictim struct {
	seenKey
	stamp int64
}

func newSeenLedger(max int) *seenLedger {
	return &seenLedger{max: max, entries: map[seenKey]seenEntry{}}
}

// note records that sess keeps a snapshot of page, of size bytes, stamped
// stamp (replacing an older one of the same page), and returns the
// snapshots to forget, oldest first, to bring the total within the
// bound; never the one just noted.
func (l *seenLedger) note(sess *session, page, size int, stamp int64) []seenVictim {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := seenKey{sess, page}
	if old, ok := l.entries[k]; ok {
		if old.stamp > stamp {
			return nil // a later snapshot of the page was noted first
		}
		l.total -= old.size
	}
	l.entries[k] = seenEntry{size: size, stamp: stamp}
	l.total += size
	var victims []seenVictim
	for l.total > l.max {
		var oldest seenKey
		var o seenEntry
		found := false
		for vk, e := range l.entries {
			if vk != k && (!found || e.stamp < o.stamp) {
				oldest, o, found = vk, e, true
			}
		}
		if !found {
			break
		}
		delete(l.entries, oldest)
		l.total -= o.size
		victims = append(victims, seenVictim{oldest, o.stamp})
	}
	return victims
}

// drop forgets sess's snapshot of page if it is the one stamped stamp.
func (l *seenLedger) drop(sess *session, page int, stamp int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := seenKey{sess, page}
	if e, ok := l.entries[k]; ok && e.stamp == stamp {
		delete(l.entries, k)
		l.total -= e.size
	}
}

// dropSession forgets every snapshot of a session that ended.
func (l *seenLedger) dropSession(sess *session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, e := range l.entries {
		if k.sess == sess {
			delete(l.entries, k)
			l.total -= e.size
		}
	}
}

// bytes returns what the sessions keep for diffs together.
func (l *seenLedger) bytes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
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
// either order). A seq of 0 is unknown, taken as the latest. Then the
// session's own bound, and the server's (s.ledger, if any), are kept:
// what they forget is the oldest, here or in another session.
func (s *session) sawSnapshot(id int, seq int64, text string) {
	var stamp int64
	if s.ledger != nil {
		stamp = s.ledger.clock.Add(1)
	}
	if !s.keepSnapshot(id, seq, text, stamp) || s.ledger == nil {
		return
	}
	for _, v := range s.ledger.note(s, id, len(text), stamp) {
		v.sess.forgetSnapshot(v.page, v.stamp)
	}
}

// keepSnapshot is sawSnapshot within the session's own bound, and reports
// whether it kept the snapshot.
func (s *session) keepSnapshot(id int, seq int64, text string, stamp int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snapshots == nil {
		s.snapshots = map[int]seenSnapshot{}
	}
	if old, ok := s.snapshots[id]; ok && seq != 0 && old.seq > seq {
		return false
	}
	if len(text) > maxSeenBytes {
		s.dropLocked(id)
		return false
	}
	if old, ok := s.snapshots[id]; ok && s.ledger != nil {
		s.ledger.drop(s, id, old.stamp)
	}
	s.snapshots[id] = seenSnapshot{seq: seq, text: text, stamp: stamp}
	for {
		total, oldest, first := 0, 0, true
		for pid, seen := range s.snapshots {
			total += len(seen.text)
			if pid != id && (first || seen.seq < s.snapshots[oldest].seq) {
				oldest, first = pid, false
			}
		}
		if first || len(s.snapshots) <= maxSeenPages && total <= maxSeenBytes {
			return true
		}
		s.dropLocked(oldest)
	}
}

// dropLocked forgets the session's snapshot of page id, in the ledger
// too. s.mu is held.
func (s *session) dropLocked(id int) {
	if old, ok := s.snapshots[id]; ok {
		delete(s.snapshots, id)
		if s.ledger != nil {
			s.ledger.drop(s, id, old.stamp)
		}
	}
}

// forgetSnapshot forgets the session's snapshot of page id if it is still
// the one stamped stamp, which the server-wide bound chose to forget (the
// ledger has already forgotten it).
func (s *session) forgetSnapshot(id int, stamp int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seen, ok := s.snapshots[id]; ok && seen.stamp == stamp {
		delete(s.snapshots, id)
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
	} else if reason, ok := agenterr.Reason(err); ok {
		saved += " (" + reason + ")"
	} else {
		c.s.log.Warn().Err(err).Msg("saving a snapshot over the bound")
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
