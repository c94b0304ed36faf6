package transport_test

// The memory tools' refusals and the server's heap-snapshot cache: these
// tests stay beside the server because they check what its cache holds
// (HeapsLoaded, export_test.go), per session and within its memory budget;
// the tools' replies are tested in page/memory.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/internal/devtools/heap/heaptest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// heapServer is a server with the memory tools on, whose sessions may use
// dir, and no browser.
func heapServer(t *testing.T, dir string, cfg transport.Config) *transporttest.Server {
	t.Helper()
	cfg.MemoryDebugging = true
	cfg.Workspaces = append(cfg.Workspaces, dir)
	return transporttest.Start(t, transporttest.Options{Config: cfg, Browser: transporttest.NoBrowser(t)})
}

// oneSentence is transporttest's.
var oneSentence = transporttest.OneSentence

func assertNothingLoaded(t *testing.T, srv *transporttest.Server, what string) {
	t.Helper()
	if bytes, n := transport.HeapsLoaded(srv.Server); n != 0 || bytes != 0 {
		t.Errorf("after %s: %d snapshots (%d bytes) still loaded, want none", what, n, bytes)
	}
}

func TestHeapBadInput(t *testing.T) {
	t.Parallel()
	dir := heaptest.Unpack(t)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	whole, err := os.ReadFile(filepath.Join(dir, "leaks-before.heapsnapshot"))
	if err != nil {
		t.Fatal(err)
	}
	notSnapshot := write("page.heapsnapshot", "<!doctype html><title>not a snapshot</title>")
	otherJSON := write("other.heapsnapshot", `{"traceEvents": [1, 2, 3]}`)
	truncated := write("cut.heapsnapshot", string(whole[:len(whole)/2]))
	outside := filepath.Join(t.TempDir(), "elsewhere.heapsnapshot") // not a workspace
	if err := os.WriteFile(outside, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	before := filepath.Join(dir, "leaks-before.heapsnapshot")

	srv := heapServer(t, dir, transport.Config{})
	cs := srv.Connect(t)
	cases := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"not a heap snapshot", "get_heapsnapshot_summary", map[string]any{"filePath": notSnapshot}, notSnapshot + " is not a heap snapshot ("},
		{"JSON of another kind", "get_heapsnapshot_details", map[string]any{"filePath": otherJSON}, otherJSON + ` is not a heap snapshot (it starts with "traceEvents", not "snapshot")`},
		{"truncated", "get_heapsnapshot_summary", map[string]any{"filePath": truncated}, "the file ends before the snapshot does"},
		{"outside the sandbox", "get_heapsnapshot_summary", map[string]any{"filePath": outside}, "is not within any of the configured workspace roots"},
		{"wrong extension", "get_heapsnapshot_summary", map[string]any{"filePath": filepath.Join(dir, "x.json")}, "must have a .heapsnapshot or .heaptimeline extension."},
		{"missing file", "get_heapsnapshot_summary", map[string]any{"filePath": filepath.Join(dir, "gone.heapsnapshot")}, "gone.heapsnapshot"},
		{"close what is not loaded", "close_heapsnapshot", map[string]any{"filePath": notSnapshot}, "was not loaded."},
		{"unknown node id", "get_heapsnapshot_retainers", map[string]any{"filePath": before, "nodeId": 987654321}, "Error: Node with ID 987654321 not found"},
		{"unknown class id", "get_heapsnapshot_class_nodes", map[string]any{"filePath": before, "id": 0}, "Error: Class with ID 0 not found in heap snapshot"},
		{"bad size range", "query_heapsnapshot_objects", map[string]any{"filePath": before, "retainedSize": "2MB-1MB"}, "The lower bound must not exceed the upper bound."},
		{"bad pattern", "query_heapsnapshot_objects", map[string]any{"filePath": before, "className": "(?<=x)"}, `is not a regular expression this server can run`},
		{"class index past the end", "compare_heapsnapshots", map[string]any{"baseFilePath": before, "currentFilePath": before, "classIndex": 3}, "Invalid classIndex: 3. Total classes with changes: 0"},
	}
	loaded := false
	for _, c := range cases {
		text, isErr := transporttest.Call(t, cs, c.tool, c.args)
		oneSentence(t, c.name, text, isErr, c.want)
		// A refusal about the file loads nothing; one about a node or a
		// class of a good snapshot keeps it loaded, as a good call does.
		loaded = loaded || c.args["filePath"] == before || c.args["baseFilePath"] == before
		if !loaded {
			assertNothingLoaded(t, srv, c.name)
		}
	}
	// Closing the good snapshot frees everything.
	transporttest.Must(t, cs, "close_heapsnapshot", map[string]any{"filePath": before})
	assertNothingLoaded(t, srv, "close_heapsnapshot")
}

