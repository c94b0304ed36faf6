package browsing

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestRouteRedirectToBlockedThroughBinary: a route
// fulfils a request with a 302 to an origin --blocked-url-pattern refuses.
// The policy holds (the blocked site is never reached), and every path
// says the request was redirected to a URL the policy blocks: a script
// whose fetch of the routed URL rejects uncaught, a navigation to it, and
// a script run on the page right after that navigation (which found
// Chrome's error page coming, and once read "Internal error" or "The frame
// has no script context yet"). A script that catches the rejection gets
// its own result. Three rounds, as the failure came in 2 of 3 runs.
func TestRouteRedirectToBlockedThroughBinary(t *testing.T) {
	var reached atomic.Int32
	blocked := browsertest.ServeOwnSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		fmt.Fprint(w, "secret")
	}))
	site := browsertest.Serve(t, browsertest.HTML("App", `<p>app</p>`))
	in := tabhivetest.StartHTTP(t, "--blocked-url-pattern", blocked.URL+"/*")
	cs := in.Client(nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site.URL + "/"})
	transporttest.Must(t, cs, "route_requests", map[string]any{"urlPattern": "/redir", "action": "fulfill", "status": 302,
		"headers": `{"Location": "` + blocked.URL + `/secret"}`})
	says := "route 1 answered " + site.URL + "/redir with a 302 redirect to " + blocked.URL + "/secret, a URL the URL policy blocks"
	check := func(what, got string) {
		t.Helper()
		if strings.Contains(got, "Internal error") || strings.Contains(got, "script context") {
			t.Errorf("%s: %q", what, got)
		}
	}
	for round := 1; round <= 3; round++ {
		got, isErr := transporttest.Call(t, cs, "evaluate_script", map[string]any{"function": `async () => { const r = await fetch('/redir'); return r.status + ' ' + await r.text() }`})
		check("uncaught fetch", got)
		// The script's error as evaluate_script words it, then the redirect.
		if want := "Failed to fetch. The request was redirected to a URL the policy blocks: " + says; !isErr || !strings.HasPrefix(got, "Error: ") || !strings.Contains(got, want) {
			t.Errorf("round %d: a script whose fetch was redirected to a blocked URL = %v %q, want an error with %q", round, isErr, got, want)
		}
		got, isErr = transporttest.Call(t, cs, "evaluate_script", map[string]any{"function": `async () => { try { await fetch('/redir'); return 'fetched' } catch (e) { return 'rejected: ' + e.message } }`})
		if want := "Script ran on page and returned:\n```json\n\"rejected: Failed to fetch\"\n```"; isErr || got != want {
			t.Errorf("round %d: a script that catches the rejection = %v %q, want its own result %q", round, isErr, got, want)
		}
		got, isErr = transporttest.Call(t, cs, "navigate_page", map[string]any{"url": site.URL + "/redir"})
		check("navigation", got)
		if want := "Error: Unable to navigate in the selected page: net::ERR_BLOCKED_BY_CLIENT at " + site.URL + "/redir. The request was redirected to a URL the policy blocks: " + says; !isErr || !strings.Contains(got, want) {
			t.Errorf("round %d: navigate_page to the routed URL = %v %q, want an error with %q", round, isErr, got, want)
		}
		got, isErr = transporttest.Call(t, cs, "evaluate_script", map[string]any{"function": `() => location.href`})
		check("script after the navigation", got)
		if isErr && !strings.Contains(got, "The page shows Chrome's error page, as its navigation was redirected to a URL the policy blocks: "+says) {
			t.Errorf("round %d: a script run after the navigation = %q, want its result or a sentence naming the redirect", round, got)
		}
		transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site.URL + "/"})
	}
	if n := reached.Load(); n > 0 {
		t.Errorf("the blocked site was reached %d times", n)
	}
}
