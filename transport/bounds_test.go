package transport_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// bigResult is a script whose result is 50 MiB of JSON text and a bit.
const bigResult = "() => 'x'.repeat(50 << 20)"

// bigSize is the size of bigResult's JSON text: the string and its quotes.
const bigSize = 50<<20 + 2

// fileResult is a script whose result is 12 MiB of JSON text and a bit:
// three times the reply cap, some fifty chunks. Saving is slow under the
// race detector (encoding/json scans every byte, instrumented: about 15 s
// for 50 MB), so the saving tests use this; the 50 MB case is measured
// against the binary (bench/evalmemory).
const fileResult = "() => 'x'.repeat(12 << 20)"

// fileSize is the size of fileResult's JSON text.
const fileSize = 12<<20 + 2

// bigBudget is the timeout, in ms, the calls that make, cut or save tens of
// MB pass, instead of evaluate_script's default 30 s: seconds on a quiet
// machine, several times that under the race detector on a loaded one.
// With the tool's 10 s of overhead it stays under the client's
// transporttest.CallTimeout.
const bigBudget = 45000

// A script returning 50 MB gets a bounded reply that says what was cut and
// how to get all of it; with filePath, all of it is saved.
//
// Not parallel: making and moving 60 MB keeps Chromium and the race
// detector busy for seconds, which would slow the timing checks of the
// tests that run in parallel.
func TestEvaluateLargeResult(t *testing.T) {
	cs := inMemory(t)
	id := openPage(t, cs, fixtures(t)+"/nav-b")
	text := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": bigResult, "waitForStableDom": false, "timeout": bigBudget})
	if len(text) > transport.DefaultMaxReplyBytes {
		t.Errorf("reply of %d bytes, over the %d-byte cap", len(text), transport.DefaultMaxReplyBytes)
	}
	m := regexp.MustCompile("(?s)^Script ran on page and returned:\n```json\n(\"x+)\n```\nThe result is (\\d+) bytes of JSON; only the first (\\d+) are shown. Pass filePath to save all of it to a file.$").FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("reply does not say what was cut (%d bytes): %.300q ... %.300q", len(text), text, text[max(0, len(text)-300):])
	}
	if m[2] != strconv.Itoa(bigSize) || m[3] != strconv.Itoa(len(m[1])) {
		t.Errorf("reply says %s bytes, first %s shown; want %d and %d", m[2], m[3], bigSize, len(m[1]))
	}

	path := filepath.Join(t.TempDir(), "big.json")
	text = must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": fileResult, "filePath": path, "waitForStableDom": false, "timeout": bigBudget})
	if want := "Script ran on page. Output saved to " + path + "."; text != want {
		t.Errorf("reply = %q, want %q", text, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != fileSize || string(b[:3]) != `"xx` || string(b[len(b)-3:]) != `xx"` || strings.Count(string(b), "x") != 12<<20 {
		t.Errorf("saved %d bytes, want the %d of the whole result", len(b), fileSize)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o600 {
		t.Errorf("saved file has mode %v, want 0600", fi.Mode().Perm())
	}

	// A path outside the sandbox is refused, and nothing is written there.
	denied := "/tabhive-test-denied/result.json"
	if text, isErr := call(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => 1", "filePath": denied}); !isErr || !strings.HasPrefix(text, "Error: Access denied: path "+denied) {
		t.Errorf("evaluate_script to %s = %v %q, want access denied", denied, isErr, text)
	}
	if _, err := os.Stat(denied); !os.IsNotExist(err) {
		t.Errorf("a denied filePath was written: %s (%v)", denied, err)
	}

	// A script that fails leaves no file.
	failed := filepath.Join(t.TempDir(), "failed.json")
	if text, isErr := call(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => { throw new Error('no') }", "filePath": failed}); !isErr {
		t.Errorf("failing script = %q, want an error", text)
	}
	if _, err := os.Stat(failed); !os.IsNotExist(err) {
		t.Errorf("a failed script left %s behind (%v)", failed, err)
	}
}

// Four parallel calls each returning 50 MB keep this process's heap small:
// the result is cut in the page. Before it was, they grew it by 1356 MiB.
// Saved to files, results are read from the page in chunks and never held
// whole.
//
// Not parallel: it measures the process's heap, which other tests would
// move.
func TestEvaluateLargeResultsHeap(t *testing.T) {
	cs := inMemory(t)
	base := fixtures(t)
	var ids []int
	for range 4 {
		ids = append(ids, openPage(t, cs, base+"/nav-b"))
	}
	dir := t.TempDir()
	for _, toFile := range []bool{false, true} {
		baseline, peak := heapDuring(t, func() {
			var wg sync.WaitGroup
			for i, id := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Four 50 MB results at once: past the default 30 s
					// under the race detector on a loaded machine.
					args := map[string]any{"pageId": id, "function": bigResult, "waitForStableDom": false, "timeout": 120000}
					if toFile {
						// 12 MB each: held whole, with the copies the
						// way from the page makes, four would pass
						// the bound twice over.
						args["function"] = fileResult
						args["filePath"] = filepath.Join(dir, fmt.Sprintf("r%d.json", i))
					}
					cctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
					defer cancel()
					res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "evaluate_script", Arguments: args})
					if err != nil {
						t.Errorf("evaluate_script(%v): %v", args, err)
					} else if res.IsError {
						t.Errorf("evaluate_script(%v) failed: %s", args, res.Content[0].(*mcp.TextContent).Text)
					}
				}()
			}
			wg.Wait()
		})
		grew := int64(peak) - int64(baseline)
		what := "four parallel 50 MB results"
		if toFile {
			what = "four parallel 12 MB results saved to files"
		}
		t.Logf("%s: heap in use %d MiB before, %d MiB at the peak (+%d MiB)", what, baseline>>20, peak>>20, grew>>20)
		if grew > 100<<20 {
			t.Errorf("%s grew the heap by %d MiB, want under 100", what, grew>>20)
		}
	}
}

