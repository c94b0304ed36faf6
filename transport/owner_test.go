package transport

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
)

// TestOwnershipFailsClosed: a page id the registry does not list when the
// check is made is refused, not handed to the session (issue 10, finding
// 5). Before the browser starts the registry is empty; the check used to
// let such a lookup through, and the supervisor then started the browser
// and returned its first page, which lives in the default context, to an
// isolated session.
func TestOwnershipFailsClosed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	exe, err := browsertest.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sup := browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true})
	srv := New(Config{IsolateSessions: true}, sup)
	t.Cleanup(func() { srv.Close(); sup.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	c := &call{s: srv, sess: srv.newSession(nil), r: &reply{}}
	for id := 1; id <= 3; id++ {
		a, err := c.pageActor(ctx, id)
		var np *noPageError
		if !errors.As(err, &np) {
			t.Errorf("pageActor(%d) before the browser ran: got an actor %t, error %v; want No page found", id, a != nil, err)
		}
	}
	pages, err := sup.Pages(ctx)
	if err != nil || len(pages) == 0 {
		t.Fatalf("the browser has no page to try: %v, %v", pages, err)
	}
	for _, p := range pages {
		if _, err := c.pageActor(ctx, p.ID); err == nil {
			t.Errorf("an isolated session got page %d of context %q", p.ID, p.Context)
		}
	}
	// A session that shares the browser gets the same pages.
	shared := &call{s: srv, sess: &session{}, r: &reply{}}
	if _, err := shared.pageActor(ctx, pages[0].ID); err != nil {
		t.Errorf("a shared session cannot reach page %d: %v", pages[0].ID, err)
	}
}
