package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/launch"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// slowLoad is the timeout, in milliseconds, the tests give a navigation:
// a browser just launched on a loaded machine may take more than the
// default 10 s to load its first page, and budget and client wait stay
// within the helpers' minute.
const slowLoad = 45000

// longCall is transporttest.Call with room for the tools whose budget is
// longer than the helpers' (the PWA tools' is 2 minutes, for a loaded
// machine): the client waits past the budget, so that the reply is the
// server's.
func longCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	res, err := cs.CallTool(c, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return transporttest.Text(res), res.IsError
}

// longText is longCall of a call that must succeed.
func longText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	got, isErr := longCall(t, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed:\n%s", name, args, got)
	}
	return got
}

// waitText calls a tool until its reply contains want, or fails the test
// after 30 s: for what the browser does on its own time (a service worker
// starting, a badge set by a page).
// explain, if given, says more when the wait fails.
func waitText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, want string, explain ...func() string) string {
	t.Helper()
	var got string
	if !testwait.Poll(30*time.Second, func() bool { got, _ = longCall(t, cs, tool, args); return strings.Contains(got, want) }) {
		for _, e := range explain {
			t.Log(e())
		}
		t.Fatalf("%s(%v) never said %q; last:\n%s", tool, args, want, got)
	}
	return got
}

// mustContain fails the test unless got contains every one of want.
func mustContain(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}

// mustFail calls a tool that must fail and checks its one sentence.
func mustFail(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, want string) {
	t.Helper()
	got, isErr := longCall(t, cs, tool, args)
	if !isErr || !strings.Contains(got, want) {
		t.Errorf("%s(%v) = %q (error %v), want an error containing %q", tool, args, got, isErr, want)
	}
	if strings.Count(strings.TrimSpace(got), "\n") > 0 && !strings.Contains(want, "\n") {
		t.Errorf("%s(%v): %q is more than one line", tool, args, got)
	}
}

