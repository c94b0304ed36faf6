package devtools

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/devtools/trace/tracetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

var (
	insightName = regexp.MustCompile(`(?m)^  - insight name: (\w+)$`)
	savedTo     = regexp.MustCompile(`The raw trace data was saved to (\S+)\.\n`)
)

// TestTraceThroughBinary records a page load through the binary, over
// stdio and over HTTP, reads its summary, and analyses every insight it
// lists; then tries each bad input.
func TestTraceThroughBinary(t *testing.T) {
	t.Parallel()
	slowLoads := &requestLog{h: tracetest.NewHandler(tracetest.Config{})}
	site := browsertest.Serve(t, slowLoads).URL
	work := t.TempDir()
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var cs *mcp.ClientSession
			if mode == "stdio" {
				cs = transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t, "--workspace", work)})
			} else {
				cs = tabhivetest.StartHTTP(t, "--workspace", work).Client(nil)
			}
			tools, err := cs.ListTools(transporttest.Context(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			params := map[string][]string{}
			for _, tl := range tools.Tools {
				var schema struct {
					Properties map[string]any `json:"properties"`
				}
				raw, _ := json.Marshal(tl.InputSchema)
				json.Unmarshal(raw, &schema)
				for p := range schema.Properties {
					params[tl.Name] = append(params[tl.Name], p)
				}
				sort.Strings(params[tl.Name])
			}
			for name, want := range map[string][]string{
				"performance_start_trace":     {"autoStop", "filePath", "ignoreCache", "pageId", "reload"},
				"performance_stop_trace":      {"filePath", "pageId"},
				"performance_analyze_insight": {"insightName", "insightSetId", "pageId"},
			} {
				if !slices.Equal(params[name], want) {
					t.Errorf("tools/list: %s takes %v, want %v", name, params[name], want)
				}
			}

			url := site + "/p/shift-image.html"
			mustTrace(t, cs, "navigate_page", map[string]any{"url": url, "timeout": tabhivetest.PageLoadTimeout})
			got := mustTrace(t, cs, "performance_start_trace", map[string]any{"reload": true, "autoStop": true})
			m := savedTo.FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("performance_start_trace names no file:\n%s", got)
			}
			for _, want := range []string{
				"The performance trace has been stopped.",
				"## insight set id: NAVIGATION_0",
				"URL: " + url,
				"  - LCP: ",
				"  - CLS: ",
				"Metrics (field / real users): n/a",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("the summary lacks %q:\n%s", want, got)
				}
			}
			checkTraceFile(t, m[1], url)
			// Which insights a load flags depends on its timing (on a loaded
			// machine the unsized image may arrive before the first paint,
			// and shift nothing); the LCP breakdown is always listed.
			names := insightName.FindAllStringSubmatch(got, -1)
			if len(names) < 1 || !strings.Contains(got, "insight name: LCPBreakdown") {
				t.Fatalf("the summary does not list LCPBreakdown:\n%s", got)
			}
			for _, n := range names {
				a := transporttest.Must(t, cs, "performance_analyze_insight", map[string]any{"insightSetId": "NAVIGATION_0", "insightName": n[1]})
				if !strings.HasPrefix(a, "## Insight Title: ") || !strings.Contains(a, "## Detailed analysis:\n") || !strings.Contains(a, "## External resources:\n- https://") {
					t.Errorf("performance_analyze_insight %s =\n%s", n[1], a)
				}
			}
			if strings.Contains(got, "insight name: CLSCulprits") {
				if a := transporttest.Must(t, cs, "performance_analyze_insight", map[string]any{"insightSetId": "NAVIGATION_0", "insightName": "CLSCulprits"}); !strings.Contains(a, "An image without width and height (IMG)") {
					t.Errorf("CLSCulprits does not name the unsized image:\n%s", a)
				}
			}

			// Bad input: one sentence each, and nothing left running.
			for _, tt := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"performance_analyze_insight", map[string]any{"insightSetId": "NAVIGATION_7", "insightName": "LCPBreakdown"}, `No insight set "NAVIGATION_7" in the last trace of page 1. Only use ids from its "Available insight sets" list: NAVIGATION_0.`},
				{"performance_analyze_insight", map[string]any{"insightSetId": "NAVIGATION_0", "insightName": "Speed"}, `No insight named "Speed" in insight set NAVIGATION_0.`},
				{"performance_stop_trace", nil, "No performance trace is running on page 1. Start one with performance_start_trace."},
				{"performance_start_trace", map[string]any{"filePath": "/etc/tabhive-trace.json"}, "Access denied"},
			} {
				got, isErr := transporttest.Call(t, cs, tt.tool, tt.args)
				if !isErr || !strings.Contains(got, tt.want) || strings.Count(got, "\n") > 0 {
					t.Errorf("%s %v = %v %q, want one sentence with %q", tt.tool, tt.args, isErr, got, tt.want)
				}
			}
			transporttest.Must(t, cs, "performance_start_trace", map[string]any{"reload": false, "autoStop": false})
			if got, isErr := transporttest.Call(t, cs, "performance_start_trace", map[string]any{"autoStop": false}); !isErr || !strings.Contains(got, "A performance trace is already running on page 1.") {
				t.Errorf("a second performance_start_trace = %v %q", isErr, got)
			}
			if got, isErr := transporttest.Call(t, cs, "performance_stop_trace", map[string]any{"filePath": "/etc/tabhive-trace.json"}); !isErr || !strings.Contains(got, "Access denied") {
				t.Errorf("performance_stop_trace outside the sandbox = %v %q", isErr, got)
			}
			file := filepath.Join(work, mode+"-manual.json.gz")
			got = mustTrace(t, cs, "performance_stop_trace", map[string]any{"filePath": file})
			if !strings.Contains(got, "The raw trace data was saved to "+file+".") {
				t.Errorf("performance_stop_trace with filePath =\n%s", got)
			}
			if _, isErr := transporttest.Call(t, cs, "performance_stop_trace", nil); !isErr {
				t.Error("a trace is still running after performance_stop_trace")
			}

			// The page closes while its trace records: the reply says the
			// partial trace was discarded, and nothing is left running. The
			// page is slow to load, and the trace's reload asks for it a
			// second time: the page closes while that load waits.
			second := mustTrace(t, cs, "new_page", map[string]any{"url": site + "/slow/3000/p/text.html?" + mode, "timeout": tabhivetest.PageLoadTimeout})
			m = regexp.MustCompile(`(\d+): .*\[selected\]`).FindStringSubmatch(second)
			if m == nil {
				t.Fatalf("new_page =\n%s", second)
			}
			id, _ := strconv.Atoi(m[1])
			reloaded := slowLoads.wait("/slow/3000/p/text.html?"+mode, 2)
			var closedReply string
			var closedErr bool
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				closedReply, closedErr, err = tabhivetest.SlowCall(cs, "performance_start_trace", map[string]any{"pageId": id, "reload": true, "autoStop": true})
				if err != nil {
					closedReply = err.Error()
				}
			}()
			select {
			case <-reloaded:
			case <-time.After(time.Minute):
				t.Fatal("the trace's reload did not ask for the page within a minute")
			}
			transporttest.Must(t, cs, "close_page", map[string]any{"pageId": id})
			wg.Wait()
			if want := fmt.Sprintf("Page %d was closed while its performance trace was recording; the partial trace was discarded.", id); !closedErr || !strings.Contains(closedReply, want) {
				t.Errorf("performance_start_trace on a page that closed = %v %q, want %q", closedErr, closedReply, want)
			}
			mustTrace(t, cs, "performance_start_trace", map[string]any{"pageId": 1, "reload": false, "autoStop": false})
			mustTrace(t, cs, "performance_stop_trace", map[string]any{"pageId": 1})
		})
	}
}