// heapDuring runs fn and returns the heap in use before it (after a
// collection) and the most seen while it ran, sampled every 5 ms.
func heapDuring(t *testing.T, fn func()) (baseline, peak uint64) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline = ms.HeapInuse
	var top atomic.Uint64
	top.Store(baseline)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // ends when stop is closed
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > top.Load() {
				top.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	<-sampled
	return baseline, top.Load()
}

// Every reply is capped in one place: the text is cut at a character
// boundary and ends with the number of bytes cut and how to get them.
func TestReplyCap(t *testing.T) {
	t.Parallel()
	const limit = 2000
	mux := http.NewServeMux()
	var long strings.Builder
	for i := range 200 {
		fmt.Fprintf(&long, "<p>Paragraph %d: déjà vu €</p>", i)
	}
	mux.Handle("/long", browsertest.HTML("Long", long.String()))
	mux.Handle("/logs", browsertest.HTML("Logs", `<script>for (let i = 0; i < 200; i++) console.log("message number " + i + " 😀")</script>`))
	base := browsertest.Serve(t, mux).URL
	full := inMemory(t)
	// A second server over the shared browser, whose replies are capped
	// at limit bytes.
	capped := onSharedBrowser(t, transporttest.Options{Config: transport.Config{MaxReplyBytes: limit}}).Connect(t)
	id := openPage(t, full, base+"/long")

	whole := must(t, full, "take_snapshot", map[string]any{"pageId": id})
	cut := must(t, capped, "take_snapshot", map[string]any{"pageId": id})
	checkCut(t, "take_snapshot", whole, cut, limit, "Call take_snapshot again with filePath to save all of it to a file.")

	logs := openPage(t, full, base+"/logs")
	whole = must(t, full, "list_console_messages", map[string]any{"pageId": logs})
	cut = must(t, capped, "list_console_messages", map[string]any{"pageId": logs})
	checkCut(t, "list_console_messages", whole, cut, limit, "Call list_console_messages again with a smaller pageSize, and pageIdx to page through the rest.")

	// evaluate_script cuts its result in the page, to fit the reply.
	text := must(t, capped, "evaluate_script", map[string]any{"pageId": id, "function": "() => 'é'.repeat(5000)", "waitForStableDom": false})
	if len(text) > limit || !utf8.ValidString(text) || !strings.HasSuffix(text, "```\nThe result is 10002 bytes of JSON; only the first 499 are shown. Pass filePath to save all of it to a file.") {
		t.Errorf("capped evaluate_script reply (%d bytes): %q", len(text), text)
	}
	// A reply within the cap is untouched.
	if text := must(t, capped, "evaluate_script", map[string]any{"pageId": id, "function": "() => 1", "waitForStableDom": false}); text != "Script ran on page and returned:\n```json\n1\n```" {
		t.Errorf("short reply = %q", text)
	}
}