func TestExtensionTools(t *testing.T) {
	t.Parallel()
	ext, err := filepath.Abs(filepath.Join("testdata", "extension"))
	if err != nil {
		t.Fatal(err)
	}
	srv := browsertest.Serve(t, browsertest.HTML("Plain", "<p>plain page</p>"))
	cs := client(t, "--category-extensions", "--workspace", filepath.Dir(ext))

	got := longText(t, cs, "install_extension", map[string]any{"path": ext})
	id, ok := strings.CutPrefix(got, "Extension installed. Id: ")
	if !ok || len(id) != 32 {
		t.Fatalf("install_extension = %q, want \"Extension installed. Id: <32 letters>\"", got)
	}
	mustContain(t, "list_extensions", longText(t, cs, "list_extensions", nil), "## Extensions", fmt.Sprintf(`id=%s "tabhive fixture" v1.2 Enabled`, id))

	// Two pages: the action is triggered on the one behind. Chrome runs
	// an action on its window's active tab, whatever tab the command
	// names; tabhive brings the page to front first.
	behind := pageIDOf(t, longText(t, cs, "new_page", map[string]any{"url": srv.URL + "/behind", "timeout": slowLoad}), srv.URL+"/behind")
	longText(t, cs, "new_page", map[string]any{"url": srv.URL + "/front", "timeout": slowLoad})
	// The worker starts on install; the page list names it once the
	// browser reports it.
	pages := waitText(t, cs, "list_pages", nil, "chrome-extension://"+id+"/sw.js")
	sw := regexp.MustCompile(`(sw-\d+): chrome-extension://` + id + `/sw\.js`).FindStringSubmatch(pages)
	if sw == nil || !strings.Contains(pages, "## Extension Service Workers") {
		t.Fatalf("list_pages does not list the service worker:\n%s", pages)
	}
	mustContain(t, "evaluate_script in the worker", longText(t, cs, "evaluate_script", map[string]any{"serviceWorkerId": sw[1], "function": "() => chrome.runtime.id"}), `"`+id+`"`)

	mustContain(t, "trigger_extension_action", longText(t, cs, "trigger_extension_action", map[string]any{"id": id, "pageId": behind}), "Extension action triggered for ID "+id)
	// The worker's onClicked names the tab the action ran on: the page
	// behind, made active. (Its URL shows: the action's activeTab grant
	// reached the tab.)
	waitText(t, cs, "list_console_messages", map[string]any{"serviceWorkerId": sw[1]}, srv.URL+"/behind (active)")
	// The extension's script then marks the page; or Chromium refuses it
	// there, having told the page's renderer of the grant after the
	// injection (seen on a loaded machine about one time in eight, with
	// the action on the right tab as above): Chromium's race, not the
	// action's.
	var title, console string
	if !testwait.Poll(30*time.Second, func() bool {
		title, _ = longCall(t, cs, "evaluate_script", map[string]any{"function": "() => document.title", "pageId": behind})
		if strings.Contains(title, "Action clicked") {
			return true
		}
		console, _ = longCall(t, cs, "list_console_messages", map[string]any{"serviceWorkerId": sw[1]})
		if strings.Contains(console, "Cannot access contents of the page") {
			t.Log("the action ran on its page; Chromium refused the extension's own script there (its renderer not yet told of the grant)")
			return true
		}
		return false
	}) {
		t.Fatalf("the action never marked the page: title %q; the worker's console:\n%s", title, console)
	}

	mustContain(t, "reload_extension", longText(t, cs, "reload_extension", map[string]any{"id": id}), "Extension reloaded.")

	// Bad input, one sentence each, changing nothing.
	mustFail(t, cs, "uninstall_extension", map[string]any{"id": "nope"}, "Extension with ID nope not found.")
	mustFail(t, cs, "reload_extension", map[string]any{"id": "nope"}, "Extension with ID nope not found.")
	mustFail(t, cs, "trigger_extension_action", map[string]any{"id": "nope"}, "Extension with ID nope not found.")
	outside := t.TempDir()
	for _, f := range []string{"manifest.json", "sw.js"} {
		b, _ := os.ReadFile(filepath.Join(ext, f))
		os.WriteFile(filepath.Join(outside, f), b, 0o600)
	}
	mustFail(t, cs, "install_extension", map[string]any{"path": outside}, "Access denied")
	mustFail(t, cs, "install_extension", map[string]any{"path": filepath.Dir(ext)}, "holds no readable manifest.json")
	mustFail(t, cs, "evaluate_script", map[string]any{"serviceWorkerId": "sw-999", "function": "() => 1"}, "Service worker not found.")
	mustFail(t, cs, "evaluate_script", map[string]any{"serviceWorkerId": sw[1], "pageId": 1, "function": "() => 1"}, "Specify either a pageId or a serviceWorkerId.")
	mustFail(t, cs, "evaluate_script", map[string]any{"serviceWorkerId": sw[1], "args": []string{"1_1"}, "function": "(e) => 1"}, "Args (element uids) cannot be used when evaluating in a service worker.")
	closed := closedPage(t, cs)
	mustFail(t, cs, "trigger_extension_action", map[string]any{"id": id, "pageId": closed}, fmt.Sprintf("No page found with id %d.", closed))
	mustContain(t, "list_extensions after the refusals", longText(t, cs, "list_extensions", nil), fmt.Sprintf(`id=%s "tabhive fixture" v1.2 Enabled`, id))

	mustContain(t, "uninstall_extension", longText(t, cs, "uninstall_extension", map[string]any{"id": id}), "Extension uninstalled. Id: "+id)
	mustContain(t, "list_extensions after uninstall", longText(t, cs, "list_extensions", nil), "No extensions installed.")
}

