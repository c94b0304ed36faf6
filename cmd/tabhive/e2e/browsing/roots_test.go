package browsing

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// rootsClient connects over tr a client that declares root as its one
// MCP root, as a remote client may declare the server's whole disk.
func rootsClient(t *testing.T, tr mcp.Transport, root string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "roots", Version: "0"}, nil)
	c.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: root}).String()})
	return transporttest.DialClient(t, c, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

// TestClientRootsOverHTTPThroughBinary: over HTTP a client's roots name
// its own machine, not the server's: declaring file:/// opens nothing, so
// upload_file cannot read a server file and take_snapshot cannot write
// outside the session's private directory and the workspaces. With
// --trust-client-roots the operator trusts them; over stdio they hold as
// before.
func TestClientRootsOverHTTPThroughBinary(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("the server's secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	site := browsertest.Serve(t, browsertest.HTML("Upload", `<input type="file" aria-label="File">`)).URL + "/"
	// try reports whether the client could read secret and write next to it.
	try := func(cs *mcp.ClientSession, name string) (upload, snap string) {
		t.Helper()
		transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site, "timeout": 60000})
		m := regexp.MustCompile(`uid=(\S+) button "File"`).FindStringSubmatch(transporttest.Must(t, cs, "take_snapshot", nil))
		if m == nil {
			t.Fatalf("%s: no file input in the snapshot", name)
		}
		upload, _ = transporttest.Call(t, cs, "upload_file", map[string]any{"uid": m[1], "filePaths": []string{secret}})
		out := filepath.Join(dir, name+".txt")
		snap, _ = transporttest.Call(t, cs, "take_snapshot", map[string]any{"filePath": out})
		if _, err := os.Stat(out); err == nil && !strings.Contains(snap, "Saved snapshot to") {
			t.Errorf("%s: %s was written, but the reply says %q", name, out, snap)
		}
		return upload, snap
	}
	in := tabhivetest.StartHTTP(t)
	upload, snap := try(rootsClient(t, &mcp.StreamableClientTransport{Endpoint: in.URL}, "/"), "http")
	if !strings.Contains(upload, "Access denied") || !strings.Contains(snap, "Access denied") {
		t.Errorf("over HTTP with the client's root file:///: upload_file %q, take_snapshot %q; want both denied", upload, snap)
	}
	if _, err := os.Stat(filepath.Join(dir, "http.txt")); err == nil {
		t.Error("over HTTP a client's root let take_snapshot write outside its sandbox")
	}

	trusted := tabhivetest.StartHTTP(t, "--trust-client-roots")
	upload, snap = try(rootsClient(t, &mcp.StreamableClientTransport{Endpoint: trusted.URL}, dir), "trusted")
	if !strings.Contains(upload, "File uploaded from "+secret) || !strings.Contains(snap, "Saved snapshot to") {
		t.Errorf("over HTTP with --trust-client-roots: upload_file %q, take_snapshot %q; want both done", upload, snap)
	}

	stdio := rootsClient(t, &mcp.CommandTransport{Command: tabhivetest.Command(t), TerminateDuration: 10 * time.Second}, dir)
	upload, snap = try(stdio, "stdio")
	if !strings.Contains(upload, "File uploaded from "+secret) || !strings.Contains(snap, "Saved snapshot to") {
		t.Errorf("over stdio with the client's root: upload_file %q, take_snapshot %q; want both done", upload, snap)
	}
}
