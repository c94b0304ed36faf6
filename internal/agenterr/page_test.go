package agenterr_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
)

// An action that failed in Chrome reads as a sentence, without Chrome's
// or the channel's text; one that failed for a reason tabhive wrote keeps
// it.
func TestInteractErrorHidesChromeText(t *testing.T) {
	for _, tt := range []struct {
		cause error
		want  string
	}{
		{fmt.Errorf("cdp.Input: DispatchMouseEvent: %w", errors.New("rpcc: the connection is closing")), "Cause: Chrome did not carry out the action's commands (tabhive's log has its answer); take a snapshot to see the page, then retry"},
		{fmt.Errorf("box: %w", &rpcc.ResponseError{Code: -32000, Message: "Could not compute box model."}), "Cause: Chrome did not carry out"},
		{errors.New("the element did not become interactive"), "Cause: the element did not become interactive"},
	} {
		got, internal := agenterr.Words(fmt.Errorf("click: %w", &page.InteractError{UID: "1_4", Cause: tt.cause}))
		if !strings.HasPrefix(got, "Failed to interact with the element with uid 1_4.") || !strings.Contains(got, tt.want) || internal {
			t.Errorf("cause %q: the agent reads %q (internal %v), want it to hold %q", tt.cause, got, internal, tt.want)
		}
		for _, leak := range []string{"rpcc:", "cdp.", "-32000", "box model"} {
			if strings.Contains(got, leak) {
				t.Errorf("cause %q: the agent reads %q, which shows %q", tt.cause, got, leak)
			}
		}
	}
}
