package browsing

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestLoadStorageStateLazyThroughBinary: a state of
// 3,000 origins loads in seconds (it had used the call's whole minute and
// failed), its localStorage left pending: a page that then shows one of
// the origins finds its items from its first script on, and a later
// document of the origin keeps what the page wrote since; a page opened
// afterwards finds the items of another; save_storage_state still holds
// every origin, and a later load replaces what is pending.
func TestLoadStorageStateLazyThroughBinary(t *testing.T) {
	// The page's first script records what localStorage holds.
	first := browsertest.HTML("Site", `<script>document.title = "k=" + localStorage.getItem("k");</script>`)
	site := browsertest.Serve(t, first).URL
	other := browsertest.Serve(t, first).URL
	dir := t.TempDir()
	in := tabhivetest.StartHTTP(t, "--workspace", dir)
	cs := in.Client(nil)

	n := 3000
	path := stateFile(t, dir, n, site)
	// The one before last is the other site.
	var st struct {
		Cookies []any            `json:"cookies"`
		Origins []map[string]any `json:"origins"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st.Origins[n-2]["origin"] = other
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	got, isErr := transporttest.Call(t, cs, "load_storage_state", map[string]any{"filePath": path})
	took := time.Since(start)
	t.Logf("load_storage_state of %d origins took %v", n, took)
	if isErr || !strings.Contains(got, fmt.Sprintf("(0 cookies, %d origins).\nThe localStorage of %d origins is written into the first document of each that a page of this context shows, before its scripts run; a page already showing one gets it when it reloads.", n, n)) {
		t.Fatalf("load_storage_state(%d origins) = %v %q", n, isErr, got)
	}
	if took > 10*time.Second {
		t.Errorf("load_storage_state of %d origins took %v, want under 10 s", n, took)
	}

	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/"})
	if got, want := transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": "() => document.title"}), fmt.Sprintf("k=v%d", n-1); !strings.Contains(got, want) {
		t.Errorf("the site's first script saw %q, want %s", got, want)
	}
	transporttest.Must(t, cs, "set_web_storage", map[string]any{"key": "k", "value": "after"})
	transporttest.Must(t, cs, "navigate_page", map[string]any{"type": "reload"})
	if got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": "() => document.title"}); !strings.Contains(got, "k=after") {
		t.Errorf("after a reload, the site's first script saw %q, want k=after (the state applied again over the page's write)", got)
	}

	transporttest.Must(t, cs, "new_page", map[string]any{"url": other + "/"})
	if got, want := transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": "() => document.title"}), fmt.Sprintf("k=v%d", n-2); !strings.Contains(got, want) {
		t.Errorf("a new page's first script saw %q, want %s", got, want)
	}

	// savedOrigins saves the context's storage state and reads back its
	// origins.
	saved := filepath.Join(dir, "saved.json")
	savedOrigins := func() []map[string]any {
		t.Helper()
		transporttest.Must(t, cs, "save_storage_state", map[string]any{"filePath": saved})
		b, err := os.ReadFile(saved)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Origins []map[string]any `json:"origins"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st.Origins
	}
	origins := savedOrigins()
	values := map[string]string{}
	for _, o := range origins {
		ls, _ := o["localStorage"].([]any)
		if len(ls) == 1 {
			item, _ := ls[0].(map[string]any)
			values[fmt.Sprint(o["origin"])] = fmt.Sprint(item["value"])
		}
	}
	if len(origins) != n || values[site] != "after" || values["https://s00000.example"] != "v0" || values[other] != fmt.Sprint("v", n-2) {
		t.Errorf("saved %d origins (want %d), site %q (want after), s00000 %q (want v0), other %q", len(origins), n, values[site], values["https://s00000.example"], values[other])
	}
	// A later load replaces what is pending: saved, only its origin and
	// the one the new page showed remain.
	transporttest.Must(t, cs, "load_storage_state", map[string]any{"filePath": stateFile(t, dir, 1, site)})
	if origins := savedOrigins(); len(origins) != 2 {
		t.Errorf("after loading a state of one origin, save_storage_state holds %d origins, want 2 (%s and %s)", len(origins), site, other)
	}
}
