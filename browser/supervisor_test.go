package browser_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/target"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/launch"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/input"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

func newSupervisor(t *testing.T) *browser.Supervisor {
	t.Helper()
	exe := browsertest.Executable(t)
	s := browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
	return s
}

// ctx bounds a step of a test; each test's first step launches its own
// Chromium, which several tests do at once: generous for a loaded machine.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestLaunchListOpenClose(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t)
	pages, err := s.Pages(ctx(t))
	if err != nil {
		t.Fatalf("Pages = %v", err)
	}
	if len(pages) != 1 || pages[0].URL != "about:blank" || pages[0].ID != 1 {
		t.Fatalf("Pages after launch = %+v, want one about:blank page with id 1", pages)
	}
	if err := s.ClosePage(ctx(t), pages[0].ID); !errors.Is(err, browser.ErrLastPage) {
		t.Fatalf("ClosePage(last) = %v, want ErrLastPage", err)
	}
	info, a, err := s.NewPage(ctx(t), browser.NewPageOptions{})
	if err != nil {
		t.Fatalf("NewPage = %v", err)
	}
	if info.ID != 2 || a.ID() != 2 {
		t.Fatalf("NewPage id = %d (actor %d), want 2", info.ID, a.ID())
	}
	got, err := s.Page(ctx(t), 2)
	if err != nil || got != a {
		t.Fatalf("Page(2) = %v, %v, want the new page's actor", got, err)
	}
	if err := s.ClosePage(ctx(t), 2); err != nil {
		t.Fatalf("ClosePage(2) = %v", err)
	}
	if _, err := s.Page(ctx(t), 2); !errors.Is(err, browser.ErrNoPage) {
		t.Fatalf("Page(closed) = %v, want ErrNoPage", err)
	}
	select {
	case <-a.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("closed page's actor did not stop")
	}
	// Ids are never reused.
	info, _, err = s.NewPage(ctx(t), browser.NewPageOptions{})
	if err != nil || info.ID != 3 {
		t.Fatalf("NewPage after a close = %+v, %v, want id 3", info, err)
	}
	if _, err := s.Page(ctx(t), 99); !errors.Is(err, browser.ErrNoPage) {
		t.Fatalf("Page(99) = %v, want ErrNoPage", err)
	}
}

