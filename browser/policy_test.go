package browser_test

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/script"
)

// refuse is a policy that refuses every URL containing "forbidden", and
// file: URLs.
type refuse struct{}

func (refuse) Intercept() []string { return []string{"*"} }
func (refuse) Request(url string) error {
	if strings.Contains(url, "forbidden") || strings.HasPrefix(url, "file:") {
		return errors.New("refused by the test policy")
	}
	return nil
}

// witness is a test server's record of the paths it was asked for; a
// test waits for a path by the request itself, not by polling.
type witness struct {
	mu     sync.Mutex
	seen   map[string]bool
	awaits map[string]chan struct{} // closed when their path is asked for
}

func newWitness() *witness {
	return &witness{seen: map[string]bool{}, awaits: map[string]chan struct{}{}}
}

// saw records a request for path.
func (w *witness) saw(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[path] = true
	if c, ok := w.awaits[path]; ok {
		close(c)
		delete(w.awaits, path)
	}
}

// asked returns a channel closed once path has been asked for.
func (w *witness) asked(path string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := make(chan struct{})
	if w.seen[path] {
		close(c)
	} else if prev, ok := w.awaits[path]; ok {
		c = prev
	} else {
		w.awaits[path] = c
	}
	return c
}

// paths returns the paths asked for so far.
func (w *witness) paths() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.seen)
}

// The policy holds for every kind of request a page can make, decided by
// the browser for every target: navigations, each hop of a redirect,
// subresources, iframes, fetch, popups, dedicated workers and service
// workers, and file: URLs. The server is the witness: a refused request
// never reaches it.
func TestPolicyHoldsForEveryRequest(t *testing.T) {
	t.Parallel()
	exe := browsertest.Executable(t)
	s := browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true, Policy: refuse{}})
	t.Cleanup(func() { s.Close() })

	seen := newWitness()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		seen.saw(r.URL.Path)
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/forbidden-after-redirect", http.StatusFound)
		case "/worker.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `fetch('/forbidden-from-worker').finally(() => fetch('/worker-done'))`)
		case "/sw.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `self.addEventListener('install', e => e.waitUntil(fetch('/forbidden-from-sw').catch(() => {}).then(() => fetch('/sw-done'))))`)
		case "/frame":
			fmt.Fprint(w, `<script>fetch('/forbidden-from-frame').finally(() => fetch('/frame-done'))</script>`)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>p</title>
