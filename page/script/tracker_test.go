package script_test

// Scripts on a page whose own scripts broke the built-ins a tracker and
// evaluate_script's wrapper use (page/internal/sabotage).

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	cdppage "github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/internal/sabotage"
	"github.com/tabhive/tabhive/page/pagetest"
	"github.com/tabhive/tabhive/page/script"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// longCtx is a call's context for these tests: a minute at most,
// cancelled when the test ends.
func longCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// predating opens a tab on url before any actor attaches, so that its
// document has no tracker from its start, then starts an actor on it.
func predating(t *testing.T, url string) *page.Actor {
	t.Helper()
	tab := browsertest.Chromium(t).NewTab(t)
	ctx := longCtx(t)
	conn, err := tab.Attach(ctx, cdpconn.Options{Keep: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Client.Page.Navigate(ctx, cdppage.NewNavigateArgs(url)); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, url+" to load", func() bool {
		r, err := conn.Client.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(`location.href + ' ' + document.readyState`).SetReturnByValue(true))
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Result.Value) == `"`+url+` complete"`
	})
	conn.Close()
	a := page.Start(page.Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	t.Cleanup(func() { a.Stop(nil) })
	return a
}

// TestEvaluateLateOnSabotagedPage: in a document that predates the actor,
// whose scripts deleted MessageChannel and replaced MutationObserver,
// Response and JSON.stringify, a click returns after a short window and
// says the page could not be followed; evaluate_script says in words that
// its result could not be read. The click used to be retried every second
// until its deadline and reported a success; evaluate_script answered
// with a Go decoding error.
func TestEvaluateLateOnSabotagedPage(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Sabotage", sabotage.HTML))
	a := predating(t, site.URL+"/")
	ctx := longCtx(t)
	s, err := axsnapshot.Take(ctx, a, false)
	if err != nil {
		t.Fatal(err)
	}
	// The old retry ran to the click's deadline: the click must return
	// before it passes (the deadline is the event; 10 s is generous for a
	// loaded machine, where the short window takes a second or two).
	clickCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := input.Click(clickCtx, a, transporttest.UIDOf(t, s.Text, "button", "Go"), false, page.InputOptions{})
	if err != nil {
		t.Fatalf("click = %v", err)
	}
	if clickCtx.Err() != nil {
		t.Errorf("the click ran to its deadline")
	}
	if !strings.Contains(res.Unfollowed, "no observers here") {
		t.Errorf("click on a page that cannot be followed: Unfollowed = %q", res.Unfollowed)
	}
	_, err = script.Evaluate(ctx, a, script.Script{Source: `() => 1`})
	if !errors.Is(err, script.ErrUnreadable) {
		t.Errorf("evaluate on a page whose JSON.stringify returns an object = %v, want %v", err, script.ErrUnreadable)
	}
}

// TestEvaluateAtDocumentStart: the sabotaging page opened by the actor has
// the tracker from its start, so evaluate_script serialises with the
// browser's own JSON.stringify, even once the page deleted JSON (the
// tracker named the global JSON when it serialised, which then threw).
func TestEvaluateAtDocumentStart(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Sabotage", sabotage.HTML))
	a := pagetest.Open(t, site.URL+"/")
	ctx := longCtx(t)
	r, err := script.Evaluate(ctx, a, script.Script{Source: `() => ({ one: 1 })`})
	if err != nil || r.JSON != `{"one":1}` {
		t.Errorf("evaluate = %q, %v", r.JSON, err)
	}
	if _, err := script.Evaluate(ctx, a, script.Script{Source: `() => { delete window.JSON; }`}); err != nil {
		t.Fatal(err)
	}
	r, err = script.Evaluate(ctx, a, script.Script{Source: `() => ({ two: 2 })`})
	if err != nil || r.JSON != `{"two":2}` {
		t.Errorf("evaluate after the page deleted JSON = %q, %v", r.JSON, err)
	}
}
