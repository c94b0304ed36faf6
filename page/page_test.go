package page_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/axsnapshot/axsnapshottest"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/pagetest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// open starts a page actor on a fresh tab and navigates it to url.
func open(t *testing.T, url string) *page.Actor {
	t.Helper()
	return pagetest.Open(t, url)
}

func ctx(t *testing.T) context.Context { return pagetest.Ctx(t) }

// serve serves routes (path → handler) for the test.
func serve(t *testing.T, routes map[string]http.Handler) string { return pagetest.Serve(t, routes) }

// snap takes a snapshot of a and returns its text.
func snap(t *testing.T, a *page.Actor) string { return axsnapshottest.Text(t, a) }

// uidOf finds the uid of the line with role and name in a snapshot.
func uidOf(t *testing.T, text, role, name string) string {
	t.Helper()
	return pagetest.UIDOf(t, text, role, name)
}

func TestSnapshotFormatAndStableUIDs(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("My test page", `<h1>Title</h1><button>Click me</button>
<input id=e aria-label=Email value=mcp><button disabled>Off</button>
<div id=more></div>
<script>function add(){ const b = document.createElement('button'); b.textContent='Added'; more.append(b); }</script>`),
	})
	a := open(t, base+"/")
	first := snap(t, a)
	for _, want := range []string{
		`RootWebArea "My test page" url="` + base + `/"`,
		`heading "Title" level="1"`,
		`button "Click me"`,
		`textbox "Email" value="mcp"`,
		`button "Off" disableable disabled`,
	} {
		if !strings.Contains(first, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, first)
		}
	}
	button := uidOf(t, first, "button", "Click me")
	if _, err := input.Click(ctx(t), a, uidOf(t, first, "button", "Off"), false, page.InputOptions{}); err == nil {
		t.Log("clicking a disabled button is allowed, as in a browser")
	}
	second := snap(t, a)
	if got := uidOf(t, second, "button", "Click me"); got != button {
		t.Errorf("uid of an unchanged node changed across snapshots: %s then %s", button, got)
	}
	// A new document gets new uids, and the old uid no longer resolves.
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateReload}); err != nil {
		t.Fatalf("reload: %v", err)
	}
	_, err := input.Click(ctx(t), a, button, false, page.InputOptions{})
	var ue *page.UIDError
	if !errors.As(err, &ue) || !ue.Gone {
		t.Fatalf("Click(old uid after reload) = %v, want UIDError{Gone}", err)
	}
	third := snap(t, a)
	if got := uidOf(t, third, "button", "Click me"); got == button {
		t.Errorf("uid %s survived a reload", got)
	}
	if _, err := input.Click(ctx(t), a, button, false, page.InputOptions{}); !errors.As(err, &ue) || ue.Gone {
		t.Fatalf("Click(uid not in latest snapshot) = %v, want UIDError{Gone: false}", err)
	}
}

func TestNoSnapshotError(t *testing.T) {
	t.Parallel()
	a := open(t, "")
	if _, err := input.Click(ctx(t), a, "1_1", false, page.InputOptions{}); !errors.Is(err, page.ErrNoSnapshot) {
		t.Fatalf("Click before any snapshot = %v, want ErrNoSnapshot", err)
	}
}

// TestClickWaitsForDelayedMutation: the click's effect lands 50 ms later and
// must be in the page when Click returns.
func TestClickWaitsForDelayedMutation(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Delayed", `<button onclick="setTimeout(() => out.textContent = 'Done 1', 50)">Run</button><p id=out></p>`),
	})
	a := open(t, base+"/")
	uid := uidOf(t, snap(t, a), "button", "Run")
	res, err := input.Click(ctx(t), a, uid, false, page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if !strings.Contains(res.Snapshot, `"Done 1"`) {
		t.Fatalf("snapshot right after the click lacks the delayed text:\n%s", res.Snapshot)
	}
	if res.NavigatedTo != "" {
		t.Errorf("NavigatedTo = %q, want none", res.NavigatedTo)
	}
}

