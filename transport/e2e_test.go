package transport_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// One tabhive server (and so one Chromium) serves every test of this
// binary, as one server serves many agents; each test opens its own pages.
var shared struct {
	once sync.Once
	sup  *browser.Supervisor
	srv  *transport.Server
}

func TestMain(m *testing.M) {
	browsertest.Main(&mainWithShutdown{m})
}

// mainWithShutdown closes the shared server after the tests and before
// browsertest checks for leaks.
type mainWithShutdown struct{ m *testing.M }

func (w *mainWithShutdown) Run() int {
	code := w.m.Run()
	if shared.srv != nil {
		shared.srv.Close()
		if err := shared.sup.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close supervisor:", err)
			code = 1
		}
	}
	return code
}

func server(t *testing.T) *transport.Server {
	t.Helper()
	exe := browsertest.Executable(t)
	shared.once.Do(func() {
		metrics := transport.NewMetrics()
		// Its warnings go to stderr, which go test shows only when the
		// package fails: a shared browser that dies (Chromium exiting on
		// its own, with its last stderr lines) fails many tests at once,
		// and this says why. Of its debug lines, settles keeps why each
		// settle wait stopped, for the settle tests.
		logger := zerolog.New(settles).Level(zerolog.DebugLevel).With().Timestamp().Str("browser", "shared").Logger()
		shared.sup = browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true, PageHooks: metrics.PageHooks(), Logger: logger})
		// Tests keep their files in t.TempDir(), a workspace here; the
		// default sandbox (a private directory only) is tested in
		// files_test.go with servers of its own.
		shared.srv = transport.New(transport.Config{Input: input.Config{ExperimentalVision: true}, Metrics: metrics, Workspaces: []string{os.TempDir()}}, shared.sup)
	})
	return shared.srv
}

// call, must, ctx, until, callIn and mustIn are transporttest's, under the
// short names the tests of this package use.
var (
	call   = transporttest.Call
	must   = transporttest.Must
	ctx    = transporttest.Context
	until  = transporttest.Until
	callIn = transporttest.CallIn
	mustIn = transporttest.MustIn
)

// onShared serves the shared server to the test as opts says: in process,
// or over HTTP when opts.HTTP is set.
func onShared(t *testing.T, opts transporttest.Options) *transporttest.Server {
	t.Helper()
	opts.Server = server(t)
	return transporttest.Start(t, opts)
}

// onSharedBrowser is a server of its own, configured by opts.Config, on
// the shared browser.
func onSharedBrowser(t *testing.T, opts transporttest.Options) *transporttest.Server {
	t.Helper()
	server(t) // starts the shared supervisor
	opts.Browser = shared.sup
	return transporttest.Start(t, opts)
}

// inMemory connects a client to the shared server in process.
func inMemory(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return onShared(t, transporttest.Options{}).Connect(t)
}

// eachTransport runs f as a subtest per transport, each with a client of
// the shared server: in process, and over streamable HTTP.
func eachTransport(t *testing.T, f func(t *testing.T, cs *mcp.ClientSession)) {
	t.Run("in-memory", func(t *testing.T) { f(t, inMemory(t)) })
	t.Run("http", func(t *testing.T) { f(t, overHTTP(t)) })
}

// overHTTP connects a client to the shared server over streamable HTTP.
func overHTTP(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return onShared(t, transporttest.Options{HTTP: &httpserve.Config{}}).Connect(t)
}

// openPage opens url in a new page and returns its id.
func openPage(t *testing.T, cs *mcp.ClientSession, url string) int {
	t.Helper()
	return transporttest.OpenPage(t, cs, url)
}

func uidOf(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	return transporttest.UIDOf(t, snapshot, role, name)
}

// notify tells a test waiting on ch that a request came, once; later
// requests must not block the server. ch has a buffer of one.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func fixtures(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/button", browsertest.HTML("Button", `<button onclick="setTimeout(() => { const p = document.createElement('p'); p.textContent = 'Done ' + (++window.n || (window.n = 1)); out.append(p) }, 50)">Run task</button><div id=out></div>`))
	mux.Handle("/nav-a", browsertest.HTML("Page A", `<a href="/nav-b">Go to page B</a>`))
	mux.Handle("/nav-b", browsertest.HTML("Page B", `<p>Page B loaded</p>`))
	mux.Handle("/dialog", browsertest.HTML("Dialog", `<button onclick="alert('test dialog')">Alert</button><button onclick="out.textContent = 'after'">Other</button><p id=out></p>`))
	mux.Handle("/count/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		label := strings.TrimPrefix(r.URL.Path, "/count/")
		browsertest.HTML("Counter "+label, fmt.Sprintf(`<button onclick="c.textContent = '%s clicks: ' + (++n)">Count %s</button><p id=c>%s clicks: 0</p><script>let n = 0</script>`, label, label, label)).ServeHTTP(w, r)
	}))
	return browsertest.Serve(t, mux).URL
}

