// The stress suite: many agents on many tabs, with faults.
//
// TestStress starts a tabhive server with a headless Chromium of its own
// (not the shared one of e2e_test.go: it kills this one), serves it over
// streamable HTTP, and connects N MCP sessions, each driving M pages from M
// goroutines, always passing pageId. Each page worker runs a seeded random
// mix of navigate_page, take_snapshot, click, fill, wait_for and
// evaluate_script against a fixture page whose DOM records every action
// done to it, while a fault goroutine closes tabs, opens alerts, hangs
// scripts, crashes renderers and kills the browser once. See TestStress for
// what is checked.
//
// The suite is in five files: this one holds the tests; the harness
// (forms, bounds, the server and sessions, reply kinds, the checks after
// shutdown), the page workers, the faults and the report are each in
// stress_<part>_test.go.
//
// Forms:
//
//	go test -race -run 'TestStress$' ./transport/
//	    the short form: 8 sessions × 2 pages for 20 s, about 25 s in all.
//	    It runs in the default `go test -race ./...`, and so in CI.
//	go test -race -run 'TestStress$' -timeout 30m -v ./transport/ -stress.long
//	    the long form: 32 sessions × 4 pages for 5 minutes, about 5.5
//	    minutes in all; its figures are in docs/BENCHMARKS.md.
//	-stress.seed=N
//	    replays the random choices of a run (its seed is logged). Timing
//	    still differs from run to run: faults land where they land.
//
// -short skips the suite, as it does every browser test. The tests at the
// end of the file are bugs the suite found, each reduced to a small test
// named for the property it breaks; `-run Stress` runs them too.

package transport_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestStress runs N sessions × M pages against one server while faults are
// injected, and checks:
//   - every call returns within its budget plus stressMargin (plus the
//     relaunch time for calls caught by the browser's death);
//   - every error is of an expected kind — the dialog notice, no page
//     found, crashed page, script timeout, the page went away — and no
//     reply holds a Go trace;
//   - no reply is about another page (snapshots, waits and scripts name
//     their page's label; errors and dialog notices their page's id), and
//     no action lands on another page (each page's DOM record matches the
//     worker's own log of what it did to that page, read back
//     periodically and at the end);
//   - calls refused for an open dialog fail fast; a closed page's id
//     answers "No page found"; a hung script stops at its 1 s timeout;
//   - after the browser is killed, each session gets the reconnect notice
//     exactly once and every worker carries on in a new page, and page
//     ids are never reused;
//   - after shutdown, no goroutine and no Chromium process of this run is
//     left (browsertest.Main checks the whole binary again at the end),
//     and the Go heap is back within stressHeapSlack of its baseline.
//
// It logs a summary: calls and latency per tool, errors per kind, faults
// injected, heap before and after.
func TestStress(t *testing.T) {
	exe := browsertest.Executable(t)
	// Not parallel: a CPU-heavy run beside the other browser tests would
	// measure the machine, not tabhive. While it runs, the parallel tests
	// of this binary are paused, so goroutines and Chromium processes
	// that appear and stay are this run's.
	cfg := stressForm(*stressLong)
	seed := *stressSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (replay with -stress.seed=%d)", seed, seed)
	ignore := goleak.IgnoreCurrent()
	chromiumBefore := browsertest.ChromiumProcesses()

	r := &stressRun{t: t, cfg: cfg, seed: seed, start: time.Now(), opened: map[int]string{}, faults: map[int][]string{}}
	r.siteServer = httptest.NewServer(stressSite())
	r.site = r.siteServer.URL
	r.stats.init()
	metrics := transport.NewMetrics()
	r.sup = browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true, PageHooks: metrics.PageHooks()})
	r.srv = transport.New(transport.Config{Metrics: metrics}, r.sup)
	r.ts = httptest.NewUnstartedServer(nil)
	r.ts.Config.Handler = httpserve.New(r.srv, httpserve.Config{Addr: r.ts.Listener.Addr().String()}).Handler()
	r.ts.Start()
	r.endpoint = r.ts.URL + httpserve.Path
	// The sessions' own pool: the default transport keeps 2 idle
	// connections per host, and 30 sessions would churn through them.
	r.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	t.Cleanup(r.shutdown) // on a fatal path; a no-op after the checks below

	baseline := r.warmUp()
	r.drive()
	r.waitSessionsEnded(metrics)
	summary := r.summarize() // and drops the call records
	after := stressHeap()
	summary += fmt.Sprintf("\nheap: baseline %.1f MiB, after the sessions ended %.1f MiB (%+.1f MiB; slack %d MiB)",
		mib(baseline), mib(after), mib(after)-mib(baseline), stressHeapSlack>>20)
	t.Log(summary)
	if after > baseline+stressHeapSlack {
		t.Errorf("Go heap did not return to its baseline after the sessions ended: %.1f MiB, baseline %.1f MiB (slack %d MiB)",
			mib(after), mib(baseline), stressHeapSlack>>20)
	}

	r.shutdown()
	stressNoChromiumLeft(t, chromiumBefore)
	if err := goleak.Find(ignore); err != nil {
		t.Errorf("goroutines left after shutdown: %v", err)
	}
}

