// Package axsnapshottest takes snapshots of page actors for the tests of
// package page and of the capabilities that act on a snapshot's uids. It
// lives apart from page/pagetest because axsnapshot's own tests use
// pagetest. It holds no goroutines of its own.
package axsnapshottest

import (
	"testing"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/pagetest"
)

// Text takes a snapshot of a, makes it the page's latest, and returns its
// text; the test fails if it cannot.
func Text(t testing.TB, a *page.Actor) string {
	t.Helper()
	s, err := axsnapshot.Take(pagetest.Ctx(t), a, false)
	if err != nil {
		t.Fatalf("Snapshot = %v", err)
	}
	return s.Text
}