func TestToolsAndSchemas(t *testing.T) {
	t.Parallel()
	cs := inMemory(t)
	res, err := cs.ListTools(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if strings.Contains("click fill hover press_key take_snapshot wait_for navigate_page handle_dialog", tool.Name) {
			schema := fmt.Sprint(tool.InputSchema)
			if !strings.Contains(schema, "pageId") {
				t.Errorf("%s takes no pageId: %s", tool.Name, schema)
			}
		}
	}
	for _, want := range strings.Fields("click click_at close_page drag emulate evaluate_script fill fill_form get_console_message get_css_styles get_network_request handle_dialog hover list_console_messages list_network_requests list_pages navigate_page new_page press_key resize_page screencast_start screencast_stop select_page take_screenshot take_snapshot type_text upload_file wait_for") {
		if !slices.Contains(names, want) {
			t.Errorf("tools lack %s: %v", want, names)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("tools are not sorted by name: %v", names)
	}
}

// TestInteract is the harness's interact scenario through an MCP client:
// open, snapshot, click, wait_for, navigate, click a link, snapshot.
func TestInteract(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	eachTransport(t, func(t *testing.T, cs *mcp.ClientSession) {
		id := openPage(t, cs, base+"/button")
		snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
		if !strings.HasPrefix(snap, "## Latest page snapshot\nuid=") {
			t.Fatalf("snapshot reply:\n%s", snap)
		}
		text := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Run task")})
		if text != "Successfully clicked on the element" {
			t.Errorf("click reply = %q", text)
		}
		text = must(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"Done 1"}, "timeout": 5000})
		if !strings.HasPrefix(text, `Element matching one of ["Done 1"] found.`+"\n## Latest page snapshot\n") || !strings.Contains(text, `"Done 1"`) {
			t.Errorf("wait_for reply:\n%s", text)
		}
		text = must(t, cs, "navigate_page", map[string]any{"pageId": id, "type": "url", "url": base + "/nav-a"})
		if !strings.HasPrefix(text, "Successfully navigated to "+base+"/nav-a.\n## Pages\n") || !strings.Contains(text, fmt.Sprintf("%d: Page A (%s/nav-a) [selected]", id, base)) {
			t.Errorf("navigate reply:\n%s", text)
		}
		snap = must(t, cs, "take_snapshot", nil)
		text = must(t, cs, "click", map[string]any{"uid": uidOf(t, snap, "link", "Go to page B"), "includeSnapshot": true})
		want := "Successfully clicked on the element\nPage navigated to " + base + "/nav-b.\n## Latest page snapshot\n"
		if !strings.HasPrefix(text, want) || !strings.Contains(text, `"Page B loaded"`) {
			t.Errorf("click on link reply:\n%s\nwant prefix:\n%s", text, want)
		}
	})
}

