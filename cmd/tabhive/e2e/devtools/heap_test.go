package devtools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// memoryTools are chrome-devtools-mcp 1.11's memory tools with their
// parameters (from its tools/list with --memoryDebugging).
var memoryTools = map[string][]string{
	"take_heapsnapshot":                  {"filePath", "pageId"},
	"get_heapsnapshot_summary":           {"filePath", "maxNameLength"},
	"get_heapsnapshot_details":           {"filePath", "filterName", "maxNameLength", "objectId", "pageIdx", "pageSize"},
	"get_heapsnapshot_class_nodes":       {"filePath", "filterName", "id", "maxNameLength", "objectId", "pageIdx", "pageSize"},
	"get_heapsnapshot_dominators":        {"filePath", "maxNameLength", "nodeId"},
	"get_heapsnapshot_duplicate_strings": {"filePath", "maxNameLength", "pageIdx", "pageSize"},
	"get_heapsnapshot_edges":             {"excludePrimitives", "filePath", "maxNameLength", "nodeId", "pageIdx", "pageSize", "retainedSize", "sortBy"},
	"get_heapsnapshot_object_details":    {"filePath", "maxNameLength", "nodeId"},
	"get_heapsnapshot_retainers":         {"filePath", "maxNameLength", "nodeId", "pageIdx", "pageSize"},
	"get_heapsnapshot_retaining_paths":   {"filePath", "maxDepth", "maxNameLength", "maxNodes", "maxSiblings", "nodeId"},
	"query_heapsnapshot_objects":         {"className", "filePath", "isDetached", "maxNameLength", "nodeType", "pageIdx", "pageSize", "propertyName", "retainedSize", "selfSize", "sortBy"},
	"compare_heapsnapshots":              {"baseFilePath", "classIndex", "currentFilePath", "maxNameLength", "pageIdx", "pageSize"},
	"analyze_heapsnapshot_contexts":      {"filePath", "maxNameLength", "pageIdx", "pageSize", "retainedSize", "scopeInfoNodeId"},
	"close_heapsnapshot":                 {"filePath"},
}

// listedMemoryTools returns the memory tools a server lists, each with its
// parameter names, sorted.
func listedMemoryTools(t *testing.T, cs *mcp.ClientSession) map[string][]string {
	t.Helper()
	res, err := cs.ListTools(transporttest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tool := range res.Tools {
		if _, ok := memoryTools[tool.Name]; !ok {
			continue
		}
		schema, _ := tool.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		var names []string
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		out[tool.Name] = names
	}
	return out
}

// TestMemoryToolsListed: take_heapsnapshot is listed by default; each
// spelling of --memory-debugging adds the thirteen analysis tools, with
// chrome-devtools-mcp's parameters.
func TestMemoryToolsListed(t *testing.T) {
	t.Parallel()
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t)})
	got := listedMemoryTools(t, cs)
	if len(got) != 1 || !slices.Equal(got["take_heapsnapshot"], memoryTools["take_heapsnapshot"]) {
		t.Errorf("by default the memory tools listed are %v, want take_heapsnapshot alone", got)
	}
	for _, flag := range []string{"--memory-debugging", "--memoryDebugging", "--experimental-memory", "--experimentalMemory"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			cs := transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t, flag)})
			got := listedMemoryTools(t, cs)
			for name, params := range memoryTools {
				if !slices.Equal(got[name], params) {
					t.Errorf("%s: %s lists parameters %v, want %v", flag, name, got[name], params)
				}
			}
		})
	}
}

// leakPage is a page that leaks Widgets, each holding a buffer, every time
// leak(n) is called.
const leakPage = `<p>leaky</p><script>
class Widget { constructor(i) { this.index = i; this.buffer = new Array(64).fill(i); } }
window.widgets = [];
window.leak = n => { for (let i = 0; i < n; i++) widgets.push(new Widget(i)); return widgets.length; };
leak(100);
</script>`

// loadedTimeout is the navigation timeout of these tests, in
// milliseconds: a loaded machine (load 50 on 2 cores was seen) takes far
// longer than the default 10 s to load even a small page.
const loadedTimeout = 120000

var (
	classRow  = regexp.MustCompile(`(?m)^(\d+),Widget,(\d+),`)
	firstNode = regexp.MustCompile(`(?m)^(\d+),Widget,object,`)
	diffRow   = regexp.MustCompile(`(?m)^(\d+),Widget,(\d+),(\d+),(-?\d+),`)
)

