package memory_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// heapPages serves /widgets?n=N: a page holding N objects of class Widget
// in window.widgets.
func heapPages(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/widgets", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		if !regexp.MustCompile(`^\d+$`).MatchString(n) {
			http.Error(w, "n", http.StatusBadRequest)
			return
		}
		browsertest.HTML("Widgets", fmt.Sprintf(`<p>widgets</p><script>
class Widget { constructor(i) { this.index = i; this.label = 'widget ' + i; } }
window.widgets = [];
for (let i = 0; i < %s; i++) widgets.push(new Widget(i));
window.grow = n => { for (let i = 0; i < n; i++) widgets.push(new Widget(-i)); return widgets.length; };
</script>`, n)).ServeHTTP(w, r)
	})
	mux.Handle("/plain", browsertest.HTML("Plain", `<p>plain</p>`))
	return browsertest.Serve(t, mux).URL
}

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu    sync.Mutex
	seen  []*mcp.ProgressNotificationParams
	first chan struct{} // closed at the first one
	once  sync.Once
}

func (p *progressLog) add(n *mcp.ProgressNotificationParams) {
	p.mu.Lock()
	p.seen = append(p.seen, n)
	p.mu.Unlock()
	p.once.Do(func() { close(p.first) })
}

func (p *progressLog) all() []*mcp.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), p.seen...)
}

// connectWithProgress connects a client that records progress
// notifications, in process or over HTTP as srv is served.
func connectWithProgress(t *testing.T, srv *transporttest.Server) (*mcp.ClientSession, *progressLog) {
	t.Helper()
	log := &progressLog{first: make(chan struct{})}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { log.add(req.Params) },
	})
	if srv.URL != "" {
		return transporttest.DialClient(t, c, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil), log
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Server.MCP().Connect(transporttest.Context(t), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return transporttest.DialClient(t, c, ct, nil), log
}

// callWithProgress calls a tool with a progress token.
func callWithProgress(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	p.SetProgressToken("heap-" + t.Name())
	res, err := cs.CallTool(transporttest.Context(t), p)
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return transporttest.Text(res), res.IsError
}

var savedTo = regexp.MustCompile(`^Heap snapshot saved to (\S+)$`)

// TestTakeHeapSnapshot takes a snapshot of a page as an agent would, over
// each transport, with progress notifications, and reads it back with the
// analysis tools.
func TestTakeHeapSnapshot(t *testing.T) {
	t.Parallel()
	site := heapPages(t)
	dir := t.TempDir()
	for _, overHTTP := range []bool{false, true} {
		name := "in-memory"
		opts := transporttest.Options{Config: transport.Config{MemoryDebugging: true, Workspaces: []string{dir}}}
		if overHTTP {
			name = "http"
			opts.HTTP = &httpserve.Config{}
		}
		t.Run(name, func(t *testing.T) {
			srv := transporttest.OnShared(t, opts)
			cs, progress := connectWithProgress(t, srv)
			id := openHeapPage(t, cs, site+"/widgets?n=3000")
			// The extension is forced, as upstream forces it.
			file := filepath.Join(dir, name+".snapshot")
			text, isErr := callWithProgress(t, cs, "take_heapsnapshot", map[string]any{"pageId": id, "filePath": file})
			if isErr {
				t.Fatalf("take_heapsnapshot failed: %s", text)
			}
			m := savedTo.FindStringSubmatch(text)
			want := filepath.Join(dir, name+".heapsnapshot")
			if m == nil || m[1] != want {
				t.Fatalf("take_heapsnapshot = %q, want it saved to %s", text, want)
			}
			fi, err := os.Stat(want)
			if err != nil || fi.Size() < 1<<20 {
				t.Fatalf("the snapshot file: %v, %v", fi, err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("the snapshot file has mode %v, want 0600", fi.Mode().Perm())
			}
			seen := progress.all()
			if len(seen) == 0 {
				t.Fatal("no progress notification")
			}
			last := seen[len(seen)-1]
			if last.Total <= 0 || last.Progress != last.Total {
				t.Errorf("last progress = %v of %v, want all of a positive total", last.Progress, last.Total)
			}
			for i := 1; i < len(seen); i++ {
				if seen[i].Progress < seen[i-1].Progress {
					t.Errorf("progress went back: %v after %v", seen[i].Progress, seen[i-1].Progress)
				}
			}
			// The agent's next steps: the summary, then the leaking class.
			summary := transporttest.Must(t, cs, "get_heapsnapshot_summary", map[string]any{"filePath": want})
			if !strings.HasPrefix(summary, "## Heap Snapshot Data\nStatistics: {") {
				t.Errorf("summary:\n%s", summary)
			}
			found := transporttest.Must(t, cs, "query_heapsnapshot_objects", map[string]any{"filePath": want, "className": "^Widget$", "nodeType": "object", "pageSize": 1})
			if !strings.Contains(found, "Showing 1-1 of 3000 (Page 1 of 3000).") {
				t.Errorf("query for Widget objects:\n%s", found)
			}
		})
	}
}

// TestTakeHeapSnapshotBudget: a snapshot that outlasts its budget says so
// in one sentence and leaves no file; until the renderer is done with it a
// new snapshot is refused (its chunks must not land in the new file), and
// then one is taken whole.
func TestTakeHeapSnapshotBudget(t *testing.T) {
	t.Parallel()
	site := heapPages(t)
	dir := t.TempDir()
	var budget atomic.Int64
	budget.Store(int64(time.Millisecond))
	srv := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{
		MemoryDebugging:    true,
		Workspaces:         []string{dir},
		HeapSnapshotBudget: func(int64) time.Duration { return time.Duration(budget.Load()) },
	}})
	cs := srv.Connect(t)
	id := openHeapPage(t, cs, site+"/widgets?n=20000")
	file := filepath.Join(dir, "cut.heapsnapshot")
	text, isErr := transporttest.Call(t, cs, "take_heapsnapshot", map[string]any{"pageId": id, "filePath": file})
	transporttest.OneSentence(t, "budget", text, isErr, "The heap snapshot did not finish within its 1ms budget, scaled to the page's")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a cut-short snapshot was left at %s (%v)", file, err)
	}
	budget.Store(int64(10 * time.Minute))
	whole := filepath.Join(dir, "whole.heapsnapshot")
	// The renderer takes seconds to finish the first, minutes on a loaded
	// machine.
	if !testwait.Poll(10*time.Minute, func() bool {
		text, isErr := transporttest.Call(t, cs, "take_heapsnapshot", map[string]any{"pageId": id, "filePath": whole})
		if isErr {
			transporttest.OneSentence(t, "busy", text, isErr, "The page's renderer is still writing an earlier heap snapshot")
		}
		return !isErr
	}) {
		t.Fatal("the renderer was still busy with the first snapshot after 10 minutes")
	}
	// Whole: none of the first snapshot's chunks in it.
	summary := transporttest.Must(t, cs, "query_heapsnapshot_objects", map[string]any{"filePath": whole, "className": "^Widget$", "nodeType": "object", "pageSize": 1})
	if !strings.Contains(summary, "Showing 1-1 of 20000 (Page 1 of 20000).") {
		t.Errorf("the second snapshot:\n%s", summary)
	}
}