// checkTraceFile reads a saved trace back: the gzip-compressed trace-event
// format, with metadata, holding the page's navigation.
func checkTraceFile(t *testing.T, path, url string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the trace file: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the trace file %s is not gzip-compressed: %v", path, err)
	}
	var file tracetest.SavedFile
	if err := json.NewDecoder(zr).Decode(&file); err != nil {
		t.Fatalf("the trace file %s is not a JSON trace: %v", path, err)
	}
	if file.Navigates(url) && len(file.Metadata) > 0 {
		return
	}
	t.Errorf("the trace file %s (%d events, %d metadata) has no navigation to %s", path, len(file.TraceEvents), len(file.Metadata), url)
}

// requestLog serves h and tells waiters when a URL has been asked for n
// times.
type requestLog struct {
	h       http.Handler
	mu      sync.Mutex // guards the fields below
	counts  map[string]int
	waiters []logWaiter
}

type logWaiter struct {
	uri string
	n   int
	ch  chan struct{}
}

func (l *requestLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.counts[r.RequestURI]++
	kept := l.waiters[:0]
	for _, wt := range l.waiters {
		if wt.uri == r.RequestURI && l.counts[wt.uri] >= wt.n {
			close(wt.ch)
			continue
		}
		kept = append(kept, wt)
	}
	l.waiters = kept
	l.mu.Unlock()
	l.h.ServeHTTP(w, r)
}

// wait returns a channel closed once uri has been asked for n times.
func (l *requestLog) wait(uri string, n int) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{})
	if l.counts[uri] >= n {
		close(ch)
		return ch
	}
	l.waiters = append(l.waiters, logWaiter{uri: uri, n: n, ch: ch})
	return ch
}

