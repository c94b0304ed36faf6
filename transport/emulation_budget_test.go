package transport_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// TestEmulatedNetworkStretchesTheBudget: under Slow 3G a navigation may
// take 100 s by default (10 s × 10); a page that answers after 21 s, past
// the unemulated 20 s budget, still loads.
func TestEmulatedNetworkStretchesTheBudget(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Start", `<p>start</p>`))
	mux.Handle("/slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(21 * time.Second)
		browsertest.HTML("Slow", `<p>slow page</p>`).ServeHTTP(w, r)
	}))
	base := browsertest.Serve(t, mux).URL
	cs := inMemory(t)
	id := openPage(t, cs, base+"/")
	must(t, cs, "emulate", map[string]any{"pageId": id, "networkConditions": "Slow 3G"})
	start := time.Now()
	// timeout 0: the default, which the emulation stretches (the test
	// helpers give a navigation that names none a longer one).
	text, isErr := call(t, cs, "navigate_page", map[string]any{"pageId": id, "url": base + "/slow", "timeout": 0})
	if isErr || !strings.HasPrefix(text, "Successfully navigated to "+base+"/slow.") {
		t.Errorf("navigate_page under Slow 3G after %v:\n%s", time.Since(start), text)
	}
}
