package storage_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

var (
	inMemory = transporttest.ConnectWithTemp
	call     = transporttest.Call
	must     = transporttest.Must
	uidOf    = transporttest.UIDOf
)

// contextSeq names the isolated contexts of these tests: cookies are per
// host, not per port, so tests that share the default context would see
// each other's.
var contextSeq atomic.Int64

// openInContext opens url in a browser context of the test's own and
// returns the page's id.
func openInContext(t *testing.T, cs *mcp.ClientSession, url string) int {
	t.Helper()
	name := fmt.Sprintf("state-test-%d", contextSeq.Add(1))
	text := must(t, cs, "new_page", map[string]any{"url": url, "isolatedContext": name})
	m := regexp.MustCompile(`(?m)^(\d+): .*\[selected\] isolatedContext=` + name + `$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("new_page(%s) in context %s did not list the page as selected:\n%s", url, name, text)
	}
	var id int
	fmt.Sscan(m[1], &id)
	t.Cleanup(func() { call(t, cs, "close_page", map[string]any{"pageId": id}) })
	return id
}

// loginSite serves a site to log in to: POST /login sets an httpOnly
// session cookie and answers with a page that stores a token in
// localStorage and a record in IndexedDB; /account says who is logged in,
// from the cookie, and shows the token and the record, from the storage.
func loginSite(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Login", `<form method=post action=/login><input name=user aria-label=User><button>Log in</button></form>`))
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cret-" + r.FormValue("user"), Path: "/", HttpOnly: true})
		browsertest.HTML("Welcome", `<p id=done>storing</p><script>
localStorage.setItem('token', 'tok-`+r.FormValue("user")+`');
const open = indexedDB.open('app', 2);
open.onupgradeneeded = () => open.result.createObjectStore('prefs', {keyPath: 'id'});
open.onsuccess = () => {
  const tx = open.result.transaction('prefs', 'readwrite');
  tx.objectStore('prefs').put({id: 'theme', value: 'dark', when: new Date(0)});
  tx.oncomplete = () => { open.result.close(); done.textContent = 'stored' };
};
</script>`).ServeHTTP(w, r)
	})
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		who := "nobody"
		if c, err := r.Cookie("session"); err == nil {
			who = c.Value
		}
		browsertest.HTML("Account", `<p>cookie: `+who+`</p><p id=tok>token: ?</p><p id=pref>pref: ?</p><script>
tok.textContent = 'token: ' + localStorage.getItem('token');
const open = indexedDB.open('app');
open.onsuccess = () => {
  const db = open.result;
  if (!db.objectStoreNames.contains('prefs')) { pref.textContent = 'pref: none'; return }
  const get = db.transaction('prefs').objectStore('prefs').get('theme');
  get.onsuccess = () => pref.textContent = 'pref: ' + (get.result ? get.result.value + ' ' + (get.result.when instanceof Date) : 'none');
};
</script>`).ServeHTTP(w, r)
	})
	return browsertest.Serve(t, mux).URL
}

// logIn logs in as user on page id of loginSite and waits until the
// page has stored its token and record.
func logIn(t *testing.T, cs *mcp.ClientSession, id int, user string) {
	t.Helper()
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	must(t, cs, "fill", map[string]any{"pageId": id, "uid": uidOf(t, snap, "textbox", "User"), "value": user})
	must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Log in")})
	must(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"stored"}})
}

func TestCookieTools(t *testing.T) {
	t.Parallel()
	base := loginSite(t)
	cs := inMemory(t)
	id := openInContext(t, cs, base+"/")
	logIn(t, cs, id, "alice")
	args := func(kv ...any) map[string]any {
		m := map[string]any{"pageId": id}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	if got := must(t, cs, "list_cookies", args()); got != "## Cookies\nsession=s3cret-alice; Domain=127.0.0.1; Path=/; HttpOnly; SameSite=Lax" {
		t.Errorf("list_cookies after logging in:\n%s", got)
	}
	if got := must(t, cs, "set_cookie", args("name", "theme", "value", "dark", "url", base+"/")); got != `Set cookie "theme" for `+base+`/ in the page's browser context.` {
		t.Errorf("set_cookie reply: %q", got)
	}
	// Chrome keeps a cookie 400 days at most.
	expires := time.Now().Add(30 * 24 * time.Hour).Truncate(time.Second)
	must(t, cs, "set_cookie", args("name", "other", "value", "x", "domain", "example.com", "path", "/app", "expires", expires.Unix(), "secure", true, "sameSite", "Strict"))
	all := must(t, cs, "list_cookies", args())
	for _, want := range []string{
		"session=s3cret-alice; Domain=127.0.0.1; Path=/; HttpOnly; SameSite=Lax",
		"theme=dark; Domain=127.0.0.1; Path=/; SameSite=Lax",
		"other=x; Domain=example.com; Path=/app; Expires=" + expires.UTC().Format(time.RFC3339) + "; Secure; SameSite=Strict",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("list_cookies lacks %q:\n%s", want, all)
		}
	}
	for _, tt := range []struct {
		args map[string]any
		want []string
	}{
		{args("name", "theme"), []string{"theme="}},
		{args("domain", "example.com"), []string{"other="}},
		{args("urls", []string{base + "/account"}), []string{"session=", "theme="}},
		{args("urls", []string{"https://example.com/app/x"}), []string{"other="}},
		{args("urls", []string{"http://example.com/app/x"}), nil}, // secure: https only
	} {
		got := must(t, cs, "list_cookies", tt.args)
		if n := strings.Count(got, "\n"); n != max(len(tt.want), 1) {
			t.Errorf("list_cookies(%v) lists %d cookies, want %v:\n%s", tt.args, n, tt.want, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, "\n"+w) {
				t.Errorf("list_cookies(%v) lacks %s:\n%s", tt.args, w, got)
			}
		}
	}

	// A partitioned (CHIPS) cookie is listed with its top-level site and
	// deleted by name and domain like any other.
	must(t, cs, "set_cookie", args("name", "chip", "value", "c", "domain", "part.test", "secure", true, "sameSite", "None", "partitionKey", "https://top.test"))
	if got, want := must(t, cs, "list_cookies", args("name", "chip")), "## Cookies\nchip=c; Domain=part.test; Path=/; Secure; SameSite=None; Partitioned=https://top.test"; got != want {
		t.Errorf("list_cookies(chip) = %q, want %q", got, want)
	}
	if got := must(t, cs, "delete_cookies", args("name", "chip", "domain", "part.test")); got != "Deleted 1 cookie." {
		t.Errorf("delete_cookies(chip) = %q", got)
	}
	if got := must(t, cs, "list_cookies", args("name", "chip")); got != "## Cookies\nNo cookies found." {
		t.Errorf("the partitioned cookie is still there:\n%s", got)
	}

	// The page and its server see what set_cookie set.
	must(t, cs, "navigate_page", args("url", base+"/account"))
	if got := must(t, cs, "evaluate_script", args("function", "() => document.cookie")); !strings.Contains(got, `"theme=dark"`) {
		t.Errorf("document.cookie = %s, want theme=dark only (session is httpOnly)", got)
	}
	if snap := must(t, cs, "take_snapshot", args()); !strings.Contains(snap, "cookie: s3cret-alice") {
		t.Errorf("the server did not get the session cookie:\n%s", snap)
	}

	// Another context sees none of it.
	other := openInContext(t, cs, base+"/account")
	if got := must(t, cs, "list_cookies", map[string]any{"pageId": other}); got != "## Cookies\nNo cookies found." {
		t.Errorf("another context lists cookies:\n%s", got)
	}

	if got := must(t, cs, "delete_cookies", args("name", "theme", "domain", "127.0.0.1")); got != "Deleted 1 cookie." {
		t.Errorf("delete_cookies(theme) = %q", got)
	}
	if got := must(t, cs, "delete_cookies", args("name", "theme", "url", base+"/")); got != "No cookie matched; none deleted." {
		t.Errorf("delete_cookies(theme) again = %q", got)
	}
	if got := must(t, cs, "delete_cookies", args("all", true)); got != "Deleted all 2 cookies of the page's browser context." {
		t.Errorf("delete_cookies(all) = %q", got)
	}
	if got := must(t, cs, "list_cookies", args()); got != "## Cookies\nNo cookies found." {
		t.Errorf("cookies left after delete_cookies(all):\n%s", got)
	}

	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"set_cookie", args("name", "a", "value", "b"), "A cookie needs a url or a domain: pass url (such as https://example.com/) or domain (such as example.com)."},
		{"set_cookie", args("name", "", "value", "b", "domain", "a.test"), "A cookie needs a name: pass a non-empty name."},
		{"set_cookie", args("name", "a", "value", "b", "url", "about:blank"), `Invalid url "about:blank": give an absolute http or https URL, such as https://example.com/.`},
		{"set_cookie", args("name", "a;b", "value", "b", "domain", "a.test"), "Chrome refused the cookie"},
		{"set_cookie", args("name", "a", "value", "b", "domain", "a.test", "path", "x"), `Invalid path "x": a cookie path starts with /.`},
		{"set_cookie", args("name", "a", "value", "b", "domain", "a.test", "secure", true, "partitionKey", "top.test"), `Invalid partitionKey "top.test": give a top-level site such as https://example.com.`},
		{"delete_cookies", args("name", "a"), "Say which cookies to delete: name with url or domain, or all: true."},
		{"delete_cookies", args("all", true, "name", "a"), "Give all: true alone, or name with url or domain, not both."},
		{"list_cookies", args("urls", []string{"example.com"}), `Invalid urls "example.com": give an absolute http or https URL`},
	} {
		got, isErr := call(t, cs, tt.tool, tt.args)
		if !isErr || !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("%s(%v) = %v %q, want one sentence with %q", tt.tool, tt.args, isErr, got, tt.want)
		}
	}
}