// TestPopupGetsItsOwnActor: a tab a page opens itself (window.open) is
// registered with the next id and can be driven at once.
func TestPopupGetsItsOwnActor(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t)
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Opener", `<button onclick="window.open('/popup')">Open</button>`))
	mux.Handle("/popup", browsertest.HTML("Popup", `<p>I am the popup</p>`))
	srv := browsertest.Serve(t, mux)

	a, err := s.Page(ctx(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	snap, err := axsnapshot.Take(ctx(t), a, false)
	if err != nil {
		t.Fatal(err)
	}
	uid := strings.Fields(snap.Text[strings.Index(snap.Text, `button "Open"`)-8:])[0]
	uid = strings.TrimPrefix(uid, "uid=")
	if _, err := input.Click(ctx(t), a, uid, false, page.InputOptions{}); err != nil {
		t.Fatalf("Click = %v", err)
	}
	var popup browser.PageInfo
	testwait.Poll(testwait.Timeout, func() bool {
		pages, _ := s.Pages(ctx(t))
		if len(pages) == 2 && strings.HasSuffix(pages[1].URL, "/popup") {
			popup = pages[1]
			return true
		}
		return false
	})
	if popup.ID != 2 {
		pages, _ := s.Pages(ctx(t))
		t.Fatalf("popup not registered as page 2: %+v", pages)
	}
	pa, err := s.Page(ctx(t), popup.ID)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := axsnapshot.Take(ctx(t), pa, false)
	if err != nil || !strings.Contains(ps.Text, "I am the popup") {
		t.Fatalf("popup snapshot = %q, %v", ps.Text, err)
	}
}

// TestOpenPage: OpenPage reports the new tab before loading it, and a page
// list made as soon as it returns shows the loaded page's URL and title, as
// one made right after a navigation does. A page that cannot be loaded has
// its tab closed again.
func TestOpenPage(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t)
	mux := http.NewServeMux()
	mux.Handle("/a", browsertest.HTML("Page A", `<p>A</p>`))
	mux.Handle("/b", browsertest.HTML("Page B", `<p>B</p>`))
	srv := browsertest.Serve(t, mux)
	listed := func(id int) (browser.PageInfo, bool) {
		t.Helper()
		pages, err := s.Pages(ctx(t))
		if err != nil {
			t.Fatalf("Pages = %v", err)
		}
		for _, p := range pages {
			if p.ID == id {
				return p, true
			}
		}
		return browser.PageInfo{}, false
	}

	var opened []int
	info, err := s.OpenPage(ctx(t), srv.URL+"/a", browser.OpenPageOptions{Opened: func(id int) { opened = append(opened, id) }})
	if err != nil {
		t.Fatalf("OpenPage = %v", err)
	}
	if info.ID != 2 || len(opened) != 1 || opened[0] != 2 {
		t.Fatalf("OpenPage = page %d, Opened called with %v; want page 2, [2]", info.ID, opened)
	}
	if p, _ := listed(2); p.URL != srv.URL+"/a" || p.Title != "Page A" {
		t.Errorf("page list right after OpenPage: %q %q, want %q %q", p.URL, p.Title, srv.URL+"/a", "Page A")
	}

	a, err := s.Page(ctx(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: srv.URL + "/b"}); err != nil {
		t.Fatal(err)
	}
	if p, _ := listed(2); p.URL != srv.URL+"/b" || p.Title != "Page B" {
		t.Errorf("page list right after Navigate: %q %q, want %q %q", p.URL, p.Title, srv.URL+"/b", "Page B")
	}

	opened = nil
	_, err = s.OpenPage(ctx(t), "http://127.0.0.1:1/", browser.OpenPageOptions{Opened: func(id int) { opened = append(opened, id) }})
	var ne *page.NavigationError
	if !errors.As(err, &ne) {
		t.Fatalf("OpenPage(unloadable) = %v, want a *page.NavigationError", err)
	}
	if len(opened) != 1 || opened[0] != 3 {
		t.Fatalf("OpenPage(unloadable) called Opened with %v, want [3]", opened)
	}
	if _, ok := listed(3); ok {
		t.Error("the tab of a page that could not load is still open")
	}
}

func TestMissingBrowser(t *testing.T) {
	t.Parallel()
	s := browser.New(browser.Config{ExecutablePath: "/nonexistent/chromium", Headless: true, Isolated: true})
	defer s.Close()
	_, err := s.Pages(ctx(t))
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/chromium") {
		t.Fatalf("Pages with a missing binary = %v, want an error naming it", err)
	}
}

func TestNoBrowserOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s := browser.New(browser.Config{Headless: true, Isolated: true})
	defer s.Close()
	if _, err := s.Pages(ctx(t)); !errors.Is(err, browser.ErrBrowserNotFound) {
		t.Fatalf("Pages with no browser on PATH = %v, want ErrBrowserNotFound", err)
	}
}