// investigateLeak does what an agent does to find a leak: snapshot, leak,
// snapshot, compare, find the growing class, one of its objects, and why
// it is kept.
func investigateLeak(t *testing.T, cs *mcp.ClientSession, site, dir, name string) {
	t.Helper()
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/", "timeout": loadedTimeout})
	before, after := filepath.Join(dir, name+"-before.heapsnapshot"), filepath.Join(dir, name+"-after.heapsnapshot")
	if got := transporttest.Must(t, cs, "take_heapsnapshot", map[string]any{"filePath": before}); got != "Heap snapshot saved to "+before {
		t.Fatalf("take_heapsnapshot = %q", got)
	}
	transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": "() => leak(2000)"})
	transporttest.Must(t, cs, "take_heapsnapshot", map[string]any{"filePath": after})

	summary := transporttest.Must(t, cs, "get_heapsnapshot_summary", map[string]any{"filePath": after})
	if !strings.Contains(summary, "### Native Contexts") || !strings.Contains(summary, "### Retained by Context Summary") {
		t.Errorf("summary:\n%s", summary)
	}
	diff := transporttest.Must(t, cs, "compare_heapsnapshots", map[string]any{"baseFilePath": before, "currentFilePath": after})
	m := diffRow.FindStringSubmatch(diff)
	if m == nil || m[2] != "2000" || m[4] != "2000" {
		t.Fatalf("compare_heapsnapshots does not show 2000 new Widgets:\n%s", firstLines(diff, 15))
	}
	details := transporttest.Must(t, cs, "get_heapsnapshot_details", map[string]any{"filePath": after})
	c := classRow.FindStringSubmatch(details)
	if c == nil || c[2] != "2100" {
		t.Fatalf("details does not list 2100 Widgets:\n%s", firstLines(details, 15))
	}
	var classID int
	fmt.Sscan(c[1], &classID)
	nodes := transporttest.Must(t, cs, "get_heapsnapshot_class_nodes", map[string]any{"filePath": after, "id": classID, "pageSize": 3})
	n := firstNode.FindStringSubmatch(nodes)
	if n == nil {
		t.Fatalf("class nodes:\n%s", nodes)
	}
	var nodeID int
	fmt.Sscan(n[1], &nodeID)
	paths := transporttest.Must(t, cs, "get_heapsnapshot_retaining_paths", map[string]any{"filePath": after, "nodeId": nodeID, "maxDepth": 6})
	if !strings.Contains(paths, "via property widgets") {
		t.Errorf("the retaining paths do not go through window.widgets:\n%s", firstLines(paths, 10))
	}
	doms := transporttest.Must(t, cs, "get_heapsnapshot_dominators", map[string]any{"filePath": after, "nodeId": nodeID})
	if !strings.Contains(doms, fmt.Sprintf("\n%d,Widget,", nodeID)) || !strings.Contains(doms, ",Array,") {
		t.Errorf("dominators:\n%s", doms)
	}
	transporttest.Must(t, cs, "close_heapsnapshot", map[string]any{"filePath": before})
	transporttest.Must(t, cs, "close_heapsnapshot", map[string]any{"filePath": after})
}

func firstLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = append(l[:n], "...")
	}
	return strings.Join(l, "\n")
}

// TestHeapLeakThroughBinary investigates a leak as an agent would, over
// stdio and over HTTP.
func TestHeapLeakThroughBinary(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Leaky", leakPage)).URL
	dir := t.TempDir()
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		cs := transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t, "--memory-debugging", "--workspace", dir)})
		investigateLeak(t, cs, site, dir, "stdio")
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		in := tabhivetest.StartHTTP(t, "--memoryDebugging", "--workspace", dir)
		investigateLeak(t, in.Client(nil), site, dir, "http")
	})
}

