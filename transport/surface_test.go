package transport_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// The tool surface's options, each on a server of its own on the shared
// browser: the flags that set them are tested through the binary in
// cmd/tabhive.

func TestSlimTools(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Slim page", "<p>slim</p>"))
	// The page is opened through the full surface; the slim tools take it
	// by pageId, which tabhive adds to chrome-devtools-mcp's.
	id := openPage(t, inMemory(t), "about:blank")
	cs := onSharedBrowser(t, transporttest.Options{Config: transport.Config{Surface: transport.SurfaceConfig{Slim: true}}}).Connect(t)

	if got := must(t, cs, "navigate", map[string]any{"pageId": id, "url": srv.URL + "/"}); got != "Navigated to "+srv.URL+"/." {
		t.Errorf("navigate = %q", got)
	}
	for script, want := range map[string]string{
		"document.title":     `"Slim page"`,
		"({a: 1, b: [2]})":   `{"a":1,"b":[2]}`,
		"undefined":          "",
		"Promise.resolve(5)": "5",
	} {
		if got := must(t, cs, "evaluate", map[string]any{"pageId": id, "script": script}); got != want {
			t.Errorf("evaluate(%s) = %q, want %q", script, got, want)
		}
	}
	path := must(t, cs, "screenshot", map[string]any{"pageId": id})
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("screenshot = %q: %v, want the path of a PNG file", path, err)
	}
	os.Remove(path)
	if got, isErr := call(t, cs, "evaluate", map[string]any{"pageId": id, "script": "throw new Error('boom')"}); !isErr || !strings.HasPrefix(got, "Error: ") || !strings.Contains(got, "boom") || strings.Contains(got, "\n") {
		t.Errorf("evaluate that throws = %q (error %v), want one line \"Error: ...boom\"", got, isErr)
	}
	if got, isErr := call(t, cs, "navigate", map[string]any{"pageId": id, "url": "http://127.0.0.1:1/"}); !isErr || got != "Error: net::ERR_UNSAFE_PORT at http://127.0.0.1:1/" {
		t.Errorf("navigate to an unsafe port = %q (error %v)", got, isErr)
	}
}

func TestPageIDRouting(t *testing.T) {
	t.Parallel()
	cs := onSharedBrowser(t, transporttest.Options{Config: transport.Config{Surface: transport.SurfaceConfig{PageIDRouting: true}}}).Connect(t)
	if got, isErr := call(t, cs, "take_snapshot", nil); !isErr || !strings.HasPrefix(got, `Missing required argument "pageId" for tool "take_snapshot"`) {
		t.Errorf("take_snapshot without pageId = %q (error %v)", got, isErr)
	}
	id := openPage(t, inMemory(t), "about:blank")
	if got := must(t, cs, "take_snapshot", map[string]any{"pageId": id}); !strings.Contains(got, "RootWebArea") {
		t.Errorf("take_snapshot with pageId = %q", got)
	}
	if got := must(t, cs, "list_pages", nil); !strings.Contains(got, "## Pages") {
		t.Errorf("list_pages = %q", got)
	}
}

func TestStructuredContent(t *testing.T) {
	t.Parallel()
	id := openPage(t, inMemory(t), "about:blank")
	cs := onSharedBrowser(t, transporttest.Options{Config: transport.Config{Surface: transport.SurfaceConfig{StructuredContent: true}}}).Connect(t)
	structured := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	}
	got := structured("evaluate_script", map[string]any{"pageId": id, "function": "() => 1 + 1"})
	if got["message"] != "Script ran on page and returned:\n```json\n2\n```" {
		t.Errorf("evaluate_script structuredContent = %v", got)
	}
	got = structured("select_page", map[string]any{"pageId": id})
	pages, _ := got["pages"].([]any)
	found := false
	for _, p := range pages {
		if p := p.(map[string]any); p["id"] == float64(id) && p["selected"] == true && p["url"] == "about:blank" {
			found = true
		}
	}
	if !found {
		t.Errorf("select_page structuredContent = %v, want page %d selected in pages", got, id)
	}
	got = structured("take_snapshot", map[string]any{"nope": 1})
	if e, _ := got["error"].(string); !strings.Contains(e, `Unknown argument for tool "take_snapshot": "nope"`) {
		t.Errorf("refused call's structuredContent = %v", got)
	}
}

// TestWebMCPWithoutTheFeature: the shared browser runs without
// --enable-features=WebMCP: list_webmcp_tools says so in one sentence, and
// the page's devtoolstooldiscovery tools still work.
func TestWebMCPWithoutTheFeature(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Tools", `<p id=out>idle</p><script>
window.addEventListener('devtoolstooldiscovery', (e) => e.respondWith({name: 'Fixture tools', description: 'Tools of the fixture', tools: [
  {name: 'read_out', description: 'Reads #out', inputSchema: {type: 'object', properties: {}}, execute: () => document.getElementById('out').textContent},
]}));</script>`))
	id := openPage(t, inMemory(t), srv.URL+"/")
	cs := onSharedBrowser(t, transporttest.Options{Config: transport.Config{Surface: transport.SurfaceConfig{
		Categories: map[string]bool{"experimentalWebmcp": true, "experimentalThirdParty": true}}}}).Connect(t)
	got, isErr := call(t, cs, "list_webmcp_tools", map[string]any{"pageId": id})
	if !isErr || !strings.Contains(got, "This page has no WebMCP (document.modelContext): Chrome exposes it with --enable-features=WebMCP") {
		t.Errorf("list_webmcp_tools without WebMCP = %q (error %v)", got, isErr)
	}
	got = must(t, cs, "list_3p_developer_tools", map[string]any{"pageId": id})
	if !strings.Contains(got, "Fixture tools: Tools of the fixture") || strings.Contains(got, "WebMCP Tools") {
		t.Errorf("list_3p_developer_tools without WebMCP = %q", got)
	}
	if got := must(t, cs, "execute_3p_developer_tool", map[string]any{"pageId": id, "toolName": "read_out"}); got != `"idle"` {
		t.Errorf("execute_3p_developer_tool = %q", got)
	}
}

// TestUntrustedCertificate: without --accept-insecure-certs (the shared
// browser), a page whose certificate the browser does not trust does not
// load; cmd/tabhive's TestLaunchOptions loads it with the flag.
func TestUntrustedCertificate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(browsertest.HTML("Secure", "<p>secure</p>"))
	t.Cleanup(srv.Close)
	cs := inMemory(t)
	id := openPage(t, cs, "about:blank")
	got, isErr := call(t, cs, "navigate_page", map[string]any{"pageId": id, "url": srv.URL + "/", "timeout": 45000})
	if !isErr || !strings.Contains(got, "net::ERR_CERT_AUTHORITY_INVALID") {
		t.Errorf("navigate_page to an untrusted certificate = %q (error %v)", got, isErr)
	}
}
