package transport

import (
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser"
)

// TestServerSeenSnapshotsBounded: beside each session's own bound, what
// all sessions keep for diffs together is bounded too (64 MiB), the
// oldest snapshot forgotten first whichever session it is of, the one just
// received kept. Eight sessions each within their own bound (two pages of
// 16 MiB) would otherwise keep 256 MiB.
func TestServerSeenSnapshotsBounded(t *testing.T) {
	const serverBound = 64 << 20
	sup := browser.New(browser.Config{ExecutablePath: "/nonexistent/chromium"}) // never started
	t.Cleanup(func() { sup.Close() })
	s := New(Config{}, sup)
	t.Cleanup(s.Close)
	big := strings.Repeat("x", 16<<20) // one backing array: no real memory
	var sessions []*session
	for i := range 8 {
		sess := s.newSession(nil)
		sessions = append(sessions, sess)
		for page := 1; page <= 2; page++ {
			sess.sawSnapshot(page, int64(10*i+page), big)
		}
	}
	total := 0
	for _, sess := range sessions {
		for _, seen := range sess.snapshots {
			total += len(seen.text)
		}
	}
	if total > serverBound {
		t.Errorf("the sessions keep %d MiB for diffs together, over the server's %d MiB", total>>20, serverBound>>20)
	}
	last := sessions[len(sessions)-1]
	if _, ok := last.lastSnapshot(2); !ok {
		t.Error("the snapshot just received was forgotten")
	}
	if _, ok := sessions[0].lastSnapshot(1); ok {
		t.Error("the oldest snapshot, of another session, was kept")
	}
}

// TestSeenLedgerSessionEnd: a session's snapshots leave the server's
// count when it ends, and a snapshot replaced by a later one of the same
// page is counted once.
func TestSeenLedgerSessionEnd(t *testing.T) {
	l := newSeenLedger(maxServerSeenBytes)
	a, b := &session{ledger: l}, &session{ledger: l}
	a.sawSnapshot(1, 1, "aaaa")
	a.sawSnapshot(1, 2, "aaaaaa")
	b.sawSnapshot(1, 1, "bb")
	if got := l.bytes(); got != 8 {
		t.Errorf("ledger counts %d bytes, want 8", got)
	}
	l.dropSession(a)
	if got := l.bytes(); got != 2 {
		t.Errorf("after session a ended: %d bytes, want 2", got)
	}
}