// TestHeapLargerThanBudget: a snapshot the memory budget cannot hold is
// refused with a sentence that names the flag, and nothing stays loaded.
func TestHeapLargerThanBudget(t *testing.T) {
	t.Parallel()
	dir := heaptest.Unpack(t)
	srv := heapServer(t, dir, transport.Config{HeapSnapshotMemory: 1 << 20})
	cs := srv.Connect(t)
	text, isErr := transporttest.Call(t, cs, "get_heapsnapshot_summary", map[string]any{"filePath": filepath.Join(dir, "leaks-before.heapsnapshot")})
	oneSentence(t, "larger than the budget", text, isErr, "more than the 1 MB this server allows for loaded snapshots (--heap-snapshot-memory-bytes)")
	assertNothingLoaded(t, srv, "a refused snapshot")
}

// TestHeapCacheBudget: with room for one snapshot, loading a second drops
// the least recently used; each session sees only its own; a session's
// snapshots go when it ends.
func TestHeapCacheBudget(t *testing.T) {
	t.Parallel()
	dir := heaptest.Unpack(t)
	before, after := filepath.Join(dir, "leaks-before.heapsnapshot"), filepath.Join(dir, "leaks-after.heapsnapshot")
	// Room for one loaded snapshot of these (about 6 MB each loaded, 7
	// reserved while loading), not two.
	srv := heapServer(t, dir, transport.Config{HeapSnapshotMemory: 10 << 20})
	a := srv.Connect(t)
	transporttest.Must(t, a, "get_heapsnapshot_summary", map[string]any{"filePath": before})
	if _, n := transport.HeapsLoaded(srv.Server); n != 1 {
		t.Fatalf("%d snapshots loaded, want 1", n)
	}
	transporttest.Must(t, a, "get_heapsnapshot_summary", map[string]any{"filePath": after})
	bytes, n := transport.HeapsLoaded(srv.Server)
	if n != 1 || bytes > 10<<20 {
		t.Fatalf("%d snapshots (%d bytes) loaded, want 1 within the 10 MB budget", n, bytes)
	}
	// before was dropped: closing it says it is not loaded.
	text, isErr := transporttest.Call(t, a, "close_heapsnapshot", map[string]any{"filePath": before})
	oneSentence(t, "close a dropped snapshot", text, isErr, "was not loaded.")

	// Another session does not see a's snapshot, and loads its own.
	b := srv.Connect(t)
	text, isErr = transporttest.Call(t, b, "close_heapsnapshot", map[string]any{"filePath": after})
	oneSentence(t, "close another session's snapshot", text, isErr, "was not loaded.")
	transporttest.Must(t, b, "get_heapsnapshot_summary", map[string]any{"filePath": before})
	if _, n := transport.HeapsLoaded(srv.Server); n != 1 {
		t.Fatalf("%d snapshots loaded, want 1 (a's dropped for b's)", n)
	}
	closeSession(t, b)
	testwait.Until(t, "b's snapshot to go with b", func() bool { _, n := transport.HeapsLoaded(srv.Server); return n == 0 })
}

// closeSession ends a client's session.
func closeSession(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
}
