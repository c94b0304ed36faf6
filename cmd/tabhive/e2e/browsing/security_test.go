package browsing

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestWorkspaceThroughBinary: --workspace lets a session without roots
// write into that directory; without it the same path is refused.
func TestWorkspaceThroughBinary(t *testing.T) {
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	in := tabhivetest.StartHTTP(t)
	got, isErr := transporttest.Call(t, in.Client(nil), "take_screenshot", map[string]any{"filePath": shot})
	if !isErr || !strings.Contains(got, "Access denied") {
		t.Fatalf("screenshot into %s without --workspace = %v %q, want Access denied", dir, isErr, got)
	}
	in.Stop()

	in = tabhivetest.StartHTTP(t, "--workspace", dir)
	transporttest.Must(t, in.Client(nil), "take_screenshot", map[string]any{"filePath": shot})
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Fatalf("screenshot into the workspace: %v", err)
	}
}

// witness is a test site that records every path it is asked for.
type witness struct {
	mu   sync.Mutex
	seen []string
	url  string
}

func newWitness(t *testing.T, pages map[string]string) *witness {
	w := &witness{}
	srv := browsertest.Serve(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.seen = append(w.seen, r.URL.Path)
		w.mu.Unlock()
		if r.URL.Path == "/redirect" {
			http.Redirect(rw, r, "/blocked/after-redirect", http.StatusFound)
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			body = "ok"
		}
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprint(rw, body)
	}))
	w.url = srv.URL
	return w
}

func (w *witness) asked(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.seen, path)
}

func (w *witness) paths() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

// TestFileNavigationsDefault: over HTTP a file: URL, or one wrapped in
// view-source:, is refused with a sentence naming the flag, and so are the
// browser's own pages; --file-navigations allows file: URLs. Over stdio
// they are allowed by default, as chrome-devtools-mcp does.
func TestFileNavigationsDefault(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("the secret text"), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + secret
	in := tabhivetest.StartHTTP(t)
	cs := in.Client(nil)
	for _, tc := range []struct{ tool, url, want string }{
		{"navigate_page", fileURL, "Navigation to " + fileURL + " refused: this server does not allow file: URLs (start it with --file-navigations to allow them)."},
		{"new_page", fileURL, "this server does not allow file: URLs"},
		{"navigate_page", "view-source:" + fileURL, "this server does not allow file: URLs"},
		{"navigate_page", "file:///root/.ssh/", "this server does not allow file: URLs"},
		{"navigate_page", "chrome://settings", "chrome: URLs are the browser's own pages, which this server never opens"},
		{"new_page", "devtools://devtools/bundled/inspector.html", "devtools: URLs are the browser's own pages"},
	} {
		got, isErr := transporttest.Call(t, cs, tc.tool, map[string]any{"url": tc.url})
		if !isErr || !strings.Contains(got, tc.want) || strings.Contains(got, "the secret text") {
			t.Errorf("%s %s over HTTP = %v %q, want refused: %q", tc.tool, tc.url, isErr, got, tc.want)
		}
	}
	in.Stop()

	in = tabhivetest.StartHTTP(t, "--file-navigations")
	cs = in.Client(nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": fileURL})
	if got := transporttest.Must(t, cs, "take_snapshot", nil); !strings.Contains(got, "the secret text") {
		t.Errorf("file: page with --file-navigations: snapshot %q", got)
	}

	stdio := transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t)})
	transporttest.Must(t, stdio, "navigate_page", map[string]any{"url": fileURL})
	if got := transporttest.Must(t, stdio, "take_snapshot", nil); !strings.Contains(got, "the secret text") {
		t.Errorf("file: page over stdio: snapshot %q", got)
	}
}

// TestBlockedURLPatternThroughBinary: what a blocked pattern matches never
// reaches its server, whether an agent asks for it (refused with the
// pattern named) or the page does: a subresource, a fetch, an iframe, a
// redirect hop, a popup, a worker's fetch.
func TestBlockedURLPatternThroughBinary(t *testing.T) {
	w := newWitness(t, map[string]string{
		"/": `<!doctype html><title>Page</title><img src="/blocked/image"><img src="/redirect">
<iframe src="/blocked/frame"></iframe>
<script>fetch('/blocked/fetch').catch(() => {}).finally(() => fetch('/fetch-done'));
new Worker(URL.createObjectURL(new Blob(["fetch(location.origin + '/blocked/worker').catch(() => {}).finally(() => fetch(location.origin + '/worker-done'))".replaceAll('location.origin', JSON.stringify(location.origin))])));</script>`,
	})
	in := tabhivetest.StartHTTP(t, "--blocked-url-pattern", "*://*:*/blocked/*")
	cs := in.Client(nil)
	got, isErr := transporttest.Call(t, cs, "new_page", map[string]any{"url": w.url + "/blocked/page"})
	if !isErr || !strings.Contains(got, `refused: it matches --blocked-url-pattern "*://*:*/blocked/*".`) {
		t.Errorf("new_page of a blocked URL = %v %q", isErr, got)
	}
	id := selectedID(t, transporttest.Must(t, cs, "new_page", map[string]any{"url": w.url + "/"}))
	transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `() => { window.open('/blocked/popup'); return 1 }`})
	transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `() => { window.open('/popup-done'); return 1 }`})
	testwait.Until(t, "the page's requests", func() bool {
		return w.asked("/fetch-done") && w.asked("/worker-done") && w.asked("/redirect") && w.asked("/popup-done")
	})
	for _, p := range w.paths() {
		if strings.HasPrefix(p, "/blocked/") {
			t.Errorf("the site was asked for %s, which --blocked-url-pattern refuses", p)
		}
	}
}

