package agenterr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mafredri/cdp/rpcc"

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
		{"a stopped actor", fmt.Errorf("page 1: %w", actor.ErrStopped), "The page went away while the call ran (it stopped taking calls). Call list_pages to see open pages.", false},
		{"a stopped actor, Chrome's text why", fmt.Errorf("page 1: %w: %w", actor.ErrStopped, errors.New("rpcc: the connection is closing")), "The page went away while the call ran (it stopped taking calls). Call list_pages to see open pages.", true},
		{"a sentence standing in for machinery's text", fmt.Errorf("read: %w", Hide("The file could not be read.", errors.New("json: cannot unmarshal"))), "The file could not be read.", true},
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
	for _, tt := range tests {
		for _, leak := range []string{"rpcc:", "cdp.", "json:", "{"} {
			if got, _ := Words(tt.err); strings.Contains(got, leak) {
				t.Errorf("%s: the agent reads %q, which shows %q", tt.name, got, leak)
			}
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", gone), gone) {
		t.Error("a sentinel made by New does not match itself through errors.Is")
	}
}

// Reason gives the innermost message when a person reads it as a reason,
// and refuses Chrome's and the channel's text and a decoder's.
func TestReason(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
		ok   bool
	}{
		{fmt.Errorf("read /w/x.json: %w", errors.New("no such file or directory")), "no such file or directory", true},
		{fmt.Errorf("click: %w", errors.New("the element did not become interactive")), "the element did not become interactive", true},
		{fmt.Errorf("cdp.Input: DispatchMouseEvent: %w", errors.New("rpcc: the connection is closing")), "", false},
		{fmt.Errorf("box: %w", &rpcc.ResponseError{Code: -32000, Message: "Could not compute box model."}), "", false},
		{fmt.Errorf("decode: %w", errors.New(`json: cannot unmarshal string into Go value of type int`)), "", false},
		{errors.New(`unexpected reply {"id":3}`), "", false},
	} {
		got, ok := Reason(tt.err)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Reason(%q) = %q, %v; want %q, %v", tt.err, got, ok, tt.want, tt.ok)
		}
	}
}
