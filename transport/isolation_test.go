package transport_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
)

// isolationFixtures serves a page with a counter button.
func isolationFixtures(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Counter", `<button onclick="out.textContent = 'clicks ' + (++n)">Count</button><p id=out>clicks 0</p><script>let n = 0</script>`))
	mux.Handle("/dialog", browsertest.HTML("Dialog", `<button onclick="alert('stuck')">Alert</button>`))
	return browsertest.Serve(t, mux).URL
}

// timeCall returns how long a tool call took and its reply.
func timeCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (time.Duration, string, bool) {
	t.Helper()
	start := time.Now()
	text, isErr := call(t, cs, name, args)
	return time.Since(start), text, isErr
}

// TestHungEvaluate: while(true){} with a 3 s budget returns by the end of
// its budget, as a script timeout, the script is terminated (the metric
// moves), and the page works again: the next click and evaluate succeed.
//
// The budget is 3 s, not 1 s, for a loaded machine: the
// script's own deadline comes a fifth of the budget before the call's, and
// stopping it (a grace, then Runtime.terminateExecution) must fit in that
// fifth for the reply to be the script's timeout. 200 ms did not always fit
// on a busy 2-core machine under -race, and the call's deadline answered
// first, with the generic "did not finish within its budget" sentence.
func TestHungEvaluate(t *testing.T) {
	t.Parallel()
	base := isolationFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/")
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	button := uidOf(t, snap, "button", "Count")
	m := server(t).Metrics()

	for _, tc := range []struct {
		name, fn  string
		terminate bool
	}{
		{"sync", "() => { while (true) {} }", true},
		{"async", "() => new Promise(() => {})", false},
	} {
		before := m.Counter("tabhive_evaluate_terminations_total")
		timeouts := m.Counter("tabhive_evaluate_timeouts_total")
		took, text, isErr := timeCall(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": tc.fn, "timeout": 3000})
		if !isErr || !strings.Contains(text, "The script did not finish within the 3s budget") {
			t.Errorf("%s: hung evaluate = %v %q", tc.name, isErr, text)
		}
		t.Logf("%s: hung evaluate with a 3s budget returned after %v", tc.name, took)
		// The reply is the budget's sentence (checked above); a script left
		// running would hold the call to the test's 60 s context. The rest
		// is room for a loaded machine.
		if took > 15*time.Second {
			t.Errorf("%s: hung evaluate with a 3s budget took %v", tc.name, took)
		}
		if got := m.Counter("tabhive_evaluate_timeouts_total"); got <= timeouts {
			t.Errorf("%s: evaluate timeouts did not move (%v)", tc.name, got)
		}
		if tc.terminate && !testwait.Poll(testwait.Timeout, func() bool { return m.Counter("tabhive_evaluate_terminations_total") > before }) {
			t.Errorf("%s: terminateExecution was not sent", tc.name)
		}
		if text := must(t, cs, "click", map[string]any{"pageId": id, "uid": button}); text != "Successfully clicked on the element" {
			t.Errorf("%s: click after the hung script: %q", tc.name, text)
		}
		if text := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => 1 + 1"}); !strings.Contains(text, "```json\n2\n```") {
			t.Errorf("%s: evaluate after the hung script: %q", tc.name, text)
		}
	}
}

// TestCancelledEvaluate: a client that gives up after 300 ms gets its
// script stopped the same way.
func TestCancelledEvaluate(t *testing.T) {
	t.Parallel()
	base := isolationFixtures(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/")
	button := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Count")
	m := server(t).Metrics()
	before := m.Counter("tabhive_evaluate_terminations_total")
	cctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "evaluate_script", Arguments: map[string]any{"pageId": id, "function": "() => { while (true) {} }"}})
	if err == nil {
		t.Fatal("cancelled call returned no error")
	}
	// Ended by its own deadline, not by a reply: the script never ends.
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled call = %v, want its deadline's error", err)
	}
	// The page recovers: the click goes through once the script is stopped.
	if text := must(t, cs, "click", map[string]any{"pageId": id, "uid": button}); text != "Successfully clicked on the element" {
		t.Errorf("click after the cancelled script: %q", text)
	}
	if !testwait.Poll(testwait.Timeout, func() bool { return m.Counter("tabhive_evaluate_terminations_total") > before }) {
		t.Error("terminateExecution was not sent after the client cancelled")
	}
}