// pwaSite serves a web app: a page linking a manifest whose id is /app/,
// which sets its badge to 3 when it runs installed, and an icon.
func pwaSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>Fixture app</title><link rel=manifest href=/manifest.json></head>
<body><h1>Fixture app</h1><script>if (navigator.setAppBadge) navigator.setAppBadge(3).catch(() => {})</script></body></html>`)
	})
	mux.HandleFunc("/manifest.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/manifest+json")
		fmt.Fprint(w, `{"name": "Fixture app", "id": "/app/", "start_url": "/", "scope": "/", "display": "standalone",
			"icons": [{"src": "/icon.png", "sizes": "192x192", "type": "image/png"}],
			"file_handlers": [{"action": "/", "accept": {"text/plain": [".txt"]}}]}`)
	})
	mux.HandleFunc("/icon.png", func(w http.ResponseWriter, r *http.Request) {
		img := image.NewRGBA(image.Rect(0, 0, 192, 192))
		for i := range img.Pix {
			img.Pix[i] = 200
		}
		img.Set(0, 0, color.Black)
		w.Header().Set("Content-Type", "image/png")
		png.Encode(w, img)
	})
	return browsertest.Serve(t, mux)
}

func TestPWATools(t *testing.T) {
	t.Parallel()
	srv := pwaSite(t)
	app := srv.URL + "/app/"
	cs := client(t, "--category-pwa")

	mustFail(t, cs, "get_os_app_state", map[string]any{"manifestId": app}, "No installed web app has the manifest ID "+app+". Install it with install_pwa first.")
	got := longText(t, cs, "install_pwa", map[string]any{"manifestId": app, "installUrlOrBundleUrl": srv.URL + "/", "displayMode": "standalone"})
	if want := "Installed PWA with manifest ID: " + app + "\nDisplay mode set to: standalone"; got != want {
		t.Errorf("install_pwa = %q, want %q", got, want)
	}
	mustContain(t, "get_os_app_state", longText(t, cs, "get_os_app_state", map[string]any{"manifestId": app}),
		"OS app state for manifest ID: "+app, "Badge count: 0", `File handlers: [{"action":"`+srv.URL+`/","accepts":[{"mediaType":"text/plain","fileExtensions":[".txt"]}]`)

	got = longText(t, cs, "launch_pwa", map[string]any{"manifestId": app})
	mustContain(t, "launch_pwa", got, "Launched PWA with manifest ID: "+app+" ("+srv.URL+"/)", "## Pages", "1: about:blank [selected]", "2: ")
	// The app's page runs installed: its badge is the OS state's.
	waitText(t, cs, "get_os_app_state", map[string]any{"manifestId": app}, "Badge count: 3")

	mustFail(t, cs, "launch_pwa", map[string]any{"manifestId": srv.URL + "/other/"}, "Could not launch the web app "+srv.URL+"/other/: install it with install_pwa first")
	mustFail(t, cs, "install_pwa", map[string]any{"manifestId": srv.URL + "/other/", "installUrlOrBundleUrl": srv.URL + "/"}, "Couldn't fetch install info")
	mustFail(t, cs, "install_pwa", map[string]any{"manifestId": app, "installUrlOrBundleUrl": "ftp://example.test/app"}, "is neither http(s) nor file")

	got = longText(t, cs, "uninstall_pwa", map[string]any{"manifestId": app})
	mustContain(t, "uninstall_pwa", got, "Uninstalled PWA with manifest ID: "+app, "## Pages")
	mustFail(t, cs, "get_os_app_state", map[string]any{"manifestId": app}, "No installed web app has the manifest ID")
}

// toolsPage registers WebMCP tools (add, fail, and dbg_state for debugging)
// when the page has WebMCP, and offers two developer tools through
// devtoolstooldiscovery.
const toolsPage = `<p id=out>idle</p><button id=b>Go</button><script>
if (document.modelContext) {
  document.modelContext.registerTool({name: 'add', description: 'Adds two numbers',
    inputSchema: {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']},
    execute: async ({a, b}) => { document.getElementById('out').textContent = 'sum ' + (a + b); return {content: [{type: 'text', text: String(a + b)}]}; }});
  document.modelContext.registerTool({name: 'fail', description: 'Always fails', inputSchema: {type: 'object', properties: {}},
    execute: async () => { throw new Error('tool failed on purpose'); }});
  document.modelContext.registerTool({name: 'dbg_state', description: 'Debug state', inputSchema: {type: 'object', properties: {}},
    annotations: {debugging: true}, execute: async () => ({state: document.getElementById('out').textContent})});
}
window.addEventListener('devtoolstooldiscovery', (e) => e.respondWith({name: 'Fixture tools', description: 'Tools of the fixture', tools: [
  {name: 'read_out', description: 'Reads #out', inputSchema: {type: 'object', properties: {}},
    execute: () => ({text: document.getElementById('out').textContent, el: document.getElementById('out')})},
  {name: 'label', description: 'Labels an element',
    inputSchema: {type: 'object', properties: {el: {'x-mcp-type': 'HTMLElement'}, text: {type: 'string'}}, required: ['el', 'text']},
    execute: ({el, text}) => { el.textContent = text; return 'labelled ' + el.id; }},
]}));
</script>`

func TestWebMCPAndThirdPartyTools(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Tools", toolsPage))
	cs := client(t, "--category-experimental-webmcp", "--category-experimental-third-party")
	text(t, cs, "navigate_page", map[string]any{"url": srv.URL + "/", "timeout": slowLoad})

	got := text(t, cs, "list_webmcp_tools", nil)
	mustContain(t, "list_webmcp_tools", got, "## WebMCP tools",
		`name="add", description="Adds two numbers", inputSchema={"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}, annotations=undefined`,
		`name="fail", description="Always fails"`)
	if strings.Contains(got, "dbg_state") {
		t.Errorf("list_webmcp_tools lists the debugging tool:\n%s", got)
	}
	got = text(t, cs, "execute_webmcp_tool", map[string]any{"toolName": "add", "input": `{"a": 2, "b": 3}`})
	if want := "{\n  \"status\": \"Completed\",\n  \"output\": {\n    \"content\": [\n      {\n        \"type\": \"text\",\n        \"text\": \"5\"\n      }\n    ]\n  }\n}"; got != want {
		t.Errorf("execute_webmcp_tool add = %q, want %q", got, want)
	}
	mustContain(t, "execute_webmcp_tool fail", text(t, cs, "execute_webmcp_tool", map[string]any{"toolName": "fail"}), `"status": "Error"`, `"error": "Error: tool failed on purpose`)
	mustFail(t, cs, "execute_webmcp_tool", map[string]any{"toolName": "nope"}, "Tool nope not found.")
	mustFail(t, cs, "execute_webmcp_tool", map[string]any{"toolName": "dbg_state"}, "Tool dbg_state not found.")
	mustFail(t, cs, "execute_webmcp_tool", map[string]any{"toolName": "add", "input": "[1]"}, "Failed to parse input as JSON: Parsed input is not an object.")
	mustFail(t, cs, "execute_webmcp_tool", map[string]any{"toolName": "add", "input": "{bad"}, "Failed to parse input as JSON")

	got = text(t, cs, "list_3p_developer_tools", nil)
	mustContain(t, "list_3p_developer_tools", got, "## Third-party developer tools",
		"WebMCP Tools: Tools exposed via WebMCP\nAvailable tools:\n"+`name="dbg_state", description="Debug state", inputSchema={"type":"object","properties":{}}`,
		"Fixture tools: Tools of the fixture\nAvailable tools:\n"+`name="read_out", description="Reads #out", inputSchema={"type":"object","properties":{}}`,
		`name="label", description="Labels an element", inputSchema={"type":"object","properties":{"el":{"x-mcp-type":"HTMLElement","properties":{"uid":{"type":"string"}},"required":["uid"]},"text":{"type":"string"}},"required":["el","text"]}`)
	if got := text(t, cs, "execute_3p_developer_tool", map[string]any{"toolName": "dbg_state"}); got != "{\n  \"state\": \"sum 5\"\n}" {
		t.Errorf("execute_3p_developer_tool dbg_state = %q", got)
	}
	mustContain(t, "execute_3p_developer_tool read_out", text(t, cs, "execute_3p_developer_tool", map[string]any{"toolName": "read_out"}), `"text": "sum 5"`, `"el": "<p#out>"`)

	snap := text(t, cs, "take_snapshot", nil)
	m := regexp.MustCompile(`uid=(\S+) button "Go"`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no button in the snapshot:\n%s", snap)
	}
	got = text(t, cs, "execute_3p_developer_tool", map[string]any{"toolName": "label", "params": fmt.Sprintf(`{"el": {"uid": %q}, "text": "hi"}`, m[1])})
	mustContain(t, "execute_3p_developer_tool label", got, `"labelled b"`)
	mustContain(t, "snapshot after label", text(t, cs, "take_snapshot", nil), `button "hi"`)
	mustFail(t, cs, "execute_3p_developer_tool", map[string]any{"toolName": "label", "params": `{"text": 5}`}, "Invalid parameters for tool label")
	mustFail(t, cs, "execute_3p_developer_tool", map[string]any{"toolName": "nope"}, "Tool nope not found.")
	mustFail(t, cs, "execute_3p_developer_tool", map[string]any{"toolName": "label", "params": `"x"`}, "Failed to parse params as JSON: Parsed params is not an object.")
	// No such element, and a page that was closed: one sentence each.
	mustFail(t, cs, "execute_3p_developer_tool", map[string]any{"toolName": "label", "params": `{"el": {"uid": "1_999"}, "text": "x"}`}, `Element uid "1_999" not found on page 1.`)
	mustContain(t, "the button after the refusal", text(t, cs, "take_snapshot", nil), `button "hi"`)
	closed := closedPage(t, cs)
	for _, tool := range []string{"list_webmcp_tools", "list_3p_developer_tools"} {
		mustFail(t, cs, tool, map[string]any{"pageId": closed}, fmt.Sprintf("No page found with id %d.", closed))
	}
	mustFail(t, cs, "execute_webmcp_tool", map[string]any{"pageId": closed, "toolName": "add", "input": `{"a": 1, "b": 1}`}, fmt.Sprintf("No page found with id %d.", closed))
	mustFail(t, cs, "execute_3p_developer_tool", map[string]any{"pageId": closed, "toolName": "read_out"}, fmt.Sprintf("No page found with id %d.", closed))
}

// pageIDOf returns the id a page list gives the selected page at url.
func pageIDOf(t *testing.T, list, url string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(\d+): (?:.*\()?` + regexp.QuoteMeta(url) + `\)? \[selected\]$`).FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("the page list does not show %s as selected:\n%s", url, list)
	}
	var id int
	fmt.Sscan(m[1], &id)
	return id
}

// closedPage opens a page and closes it, and returns its id.
func closedPage(t *testing.T, cs *mcp.ClientSession) int {
	t.Helper()
	got := longText(t, cs, "new_page", map[string]any{"url": "about:blank"})
	m := regexp.MustCompile(`(?m)^(\d+): about:blank \[selected\]$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("new_page did not list its page as selected:\n%s", got)
	}
	var id int
	fmt.Sscan(m[1], &id)
	longText(t, cs, "close_page", map[string]any{"pageId": id})
	return id
}

// TestLaunchOptions: --accept-insecure-certs, --proxy-server and
// --ignore-default-chrome-arg, on one launched browser. A page whose
// certificate the browser does not trust loads (the transport package's
// TestUntrustedCertificate shows it does not without the flag); a name
// that does not resolve is reached through the proxy (loopback addresses
// never are); the switches left out are not on Chromium's command line.
func TestLaunchOptions(t *testing.T) {
	t.Parallel()
	secure := httptest.NewTLSServer(browsertest.HTML("Secure", "<p>trusted now</p>"))
	t.Cleanup(secure.Close)
	proxy := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>via proxy</title><p>proxied %s</p>", r.Host)
	}))
	cmd := command(t, "--accept-insecure-certs", "--proxy-server", proxy.URL,
		"--ignore-default-chrome-arg=--disable-sync", "--ignoreDefaultChromeArg", "--disable-features")
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second})

	mustContain(t, "navigate_page", text(t, cs, "navigate_page", map[string]any{"url": secure.URL + "/", "timeout": slowLoad}), "Successfully navigated to "+secure.URL+"/")
	text(t, cs, "navigate_page", map[string]any{"url": "http://tabhive-proxy.test/", "timeout": slowLoad})
	mustContain(t, "wait_for", text(t, cs, "wait_for", map[string]any{"text": []string{"proxied tabhive-proxy.test"}, "timeout": slowLoad}), "proxied tabhive-proxy.test")

	args := browserArgs(t, cmd.Process.Pid)
	for _, a := range args {
		if a == "--disable-sync" || strings.HasPrefix(a, "--disable-features=") {
			t.Errorf("Chromium was launched with %s, which --ignore-default-chrome-arg left out", a)
		}
	}
	all := strings.Join(args, " ")
	if !strings.Contains(all, "--disable-component-update") || !strings.Contains(all, "--proxy-server="+proxy.URL) {
		t.Errorf("Chromium's command line lacks the other defaults or the proxy: %q", args)
	}
}

