package browsing

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestBlockedLoopbackAliasesThroughBinary: --blocked-url-pattern naming
// 127.0.0.1 and a port also stops the other spellings of the machine on
// that port, whether the agent asks for them or a page does. The witness
// listens on every address, so each spelling would reach it.
func TestBlockedLoopbackAliasesThroughBinary(t *testing.T) {
	witness := tabhivetest.NewWitness(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	port := witness.Port

	var aliases []string
	for _, h := range []string{"localhost", "LOCALHOST", "localhost.", "x.localhost", "0.0.0.0", "0", "[::ffff:127.0.0.1]", "127.0.0.2", "127.1", "[::1]"} {
		aliases = append(aliases, fmt.Sprintf("http://%s:%d/alias", h, port))
	}
	list := `["` + strings.Join(aliases, `","`) + `"]`
	page := browsertest.HTML("Page", `<script>
Promise.allSettled(`+list+`.map(u => fetch(u, {mode: 'no-cors'}))).finally(() => fetch('/done'))</script>`)
	done := make(chan struct{})
	var once sync.Once
	pageSite := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/done" {
			once.Do(func() { close(done) })
		}
		page.ServeHTTP(w, r)
	}))

	pattern := fmt.Sprintf("*://127.0.0.1:%d/*", port)
	in := tabhivetest.StartHTTP(t, "--blocked-url-pattern", pattern)
	cs := in.Client(nil)
	for _, u := range aliases {
		got, isErr := transporttest.Call(t, cs, "navigate_page", map[string]any{"url": u})
		if !isErr || !strings.Contains(got, "matches --blocked-url-pattern") {
			t.Errorf("navigate_page %s = %v %q, want refused by the pattern", u, isErr, got)
		}
	}
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": pageSite.URL + "/", "timeout": 60000})
	tabhivetest.WaitClosed(t, "the page's fetches", done)
	if seen := witness.Seen(); len(seen) > 0 {
		slices.Sort(seen)
		t.Errorf("--blocked-url-pattern %s: the machine was reached on that port as %v", pattern, seen)
	}
}