// Bugs the suite found, each reduced to a test of its own (all fixed
// 2026-11-29; the tests keep them fixed).

// TestStressBrowserDeathFailsCallsClearly was a bug the suite found
// (in-flight calls on the lost browser must fail at once with a clear
// sentence). When the browser died, a call under way on one of its
// pages could claim success or fail with the CDP connection's own error,
// and a call made in the moment before the supervisor noticed could get a
// sentence made of tabhive's plumbing. Seen in the suite and here:
//
//	Successfully clicked on the element
//	The page closed.
//	Error: Cdp.Input: DispatchMouseEvent: rpcc: the connection is closing: websocket: close 1006 (abnormal closure): unexpected EOF.
//	Error: Failed to interact with the element with uid 30_2. The element did not become interactive within the configured timeout.
//	Cause: cdp.Input: DispatchMouseEvent: rpcc: the connection is closing: ...
//	Error: Unable to navigate in the selected page: cdp.Page: Navigate: rpcc: the connection is closing: ...
//	Error: Open a tab: cdp.Target: CreateTarget: rpcc: the connection is closing: ...   (new_page)
//	Error: Snapshot: the browser connection was lost.
//	Error: The page went away while the call ran (page 12: actor stopped: the browser connection was lost). ...
//	Error: The page went away while the call ran (page 18: actor stopped: connect to ws://127.0.0.1:37139/devtools/page/...: dial tcp 127.0.0.1:37139: connect: connection refused). ...
//
// Which one depended on what noticed the death first, so this test failed
// in most runs, not all (13 of 14 when it was written). Each reply must
// instead be one of the sentences for a page that went away, as the suite
// classifies them: the browser connection was lost, the page was closed
// or went away (with a cause for people, not plumbing), no page found.
// (The fix: a page actor whose connection closes waits briefly for the
// supervisor to say why, and calls cut short report that cause.)
func TestStressBrowserDeathFailsCallsClearly(t *testing.T) {
	t.Parallel()
	srv := transporttest.Start(t, transporttest.Options{})
	sup := srv.Browser

	// A click whose handler never returns and a navigation whose response
	// never comes hold their calls inside Chrome; each tells the test when
	// it got there, so that the browser dies with both under way. (One of
	// each: Chrome may give same-site tabs one renderer, and a second
	// spinning handler would wait for the first.)
	clicked, navigating := make(chan struct{}, 1), make(chan struct{}, 1)
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/busy", browsertest.HTML("Busy", `<button onclick="const x = new XMLHttpRequest(); x.open('GET', '/clicked', false); x.send(); for (;;) {}">Spin</button>`))
	mux.HandleFunc("/clicked", func(http.ResponseWriter, *http.Request) { notify(clicked) })
	mux.HandleFunc("/slow", func(_ http.ResponseWriter, r *http.Request) {
		notify(navigating)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	site := browsertest.Serve(t, mux).URL
	t.Cleanup(func() { close(release) }) // before the site closes: it waits for /slow

	cs := srv.Connect(t)
	spinning := openPage(t, cs, site+"/busy")
	button := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": spinning}), "button", "Spin")
	loading := openPage(t, cs, site+"/busy")
	// Idle pages, called as fast as possible from the moment the browser
	// dies until the relaunched browser answers that they are gone: the
	// moment before the supervisor notices is short, so several pages
	// give it more chances to show.
	var idle []int
	for range 4 {
		idle = append(idle, openPage(t, cs, "about:blank"))
	}

	type result struct {
		call     string
		text     string
		isErr    bool
		protoErr error
		end      time.Time
	}
	try := func(name string, args map[string]any) result {
		r := result{call: fmt.Sprintf("%s(%v)", name, args)}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		r.end = time.Now()
		if err != nil {
			r.protoErr = err
			return r
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				r.text += tc.Text
			}
		}
		r.isErr = res.IsError
		return r
	}
	inFlight := make(chan result, 2)
	go func() { inFlight <- try("click", map[string]any{"pageId": spinning, "uid": button}) }()
	go func() { inFlight <- try("navigate_page", map[string]any{"pageId": loading, "url": site + "/slow"}) }()
	for _, ch := range []chan struct{}{clicked, navigating} {
		select {
		case <-ch:
		case <-time.After(20 * time.Second):
			t.Fatal("the click or the navigation never got under way")
		}
	}
	// The relaunch, which an in-flight call may wait for, is timed from
	// the supervisor's side: it takes a second or two on a quiet machine,
	// six and more on a loaded one.
	gen := sup.Generation()
	relaunched := make(chan time.Time, 1)
	go func() { // ends when the browser is back, or after a minute
		if testwait.Poll(time.Minute, func() bool { return sup.Generation() != gen }) {
			relaunched <- time.Now()
			return
		}
		close(relaunched)
	}()
	killedAt := time.Now()
	if err := syscall.Kill(sup.BrowserPID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var replies []result
	var wg sync.WaitGroup
	for _, id := range idle {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				r := try("take_snapshot", map[string]any{"pageId": id})
				mu.Lock()
				replies = append(replies, r)
				mu.Unlock()
				if strings.Contains(r.text, "No page found") || r.protoErr != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	relaunchedAt, ok := <-relaunched
	if !ok {
		t.Fatal("the browser was not relaunched within a minute of its death")
	}
	t.Logf("the browser was relaunched %v after it was killed", relaunchedAt.Sub(killedAt).Round(time.Millisecond))
	for range 2 {
		select {
		case r := <-inFlight:
			if r.end.Before(killedAt) {
				t.Fatalf("%s ended before the browser died: the test did not hold it:\n%s", r.call, r.text)
			}
			// "At once": within 5 s of the death, or of the relaunch it
			// may wait for, where its own budget is 20 s. (5 s from the
			// death alone failed when a loaded machine took about 6 s to
			// relaunch.)
			if d := r.end.Sub(killedAt); d > 5*time.Second && r.end.Sub(relaunchedAt) > 5*time.Second {
				t.Errorf("%s under way when the browser died returned %v after the death and %v after the relaunch, want at once", r.call, d.Round(time.Millisecond), r.end.Sub(relaunchedAt).Round(time.Millisecond))
			}
			replies = append(replies, r)
		case <-time.After(30 * time.Second):
			t.Fatal("a call under way when the browser died did not return within 30s")
		}
	}
	for _, r := range replies {
		kind := stressKind(stressReply{text: r.text, isErr: r.isErr})
		if r.protoErr != nil || !r.isErr || (kind != "went-away" && kind != "no-page") {
			t.Errorf("%s as the browser died = %v, %v:\n%s\nwant a clear sentence: the browser connection was lost, the page went away, or no page found", r.call, r.isErr, r.protoErr, r.text)
		}
	}
}

// TestStressDialogCutActionNotReportedDone was a bug the suite found: when
// a dialog opened while an input action was under way, the reply said the
// action was done ("The element was clicked and it opened a dialog.", "The
// element was filled out and it opened a dialog.") even when the dialog
// stopped it first: the click never reached the page, the field was never
// filled. In the suite an alert opened by a timer cuts clicks and fills
// short, and their entries are missing from the page's record although
// their calls succeeded. Here the page opens the dialog itself, on the
// click's first mouse move and on the fill's focus, so that it always
// comes first. A reply may report the dialog; it must not claim an action
// that did not happen.
func TestStressDialogCutActionNotReportedDone(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/move", browsertest.HTML("Move", `<button onmousemove="alert('moved')" onclick="out.textContent = 'clicked'">Act</button><p id=out>not clicked</p>`))
	mux.Handle("/focus", browsertest.HTML("Focus", `<input aria-label=Field onfocus="alert('focused')">`))
	site := browsertest.Serve(t, mux).URL
	cs := inMemory(t)
	tests := []struct {
		name, path, role, control string
		args                      map[string]any
		claim                     string // the reply's claim that the action was done
		effect, want              string // a script that reads the action's effect, and what it must return
	}{
		{"click", "/move", "button", "Act", map[string]any{}, "The element was clicked",
			"() => out.textContent", `"clicked"`},
		{"fill", "/focus", "textbox", "Field", map[string]any{"value": "typed"}, "The element was filled out",
			"() => document.querySelector('input').value", `"typed"`},
	}
	for _, tt := range tests {
		id := openPage(t, cs, site+tt.path)
		tt.args["pageId"] = id
		tt.args["uid"] = uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), tt.role, tt.control)
		reply, isErr := call(t, cs, tt.name, tt.args)
		must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept"})
		got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": tt.effect, "waitForStableDom": false})
		if !isErr && strings.HasPrefix(reply, tt.claim) && !strings.Contains(got, "\n"+tt.want+"\n") {
			t.Errorf("%s whose dialog opened first replied:\n%s\nbut it never happened: %s gives\n%s\nwant %s", tt.name, reply, tt.effect, got, tt.want)
		}
	}
}

// TestStressDialogCutNavigationNotReportedDone was a bug the suite found,
// of the same kind for navigate_page: when a dialog opened on the old
// document while the navigation was under way, the reply claimed the
// navigation was done while reporting the dialog that held it up:
//
//	Successfully navigated to .../rec?l=s6p0v4.     (asked: .../rec?l=s6p0v5)
//	# Open dialog
//	alert: stress-25.
//
//	Successfully reloaded the page.
//	# Open dialog
//	alert: stress-47.
//
// (in the long run the reload then went through and dismissed the dialog,
// so the next call found none). Here the old page opens an alert as soon
// as the server has the request for the next document, which it holds
// until the test has the reply: the navigation cannot have happened.
func TestStressDialogCutNavigationNotReportedDone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args func(site string) map[string]any
		path string // requested by the navigation
		done string // the reply's claim that it happened
	}{
		{"url", func(site string) map[string]any { return map[string]any{"url": site + "/new"} }, "/new", "Successfully navigated to "},
		{"reload", func(string) map[string]any { return map[string]any{"type": "reload"} }, "/old", "Successfully reloaded the page."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			started, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			var loads atomic.Int32
			mux := http.NewServeMux()
			old := browsertest.HTML("Old", `<script>
const poll = setInterval(async () => {
  if (await (await fetch('/started')).text() === 'yes') { clearInterval(poll); alert('during navigation') }
}, 20);
</script>`)
			mux.HandleFunc("/started", func(w http.ResponseWriter, _ *http.Request) {
				select {
				case <-started:
					fmt.Fprint(w, "yes")
				default:
					fmt.Fprint(w, "no")
				}
			})
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				// The first load of /old is the page to leave; the
				// navigation's request is held until the test has the reply.
				if r.URL.Path == tt.path && (r.URL.Path != "/old" || loads.Add(1) > 1) {
					once.Do(func() { close(started) })
					select {
					case <-release:
					case <-r.Context().Done():
					}
				}
				old.ServeHTTP(w, r)
			})
			site := browsertest.Serve(t, mux).URL
			t.Cleanup(func() { close(release) }) // before the site closes: it waits for the request
			cs := inMemory(t)
			id := openPage(t, cs, site+"/old")
			args := tt.args(site)
			args["pageId"], args["timeout"] = id, 10000
			reply, isErr := call(t, cs, "navigate_page", args)
			if !isErr && strings.HasPrefix(reply, tt.done) {
				t.Errorf("navigate_page(%v) held up by a dialog before its document came replied:\n%s\nwant no claim of a navigation that did not happen", args, reply)
			}
			if strings.Contains(reply, "# Open dialog") {
				call(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept"})
			}
		})
	}
}