// browserArgs returns the command line of the browser a tabhive process
// launched.
func browserArgs(t *testing.T, tabhive int) []string {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(fields) < 2 || fields[1] != fmt.Sprint(tabhive) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if strings.Contains(strings.Join(args, " "), "--remote-debugging-pipe") {
			return args
		}
	}
	t.Fatalf("found no browser launched by tabhive (pid %d)", tabhive)
	return nil
}

// startChrome starts a Chromium with a DevTools port on profile, as a user
// starts Chrome with remote debugging on, and stops it when the test ends.
func startChrome(t *testing.T, profile string) *launch.Process {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := launch.Start(c, launch.Options{ExecutablePath: browsertest.Executable(t), Headless: true, UserDataDir: profile, DebuggingPort: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// bareCommand is the tabhive command with only the given flags (and
// warn-level logs), in env's environment besides the test's.
func bareCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := binary(t, append([]string{"--log-level", "warn"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func TestAutoConnect(t *testing.T) {
	t.Parallel()
	config := t.TempDir()
	// The channel's default profile, under $CHROME_CONFIG_HOME.
	startChrome(t, filepath.Join(config, "google-chrome-beta"))
	srv := browsertest.Serve(t, browsertest.HTML("Mine", "<p>the user's own tab</p>"))
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: bareCommand(t, []string{"CHROME_CONFIG_HOME=" + config}, "--auto-connect", "--channel", "beta"), TerminateDuration: 30 * time.Second})
	mustContain(t, "new_page", text(t, cs, "new_page", map[string]any{"url": srv.URL + "/", "timeout": slowLoad}), "Mine ("+srv.URL+"/) [selected]")

	// The profile named by --user-data-dir, for a user's own directory.
	own := filepath.Join(t.TempDir(), "profile")
	startChrome(t, own)
	cs = transporttest.Dial(t, &mcp.CommandTransport{Command: bareCommand(t, nil, "--autoConnect", "--user-data-dir", own), TerminateDuration: 30 * time.Second})
	mustContain(t, "list_pages", text(t, cs, "list_pages", nil), "about:blank")

	// Chromium 156 lets DevTools load extensions over a port too.
	ext, _ := filepath.Abs(filepath.Join("testdata", "extension"))
	cs = transporttest.Dial(t, &mcp.CommandTransport{Command: bareCommand(t, nil, "--autoConnect", "--user-data-dir", own, "--category-extensions", "--workspace", filepath.Dir(ext)), TerminateDuration: 30 * time.Second})
	got := text(t, cs, "install_extension", map[string]any{"path": ext})
	id := strings.TrimPrefix(got, "Extension installed. Id: ")
	mustContain(t, "list_extensions over a port", text(t, cs, "list_extensions", nil), "id="+id)
	text(t, cs, "uninstall_extension", map[string]any{"id": id})

	// No Chrome there: one sentence.
	none := t.TempDir()
	cs = transporttest.Dial(t, &mcp.CommandTransport{Command: bareCommand(t, nil, "--auto-connect", "--user-data-dir", none), TerminateDuration: 30 * time.Second})
	mustFail(t, cs, "list_pages", nil, "Could not connect to Chrome in "+none+": no DevToolsActivePort there; check that Chrome is running and remote debugging is enabled by going to chrome://inspect/#remote-debugging")
}

// TestUpstreamConfigStarts: a chrome-devtools-mcp user's command line, and
// the same options in a --config file, start tabhive without an error:
// Chrome stable is looked for and, where it is not installed, a warning
// says that Chromium from PATH is launched instead; the slim tools work.
func TestUpstreamConfigStarts(t *testing.T) {
	t.Parallel()
	exe := browsertest.Executable(t)
	env := []string{"PATH=" + filepath.Dir(exe) + string(os.PathListSeparator) + os.Getenv("PATH")}
	upstream := []string{"--headless", "--isolated", "--channel", "stable", "--viewport", "1280x720", "--category-performance=false",
		"--proxy-server", "http://127.0.0.1:3128", "--accept-insecure-certs", "--slim"}
	file := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(file, []byte(`{"headless": true, "isolated": true, "channel": "stable", "viewport": "1280x720", "categoryPerformance": false,
		"proxyServer": "http://127.0.0.1:3128", "acceptInsecureCerts": true, "slim": true}`), 0o600)
	srv := browsertest.Serve(t, browsertest.HTML("Switched", "<p>switched</p>"))
	_, statErr := os.Stat(browser.ChannelExecutable("stable"))

	for name, args := range map[string][]string{"command line": upstream, "--config": {"--config", file}} {
		t.Run(name, func(t *testing.T) {
			cmd := bareCommand(t, env, args...)
			stderr := &browsertest.LogBuffer{}
			cmd.Stderr = stderr
			cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second})
			names := transporttest.ToolNames(t, cs)
			if got := strings.Join(names, " "); got != "evaluate navigate screenshot" {
				t.Errorf("tools = %s, want the slim three", got)
			}
			// A loopback page: Chromium never sends it through the proxy.
			if got := text(t, cs, "navigate", map[string]any{"url": srv.URL + "/"}); got != "Navigated to "+srv.URL+"/." {
				t.Errorf("navigate = %q", got)
			}
			// --viewport is the page's size (TestViewportThroughBinary).
			if got := text(t, cs, "evaluate", map[string]any{"script": "innerWidth"}); got != "1280" {
				t.Errorf("innerWidth = %s, want 1280", got)
			}
			warnings := regexp.MustCompile(`(?m)^tabhive: warning: .*$`).FindAllString(stderr.String(), -1)
			want := 0
			if statErr != nil {
				want = 1
				if len(warnings) == 1 && !strings.Contains(warnings[0], "--channel stable: Chrome stable is not installed here") {
					t.Errorf("warning = %q, want the channel's", warnings[0])
				}
			}
			if len(warnings) != want {
				t.Errorf("stderr has %d warning lines, want %d:\n%s", len(warnings), want, stderr.String())
			}
		})
	}
}

// TestWarnings: each flag tabhive accepts but cannot honour prints one
// warning line on stderr, and tabhive serves all the same.
func TestWarnings(t *testing.T) {
	t.Parallel()
	cmd := bareCommand(t, nil, "--source-maps", "--experimental-devtools", "--performanceCrux", "--usage-statistics",
		"--experimentalPageIdRouting", "--browser-url", "http://127.0.0.1:9", "--proxy-server", "http://127.0.0.1:3128",
		"--ignore-default-chrome-arg=--disable-sync", "--category-experimental-webmcp",
		"--no-usage-statistics=false") // a --no- form given false: usage statistics asked for once more
	stderr := &browsertest.LogBuffer{}
	cmd.Stderr = stderr
	cmd.Stdin = strings.NewReader("") // stdio ends at once: the server starts, then exits
	if err := cmd.Run(); err != nil {
		t.Fatalf("tabhive exited with %v:\n%s", err, stderr.String())
	}
	warnings := regexp.MustCompile(`(?m)^tabhive: warning: .*$`).FindAllString(stderr.String(), -1)
	for _, want := range []string{"--source-maps has no effect", "--experimental-devtools has no effect", "--performance-crux has no effect",
		"--usage-statistics has no effect", "--experimental-page-id-routing has no effect", "--proxy-server applies to a browser tabhive launches",
		"--ignore-default-chrome-arg applies to a browser tabhive launches", "--category-experimental-webmcp: pages have WebMCP only when"} {
		n := 0
		for _, w := range warnings {
			if strings.Contains(w, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d warning lines say %q, want 1:\n%s", n, want, stderr.String())
		}
	}
	if len(warnings) != 8 {
		t.Errorf("%d warning lines, want 8:\n%s", len(warnings), strings.Join(warnings, "\n"))
	}
}
