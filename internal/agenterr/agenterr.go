// Package agenterr words errors for the agent whose call failed. An error
// with something to tell the agent carries its sentence ([Error]), written
// in the package that declares it; [Words] finds that sentence in an
// error's chain and says in a generic sentence what is left: a call that
// ran out of time or was cancelled, an actor that stopped or is full, and
// an internal error, which the agent is told of without its text (the
// chain goes to the log).
//
// The agent never reads a Go error chain, raw Chrome text or a stack
// trace: only the sentences errors carry, and the text of errors tabhive
// wrote as sentences (the URL policy's, a file's reason).
package agenterr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/browser/urlpolicy"
)

// Error is an error that carries the sentence an agent reads about it:
// what went wrong and, where the agent can do something, what to do next.
type Error interface {
	error
	AgentSentence() string
}

// New returns a sentinel error, compared with errors.Is, whose text is
// text and whose sentence for the agent is sentence.
func New(text, sentence string) error { return &sentinel{text: text, sentence: sentence} }

type sentinel struct{ text, sentence string }

func (e *sentinel) Error() string         { return e.text }
func (e *sentinel) AgentSentence() string { return e.sentence }

// Sentence returns the sentence of the first error in err's chain that
// carries one, and whether there was one. An error of a type of its own
// speaks before a sentinel made by [New], wherever they stand in the
// chain: the type says what happened, the sentinel only in which state it
// left the page (a navigation that failed as the renderer crashed is told
// as the navigation's failure).
func Sentence(err error) (string, bool) {
	if e := find(err, func(e Error) bool { _, s := e.(*sentinel); return !s }); e != nil {
		return e.AgentSentence(), true
	}
	if e := find(err, func(Error) bool { return true }); e != nil {
		return e.AgentSentence(), true
	}
	return "", false
}

// find returns the first error in err's chain, depth first as errors.As
// walks it, that carries a sentence and that want accepts.
func find(err error, want func(Error) bool) Error {
	for err != nil {
		if e, ok := err.(Error); ok && want(e) {
			return e
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				if e := find(inner, want); e != nil {
					return e
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// Words turns err into the one sentence the agent reads, and reports
// whether err was internal (see [IsInternal]), or its sentence stands in
// for text the agent must not read ([Hide]): the caller logs such an
// error's chain, which the sentence does not show.
func Words(err error) (sentence string, internal bool) {
	if _, ok := as[*actor.PanicError](err); ok {
		return internalSentence(err), true
	}
	if s, ok := Sentence(err); ok {
		_, hides := as[*hidden](err)
		return s, hides
	}
	switch {
	case errors.Is(err, actor.ErrStopped):
		// Why the actor stopped, when the chain says more than that it
		// did, is for the log: the stop cause may be Chrome's text.
		return "The page went away while the call ran (it stopped taking calls). Call list_pages to see open pages.", RootCause(err) != actor.ErrStopped.Error()
	case errors.Is(err, actor.ErrBusy):
		return "The page has too many calls queued; wait for some to finish and retry.", false
	case errors.Is(err, context.Canceled):
		return "The call was cancelled.", false
	case errors.Is(err, context.DeadlineExceeded):
		return "The call ran out of time.", false
	}
	if IsInternal(err) {
		return internalSentence(err), true
	}
	return OwnSentence(err), false
}

// IsInternal reports whether err, which carries no sentence, is an error
// of tabhive's machinery or the browser's and no sentence of its own: a
// handler that panicked, a command Chrome refused, or a chain of errors
// wrapped on their way up (a script of tabhive's that threw in the page,
// a reply that did not decode). The agent reads a generic sentence; the
// chain goes to the log.
func IsInternal(err error) bool {
	if _, ok := as[*actor.PanicError](err); ok {
		return true
	}
	if _, ok := as[*rpcc.ResponseError](err); ok {
		return true
	}
	if errors.Is(err, urlpolicy.ErrBlocked) {
		return false // the URL policy's sentence
	}
	if _, ok := as[*fs.PathError](err); ok {
		return false // a file the agent named: OwnSentence words it
	}
	switch err.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		return true
	}
	return false
}

// internalSentence says in one sentence what an internal error did to the
// call, without the error itself.
func internalSentence(err error) string {
	if pe, ok := as[*actor.PanicError](err); ok && strings.HasPrefix(pe.Actor, "page ") {
		// The supervisor starts a fresh actor for the tab on its next
		// call; the tab itself is left as it was.
		return fmt.Sprintf("Internal error on %s (tabhive's log has the details): its actor was restarted without its snapshot, so take a new snapshot, then retry.", pe.Actor)
	}
	return "Internal error (tabhive's log has the details): the call did not complete; retry, and report it with the log if it happens again."
}

// OwnSentence is the text of an error made as a sentence for the agent,
// capitalized and ended with a full stop:
// by tabhive's own code, or the URL policy's. A file error keeps its
// outer sentence and the system's reason, not the call that failed
// ("could not write /x: permission denied").
func OwnSentence(err error) string {
	msg := err.Error()
	if pe, ok := as[*fs.PathError](err); ok && strings.HasSuffix(msg, pe.Error()) {
		msg = strings.TrimSuffix(msg, pe.Error()) + pe.Err.Error()
	}
	return Period(Capitalize(msg))
}

// Period ends a sentence with a full stop if it has no final punctuation.
func Period(s string) string {
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// Capitalize returns s with its first letter in upper case.
func Capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Hide returns an error whose sentence for the agent is sentence, standing
// in for err, whose text is machinery's (see [Reason]): [Words] reports it
// internal, so that its caller logs err's chain.
func Hide(sentence string, err error) error { return &hidden{sentence: sentence, err: err} }

type hidden struct {
	sentence string
	err      error
}

func (e *hidden) Error() string         { return e.err.Error() }
func (e *hidden) Unwrap() error         { return e.err }
func (e *hidden) AgentSentence() string { return e.sentence }

// Reason returns the innermost message of err when a person can read it
// as the reason something failed: one tabhive wrote, or the system's (no
// such file or directory, permission denied). It reports false when err's
// text is machinery's: a command Chrome refused, the channel to Chrome
// (rpcc, cdp), a decoder (json), or text holding JSON; the caller then
// says in a sentence of its own what failed, and logs err ([Hide]).
func Reason(err error) (string, bool) {
	if _, ok := as[*rpcc.ResponseError](err); ok {
		return "", false
	}
	if _, ok := as[*json.SyntaxError](err); ok {
		return "", false
	}
	if _, ok := as[*json.UnmarshalTypeError](err); ok {
		return "", false
	}
	reason := RootCause(err)
	for _, mark := range []string{"rpcc:", "cdp.", "json:", "websocket:", "{"} {
		if strings.Contains(reason, mark) {
			return "", false
		}
	}
	return reason, true
}

// Unreadable is the error of a file the call could not read: format's
// sentence, whose last %s takes the system's reason (no such file or
// directory, permission denied). A reason that is not one a person reads
// (see [Reason]) goes to the log, and the sentence says to check
// the file instead.
func Unreadable(err error, format, path string) error {
	if reason, ok := Reason(err); ok {
		return fmt.Errorf(format, path, reason)
	}
	instead := fmt.Sprintf(format, path, "it could not be read (tabhive's log has why); check that it is a readable file, then retry")
	return Hide(Period(Capitalize(instead)), err)
}

// RootCause is the innermost error's message: the reason, without the
// chain of calls it came through. Use it as is only on errors tabhive
// words all the way down (a pattern's compiler); see [Reason] otherwise.
func RootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// as is errors.As returning the target.
func as[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