// TestEvaluateReplies: results, element arguments (also inside an iframe),
// dialogs answered by dialogAction, a thrown error.
func TestEvaluateReplies(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Eval", `<h1 id=h>Main title</h1><iframe src="/inner"></iframe>`))
	mux.Handle("/inner", browsertest.HTML("Inner", `<button>Inner button</button>`))
	base := browsertest.Serve(t, mux).URL
	cs := inMemory(t)
	id := openPage(t, cs, base+"/")
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	heading, inner := uidOf(t, snap, "heading", "Main title"), uidOf(t, snap, "button", "Inner button")
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"function": "() => ({a: [1, 'two'], b: null})"}, "Script ran on page and returned:\n```json\n{\"a\":[1,\"two\"],\"b\":null}\n```"},
		{map[string]any{"function": "async () => { await new Promise(r => setTimeout(r, 50)); return document.title }"}, "```json\n\"Eval\"\n```"},
		{map[string]any{"function": "(el) => el.textContent", "args": []string{heading}}, "```json\n\"Main title\"\n```"},
		{map[string]any{"function": "(el) => el.ownerDocument.title + ': ' + el.textContent", "args": []string{inner}}, "```json\n\"Inner: Inner button\"\n```"},
		{map[string]any{"function": "() => prompt('Name?')", "dialogAction": "Ada"}, "```json\n\"Ada\"\n```"},
		{map[string]any{"function": "() => confirm('Sure?')", "dialogAction": "dismiss"}, "```json\nfalse\n```"},
		{map[string]any{"function": "() => undefined"}, "```json\nundefined\n```"},
		{map[string]any{"function": "document.title", "format": "script"}, "```json\n\"Eval\"\n```"},
	}
	for _, tt := range tests {
		tt.args["pageId"] = id
		if got := must(t, cs, "evaluate_script", tt.args); !strings.Contains(got, tt.want) {
			t.Errorf("evaluate_script(%v) = %q, want it to contain %q", tt.args, got, tt.want)
		}
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"function": "() => { throw new Error('boom') }"}, "Error: boom"},
		{map[string]any{"function": "(a, b) => 1", "args": []string{heading, inner}}, "Error: Elements from different frames can't be evaluated together."},
		{map[string]any{"function": "() => 1", "sourcePath": "/x.js"}, "Error: Specify exactly one of function or sourcePath."},
	} {
		tt.args["pageId"] = id
		if got, isErr := call(t, cs, "evaluate_script", tt.args); !isErr || !strings.HasPrefix(got, tt.want) {
			t.Errorf("evaluate_script(%v) = %v %q, want %q", tt.args, isErr, got, tt.want)
		}
	}
}

// TestQueuedCallPastDeadlineNeverRuns: a click that waited behind a slow
// call until its own budget ran out must never happen (ARCHITECTURE.md §2, law 4).
func TestQueuedCallPastDeadlineNeverRuns(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Counter", `<button onclick="out.textContent = 'clicks ' + (++n)">Count</button><p id=out>clicks 0</p><script>let n = 0</script>`))
	// The slow script's request: it says the script is running, and holds
	// the script, and so the page, until the click has given up.
	mux.HandleFunc("/hold", func(http.ResponseWriter, *http.Request) {
		notify(started)
		<-release
	})
	base := browsertest.Serve(t, mux).URL
	t.Cleanup(free) // before the site closes: it waits for /hold
	cs := inMemory(t)
	id := openPage(t, cs, base+"/")
	button := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Count")
	slow := make(chan struct{})
	go func() { // holds the page until release
		defer close(slow)
		call(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "async () => { await fetch('/hold'); return 1 }"})
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the slow script never started")
	}
	cctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "click", Arguments: map[string]any{"pageId": id, "uid": button}})
	cancel()
	free()
	if err == nil {
		t.Fatal("queued click with a 300ms budget returned no error")
	}
	<-slow
	got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => out.textContent", "waitForStableDom": false})
	if !strings.Contains(got, `"clicks 0"`) {
		t.Errorf("the click that gave up ran later: %q", got)
	}
}

