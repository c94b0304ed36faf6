package transport_test

import (
	"testing"

	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestOwnershipFailsClosed: a page id the registry does not list when the
// check is made is refused, not handed to the session. Before the
// browser starts the registry is empty; the check used to let such a
// lookup through, and the supervisor then started the browser
// and returned its first page, which lives in the default context, to an
// isolated session.
func TestOwnershipFailsClosed(t *testing.T) {
	t.Parallel()
	srv := transporttest.Start(t, transporttest.Options{Config: transport.Config{IsolateSessions: true}})
	ctx := ctx(t)

	for id := 1; id <= 3; id++ {
		found, err := transport.LookUpPage(ctx, srv.Server, id, false)
		if !transport.IsNoPage(err) {
			t.Errorf("pageActor(%d) before the browser ran: got an actor %t, error %v; want No page found", id, found, err)
		}
	}
	pages, err := srv.Browser.Pages(ctx)
	if err != nil || len(pages) == 0 {
		t.Fatalf("the browser has no page to try: %v, %v", pages, err)
	}
	for _, p := range pages {
		if _, err := transport.LookUpPage(ctx, srv.Server, p.ID, false); err == nil {
			t.Errorf("an isolated session got page %d of context %q", p.ID, p.Context)
		}
	}
	// A session that shares the browser gets the same pages.
	if _, err := transport.LookUpPage(ctx, srv.Server, pages[0].ID, true); err != nil {
		t.Errorf("a shared session cannot reach page %d: %v", pages[0].ID, err)
	}
}