// TestClickWaitsForSlowNavigation: a link to a route that answers after
// 300 ms; the click must wait for the new document.
func TestClickWaitsForSlowNavigation(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("A", `<a href="/slow">Go slow</a>`),
		"/slow": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(300 * time.Millisecond) // the latency under test
			browsertest.HTML("Slow", `<p>Slow page loaded</p>`).ServeHTTP(w, r)
		}),
	})
	a := open(t, base+"/")
	uid := uidOf(t, snap(t, a), "link", "Go slow")
	res, err := input.Click(ctx(t), a, uid, false, page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if res.NavigatedTo != base+"/slow" {
		t.Errorf("NavigatedTo = %q, want %q", res.NavigatedTo, base+"/slow")
	}
	if !strings.Contains(res.Snapshot, "Slow page loaded") {
		t.Fatalf("snapshot after the click is not the new page:\n%s", res.Snapshot)
	}
}

// TestClickWaitsForSlowFetch: a search whose results arrive with a 600 ms
// fetch; a fixed quiet window would return the stale page.
func TestClickWaitsForSlowFetch(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Search", `<button onclick="search()">Search</button><ul id=results></ul>
<script>async function search() {
  const r = await fetch('/api/search');
  const items = await r.json();
  for (const it of items) { const li = document.createElement('li'); li.textContent = it; results.append(li); }
}</script>`),
		"/api/search": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(600 * time.Millisecond) // the latency under test
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `["Result one","Result two"]`)
		}),
	})
	a := open(t, base+"/")
	uid := uidOf(t, snap(t, a), "button", "Search")
	start := time.Now()
	res, err := input.Click(ctx(t), a, uid, false, page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if !strings.Contains(res.Snapshot, "Result two") {
		t.Fatalf("click returned after %v before the results rendered:\n%s", time.Since(start), res.Snapshot)
	}
}

func TestPushStateReportsNavigation(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("SPA", `<button onclick="history.pushState({}, '', '/route/two'); view.textContent='Route two'">Go</button><p id=view>Route one</p>`),
	})
	a := open(t, base+"/")
	res, err := input.Click(ctx(t), a, uidOf(t, snap(t, a), "button", "Go"), false, page.InputOptions{})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if res.NavigatedTo != base+"/route/two" {
		t.Fatalf("NavigatedTo = %q, want %q", res.NavigatedTo, base+"/route/two")
	}
}

func TestDialogStallsOnlyItsPage(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Dialogs", `<button onclick="alert('test dialog')">Alert</button><button onclick="out.textContent = prompt('Name?', 'bob')">Prompt</button><p id=out></p>`),
	})
	a := open(t, base+"/")
	b := open(t, base+"/")
	s := snap(t, a)
	// A click that opens an alert returns at once instead of waiting on
	// the paused renderer until its deadline: it must return before the
	// deadline passes (the event; 2 s is generous for a loaded machine).
	clickCtx, cancel := context.WithTimeout(ctx(t), 2*time.Second)
	defer cancel()
	res, err := input.Click(clickCtx, a, uidOf(t, s, "button", "Alert"), false, page.InputOptions{})
	if err != nil {
		t.Fatalf("Click(alert) = %v", err)
	}
	if !res.Dialog || res.State.Dialog == nil || res.State.Dialog.Message != "test dialog" {
		t.Fatalf("Click(alert) = %+v, want the dialog reported", res)
	}
	if clickCtx.Err() != nil {
		t.Errorf("the click that opened an alert ran to its deadline")
	}
	var de *page.DialogError
	if _, err := axsnapshot.Take(ctx(t), a, false); !errors.As(err, &de) {
		t.Fatalf("Snapshot with a dialog open = %v, want DialogError", err)
	}
	// The other page is not affected.
	if _, err := axsnapshot.Take(ctx(t), b, false); err != nil {
		t.Fatalf("other page's snapshot = %v", err)
	}
	if _, err := a.HandleDialog(ctx(t), true, ""); err != nil {
		t.Fatalf("HandleDialog = %v", err)
	}
	if _, err := a.HandleDialog(ctx(t), true, ""); !errors.Is(err, page.ErrNoDialog) {
		t.Fatalf("second HandleDialog = %v, want ErrNoDialog", err)
	}
	s = snap(t, a)
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Prompt"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(prompt) = %v", err)
	}
	if _, err := a.HandleDialog(ctx(t), true, "Ada"); err != nil {
		t.Fatalf("HandleDialog(prompt) = %v", err)
	}
	if got := snap(t, a); !strings.Contains(got, `"Ada"`) {
		t.Errorf("prompt answer not in page:\n%s", got)
	}
}