// TestConnectOnlyDisconnects: a browser we connected to (--ws-endpoint,
// --browser-url) is left running, tabs and all, when the supervisor closes
// (ARCHITECTURE.md §2, law 9).
func TestConnectOnlyDisconnects(t *testing.T) {
	t.Parallel()
	exe := browsertest.Executable(t)
	proc, err := launch.Start(ctx(t), launch.Options{ExecutablePath: exe, Headless: true, DebuggingPort: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	ws := proc.WebSocketURL()
	httpURL := "http://" + strings.TrimPrefix(ws[:strings.Index(ws, "/devtools/")], "ws://")

	for _, cfg := range []browser.Config{{WSEndpoint: ws}, {BrowserURL: httpURL}} {
		s := browser.New(cfg)
		pages, err := s.Pages(ctx(t))
		if err != nil {
			t.Fatalf("Pages(%+v) = %v", cfg, err)
		}
		if len(pages) == 0 {
			t.Fatalf("connected browser lists no pages")
		}
		if _, _, err := s.NewPage(ctx(t), browser.NewPageOptions{}); err != nil {
			t.Fatalf("NewPage = %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
		select {
		case <-proc.Exited():
			t.Fatalf("closing a connected supervisor killed the browser")
		case <-time.After(200 * time.Millisecond):
		}
	}
	// Both tabs the two supervisors opened are still there.
	s := browser.New(browser.Config{WSEndpoint: ws})
	defer s.Close()
	pages, err := s.Pages(ctx(t))
	if err != nil || len(pages) != 3 {
		t.Fatalf("after two connect/disconnect cycles: %d pages, %v; want 3", len(pages), err)
	}
	if pages[0].ID != 1 || pages[2].ID != 3 {
		t.Errorf("a new supervisor numbers pages from 1: %+v", pages)
	}
}

func TestConnectFailure(t *testing.T) {
	t.Parallel()
	s := browser.New(browser.Config{BrowserURL: "http://127.0.0.1:1"})
	defer s.Close()
	_, err := s.Pages(ctx(t))
	if err == nil || !strings.Contains(err.Error(), "could not connect to Chrome at http://127.0.0.1:1") {
		t.Fatalf("Pages with nothing to connect to = %v", err)
	}
}

// TestRelaunchAfterBrowserDeath: when the launched browser dies, the next
// call relaunches it; page ids go on from where they were, never reused.
func TestRelaunchAfterBrowserDeath(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t)
	if _, _, err := s.NewPage(ctx(t), browser.NewPageOptions{}); err != nil {
		t.Fatal(err)
	}
	a, err := s.Page(ctx(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	gen := s.Generation()
	pid := s.BrowserPID()
	if pid == 0 {
		t.Fatal("no browser pid")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The page's actor and the supervisor notice at once: sockets are gone.
	select {
	case <-a.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("page actor still running after its browser died")
	}
	testwait.Until(t, "the supervisor to notice its browser died", func() bool { return s.BrowserPID() == 0 })
	if s.Count() != 0 {
		t.Errorf("the dead browser's pages are still listed: %d", s.Count())
	}
	pages, err := s.Pages(ctx(t))
	if err != nil {
		t.Fatalf("Pages after the browser died = %v", err)
	}
	if s.Generation() != gen+1 || s.BrowserPID() == pid {
		t.Errorf("generation %d pid %d after relaunch, want %d and a new pid", s.Generation(), s.BrowserPID(), gen+1)
	}
	if len(pages) != 1 || pages[0].ID != 3 {
		t.Errorf("pages after relaunch = %+v, want one page with id 3", pages)
	}
	if _, err := s.Page(ctx(t), 2); !errors.Is(err, browser.ErrNoPage) {
		t.Errorf("old page id after relaunch = %v, want ErrNoPage", err)
	}
}

// TestNoBrowserUIRenderers: Chromium preloads WebUI omnibox popups in a
// renderer of their own for every window, at about a second of CPU each;
// the launch flags turn them off.
func TestNoBrowserUIRenderers(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t)
	info, _, err := s.NewPage(ctx(t), browser.NewPageOptions{})
	if err != nil {
		t.Fatalf("NewPage = %v", err)
	}
	conn, err := s.Debugger(ctx(t), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	all, err := conn.Client.Target.GetTargets(ctx(t), &target.GetTargetsArgs{Filter: target.Filter{{}}})
	if err != nil {
		t.Fatalf("GetTargets = %v", err)
	}
	for _, ti := range all.TargetInfos {
		if ti.Type == "browser_ui" {
			t.Errorf("browser UI target %s: Chromium preloads it in every window", ti.URL)
		}
	}
}
