package transport_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
)

// TestIsolatedContexts: pages in one named context share cookies; other
// contexts and the default one see none of them; the page list names the
// context.
func TestIsolatedContexts(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/set", browsertest.HTML("Set", `<p>set</p><script>document.cookie = 'who=alice; path=/'</script>`))
	mux.Handle("/get", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("who")
		v := "nobody"
		if c != nil {
			v = c.Value
		}
		browsertest.HTML("Get", "<p>cookie: "+v+"</p>").ServeHTTP(w, r)
	}))
	base := browsertest.Serve(t, mux).URL
	cs := inMemory(t)

	text := must(t, cs, "new_page", map[string]any{"url": base + "/set", "isolatedContext": "alpha"})
	m := regexp.MustCompile(`(?m)^(\d+): Set \(` + regexp.QuoteMeta(base) + `/set\) \[selected\] isolatedContext=alpha$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("new_page in a context:\n%s", text)
	}
	var setID int
	fmt.Sscan(m[1], &setID)
	t.Cleanup(func() { call(t, cs, "close_page", map[string]any{"pageId": setID}) })
	for _, tc := range []struct{ context, want string }{{"alpha", "cookie: alice"}, {"beta", "cookie: nobody"}, {"", "cookie: nobody"}} {
		args := map[string]any{"url": base + "/get"}
		if tc.context != "" {
			args["isolatedContext"] = tc.context
		}
		text := must(t, cs, "new_page", args)
		id := lastSelected(t, text)
		t.Cleanup(func() { call(t, cs, "close_page", map[string]any{"pageId": id}) })
		if snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id}); !strings.Contains(snap, tc.want) {
			t.Errorf("context %q sees %q, want %q:\n%s", tc.context, snap, tc.want, snap)
		}
	}
	list := must(t, cs, "list_pages", nil)
	if strings.Count(list, "isolatedContext=alpha") != 2 || strings.Count(list, "isolatedContext=beta") != 1 {
		t.Errorf("page list does not name the contexts:\n%s", list)
	}
}

// lastSelected returns the id of the page marked [selected] in a page list.
func lastSelected(t *testing.T, text string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(\d+): .*\[selected\]`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no selected page in:\n%s", text)
	}
	var id int
	fmt.Sscan(m[1], &id)
	return id
}

func TestNewPageBackgroundAndSelect(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := inMemory(t)
	front := openPage(t, cs, base+"/nav-a")
	text := must(t, cs, "new_page", map[string]any{"url": base + "/nav-b", "background": true})
	back := lastSelected(t, text)
	t.Cleanup(func() { call(t, cs, "close_page", map[string]any{"pageId": back}) })
	if back == front {
		t.Fatalf("background page not selected:\n%s", text)
	}
	text = must(t, cs, "select_page", map[string]any{"pageId": front, "bringToFront": true})
	if lastSelected(t, text) != front || !strings.HasPrefix(text, "## Pages\n") {
		t.Errorf("select_page reply:\n%s", text)
	}
	// A page tool without pageId acts on the selected page.
	if snap := must(t, cs, "take_snapshot", nil); !strings.Contains(snap, `"Go to page B"`) {
		t.Errorf("snapshot of the selected page:\n%s", snap)
	}
}

// TestPageClosedByItself: a tab that a page opened (window.open) gets the
// next id and can be driven; when it closes itself (window.close) it is
// reaped: its id is gone for good and the selection falls back, with
// upstream's note.
func TestPageClosedByItself(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Opener", `<button onclick="window.open('/popup')">Open</button>`))
	// The popup keeps changing its DOM once asked to close, so that the
	// click is still waiting for the page to settle when Chrome closes it,
	// however long that takes on a loaded machine (within the waiter's 3 s
	// cap): the close lands inside the click, as the reply must then say.
	// Without it the click could settle first and the page close after the
	// reply.
	mux.Handle("/popup", browsertest.HTML("Popup", `<button onclick="window.close(); setInterval(() => document.body.append('.'), 10)">Close me</button>`))
	base := browsertest.Serve(t, mux).URL
	cs := inMemory(t)
	opener := openPage(t, cs, base+"/")
	must(t, cs, "click", map[string]any{"pageId": opener, "uid": uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": opener}), "button", "Open")})
	var popup int
	testwait.Poll(testwait.Timeout, func() bool {
		m := regexp.MustCompile(`(?m)^(\d+): .*/popup\)?( \[selected\])?$`).FindStringSubmatch(must(t, cs, "list_pages", nil))
		if m != nil {
			fmt.Sscan(m[1], &popup)
		}
		return popup != 0
	})
	if popup <= opener {
		t.Fatalf("popup not listed with a new id (opener %d)", opener)
	}
	must(t, cs, "select_page", map[string]any{"pageId": popup})
	clicked := must(t, cs, "click", map[string]any{"uid": uidOf(t, must(t, cs, "take_snapshot", nil), "button", "Close me")})
	if !strings.HasPrefix(clicked, "Successfully clicked on the element\nThe page closed.\n") {
		t.Errorf("click that closes its page: %q", clicked)
	}
	var list string
	testwait.Poll(testwait.Timeout, func() bool { list = must(t, cs, "list_pages", nil); return !strings.Contains(list, "/popup") })
	if strings.Contains(list, "/popup") {
		t.Fatalf("popup still listed after window.close():\n%s", list)
	}
	// The note comes once, with the first page list that no longer has the
	// page: the click's own reply, or the next list.
	const note = "Note: the previously selected page was closed. Page "
	if !strings.Contains(clicked, note) && !strings.HasPrefix(list, note) {
		t.Errorf("no fallback note after the selected page closed itself:\n%s\n%s", clicked, list)
	}
	if text, isErr := call(t, cs, "take_snapshot", map[string]any{"pageId": popup}); !isErr || !strings.Contains(text, fmt.Sprintf("No page found with id %d", popup)) {
		t.Errorf("the closed popup's id: %q", text)
	}
}
