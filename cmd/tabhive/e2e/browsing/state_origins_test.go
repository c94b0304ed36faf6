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

// stateFile writes a storage state file with n origins of one
// localStorage entry each, the last of them site (if not ""), and
// returns its path.
func stateFile(t *testing.T, dir string, n int, site string) string {
	t.Helper()
	origins := make([]map[string]any, n)
	for i := range origins {
		o := fmt.Sprintf("https://s%05d.example", i)
		if i == n-1 && site != "" {
			o = site
		}
		origins[i] = map[string]any{"origin": o, "localStorage": []map[string]string{{"name": "k", "value": fmt.Sprint("v", i)}}}
	}
	b, err := json.Marshal(map[string]any{"cookies": []any{}, "origins": origins})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("state-%d.json", n))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadStorageStateOriginsThroughBinary: a state
// file naming more origins than the bound is refused at once with a
// sentence, and changes nothing (where one of 3,000 origins used the
// call's whole minute and failed); one within it loads each origin, its
// hidden tabs working at once.
func TestLoadStorageStateOriginsThroughBinary(t *testing.T) {
	site := browsertest.Serve(t, browsertest.HTML("Site", `<p>site</p>`)).URL
	dir := t.TempDir()
	in := tabhivetest.StartHTTP(t, "--workspace", dir)
	cs := in.Client(nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/"})
	transporttest.Must(t, cs, "set_web_storage", map[string]any{"key": "k", "value": "before"})

	big := stateFile(t, dir, 10001, site)
	start := time.Now()
	got, isErr := transporttest.Call(t, cs, "load_storage_state", map[string]any{"filePath": big})
	if want := "Error: " + big + " is not a storage state file: it names 10001 origins, more than the 10000 a state file may have; split it, or leave out origins the agent does not need."; !isErr || got != want {
		t.Errorf("load_storage_state(10,001 origins) = %v %q, want %q", isErr, got, want)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("refusing 10,001 origins took %v", took)
	}
	if got := transporttest.Must(t, cs, "get_web_storage", map[string]any{"key": "k"}); !strings.Contains(got, `"k": "before"`) {
		t.Errorf("a refused state file changed the storage:\n%s", got)
	}

	n := 40
	start = time.Now()
	got = transporttest.Must(t, cs, "load_storage_state", map[string]any{"filePath": stateFile(t, dir, n, site)})
	t.Logf("load_storage_state of %d origins took %v", n, time.Since(start))
	if !strings.Contains(got, fmt.Sprintf("(0 cookies, %d origins)", n)) {
		t.Errorf("load_storage_state(%d origins) = %q", n, got)
	}
	transporttest.Must(t, cs, "navigate_page", map[string]any{"type": "reload"})
	if got, want := transporttest.Must(t, cs, "get_web_storage", map[string]any{"key": "k"}), fmt.Sprintf(`"k": "v%d"`, n-1); !strings.Contains(got, want) {
		t.Errorf("after loading, the site's storage lacks %s:\n%s", want, got)
	}
}