func TestWebStorageTools(t *testing.T) {
	t.Parallel()
	frameMux := http.NewServeMux()
	frameMux.Handle("/frame", browsertest.HTML("Frame", `<p>frame</p><script>localStorage.setItem('in', 'frame')</script>`))
	frame := browsertest.ServeOwnSite(t, frameMux).URL
	mux := http.NewServeMux()
	mux.Handle("/page", browsertest.HTML("Page", `<p>page</p><iframe title=f src="`+frame+`/frame"></iframe>
<script>localStorage.setItem('token', 'T1'); localStorage.setItem('odd "key"', 'line\nbreak'); sessionStorage.setItem('tab', 'S1')</script>`))
	base := browsertest.Serve(t, mux).URL
	cs := inMemory(t)
	id := openInContext(t, cs, base+"/page")
	must(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"frame"}})
	args := func(kv ...any) map[string]any {
		m := map[string]any{"pageId": id}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	if got, want := must(t, cs, "get_web_storage", args()), "## localStorage of "+base+"\n\"odd \\\"key\\\"\": \"line\\nbreak\"\n\"token\": \"T1\""; !sameLines(got, want) {
		t.Errorf("get_web_storage() =\n%s\nwant:\n%s", got, want)
	}
	if got, want := must(t, cs, "get_web_storage", args("type", "session")), "## sessionStorage of "+base+"\n\"tab\": \"S1\""; got != want {
		t.Errorf("get_web_storage(session) =\n%s\nwant:\n%s", got, want)
	}
	if got, want := must(t, cs, "get_web_storage", args("key", "token")), "## localStorage of "+base+"\n\"token\": \"T1\""; got != want {
		t.Errorf("get_web_storage(key) =\n%s\nwant:\n%s", got, want)
	}
	if got, want := must(t, cs, "get_web_storage", args("key", "nope")), "## localStorage of "+base+"\nNo entry \"nope\"."; got != want {
		t.Errorf("get_web_storage(missing key) =\n%s\nwant:\n%s", got, want)
	}
	// The cross-site frame's storage, by its origin.
	if got, want := must(t, cs, "get_web_storage", args("origin", frame)), "## localStorage of "+frame+"\n\"in\": \"frame\""; got != want {
		t.Errorf("get_web_storage(frame origin) =\n%s\nwant:\n%s", got, want)
	}
	if got, want := must(t, cs, "set_web_storage", args("origin", frame, "key", "set", "value", "by agent")), `Set "set" in the localStorage of `+frame+"."; got != want {
		t.Errorf("set_web_storage(frame) = %q, want %q", got, want)
	}
	must(t, cs, "set_web_storage", args("type", "session", "key", "tab2", "value", "S2"))
	got := must(t, cs, "evaluate_script", args("function", `() => sessionStorage.getItem('tab2') + ' ' + localStorage.getItem('set')`))
	if !strings.Contains(got, `"S2 null"`) {
		t.Errorf("the page sees %s, want its own sessionStorage entry and not the frame's localStorage", got)
	}
	if got := must(t, cs, "get_web_storage", args("origin", frame, "key", "set")); !strings.Contains(got, `"set": "by agent"`) {
		t.Errorf("the frame's storage after set_web_storage:\n%s", got)
	}
	if got, want := must(t, cs, "delete_web_storage", args("key", "token")), `Deleted "token" from the localStorage of `+base+"."; got != want {
		t.Errorf("delete_web_storage(key) = %q, want %q", got, want)
	}
	if got, want := must(t, cs, "delete_web_storage", args("type", "session", "all", true)), "Deleted every entry of the sessionStorage of "+base+"."; got != want {
		t.Errorf("delete_web_storage(all) = %q, want %q", got, want)
	}
	got = must(t, cs, "evaluate_script", args("function", `() => JSON.stringify([localStorage.getItem('token'), sessionStorage.length])`))
	if !strings.Contains(got, `[null,0]`) {
		t.Errorf("the page sees %s after the deletions", got)
	}

	blank := openInContext(t, cs, "about:blank")
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_web_storage", args("origin", "https://elsewhere.test"), fmt.Sprintf("No frame of page %d shows origin https://elsewhere.test: navigate the page there first, or pass the origin of one of its frames.", id)},
		{"get_web_storage", map[string]any{"pageId": blank}, fmt.Sprintf("Page %d shows about:blank, which has no web storage: navigate it to a site first, or pass the origin of one of its frames.", blank)},
		{"get_web_storage", args("origin", "file:///etc"), `Invalid origin "file:///etc": give an http or https origin such as https://example.com.`},
		{"delete_web_storage", args(), "Say what to delete: a key, or all: true."},
		{"delete_web_storage", args("key", "a", "all", true), "Say what to delete: a key, or all: true."},
	} {
		got, isErr := call(t, cs, tt.tool, tt.args)
		if !isErr || !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("%s(%v) = %v %q, want one sentence with %q", tt.tool, tt.args, isErr, got, tt.want)
		}
	}
}

