package transport_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestSnapshotFileThroughRoots: take_snapshot's filePath goes through the
// session's roots plus the workspaces; roots are refreshed when the client
// says they changed.
func TestSnapshotFileThroughRoots(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	root := t.TempDir() // inside the test's own temp dir, which is the OS temp dir here
	outside := filepath.Join(os.Getenv("HOME"), "tabhive-denied", "snap.txt")
	client, cs := onShared(t, transporttest.Options{Roots: []string{root}}).Client(t)
	id := openPage(t, cs, base+"/nav-a")

	path := filepath.Join(root, "deep", "snap.md")
	text := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "filePath": path})
	want := filepath.Join(root, "deep", "snap.txt")
	if text != "Saved snapshot to "+want+"." {
		t.Errorf("take_snapshot(filePath) = %q, want it saved to %s", text, want)
	}
	if b, err := os.ReadFile(want); err != nil || !strings.Contains(string(b), `link "Go to page B"`) {
		t.Errorf("snapshot file: %q, %v", b, err)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("snapshot file mode: %v, %v", fi.Mode(), err)
	}
	got, isErr := call(t, cs, "take_snapshot", map[string]any{"pageId": id, "filePath": outside})
	if !isErr || !strings.Contains(got, "Access denied: path "+outside) || !strings.Contains(got, "is not within any of the configured workspace roots.") {
		t.Errorf("writing outside the roots: %v %q", isErr, got)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("denied write created %s", outside)
	}

	// A root added later is honoured once the client says the list changed.
	extra := filepath.Join(os.Getenv("HOME"), ".cache", "tabhive-test-root")
	os.MkdirAll(extra, 0o700)
	t.Cleanup(func() { os.RemoveAll(extra) })
	client.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: extra}).String()})
	target := filepath.Join(extra, "later.txt")
	// The roots refresh is asynchronous, and nothing announces it.
	testwait.Poll(testwait.Timeout, func() bool {
		got, isErr = call(t, cs, "take_snapshot", map[string]any{"pageId": id, "filePath": target})
		return !isErr
	})
	if isErr {
		t.Errorf("after adding a root: %q", got)
	}
}

// TestNoRootsMeansWorkspacesOnly: a client without the roots capability
// may write only in the server's workspaces (the temp dir, for the shared
// test server) and its private directory.
func TestNoRootsMeansWorkspacesOnly(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/nav-a")
	tmp := filepath.Join(t.TempDir(), "snap.txt")
	if text := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "filePath": tmp}); text != "Saved snapshot to "+tmp+"." {
		t.Errorf("workspace write: %q", text)
	}
	home := filepath.Join(os.Getenv("HOME"), "tabhive-no-roots.txt")
	if got, isErr := call(t, cs, "take_snapshot", map[string]any{"pageId": id, "filePath": home}); !isErr || !strings.HasPrefix(got, "Error: Access denied") {
		t.Errorf("write outside the workspaces without roots: %v %q", isErr, got)
	}
}