// checkCut checks a reply cut at limit against the whole reply.
func checkCut(t *testing.T, tool, whole, cut string, limit int, hint string) {
	t.Helper()
	if len(whole) <= limit {
		t.Fatalf("%s: the whole reply is only %d bytes; the test needs more than %d", tool, len(whole), limit)
	}
	m := regexp.MustCompile(`(?s)^(.*)\n\[The reply was cut here: (\d+) bytes past the (\d+)-byte limit were left out\. (.*)\]$`).FindStringSubmatch(cut)
	if m == nil {
		t.Fatalf("%s: cut reply does not end with the notice: %q", tool, cut)
	}
	kept, n := m[1], m[2]
	switch {
	case len(cut) > limit:
		t.Errorf("%s: cut reply is %d bytes, over the %d limit", tool, len(cut), limit)
	case len(cut) < limit-4:
		t.Errorf("%s: cut reply is %d bytes, wasting the room up to %d", tool, len(cut), limit)
	case !utf8.ValidString(cut):
		t.Errorf("%s: cut reply is not valid UTF-8", tool)
	case !strings.HasPrefix(whole, kept):
		t.Errorf("%s: cut reply is not the head of the whole one:\n%s", tool, kept)
	case n != strconv.Itoa(len(whole)-len(kept)):
		t.Errorf("%s: notice says %s bytes were cut, want %d", tool, n, len(whole)-len(kept))
	case m[3] != strconv.Itoa(limit):
		t.Errorf("%s: notice names a limit of %s, want %d", tool, m[3], limit)
	case m[4] != hint:
		t.Errorf("%s: notice says %q, want %q", tool, m[4], hint)
	}
}

// timeout is clamped to 5 minutes and refused beyond an hour or below 0,
// for every tool that takes one; 9223372036854 no longer overflows into a
// negative budget.
func TestTimeoutArgument(t *testing.T) {
	t.Parallel()
	cs := inMemory(t)
	id := openPage(t, cs, fixtures(t)+"/nav-b")
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"evaluate_script", map[string]any{"function": "() => 1"}},
		{"wait_for", map[string]any{"text": []string{"Page B loaded"}}},
		{"navigate_page", map[string]any{"type": "reload"}},
	} {
		for _, bad := range []any{9223372036854, -1, 3600001, 1.5} {
			args := map[string]any{"pageId": id, "timeout": bad}
			for k, v := range tool.args {
				args[k] = v
			}
			want := fmt.Sprintf("Invalid argument \"timeout\" for tool %q: expected an integer from 0 to 3600000, got %v.", tool.name, bad)
			if text, isErr := call(t, cs, tool.name, args); !isErr || text != want {
				t.Errorf("%s(timeout %v) = %v %q, want %q", tool.name, bad, isErr, text, want)
			}
		}
		args := map[string]any{"pageId": id, "timeout": 600000}
		for k, v := range tool.args {
			args[k] = v
		}
		must(t, cs, tool.name, args)
	}
	text, isErr := call(t, cs, "new_page", map[string]any{"url": "about:blank", "timeout": 9223372036854})
	if want := `Invalid argument "timeout" for tool "new_page": expected an integer from 0 to 3600000, got 9223372036854.`; !isErr || text != want {
		t.Errorf("new_page(timeout 9223372036854) = %v %q, want %q", isErr, text, want)
	}
}
