// Package pagetest starts page actors for the tests of package page and of
// its capabilities' packages: a fresh tab of the shared test browser
// (browsertest.Chromium), a page actor on it, and the test's call context.
// It holds no goroutines of its own; each actor it starts is stopped when
// its test ends.
package pagetest

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
)

// Open starts a page actor on a fresh tab and navigates it to url, unless
// url is empty.
func Open(t testing.TB, url string) *page.Actor {
	t.Helper()
	b := browsertest.Chromium(t)
	tab := b.NewTab(t)
	a := page.Start(page.Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	if url != "" {
		if _, err := a.Navigate(Ctx(t), page.Navigation{Kind: page.NavigateURL, URL: url}); err != nil {
			t.Fatalf("Navigate(%s) = %v", url, err)
		}
	}
	return a
}

// Ctx is a call's context in a test: 20 s at most, and cancelled when the
// test ends.
func Ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// Serve serves routes (path → handler) for the test and returns the
// server's URL.
func Serve(t *testing.T, routes map[string]http.Handler) string {
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.Handle(p, h)
	}
	return browsertest.Serve(t, mux).URL
}

// UIDOf finds the uid of the line with role (any, if empty) and name in
// a snapshot's text.
func UIDOf(t *testing.T, text, role, name string) string {
	t.Helper()
	prefix := `uid=(\S+) `
	if role != "" {
		prefix += regexp.QuoteMeta(role) + ` `
	}
	m := regexp.MustCompile(prefix + `"` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s %q in snapshot:\n%s", role, name, text)
	}
	return m[1]
}