// sameLines reports whether a and b hold the same lines, in any order
// after the first.
func sameLines(a, b string) bool {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) || la[0] != lb[0] {
		return false
	}
	seen := map[string]int{}
	for _, l := range la[1:] {
		seen[l]++
	}
	for _, l := range lb[1:] {
		seen[l]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestStorageStateRoundTrip: what one context saves, another loads: the
// httpOnly cookie reaches the server, the token and the IndexedDB record
// (a Date included) reach the page; the file is Playwright's layout, mode
// 0600.
func TestStorageStateRoundTrip(t *testing.T) {
	t.Parallel()
	base := loginSite(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	// A file that is there already, readable by all, is overwritten and
	// made private.
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t)
	a := openInContext(t, cs, base+"/")
	logIn(t, cs, a, "bob")
	got := must(t, cs, "save_storage_state", map[string]any{"pageId": a, "filePath": file})
	if want := "Saved the storage state of the page's browser context (1 cookie, 1 origin) to " + file + ". It holds login sessions: keep it secret."; got != want {
		t.Errorf("save_storage_state reply:\n%s\nwant:\n%s", got, want)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(file)
	var st struct {
		Cookies []map[string]any `json:"cookies"`
		Origins []struct {
			Origin       string              `json:"origin"`
			LocalStorage []map[string]string `json:"localStorage"`
			IndexedDB    []struct {
				Name    string  `json:"name"`
				Version float64 `json:"version"`
				Stores  []struct {
					Name    string           `json:"name"`
					KeyPath string           `json:"keyPath"`
					Records []map[string]any `json:"records"`
				} `json:"stores"`
			} `json:"indexedDB"`
		} `json:"origins"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state file is not JSON: %v\n%s", err, data)
	}
	wantCookie := map[string]any{"name": "session", "value": "s3cret-bob", "domain": "127.0.0.1", "path": "/", "expires": -1.0, "httpOnly": true, "secure": false, "sameSite": "Lax"}
	if len(st.Cookies) != 1 || fmt.Sprint(st.Cookies[0]) != fmt.Sprint(wantCookie) {
		t.Errorf("cookies in the file = %v, want [%v]", st.Cookies, wantCookie)
	}
	if len(st.Origins) != 1 || st.Origins[0].Origin != base || fmt.Sprint(st.Origins[0].LocalStorage) != "[map[name:token value:tok-bob]]" {
		t.Fatalf("origins in the file:\n%s", data)
	}
	idb := st.Origins[0].IndexedDB
	if len(idb) != 1 || idb[0].Name != "app" || idb[0].Version != 2 || len(idb[0].Stores) != 1 || idb[0].Stores[0].KeyPath != "id" || len(idb[0].Stores[0].Records) != 1 {
		t.Fatalf("IndexedDB in the file:\n%s", data)
	}
	if rec := fmt.Sprint(idb[0].Stores[0].Records[0]); !strings.Contains(rec, "valueEncoded") || !strings.Contains(rec, "1970-01-01T00:00:00.000Z") {
		t.Errorf("a record holding a Date is not encoded as Playwright does: %s", rec)
	}

	b := openInContext(t, cs, "about:blank")
	got = must(t, cs, "load_storage_state", map[string]any{"pageId": b, "filePath": file})
	if want := "Loaded the storage state of " + file + " into the page's browser context (1 cookie, 1 origin)."; got != want {
		t.Errorf("load_storage_state reply:\n%s\nwant:\n%s", got, want)
	}
	must(t, cs, "navigate_page", map[string]any{"pageId": b, "url": base + "/account"})
	must(t, cs, "wait_for", map[string]any{"pageId": b, "text": []string{"pref: dark true"}})
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": b})
	for _, want := range []string{"cookie: s3cret-bob", "token: tok-bob", "pref: dark true"} {
		if !strings.Contains(snap, want) {
			t.Errorf("the context that loaded the state lacks %q:\n%s", want, snap)
		}
	}
	// The hidden tabs that read and wrote the storage are no pages.
	list := must(t, cs, "list_pages", nil)
	for _, id := range []int{a, b} {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^%d: .* isolatedContext=(\S+)$`, id)).FindStringSubmatch(list)
		if m == nil || len(regexp.MustCompile(`(?m) isolatedContext=`+regexp.QuoteMeta(m[1])+`$`).FindAllString(list, -1)) != 1 {
			t.Errorf("page %d's context has pages besides it:\n%s", id, list)
		}
	}

	// Bad files and paths get one sentence and change nothing.
	notState := filepath.Join(dir, "not.json")
	os.WriteFile(notState, []byte(`{"hello": "world"}`), 0o600)
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"cookies": [{"name": "a", "value": "b"}]}`), 0o600)
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"load_storage_state", map[string]any{"pageId": b, "filePath": notState}, notState + ` is not a storage state file: it has neither "cookies" nor "origins"`},
		{"load_storage_state", map[string]any{"pageId": b, "filePath": broken}, broken + ` is not a storage state file: cookie 1 ("a") has no domain.`},
		{"load_storage_state", map[string]any{"pageId": b, "filePath": filepath.Join(dir, "none.json")}, "Unable to read the storage state file"},
		{"load_storage_state", map[string]any{"pageId": b, "filePath": "/etc/passwd"}, "/etc/passwd"},
		{"save_storage_state", map[string]any{"pageId": a, "filePath": "/etc/state.json"}, "/etc/state.json"},
	} {
		got, isErr := call(t, cs, tt.tool, tt.args)
		if !isErr || !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("%s(%v) = %v %q, want one sentence with %q", tt.tool, tt.args, isErr, got, tt.want)
		}
	}
	if snap := must(t, cs, "take_snapshot", map[string]any{"pageId": b}); !strings.Contains(snap, "cookie: s3cret-bob") {
		t.Errorf("a refused load changed the context:\n%s", snap)
	}
}

// TestLoadPlaywrightState: a file Playwright wrote (storageState with
// indexedDB: browser/storagestate/testdata/playwright.json, made by
// bench/state/playwright_compat.mjs) loads, its origin moved to this
// test's site: the cookie, the token and the IndexedDB record, its Date
// included, reach the page.
func TestLoadPlaywrightState(t *testing.T) {
	t.Parallel()
	base := loginSite(t)
	data, err := os.ReadFile("../../browser/storagestate/testdata/playwright.json")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "playwright.json")
	os.WriteFile(file, []byte(strings.ReplaceAll(string(data), "http://127.0.0.1:41379", base)), 0o600)
	cs := inMemory(t)
	id := openInContext(t, cs, "about:blank")
	must(t, cs, "load_storage_state", map[string]any{"pageId": id, "filePath": file})
	must(t, cs, "navigate_page", map[string]any{"pageId": id, "url": base + "/account"})
	must(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"pref: pw-dark true"}})
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	for _, want := range []string{"cookie: for-pw", "token: tok-pw"} {
		if !strings.Contains(snap, want) {
			t.Errorf("the page lacks %q after loading Playwright's file:\n%s", want, snap)
		}
	}
}