<img src="/forbidden-image"><img src="/redirect">
<iframe src="/frame"></iframe><iframe src="/forbidden-frame"></iframe>
<script>
fetch('/forbidden-fetch').catch(() => {});
new Worker('/worker.js');
navigator.serviceWorker.register('/sw.js');
</script>`)
		default:
			fmt.Fprint(w, "ok")
		}
	})
	srv := browsertest.Serve(t, mux)
	_, a, err := s.NewPage(ctx(t), browser.NewPageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: srv.URL + "/"}); err != nil {
		t.Fatalf("Navigate to an allowed page = %v", err)
	}
	// Popups: scripts run with a user gesture, so the popup blocker lets
	// them open, one per gesture.
	for _, u := range []string{"/forbidden-popup", "/popup-done"} {
		if _, err := script.Evaluate(ctx(t), a, script.Script{Source: `() => { window.open('` + u + `') }`}); err != nil {
			t.Fatalf("open popup %s: %v", u, err)
		}
	}
	// The allowed requests that follow the refused ones say when every
	// context has made its attempt.
	deadline := time.After(15 * time.Second)
	for _, done := range []string{"/worker-done", "/frame-done", "/sw-done", "/redirect", "/popup-done"} {
		select {
		case <-seen.asked(done):
		case <-deadline:
			t.Fatalf("%s never requested: the page did not run as the test expects", done)
		}
	}
	_, err = a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: srv.URL + "/forbidden-page"})
	if err == nil || !strings.Contains(err.Error(), "ERR_BLOCKED_BY_CLIENT") {
		t.Errorf("Navigate to a refused page = %v, want net::ERR_BLOCKED_BY_CLIENT", err)
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.html")
	os.WriteFile(secret, []byte("<p>secret</p>"), 0o600)
	_, err = a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: "file://" + secret})
	if err == nil || !strings.Contains(err.Error(), "ERR_BLOCKED_BY_CLIENT") {
		t.Errorf("Navigate to a file: URL = %v, want net::ERR_BLOCKED_BY_CLIENT", err)
	}
	for path := range seen.paths() {
		if strings.Contains(path, "forbidden") {
			t.Errorf("the server was asked for %s, which the policy refuses", path)
		}
	}
}

// TestPolicyHoldsInOutOfProcessFrames: the page actor attaches to
// out-of-process iframes and holds their renderers until it listens
// (oopif.go in package page); the policy still decides every request they make: their
// fetches, their own iframes, their navigations. Their server is the
// witness.
func TestPolicyHoldsInOutOfProcessFrames(t *testing.T) {
	t.Parallel()
	exe := browsertest.Executable(t)
	s := browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true, Policy: refuse{}})
	t.Cleanup(func() { s.Close() })

	seen := newWitness()
	other := browsertest.ServeOwnSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.saw(r.URL.Path)
		switch r.URL.Path {
		case "/frame":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>f</title><a href="/forbidden-navigation">Away</a>
<iframe src="/forbidden-inner-frame"></iframe><img src="/forbidden-image">
<script>fetch('/forbidden-fetch').catch(() => {}).finally(() => fetch('/frame-done'))</script>`)
		default:
			fmt.Fprint(w, "ok")
		}
	}))
	top := browsertest.Serve(t, browsertest.HTML("Top", `<iframe title="Other site" src="`+other.URL+`/frame"></iframe>`))
	_, a, err := s.NewPage(ctx(t), browser.NewPageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: top.URL + "/"}); err != nil {
		t.Fatalf("Navigate to an allowed page = %v", err)
	}
	snap, err := axsnapshot.Take(ctx(t), a, false)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`uid=(\S+) link "Away"`).FindStringSubmatch(snap.Text)
	if m == nil {
		t.Fatalf("the out-of-process frame's link is not in the snapshot:\n%s", snap.Text)
	}
	if _, err := input.Click(ctx(t), a, m[1], false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(link in the frame) = %v", err)
	}
	select {
	case <-seen.asked("/frame-done"):
	case <-time.After(15 * time.Second):
		t.Fatal("/frame-done never requested: the frame did not run as the test expects")
	}
	// The click's navigation is refused: the frame shows Chrome's error
	// page instead of the link.
	var text string
	if !testwait.Poll(testwait.Timeout, func() bool {
		snap, err := axsnapshot.Take(ctx(t), a, false)
		if err != nil {
			t.Fatal(err)
		}
		text = snap.Text
		return !strings.Contains(text, `link "Away"`)
	}) {
		t.Fatalf("the frame never left its document:\n%s", text)
	}
	// The frame's target is the page's, not a page of its own.
	pages, err := s.Pages(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if strings.HasPrefix(p.URL, other.URL) {
			t.Errorf("Pages() lists the out-of-process iframe as a page: %+v", p)
		}
	}
	asked := seen.paths()
	if !asked["/frame"] {
		t.Errorf("the frame itself was never requested")
	}
	for path := range asked {
		if strings.Contains(path, "forbidden") {
			t.Errorf("the server was asked for %s, which the policy refuses", path)
		}
	}
}

