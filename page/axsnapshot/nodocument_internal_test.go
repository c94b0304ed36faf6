package axsnapshot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/internal/agenterr"
)

// A walk that finds no document is an error the agent reads as one
// sentence telling it what to do, never an empty snapshot section.
func TestNoDocumentIsASentence(t *testing.T) {
	reason, internal := agenterr.Words(fmt.Errorf("snapshot: %w", errNoDocument))
	if internal {
		t.Fatalf("errNoDocument reads as an internal error: %q", reason)
	}
	if strings.Count(reason, ". ") != 1 || !strings.HasSuffix(reason, "Call take_snapshot again.") {
		t.Errorf("sentence = %q, want what happened and what to do next", reason)
	}
}