// TestHeapTwoSessionsThroughBinary: two HTTP sessions analyse two
// snapshots at once, each getting its own answers.
func TestHeapTwoSessionsThroughBinary(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Leaky", leakPage)).URL
	dir := t.TempDir()
	in := tabhivetest.StartHTTP(t, "--memory-debugging", "--workspace", dir)
	a, b := in.Client(nil), in.Client(nil)
	transporttest.Must(t, a, "navigate_page", map[string]any{"url": site + "/", "timeout": loadedTimeout})
	files := map[int]string{100: filepath.Join(dir, "small.heapsnapshot"), 3100: filepath.Join(dir, "big.heapsnapshot")}
	transporttest.Must(t, a, "take_heapsnapshot", map[string]any{"filePath": files[100]})
	transporttest.Must(t, a, "evaluate_script", map[string]any{"function": "() => leak(3000)"})
	transporttest.Must(t, a, "take_heapsnapshot", map[string]any{"filePath": files[3100]})

	var wg sync.WaitGroup
	for cs, widgets := range map[*mcp.ClientSession]int{a: 3100, b: 100} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				details, isErr := transporttest.Call(t, cs, "get_heapsnapshot_details", map[string]any{"filePath": files[widgets]})
				c := classRow.FindStringSubmatch(details)
				if isErr || c == nil || c[2] != fmt.Sprint(widgets) {
					t.Errorf("session with %d widgets: %s", widgets, firstLines(details, 12))
					return
				}
				if _, isErr := transporttest.Call(t, cs, "get_heapsnapshot_duplicate_strings", map[string]any{"filePath": files[widgets], "pageSize": 2}); isErr {
					t.Errorf("duplicate strings failed")
				}
			}
		}()
	}
	wg.Wait()
}

// TestHeapBadInputThroughBinary: each bad input gets one sentence.
func TestHeapBadInputThroughBinary(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Leaky", leakPage)).URL
	dir, elsewhere := t.TempDir(), t.TempDir()
	in := tabhivetest.StartHTTP(t, "--memory-debugging", "--workspace", dir)
	cs := in.Client(nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/", "timeout": loadedTimeout})
	good := filepath.Join(dir, "good.heapsnapshot")
	transporttest.Must(t, cs, "take_heapsnapshot", map[string]any{"filePath": good})
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(dir, name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"not a heap snapshot", "get_heapsnapshot_summary", map[string]any{"filePath": write(dir, "png.heapsnapshot", []byte("\x89PNG\r\n\x1a\n"))}, "is not a heap snapshot ("},
		{"truncated", "get_heapsnapshot_summary", map[string]any{"filePath": write(dir, "cut.heapsnapshot", data[:len(data)/3])}, "the file ends before the snapshot does"},
		{"outside the sandbox", "get_heapsnapshot_summary", map[string]any{"filePath": write(elsewhere, "x.heapsnapshot", data)}, "is not within any of the configured workspace roots"},
		{"snapshot written outside the sandbox", "take_heapsnapshot", map[string]any{"filePath": filepath.Join(elsewhere, "y.heapsnapshot")}, "is not within any of the configured workspace roots"},
	} {
		got, isErr := transporttest.Call(t, cs, c.tool, c.args)
		if !isErr || strings.Contains(got, "\n") || !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q (error %v), want one sentence saying %q", c.name, got, isErr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "y.heapsnapshot")); !os.IsNotExist(err) {
		t.Errorf("take_heapsnapshot wrote outside the sandbox: %v", err)
	}
	// A server whose budget is too small for the snapshot (a blank page's
	// is 3 MB): the analysis tools need no browser, so none starts.
	small := transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t, "--memory-debugging", "--workspace", dir, "--heap-snapshot-memory-bytes", "1000000")})
	got, isErr := transporttest.Call(t, small, "get_heapsnapshot_summary", map[string]any{"filePath": good})
	if want := "more than the 1000000 bytes this server allows for loaded snapshots (--heap-snapshot-memory-bytes)"; !isErr || strings.Contains(got, "\n") || !strings.Contains(got, want) {
		t.Errorf("larger than the budget: got %q (error %v), want one sentence saying %q", got, isErr, want)
	}
}

// TestHeapUnknownNodeThroughBinary: a node id the snapshot does not hold.
func TestHeapUnknownNodeThroughBinary(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, browsertest.HTML("Leaky", leakPage)).URL
	dir := t.TempDir()
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t, "--memory-debugging", "--workspace", dir), TerminateDuration: 30 * time.Second})
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/", "timeout": loadedTimeout})
	file := filepath.Join(dir, "s.heapsnapshot")
	transporttest.Must(t, cs, "take_heapsnapshot", map[string]any{"filePath": file})
	for _, tool := range []string{"get_heapsnapshot_retainers", "get_heapsnapshot_retaining_paths", "get_heapsnapshot_dominators", "get_heapsnapshot_edges", "get_heapsnapshot_object_details"} {
		got, isErr := transporttest.Call(t, cs, tool, map[string]any{"filePath": file, "nodeId": 4000000001})
		if !isErr || got != "Error: Node with ID 4000000001 not found" {
			t.Errorf("%s with an unknown node id = %q (error %v)", tool, got, isErr)
		}
	}
}
