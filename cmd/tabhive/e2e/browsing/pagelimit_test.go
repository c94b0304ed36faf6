package browsing

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestMaxPagesCountsGivenPageThroughBinary: with --isolate-sessions
// --max-pages-per-session 3, the page a session is given at start counts:
// it may open two more, and a popup a timer opens later is closed, so the
// session never holds a fourth page.
func TestMaxPagesCountsGivenPageThroughBinary(t *testing.T) {
	site := browsertest.Serve(t, browsertest.HTML("Site", `<p>site</p>`)).URL
	in := tabhivetest.StartHTTP(t, "--isolate-sessions", "--max-pages-per-session", "3")
	cs := in.Client(nil)
	refusal := "This session already has 3 open pages, the most allowed (--max-pages-per-session)."

	transporttest.Must(t, cs, "list_pages", nil) // the page it is given
	// A budget a loaded machine can meet: the default 20 s is an agent's.
	opener := selectedID(t, transporttest.Must(t, cs, "new_page", map[string]any{"url": site + "/", "timeout": 120000}))
	transporttest.Must(t, cs, "new_page", map[string]any{"url": "about:blank", "timeout": 120000})
	if got, isErr := transporttest.Call(t, cs, "new_page", map[string]any{"url": "about:blank", "timeout": 120000}); !isErr || !strings.Contains(got, refusal) {
		t.Errorf("new_page with the given page and two more open = %v %q, want refused", isErr, got)
	}
	replies := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": opener,
		"function": `() => { setTimeout(() => window.open('/popup'), 200); return 'later' }`})
	closed := regexp.MustCompile(`Closed page \d+, a popup opened by a page of this session: the session already had 3 open pages`)
	testwait.Until(t, "the timer's popup to be closed", func() bool {
		list := transporttest.Must(t, cs, "list_pages", nil)
		if n := len(pageIDs(list)); n > 3 {
			t.Fatalf("the session holds %d pages with --max-pages-per-session 3:\n%s", n, list)
		}
		replies += "\n" + list
		return closed.MatchString(replies)
	})
}