// TestBadInput: every kind of bad input gets a clear error and changes
// nothing.
//
// Not parallel: it checks that the page list is unchanged afterwards.
func TestBadInput(t *testing.T) {
	base := fixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/button")
	before := must(t, cs, "list_pages", nil)
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	button := uidOf(t, snap, "button", "Run task")
	must(t, cs, "navigate_page", map[string]any{"pageId": id, "type": "reload"})

	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"take_snapshot", map[string]any{"pageId": id, "bogus": 1},
			`Unknown argument for tool "take_snapshot": "bogus". Expected arguments: "verbose", "filePath", "uid", "depth", "query", "inViewport", "diff". Remove it and retry.`},
		{"list_pages", map[string]any{"x": 1, "y": 2},
			`Unknown argument for tool "list_pages": "x", "y". This tool does not accept any arguments.`},
		{"click", map[string]any{"pageId": id},
			`Missing required argument "uid" for tool "click"`},
		{"click", map[string]any{"pageId": id, "uid": 42},
			`Invalid argument "uid" for tool "click": expected a string, got 42.`},
		{"navigate_page", map[string]any{"pageId": id, "type": "sideways"},
			`Invalid argument "type" for tool "navigate_page": "sideways" is not one of "url", "back", "forward", "reload".`},
		{"click", map[string]any{"pageId": id, "uid": button},
			"Error: Element with uid " + button + " no longer exists on the page. Take a new snapshot (take_snapshot) and use the uids it gives."},
		{"click", map[string]any{"pageId": id, "uid": "999_1"},
			fmt.Sprintf(`Error: Element uid "999_1" not found on page %d. Take a new snapshot (take_snapshot) and use a uid from it.`, id)},
		{"take_snapshot", map[string]any{"pageId": 9999},
			"Error: No page found with id 9999. Call list_pages to see open pages."},
		{"select_page", map[string]any{"pageId": 9999},
			"Error: No page found with id 9999. Call list_pages to see open pages."},
		{"navigate_page", map[string]any{"pageId": id, "url": "notaurl"},
			`Error: Invalid URL: "notaurl". URLs must be valid according to the URL standard.`},
		{"new_page", map[string]any{"url": "http://127.0.0.1:1/"},
			"Error: Could not load http://127.0.0.1:1/ in a new page: net::ERR_UNSAFE_PORT at http://127.0.0.1:1/; no page was opened."},
		{"press_key", map[string]any{"pageId": id, "key": "Control+Foo"},
			`Error: Unknown key "Foo"`},
		{"wait_for", map[string]any{"pageId": id, "text": []string{}},
			`Invalid argument "text" for tool "wait_for": give at least 1 item(s).`},
		{"handle_dialog", map[string]any{"pageId": id, "action": "accept"},
			"Error: No open dialog found"},
	}
	for _, tt := range tests {
		text, isErr := call(t, cs, tt.tool, tt.args)
		if !isErr || !strings.Contains(text, tt.want) {
			t.Errorf("%s(%v) = %v:\n%s\nwant an error containing:\n%s", tt.tool, tt.args, isErr, text, tt.want)
		}
		if strings.Contains(text, "goroutine") || strings.Contains(text, ".go:") {
			t.Errorf("%s(%v) leaks a Go trace:\n%s", tt.tool, tt.args, text)
		}
	}
	if after := must(t, cs, "list_pages", nil); after != before {
		t.Errorf("bad input changed the pages:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// A page with no snapshot yet.
	fresh := openPage(t, cs, base+"/nav-b")
	if text, isErr := call(t, cs, "click", map[string]any{"pageId": fresh, "uid": "1_1"}); !isErr ||
		text != fmt.Sprintf("Error: No snapshot found for page %d. Use take_snapshot to capture one.", fresh) {
		t.Errorf("click before any snapshot: %q", text)
	}
	// A closed page's id stays dead.
	other := openPage(t, cs, base+"/nav-b")
	must(t, cs, "close_page", map[string]any{"pageId": other})
	text, isErr := call(t, cs, "take_snapshot", map[string]any{"pageId": other})
	if !isErr || !strings.Contains(text, fmt.Sprintf("No page found with id %d", other)) {
		t.Errorf("snapshot of a closed page = %q", text)
	}
}

// TestDialogNotice: a click that opens an alert succeeds with the notice;
// tools that need the renderer then fail at once with the notice; the
// dialog is handled; other pages never notice.
func TestDialogNotice(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/dialog")
	other := openPage(t, cs, base+"/button")
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	text := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Alert")})
	checkGolden(t, "dialog", "click that opens an alert", text)
	// A blocked tool fails at once: before a deadline far short of its
	// budget (the event; 1 s is room for a loaded machine).
	quick, cancel := context.WithTimeout(ctx(t), time.Second)
	defer cancel()
	text, isErr := callIn(t, quick, cs, "take_snapshot", map[string]any{"pageId": id})
	if !isErr {
		t.Errorf("snapshot with a dialog open succeeded:\n%s", text)
	}
	checkGolden(t, "dialog", "take_snapshot with a dialog open", text)
	must(t, cs, "take_snapshot", map[string]any{"pageId": other})
	must(t, cs, "list_pages", nil)
	text = must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept"})
	if !strings.HasPrefix(text, "Successfully accepted the dialog\n## Pages\n") {
		t.Errorf("handle_dialog reply:\n%s", text)
	}
	must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Other")})
}

// TestParallelSessions: four HTTP sessions, each on its own page, click and
// snapshot at the same time; every reply is about its own page, and no
// session's selection moves another's.
func TestParallelSessions(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	srv := onShared(t, transporttest.Options{HTTP: &httpserve.Config{}})
	const sessions, rounds = 4, 5
	clients := make([]*mcp.ClientSession, sessions)
	ids := make([]int, sessions)
	for i := range clients {
		clients[i] = srv.Connect(t)
		// No pageId below: each session relies on its own selection.
		ids[i] = openPage(t, clients[i], fmt.Sprintf("%s/count/s%d", base, i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, sessions*rounds)
	for i, cs := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			label := fmt.Sprintf("s%d", i)
			for r := 1; r <= rounds; r++ {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "take_snapshot"})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("%s snapshot: %v %v", label, err, res)
					return
				}
				snap := res.Content[0].(*mcp.TextContent).Text
				want := fmt.Sprintf(`"%s clicks: %d"`, label, r-1)
				if !strings.Contains(snap, want) {
					errs <- fmt.Errorf("%s round %d: snapshot lacks %s (another page's?):\n%s", label, r, want, snap)
					return
				}
				m := regexp.MustCompile(`uid=(\S+) button "Count ` + label + `"`).FindStringSubmatch(snap)
				if m == nil {
					errs <- fmt.Errorf("%s: own button missing:\n%s", label, snap)
					return
				}
				res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "click", Arguments: map[string]any{"uid": m[1]}})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("%s click: %v %v", label, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, cs := range clients {
		text := must(t, cs, "list_pages", nil)
		if !strings.Contains(text, fmt.Sprintf("%d: Counter s%d (%s/count/s%d) [selected]", ids[i], i, base, i)) {
			t.Errorf("session %d's selection moved:\n%s", i, text)
		}
	}
}
