// Package testwait is how tests wait for a condition that no event or
// channel announces (a page count, a process gone, a file written): they
// poll it briefly under a generous bound, never sleep a guessed duration.
// Only tests import it; it imports nothing of tabhive, so any package's
// tests can. It starts no goroutines.
package testwait

import (
	"testing"
	"time"
)

// Timeout bounds [Until]: generous, as a machine at load 10 or more runs a
// test's browser late. A passing test waits only as long as its condition
// takes.
const Timeout = time.Minute

// The pause between two looks at a condition starts brief, so that a
// short wait ends soon after its condition holds, and grows to a cap, so
// that a long one (a condition that calls a tool, for minutes) adds little
// load to a machine already slow.
const (
	firstPause = 10 * time.Millisecond
	maxPause   = 100 * time.Millisecond
)

// Poll calls cond until it returns true and reports whether it did within
// timeout. It is for a caller that may not fail the test (a goroutine, a
// leak check), that says more than [Until] when the wait fails, or that
// watches for a non-event over a set window.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for pause := firstPause; !cond(); pause = min(pause*3/2, maxPause) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
	return true
}

// Until calls cond until it returns true, and fails the test, saying it
// timed out waiting for what, if it has not within [Timeout]. cond runs on
// the caller's goroutine, so it may fail the test itself.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Poll(Timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", Timeout, what)
	}
}
