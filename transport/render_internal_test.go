package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/mafredri/cdp/rpcc"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/internal/agenterr"
)

// TestInternalErrorsAreNamedNotShown: an error no rule words and that is
// no sentence of tabhive's own (a panic, a command Chrome refused, a chain
// wrapped on its way up) reaches the agent as one sentence saying what
// happened, never as its Go text, and its chain goes to the log; a
// sentence of tabhive's own, the URL policy's, or a file's reason, reads
// as before.
func TestInternalErrorsAreNamedNotShown(t *testing.T) {
	panicked := &actor.PanicError{Actor: "page 3", Value: errors.New("runtime error: index out of range [5] with length 2"), Stack: []byte("goroutine 7 [running]:\nmain.go:1")}
	refused := fmt.Errorf("emulate network conditions: %w", &rpcc.ResponseError{Code: -32000, Message: "Target closed"})
	walker := fmt.Errorf("snapshot: %w", errors.New("snapshot walker: TypeError: Cannot read properties of null (reading 'nodeType')"))
	policy, err := urlpolicy.New(urlpolicy.Config{Blocked: []string{"*://evil.test/*"}, JavaScript: true})
	if err != nil {
		t.Fatal(err)
	}
	blocked := policy.Navigation("http://evil.test/x")
	file := fmt.Errorf("could not write /w/x.png: %w", &fs.PathError{Op: "open", Path: "/w/x.png", Err: syscall.EACCES})

	tests := []struct {
		name     string
		err      error
		want     string // the agent's sentence, or its start
		internal bool
	}{
		{"panic in a page's handler", panicked, "Internal error on page 3 (tabhive's log has the details): its actor was restarted without its snapshot, so take a new snapshot, then retry.", true},
		{"queued behind the panic", fmt.Errorf("page 3: %w: %w", actor.ErrStopped, panicked), "Internal error on page 3", true},
		{"a command Chrome refused", refused, "Internal error (tabhive's log has the details): the call did not complete; retry, and report it with the log if it happens again.", true},
		{"a script of tabhive's that threw", walker, "Internal error (tabhive's log has the details)", true},
		{"a sentence of tabhive's own", errors.New("This session already has 2 open pages, the most allowed (--max-pages-per-session). Close one with close_page first."), "This session already has 2 open pages", false},
		{"the URL policy's", blocked, blocked.Error(), false},
		{"a file's reason", file, "Could not write /w/x.png: permission denied.", false},
	}
	for _, tt := range tests {
		got, internal := agenterr.Words(tt.err)
		if !strings.HasPrefix(got, tt.want) || internal != tt.internal {
			t.Errorf("%s: words = %q, internal %v; want %q..., internal %v", tt.name, got, internal, tt.want, tt.internal)
		}
		for _, leak := range []string{"runtime error", "rpc error", "TypeError", "goroutine", ".go:", "snapshot walker", "-32000", "open /w"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: the agent reads %q, which shows %q", tt.name, got, leak)
			}
		}

		var log bytes.Buffer
		s := &Server{log: zerolog.New(&log)}
		s.logInternal("take_snapshot", 3, tt.err)
		switch {
		case tt.internal && !strings.Contains(log.String(), jsonEscaped(tt.err.Error())):
			t.Errorf("%s: the log does not have the error's chain %q:\n%s", tt.name, tt.err, log.String())
		case !tt.internal && log.Len() > 0:
			t.Errorf("%s: logged as internal:\n%s", tt.name, log.String())
		}
	}
}

// jsonEscaped is s as it appears inside a JSON string of the log.
func jsonEscaped(s string) string {
	var b bytes.Buffer
	l := zerolog.New(&b)
	l.Log().Str("s", s).Send()
	out := strings.TrimPrefix(strings.TrimSpace(b.String()), `{"s":"`)
	return strings.TrimSuffix(out, `"}`)
}
