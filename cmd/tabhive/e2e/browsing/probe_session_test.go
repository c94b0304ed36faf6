package browsing

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestSessionBoundToTokenThroughBinary: with one token per client
// (--auth-tokens-file), client B, holding its own valid token, sends client
// A's Mcp-Session-Id: every request (a tool call, the GET stream, DELETE)
// is answered as if the session did not exist, and A's session, its pages
// and its selection are untouched. With A's own token the same request
// reaches A's session: among holders of one token, the id is the secret.
func TestSessionBoundToTokenThroughBinary(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Only A", `<p>a's page</p>`)).URL + "/a-private-page"
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# one token per client\ntoken-of-a\n\n  token-of-b  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &browsertest.LogBuffer{}
	cmd := tabhivetest.Command(t, "--http", "127.0.0.1:0", "--auth-tokens-file", file, "--isolate-sessions", "--log-level", "debug")
	cmd.Stderr = logs
	in := tabhivetest.Serve(t, cmd, nil)
	bearerA := http.Header{"Authorization": {"Bearer token-of-a"}}
	bearerB := http.Header{"Authorization": {"Bearer token-of-b"}}
	a, b := in.Client(bearerA), in.Client(bearerB)
	idA := selectedID(t, transporttest.Must(t, a, "navigate_page", map[string]any{"url": site}))
	transporttest.Must(t, b, "list_pages", nil) // B has a session of its own
	version := a.InitializeResult().ProtocolVersion

	request := func(method, body string, bearer http.Header) (int, string) {
		t.Helper()
		var req *http.Request
		if body != "" {
			req, _ = http.NewRequest(method, in.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req, _ = http.NewRequest(method, in.URL, nil)
		}
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", a.ID())
		req.Header.Set("MCP-Protocol-Version", version)
		for k, v := range bearer {
			req.Header[k] = v
		}
		if method == http.MethodGet {
			// The stream stays open when it is served: only its status
			// and first bytes are wanted.
			req.Header.Set("Accept", "text/event-stream")
			resp, err := http.DefaultClient.Do(req.WithContext(transporttest.Context(t)))
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			resp.Body.Close()
			return resp.StatusCode, ""
		}
		status, _, answer := in.Do(req)
		return status, answer
	}
	const listPages = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_pages","arguments":{}}}`
	newPage := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"new_page","arguments":{"url":"about:blank"}}}`

	for _, c := range []struct{ method, body string }{
		{http.MethodPost, listPages},
		{http.MethodPost, newPage},
		{http.MethodGet, ""},
		{http.MethodDelete, ""},
	} {
		status, answer := request(c.method, c.body, bearerB)
		if status != http.StatusNotFound || strings.Contains(answer, "a-private-page") {
			t.Errorf("B's token with A's session id: %s %s = %d %q, want 404 and nothing of A's", c.method, c.body, status, answer)
		}
	}
	// A's session is whole: its page, selected, and no page opened by B.
	listA := transporttest.Must(t, a, "list_pages", nil)
	if got := selectedID(t, listA); got != idA || len(pageIDs(listA)) != 1 {
		t.Errorf("A's pages after B's attempts, want only page %d selected:\n%s", idA, listA)
	}
	// The id is nowhere else to be read: not in the metrics, the health
	// probes or the server's debug log.
	for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
		req, _ := http.NewRequest(http.MethodGet, in.Base+path, nil)
		req.Header.Set("Authorization", "Bearer token-of-b")
		if _, _, answer := in.Do(req); strings.Contains(answer, a.ID()) || strings.Contains(answer, b.ID()) {
			t.Errorf("%s shows a session id:\n%s", path, answer)
		}
	}
	if !strings.Contains(logs.String(), `"level":"debug"`) {
		t.Errorf("the server wrote no debug log to look in:\n%s", logs)
	}
	if strings.Contains(logs.String(), a.ID()) {
		t.Errorf("the server's debug log shows A's session id:\n%s", logs)
	}
	// The control: A's own token with A's id reaches A's session, so the
	// 404s above are the binding's, not a malformed request's.
	if status, answer := request(http.MethodPost, listPages, bearerA); status != http.StatusOK || !strings.Contains(answer, "a-private-page") {
		t.Errorf("A's token with A's session id: %d %q, want 200 and A's page", status, answer)
	}
}

// TestAuthTokensFileBadInput: a tokens file tabhive cannot use stops it at
// start with one sentence that says what to fix, and never its tokens.
func TestAuthTokensFileBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct{ name, content, want string }{
		{"empty", "# no token yet\n\n", "holds no token"},
		{"a space", "token-one\ntoken two\n", "line 2: a token may not hold spaces"},
		{"twice", "token-one\ntoken-one\n", "line 2: this token is on an earlier line too"},
		{"missing", "", "--auth-tokens-file"},
	} {
		file := filepath.Join(dir, tt.name)
		if tt.name != "missing" {
			if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := tabhivetest.Command(t, "--http", "127.0.0.1:0", "--auth-tokens-file", file)
		stderr := &strings.Builder{}
		cmd.Stderr = stderr
		err := cmd.Run()
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if err == nil || len(lines) != 1 || !strings.Contains(lines[0], tt.want) || strings.Contains(lines[0], "token-one") {
			t.Errorf("%s tokens file: %v, stderr %q; want a refusal in one sentence containing %q, naming no token", tt.name, err, stderr, tt.want)
		}
	}
}