// TestAllowedURLPatternThroughBinary: with an allow list, a site outside it
// is never asked for anything, by the agent or by an allowed page.
func TestAllowedURLPatternThroughBinary(t *testing.T) {
	outside := newWitness(t, nil)
	allowed := newWitness(t, map[string]string{
		"/": `<!doctype html><title>Allowed</title><img src="` + outside.url + `/image">
<script>fetch('` + outside.url + `/fetch').catch(() => {}).finally(() => fetch('/done'))</script>`,
	})
	in := tabhivetest.StartHTTP(t, "--allowed-url-pattern", allowed.url+"/*")
	cs := in.Client(nil)
	got, isErr := transporttest.Call(t, cs, "navigate_page", map[string]any{"url": outside.url + "/"})
	if !isErr || !strings.Contains(got, "is not allowed by any --allowed-url-pattern") {
		t.Errorf("navigate_page outside the allow list = %v %q", isErr, got)
	}
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": allowed.url + "/"})
	testwait.Until(t, "the allowed page's fetch", func() bool { return allowed.asked("/done") })
	if p := outside.paths(); len(p) > 0 {
		t.Errorf("a site outside the allow list was asked for %v", p)
	}
}

// TestJavaScriptEvaluationOff: --javascript-evaluation=false takes
// evaluate_script off the tool list and refuses initScript and javascript:
// and data: URLs.
func TestJavaScriptEvaluationOff(t *testing.T) {
	in := tabhivetest.StartHTTP(t, "--javascript-evaluation=false")
	cs := in.Client(nil)
	tools, err := cs.ListTools(transporttest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "evaluate_script" {
			t.Error("evaluate_script is offered with --javascript-evaluation=false")
		}
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"url": "about:blank", "initScript": "window.x = 1"}, "InitScript refused: this server was started with --javascript-evaluation=false"},
		{map[string]any{"url": "javascript:alert(1)"}, "which refuses javascript: URLs"},
		{map[string]any{"url": "data:text/html,<script>1</script>"}, "which refuses data: URLs"},
	} {
		if got, isErr := transporttest.Call(t, cs, "navigate_page", tc.args); !isErr || !strings.Contains(got, tc.want) {
			t.Errorf("navigate_page %v = %v %q, want %q", tc.args, isErr, got, tc.want)
		}
	}
}

// TestNoDevToolsEndpointThroughBinary: the browser tabhive launches listens
// on no TCP port (it is driven over its DevTools pipe), so no page can
// reach its control channel, whatever address spelling it tries; and a
// --chrome-arg that would open one is refused at launch.
func TestNoDevToolsEndpointThroughBinary(t *testing.T) {
	in := tabhivetest.StartHTTP(t)
	cs := in.Client(nil)
	transporttest.Must(t, cs, "new_page", map[string]any{"url": "about:blank"})
	procs := browsertest.ChromiumProcesses()
	if len(procs) == 0 {
		t.Fatal("no Chromium process found under the test")
	}
	if ports := browsertest.ListeningPorts(procs); len(ports) > 0 {
		t.Errorf("the browser tabhive launched listens on %v", ports)
	}
	in.Stop()

	in = tabhivetest.StartHTTP(t, "--chrome-arg=--remote-debugging-port=9229")
	got, isErr := transporttest.Call(t, in.Client(nil), "list_pages", nil)
	if !isErr || !strings.Contains(got, "--chrome-arg --remote-debugging-port=9229 is refused") {
		t.Errorf("list_pages with --chrome-arg=--remote-debugging-port = %v %q, want the launch refused", isErr, got)
	}
}

// TestMaxReplyBytesThroughBinary: a reply past --max-reply-bytes is cut,
// and says how much and how to get the rest; a big evaluate_script result
// is cut in the page.
func TestMaxReplyBytesThroughBinary(t *testing.T) {
	in := tabhivetest.StartHTTP(t, "--max-reply-bytes", "4096")
	cs := in.Client(nil)
	// A 50 MB result, made and cut in the page: past the default 30 s on
	// a loaded machine.
	got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": `() => 'x'.repeat(50 << 20)`, "timeout": 45000})
	if len(got) > 4096 {
		t.Errorf("reply of %d bytes with --max-reply-bytes 4096", len(got))
	}
	if !strings.Contains(got, "Pass filePath to save all of it to a file.") {
		t.Errorf("cut reply does not say how to get the rest:\n%s", got)
	}
}
