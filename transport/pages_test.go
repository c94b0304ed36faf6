package transport_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
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