// TestTwoTracesAndClicksThroughBinary has two agents trace two pages at
// once, over HTTP, while a third clicks on a page of another site: both
// traces succeed (Chrome records one at a time, so the second waits for
// the first), and the clicks stay within 1.5 times their latency alone,
// measured in the same run.
func TestTwoTracesAndClicksThroughBinary(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, tracetest.NewHandler(tracetest.Config{})).URL
	counter := browsertest.ServeOwnSite(t, browsertest.HTML("Counter", `<button onclick="this.textContent = 'Clicked ' + (++window.n || (window.n = 1))">Click me</button>`)).URL
	in := tabhivetest.StartHTTP(t)
	tracers := []*mcp.ClientSession{in.Client(nil), in.Client(nil)}
	clicker := in.Client(nil)
	pageOf := func(cs *mcp.ClientSession, url string) int {
		got := mustTrace(t, cs, "new_page", map[string]any{"url": url, "timeout": tabhivetest.PageLoadTimeout})
		m := regexp.MustCompile(`(\d+): .*\[selected\]`).FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("new_page =\n%s", got)
		}
		id, _ := strconv.Atoi(m[1])
		return id
	}
	tracePages := []int{pageOf(tracers[0], site+"/p/image-late.html"), pageOf(tracers[1], site+"/p/text.html")}
	clickPage := pageOf(clicker, counter+"/")
	// In front: headless Chromium gives a tab behind others no animation
	// frames, and clicks wait for one.
	transporttest.Must(t, clicker, "select_page", map[string]any{"pageId": clickPage, "bringToFront": true})
	snap := transporttest.Must(t, clicker, "take_snapshot", map[string]any{"pageId": clickPage})
	uid := regexp.MustCompile(`uid=(\S+) button "Click me"`).FindStringSubmatch(snap)
	if uid == nil {
		t.Fatalf("no button in the snapshot:\n%s", snap)
	}
	phase, clicks := "alone, before the traces", 0
	click := func() time.Duration {
		start := time.Now()
		got, isErr := transporttest.Call(t, clicker, "click", map[string]any{"pageId": clickPage, "uid": uid[1]})
		clicks++
		if isErr {
			t.Fatalf("click %d (%s) failed after %v:\n%s", clicks, phase, time.Since(start), got)
		}
		return time.Since(start)
	}
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	var before, after []time.Duration
	for range 9 {
		before = append(before, click())
	}

	var wg sync.WaitGroup
	replies := make([]string, 2)
	done := make(chan struct{})
	for i := range tracers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, isErr, err := tabhivetest.SlowCall(tracers[i], "performance_start_trace", map[string]any{"pageId": tracePages[i], "reload": true, "autoStop": true})
			switch {
			case err != nil:
				got = err.Error()
			case isErr:
				got = "failed: " + got
			}
			replies[i] = got
		}()
	}
	go func() { wg.Wait(); close(done) }()
	var during []time.Duration
	phase = "during the traces"
	for loop := true; loop; {
		select {
		case <-done:
			loop = false
		default:
			during = append(during, click())
		}
	}
	// A trace holds its own page alone (the third agent's clicks are not
	// in it); the reload's insight set is found by its URL all the same.
	loaded := regexp.MustCompile(`(?m)^## insight set id: NAVIGATION_\d+\n\nURL: ` + regexp.QuoteMeta(site) + `/p/`)
	for i, r := range replies {
		if !loaded.MatchString(r) {
			t.Errorf("trace %d of page %d:\n%s", i, tracePages[i], r)
		}
	}
	if !strings.Contains(replies[0]+replies[1], "Waited ") {
		t.Error("neither trace says it waited for the other, though Chrome records one at a time")
	}
	if len(during) < 3 {
		t.Fatalf("only %d clicks ran during the traces", len(during))
	}
	phase = "alone, after the traces"
	for range 9 {
		after = append(after, click())
	}
	// Alone is measured before and after the traces, and the slower of
	// the two taken: the machine's own load drifts during the test.
	s, d := max(median(before), median(after)), median(during)
	t.Logf("click median alone %v before, %v after; during two traces %v (%d clicks)", median(before), median(after), d, len(during))
	if d > s*3/2 {
		t.Errorf("clicks during two traces took %v (median of %d), more than 1.5 × their %v alone", d, len(during), s)
	}
}

// mustTrace is traceCall for a call that must succeed.
func mustTrace(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	got, isErr, err := tabhivetest.SlowCall(cs, name, args)
	if err != nil {
		t.Fatal(err)
	}
	if isErr {
		t.Fatalf("%s(%v) failed:\n%s", name, args, got)
	}
	return got
}