// TestDialogStallsOnlyItsPage: an alert open on page A; four other pages
// run evaluate/click/snapshot loops that all succeed, at about the median
// latency they have without it; list_pages answers fast; A's own calls fail
// at once with the notice. Rounds without and with the alert alternate, so
// that the load of a shared machine weighs on both alike; the bound on the
// ratio is looser than the 20% a quiet machine shows (docs/BENCHMARKS.md),
// as it must hold on a loaded one, and a stall would cost seconds.
//
// A call stalled by the dialog would wait for its budget, 20 s at the
// least (click; take_snapshot has 30 s), and fail: the dialog stays open
// until the loops end. So the slowest call may take up to three quarters
// of that, 15 s: a stall cannot stay under it, and a loaded machine stays
// under it (5.2 s was seen at load 10, 12 s once at load 12-20, against
// 10 s allowed before). Page A's own refusal has a second, as the refusal in
// TestDialogNotice: it waits for nothing, where a stall would wait 30 s.
func TestDialogStallsOnlyItsPage(t *testing.T) {
	t.Parallel()
	base := isolationFixtures(t)
	cs := inMemory(t)
	a := openPage(t, cs, base+"/dialog")
	var others []int
	for i := 0; i < 4; i++ {
		others = append(others, openPage(t, cs, base+"/"))
	}
	buttons := map[int]string{}
	for _, id := range others {
		buttons[id] = uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Count")
	}
	// loops runs the 4 pages' loops in parallel and returns the median and
	// the slowest call latency, with the slowest call's tool.
	loops := func() (median, slowest time.Duration, slowTool string) {
		var mu sync.Mutex
		var lat []time.Duration
		var wg sync.WaitGroup
		for _, id := range others {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < 4; r++ {
					for _, c := range []struct {
						tool string
						args map[string]any
					}{
						{"evaluate_script", map[string]any{"pageId": id, "function": "() => 1", "waitForStableDom": false}},
						{"click", map[string]any{"pageId": id, "uid": buttons[id]}},
						{"take_snapshot", map[string]any{"pageId": id}},
					} {
						d, text, isErr := timeCall(t, cs, c.tool, c.args)
						if isErr {
							t.Errorf("%s on page %d: %s", c.tool, id, text)
						}
						mu.Lock()
						lat = append(lat, d)
						if d > slowest {
							slowest, slowTool = d, c.tool
						}
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		slices.Sort(lat)
		return lat[len(lat)/2], slowest, slowTool
	}
	loops() // warm up
	alert := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": a}), "button", "Alert")
	var without, with []time.Duration
	var slowest, slowestWithout time.Duration
	var slowTool string
	for round := 0; round < 3; round++ {
		m, worst, _ := loops()
		without = append(without, m)
		slowestWithout = max(slowestWithout, worst)
		text := must(t, cs, "click", map[string]any{"pageId": a, "uid": alert})
		if !strings.Contains(text, "alert: stuck.") {
			t.Fatalf("alert not reported: %q", text)
		}
		m, worst, tool := loops()
		with = append(with, m)
		if worst > slowest {
			slowest, slowTool = worst, tool
		}
		if round < 2 {
			must(t, cs, "handle_dialog", map[string]any{"pageId": a, "action": "accept"})
		}
	}
	slices.Sort(without)
	slices.Sort(with)
	ratio := float64(with[1]) / float64(without[1])
	t.Logf("median latency of 4 pages' loops over 3 rounds: %v without the alert, %v with it (ratio %.2f); slowest call %v without it, %v (%s) with it",
		without[1], with[1], ratio, slowestWithout, slowest, slowTool)
	if float64(with[1]) > 1.5*float64(without[1])+float64(30*time.Millisecond) {
		t.Errorf("median latency with an alert open elsewhere: %v, without: %v", with[1], without[1])
	}
	if slowest > 15*time.Second {
		t.Errorf("a call on another page (%s) took %v with an alert open on page %d", slowTool, slowest, a)
	}
	var lists []time.Duration
	for range 5 {
		d, _, _ := timeCall(t, cs, "list_pages", nil)
		lists = append(lists, d)
	}
	slices.Sort(lists)
	if lists[2] > 100*time.Millisecond {
		t.Errorf("list_pages took %v (median of 5) with an alert open", lists[2])
	}
	d, text, isErr := timeCall(t, cs, "take_snapshot", map[string]any{"pageId": a})
	if !isErr || !strings.HasPrefix(text, "# Open dialog\nalert: stuck.") || d > time.Second {
		t.Errorf("page A's snapshot: %v after %v: %q", isErr, d, text)
	}
	must(t, cs, "handle_dialog", map[string]any{"pageId": a, "action": "accept"})
}

// TestRendererCrash: a crashed page fails with a clear sentence and is
// marked in the page list; other pages work; navigating revives it.
func TestRendererCrash(t *testing.T) {
	t.Parallel()
	base := isolationFixtures(t)
	cs := inMemory(t)
	a := openPage(t, cs, base+"/")
	b := openPage(t, cs, base+"/")
	// Crash A's renderer from a debugger connection of our own.
	dbg, err := shared.sup.Debugger(ctx(t), a)
	if err != nil {
		t.Fatal(err)
	}
	defer dbg.Close()
	cctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	dbg.Client.Page.Crash(cctx) // no reply comes back from a crashed renderer
	cancel()
	var text string
	var isErr bool
	testwait.Poll(testwait.Timeout, func() bool { text, isErr = call(t, cs, "take_snapshot", map[string]any{"pageId": a}); return isErr })
	if !isErr || !strings.Contains(text, "Error: The page's renderer crashed; other pages are unaffected.") {
		t.Errorf("snapshot of the crashed page: %v %q", isErr, text)
	}
	if !strings.Contains(must(t, cs, "take_snapshot", map[string]any{"pageId": b}), `button "Count"`) {
		t.Error("other page broken by the crash")
	}
	list := must(t, cs, "list_pages", nil)
	if !strings.Contains(list, fmt.Sprintf("\n%d: ", a)) || !strings.Contains(list, "[crashed]") {
		t.Errorf("page list does not show the crash:\n%s", list)
	}
	must(t, cs, "navigate_page", map[string]any{"pageId": a, "url": base + "/"})
	if !strings.Contains(must(t, cs, "take_snapshot", map[string]any{"pageId": a}), `button "Count"`) {
		t.Error("crashed page did not come back after navigating")
	}
	if strings.Contains(must(t, cs, "list_pages", nil), "[crashed]") {
		t.Error("page still marked crashed after navigating")
	}
}