// TestTakeHeapSnapshotOtherPagesRun: while one page writes a big
// snapshot, another page's calls are answered.
func TestTakeHeapSnapshotOtherPagesRun(t *testing.T) {
	t.Parallel()
	site := heapPages(t)
	dir := t.TempDir()
	srv := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{Workspaces: []string{dir}}})
	cs, progress := connectWithProgress(t, srv)
	big := openHeapPage(t, cs, site+"/widgets?n=100000")
	other := openHeapPage(t, cs, site+"/plain")
	bigDone := make(chan struct{}) // closed when the snapshot's call returns
	var wg sync.WaitGroup
	wg.Add(1)
	defer wg.Wait() // on every path, a failure's included
	go func() {
		defer wg.Done()
		defer close(bigDone)
		// A snapshot of 100,000 objects takes seconds, minutes on a
		// loaded machine: a budget of its own.
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		p := &mcp.CallToolParams{Name: "take_heapsnapshot", Arguments: map[string]any{"pageId": big, "filePath": filepath.Join(dir, "big.heapsnapshot")}}
		p.SetProgressToken("big")
		res, err := cs.CallTool(cctx, p)
		if err != nil || res.IsError {
			t.Errorf("take_heapsnapshot of the big page: %v %v", err, res)
		}
	}()
	select {
	case <-progress.first:
	case <-time.After(transporttest.CallTimeout):
		t.Fatal("the snapshot reported no progress")
	}
	got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": other, "function": "() => document.title"})
	// The order of the two replies, not their times: the other page's
	// came while the snapshot's call was still under way.
	select {
	case <-bigDone:
		t.Errorf("the other page answered only after the snapshot ended: it waited for it")
	default:
	}
	wg.Wait()
	if !strings.Contains(got, "Plain") {
		t.Errorf("evaluate_script on the other page: %s", got)
	}
}

// openHeapPage opens url in a new page under a navigation timeout a
// loaded machine needs: the heap pages build thousands of objects, and at
// load 50 new_page's default 10 s ran out.
func openHeapPage(t *testing.T, cs *mcp.ClientSession, url string) int {
	t.Helper()
	return transporttest.OpenPageWithin(t, cs, url, 120000)
}
