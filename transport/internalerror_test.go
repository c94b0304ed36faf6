package transport_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestHandlerPanicIsOneSentence: a page's handler that panics (here a hook
// that runs on the page's goroutine after evaluate_script) reaches the
// agent as the one internal-error sentence, never as the panic's text or a
// stack; the log has both; and what the sentence says is what happens:
// the page's next call runs on a fresh actor, which has no snapshot, so a
// uid of the old one asks for a new snapshot, and a new one works.
func TestHandlerPanicIsOneSentence(t *testing.T) {
	t.Parallel()
	var armed, slowExit atomic.Bool
	sup := transporttest.Browser(t, browser.Config{PageHooks: page.Hooks{
		EvaluateDone: func(time.Duration, bool) {
			if armed.CompareAndSwap(true, false) {
				panic("deliberate test panic: index out of range")
			}
		},
		// The panicked actor lets go of its tab slowly, as on a loaded
		// machine: the next call must wait for it, not queue on it.
		Exiting: func() {
			if slowExit.CompareAndSwap(true, false) {
				time.Sleep(time.Second)
			}
		},
	}})
	var logs browsertest.LogBuffer
	srv := transporttest.Start(t, transporttest.Options{Browser: sup, Config: transport.Config{Logger: zerolog.New(&logs)}})
	cs := srv.Connect(t)
	base := browsertest.Serve(t, browsertest.HTML("Panic", `<button onclick="this.textContent = 'Clicked'">Press</button>`)).URL
	id := openPage(t, cs, base+"/")
	uid := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Press")

	armed.Store(true)
	slowExit.Store(true)
	text, isErr := call(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => 1"})
	want := fmt.Sprintf("Error: Internal error on page %d (tabhive's log has the details): ", id)
	if !isErr || !strings.HasPrefix(text, want) || !strings.HasSuffix(text, "its actor was restarted without its snapshot, so take a new snapshot, then retry.") {
		t.Errorf("evaluate_script whose handler panicked = %v %q, want the internal-error sentence", isErr, text)
	}
	for _, leak := range []string{"deliberate test panic", "goroutine", "runtime", ".go:"} {
		if strings.Contains(text, leak) {
			t.Errorf("the agent was shown %q:\n%s", leak, text)
		}
	}
	if log := logs.String(); !strings.Contains(log, "deliberate test panic") || !strings.Contains(log, "internal error; the agent was told so in one sentence") {
		t.Errorf("the panic is not in the log:\n%s", log)
	}

	// A fresh actor: it has no snapshot for the old uid to resolve in.
	text, isErr = call(t, cs, "click", map[string]any{"pageId": id, "uid": uid})
	if !isErr || text != fmt.Sprintf("Error: No snapshot found for page %d. Use take_snapshot to capture one.", id) {
		t.Errorf("click with a uid of the snapshot before the restart = %v %q, want to be told to take a new snapshot", isErr, text)
	}
	uid = uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Press")
	must(t, cs, "click", map[string]any{"pageId": id, "uid": uid})
	if got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => document.querySelector('button').textContent"}); !strings.Contains(got, `"Clicked"`) {
		t.Errorf("the page after the restart:\n%s", got)
	}
}
