package browsing

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// accountSite is a site to log in to: the form at / posts to /login, which
// sets an httpOnly session cookie and answers with a page that stores a
// token in localStorage; /account says whom the cookie names and shows the
// token.
func accountSite(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Login", `<form method=post action=/login><input name=user aria-label=User><button>Log in</button></form>`))
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		user := r.FormValue("user")
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "for-" + user, Path: "/", HttpOnly: true})
		browsertest.HTML("Welcome", `<p id=done>storing</p><script>localStorage.setItem('token', 'tok-`+user+`'); done.textContent = 'stored'</script>`).ServeHTTP(w, r)
	})
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		who := "nobody"
		if c, err := r.Cookie("session"); err == nil {
			who = c.Value
		}
		browsertest.HTML("Account", `<p>logged in: `+who+`</p><p id=tok></p><script>tok.textContent = 'token: ' + localStorage.getItem('token')</script>`).ServeHTTP(w, r)
	})
	return browsertest.Serve(t, mux).URL
}

// TestStorageStateThroughBinary logs in once and starts eight agents from
// that state: session A of one server logs in (an httpOnly cookie and a
// localStorage token) and saves the state; a second server, started with
// --isolate-sessions --storage-state on that file, gives each of eight
// sessions a context that is logged in, and a cookie one of them sets is
// seen by none of the others.
func TestStorageStateThroughBinary(t *testing.T) {
	site := accountSite(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")

	first := tabhivetest.StartHTTP(t, "--isolate-sessions", "--workspace", dir)
	a := first.Client(nil)
	transporttest.Must(t, a, "navigate_page", map[string]any{"url": site + "/"})
	snap := transporttest.Must(t, a, "take_snapshot", nil)
	uid := func(role, name string) string {
		m := regexp.MustCompile(`uid=(\S+) ` + role + ` "` + name + `"`).FindStringSubmatch(snap)
		if m == nil {
			t.Fatalf("no %s %q in:\n%s", role, name, snap)
		}
		return m[1]
	}
	transporttest.Must(t, a, "fill", map[string]any{"uid": uid("textbox", "User"), "value": "alice"})
	transporttest.Must(t, a, "click", map[string]any{"uid": uid("button", "Log in")})
	transporttest.Must(t, a, "wait_for", map[string]any{"text": []string{"stored"}})
	saved := transporttest.Must(t, a, "save_storage_state", map[string]any{"filePath": state})
	if !strings.Contains(saved, "(1 cookie, 1 origin) to "+state) {
		t.Fatalf("save_storage_state: %s", saved)
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}

	second := tabhivetest.StartHTTP(t, "--isolate-sessions", "--storage-state", state)
	agents := make([]*mcp.ClientSession, 8)
	for i := range agents {
		agents[i] = second.Client(nil)
	}
	// The eight sessions start at once: each first call makes the
	// session's browser context and gives it the state, eight hidden tabs
	// loading at once, which take minutes on a loaded machine: these calls
	// get a budget of their own rather than the helpers' minute (and, off
	// the test's goroutine, report with Errorf).
	c, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i, cs := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A first call whose setup runs out of the server's minute is
			// told so, and the context is made anew on the next: an agent
			// calls again, and so does this one.
			_, err := callText(c, cs, "list_pages", nil)
			for err != nil && err.Error() == "The call ran out of time." && c.Err() == nil {
				t.Logf("agent %d: list_pages: %v; calling again", i, err)
				_, err = callText(c, cs, "list_pages", nil)
			}
			if err != nil {
				t.Errorf("agent %d: list_pages: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Then each loads the account page, in turn: eight renderers loading
	// at once take minutes on a loaded machine, and what is tested is
	// the state each context starts from, which no navigation changes.
	for i, cs := range agents {
		start := time.Now()
		transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/account"})
		t.Logf("agent %d: navigate_page took %v", i, time.Since(start).Round(time.Millisecond))
		got := transporttest.Must(t, cs, "take_snapshot", nil)
		for _, want := range []string{"logged in: for-alice", "token: tok-alice"} {
			if !strings.Contains(got, want) {
				t.Errorf("agent %d does not start logged in (%s):\n%s", i, want, got)
			}
		}
	}

	transporttest.Must(t, agents[0], "set_cookie", map[string]any{"name": "mine", "value": "agent0", "url": site + "/"})
	for i, cs := range agents {
		got := transporttest.Must(t, cs, "list_cookies", nil)
		if has := strings.Contains(got, "mine=agent0"); has != (i == 0) {
			t.Errorf("agent %d sees agent 0's cookie: %v\n%s", i, has, got)
		}
		if !strings.Contains(got, "session=for-alice") {
			t.Errorf("agent %d lacks the state's session cookie:\n%s", i, got)
		}
	}
}

// callText calls a tool under ctx and returns its reply's text; a
// protocol error or an error reply is an error.
func callText(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	txt := transporttest.Text(res)
	if res.IsError {
		return "", errors.New(txt)
	}
	return txt, nil
}

// TestStorageStateRefused: a --storage-state file that is not one stops
// the command at start with one sentence.
func TestStorageStateRefused(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[1, 2]`), 0o600)
	cmd := tabhivetest.Command(t, "--http", "127.0.0.1:0", "--isolate-sessions", "--storage-state", bad)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("tabhive started with a bad --storage-state file")
	}
	want := "tabhive: --storage-state: " + bad + " is not a storage state file: it is not a JSON object with \"cookies\" and \"origins\" (save one with save_storage_state, or Playwright's storageState)\n"
	if stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}

// TestStorageStateSharedThroughBinary: without --isolate-sessions, the
// launched browser's own context starts from --storage-state, and so does
// every isolatedContext a session opens.
func TestStorageStateSharedThroughBinary(t *testing.T) {
	site := accountSite(t)
	state := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(state, []byte(`{"cookies": [{"name": "session", "value": "for-carol", "domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}],
"origins": [{"origin": "`+site+`", "localStorage": [{"name": "token", "value": "tok-carol"}]}]}`), 0o600)
	in := tabhivetest.StartHTTP(t, "--storage-state", state)
	cs := in.Client(nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/account"})
	transporttest.Must(t, cs, "new_page", map[string]any{"url": site + "/account", "isolatedContext": "other"})
	for _, id := range pageIDs(transporttest.Must(t, cs, "list_pages", nil)) {
		got := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
		for _, want := range []string{"logged in: for-carol", "token: tok-carol"} {
			if !strings.Contains(got, want) {
				t.Errorf("page %d does not start from the state (%s):\n%s", id, want, got)
			}
		}
	}
}
