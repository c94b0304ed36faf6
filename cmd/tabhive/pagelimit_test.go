package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// TestMaxPagesCountsGivenPageThroughBinary: with --isolate-sessions
// --max-pages-per-session 3, the page a session is given at start counts:
// it may open two more, and a popup a timer opens later is closed, so the
// session never holds a fourth page.
func TestMaxPagesCountsGivenPageThroughBinary(t *testing.T) {
	site := browsertest.Serve(t, browsertest.HTML("Site", `<p>site</p>`)).URL
	in := startHTTP(t, "--isolate-sessions", "--max-pages-per-session", "3")
	cs := in.Client(nil)
	refusal := "This session already has 3 open pages, the most allowed (--max-pages-per-session)."

	text(t, cs, "list_pages", nil) // the page it is given
	// A budget a loaded machine can meet: the default 20 s is an agent's.
	opener := selectedID(t, text(t, cs, "new_page", map[string]any{"url": site + "/", "timeout": 120000}))
	text(t, cs, "new_page", map[string]any{"url": "about:blank", "timeout": 120000})
	if got, isErr := try(t, cs, "new_page", map[string]any{"url": "about:blank", "timeout": 120000}); !isErr || !strings.Contains(got, refusal) {
		t.Errorf("new_page with the given page and two more open = %v %q, want refused", isErr, got)
	}
	replies := text(t, cs, "evaluate_script", map[string]any{"pageId": opener,
		"function": `() => { setTimeout(() => window.open('/popup'), 200); return 'later' }`})
	closed := regexp.MustCompile(`Closed page \d+, a popup opened by a page of this session: the session already had 3 open pages`)
	waitFor(t, "the timer's popup to be closed", func() bool {
		list := text(t, cs, "list_pages", nil)
		if n := len(pageIDs(list)); n > 3 {
			t.Fatalf("the session holds %d pages with --max-pages-per-session 3:\n%s", n, list)
		}
		replies += "\n" + list
		return closed.MatchString(replies)
	})
}
