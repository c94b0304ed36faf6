package agenterr

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tabhive/tabhive/actor"
)

// worded is an error of a type of its own that carries a sentence.
type worded struct {
	say   string
	cause error
}

func (e *worded) Error() string         { return "worded: " + e.say }
func (e *worded) AgentSentence() string { return e.say }
func (e *worded) Unwrap() error         { return e.cause }

// Words finds the sentence an error carries wherever it stands in the
// chain; an error of a type of its own speaks before a sentinel, and an
// outer one before an inner one; what carries none gets the generic
// sentences, and a chain no one worded is internal.
func TestWords(t *testing.T) {
	gone := New("page gone", "The page is gone.")
	inner := &worded{say: "Inner."}
	tests := []struct {
		name     string
		err      error
		want     string
		internal bool
	}{
		{"a sentinel, wrapped", fmt.Errorf("call: %w", gone), "The page is gone.", false},
		{"a type before a sentinel that wraps it", fmt.Errorf("%w: %w", gone, inner), "Inner.", false},
		{"the outer type first", &worded{say: "Outer.", cause: inner}, "Outer.", false},
		{"a stopped actor's cause", fmt.Errorf("page 1: %w: %w", actor.ErrStopped, gone), "The page is gone.", false},
		{"a stopped actor", fmt.Errorf("page 1: %w", actor.ErrStopped), "The page went away while the call ran (actor stopped). Call list_pages to see open pages.", false},
		{"a full actor", fmt.Errorf("page 1: %w", actor.ErrBusy), "The page has too many calls queued; wait for some to finish and retry.", false},
		{"out of time", fmt.Errorf("wait: %w", context.DeadlineExceeded), "The call ran out of time.", false},
		{"a sentence of tabhive's own", errors.New("close one page first"), "Close one page first.", false},
		{"a chain no one worded", fmt.Errorf("decode: %w", errors.New("json: unexpected end")), "Internal error (tabhive's log has the details): the call did not complete; retry, and report it with the log if it happens again.", true},
	}
	for _, tt := range tests {
		got, internal := Words(tt.err)
		if got != tt.want || internal != tt.internal {
			t.Errorf("%s: Words = %q, internal %v; want %q, internal %v", tt.name, got, internal, tt.want, tt.internal)
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", gone), gone) {
		t.Error("a sentinel made by New does not match itself through errors.Is")
	}
}