// TestPolicyHoldsForSpeculation: speculation rules (prefetch and
// prerender, same-site and cross-site, in the page, in a Speculation-Rules
// header, or added by a script) make no request the policy refuses, and a
// page that then navigates to a refused URL it speculated on does not show
// it. The browser makes those requests outside request interception, so
// it must make none: a launched browser has speculative loading off.
func TestPolicyHoldsForSpeculation(t *testing.T) {
	t.Parallel()
	exe := browsertest.Executable(t)
	s := browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true, Policy: refuse{}})
	t.Cleanup(func() { s.Close() })

	var mu sync.Mutex
	var seen []string // host tag, path and Sec-Purpose of every request
	record := func(tag string, r *http.Request) {
		mu.Lock()
		seen = append(seen, tag+r.URL.Path+" "+r.Header.Get("Sec-Purpose"))
		mu.Unlock()
	}
	asked := func(path string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range seen {
			if strings.Contains(s, path+" ") {
				return true
			}
		}
		return false
	}
	other := browsertest.ServeOwnSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("other", r)
		fmt.Fprint(w, "<title>Other</title><p>content of other "+r.URL.Path+"</p>")
	}))
	rules := func(prefetch, prerender []string) string {
		return fmt.Sprintf(`{"prefetch":[{"source":"list","urls":["%s"]}],"prerender":[{"source":"list","urls":["%s"]}]}`,
			strings.Join(prefetch, `","`), strings.Join(prerender, `","`))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		record("main", r)
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Speculation-Rules", `"/rules.json"`)
			fmt.Fprintf(w, `<!doctype html><title>Speculating</title><script type="speculationrules">%s</script>`,
				rules([]string{"/forbidden-prefetch", other.URL + "/forbidden-cross-site", "/allowed-prefetch"},
					[]string{"/forbidden-prerender", "/allowed-prerender"}))
		case "/rules.json":
			w.Header().Set("Content-Type", "application/speculationrules+json")
			fmt.Fprint(w, rules([]string{"/forbidden-header-prefetch"}, []string{"/forbidden-header-prerender"}))
		default:
			fmt.Fprint(w, "<title>Target</title><p>content of "+r.URL.Path+"</p>")
		}
	})
	srv := browsertest.Serve(t, mux)
	_, a, err := s.NewPage(ctx(t), browser.NewPageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: srv.URL + "/page"}); err != nil {
		t.Fatalf("Navigate to the speculating page = %v", err)
	}
	add := `() => { const s = document.createElement('script'); s.type = 'speculationrules';
s.textContent = ` + "`" + rules([]string{"/forbidden-script-prefetch"}, []string{"/forbidden-script-prerender"}) + "`" + `;
document.head.append(s); return HTMLScriptElement.supports('speculationrules') }`
	if _, err := script.Evaluate(ctx(t), a, script.Script{Source: add}); err != nil {
		t.Fatalf("add speculation rules from a script: %v", err)
	}
	// With speculative loading on, the allowed candidates are fetched at
	// once; with it off, nothing comes, and there is no event to wait
	// for: the window below is how long a non-event is watched, not a
	// guess at how long something takes.
	testwait.Poll(3*time.Second, func() bool { return asked("/allowed-prerender") })
	// The page goes to a refused URL it speculated on: the navigation is
	// refused (a prefetched or prerendered copy would show it).
	if _, err := script.Evaluate(ctx(t), a, script.Script{Source: `() => { location.href = '/forbidden-prerender'; return 1 }`}); err != nil {
		t.Fatal(err)
	}
	var snap axsnapshot.Snapshot
	if !testwait.Poll(testwait.Timeout, func() bool {
		snap, err = axsnapshot.Take(ctx(t), a, false)
		return err == nil && !strings.Contains(snap.Text, `"Speculating"`)
	}) {
		t.Fatalf("the page never left for /forbidden-prerender: %v\n%s", err, snap.Text)
	}
	if strings.Contains(snap.Text, "content of") {
		t.Errorf("navigating to a refused URL showed it:\n%s", snap.Text)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.Contains(s, "forbidden") {
			t.Errorf("a server was asked for %q, which the policy refuses", s)
		}
	}
}
