// The stress suite of issue 6, item 4: many agents on many tabs, with faults.
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
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"slices"
	"sort"
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
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

var (
	stressLong = flag.Bool("stress.long", false, "run TestStress's long form: 32 sessions × 4 pages for 5 minutes")
	stressSeed = flag.Uint64("stress.seed", 0, "seed of TestStress's random choices; 0 picks one, which is logged")
)

// stressConfig sizes a run.
type stressConfig struct {
	sessions, pages int
	duration        time.Duration
	// pause is the range of a worker's think time between two calls: an
	// agent waits for its model between tool calls.
	pause [2]time.Duration
	// faultPause is the range of the time between two faults.
	faultPause [2]time.Duration
	// checkEvery is how often a worker reads back its page's record.
	checkEvery time.Duration
	// rampUp spreads the workers' first pages over this long, as agents
	// arrive one by one rather than all in the same millisecond.
	rampUp time.Duration
}

func stressForm(long bool) stressConfig {
	if long {
		// 128 pages on 2 shared cores, sized to what Chromium can serve
		// there: about 35 calls a second of this mix, and a third of a
		// second of the whole machine to start each tab's renderer. Past
		// that every call queues in Chromium until new_page runs out of
		// its budget, and agents retrying make it worse (a trial with 1-4 s
		// think times and a one-minute ramp opened 53 pages in 693
		// attempts). So agents arrive over 90 s, come back over 45 s after
		// the browser's death, and think 2 to 8 s between calls, as long
		// as a model takes to answer.
		return stressConfig{
			sessions: 32, pages: 4, duration: 5 * time.Minute,
			pause:      [2]time.Duration{2 * time.Second, 8 * time.Second},
			faultPause: [2]time.Duration{500 * time.Millisecond, 1500 * time.Millisecond},
			checkEvery: 15 * time.Second,
			rampUp:     90 * time.Second,
		}
	}
	return stressConfig{
		sessions: 8, pages: 2, duration: 20 * time.Second,
		pause:      [2]time.Duration{20 * time.Millisecond, 200 * time.Millisecond},
		faultPause: [2]time.Duration{200 * time.Millisecond, 800 * time.Millisecond},
		checkEvery: 3 * time.Second,
		rampUp:     time.Second,
	}
}

const (
	// stressMargin is what a call may take beyond its budget: the budget
	// starts once the server has found the page, and the reply still has
	// to cross HTTP on a loaded machine.
	stressMargin = 2 * time.Second
	// stressRelaunch is what a call caught by the browser's death may
	// spend waiting for the relaunch, before its budget starts: the
	// supervisor's default launch timeout.
	stressRelaunch = 30 * time.Second
	// stressFast bounds a call refused because a dialog is open: it must
	// fail at once (DESIGN §2 law 6), not after a wait. Generous for a
	// loaded 2-core machine under -race; a refusal takes milliseconds.
	stressFast = 3 * time.Second
	// stressQuiet is how long before the end faults stop, so that the
	// final read-back of every page is not itself cut short by one.
	stressQuiet = 2 * time.Second
	// stressHeapSlack is how far above its warm-up baseline the process's
	// Go heap may stay once every session has ended. What legitimately
	// remains is small: one page in the registry, the metrics' per-tool
	// series, the workers' final state, the HTTP client's pools. Measured
	// on 2026-11-29: +0.2 MiB after the short form (about 750 calls and 38
	// pages), +0.8 MiB after the long form (6,737 calls, 284 pages). 20 MiB
	// is far above that, so GC timing, sync.Pool and the race detector's
	// bookkeeping never fail a run, and still catches a leak of what a
	// run makes many of: in the long form, 3 KiB kept per call (a reply,
	// a snapshot) or 72 KiB per page (a page actor with its collectors);
	// the short form only catches leaks about ten times larger.
	stressHeapSlack = 20 << 20
	// stressNotice is the reconnect notice of reference §3.7.
	stressNotice = "Note: the browser was restarted or reconnected since the last call. Page ids have changed. Call list_pages to see open pages."
)

// stressBudget returns a tool's budget for the arguments this suite passes,
// as transport/tools*.go sets it: input tools 20 s, take_snapshot 30 s,
// wait_for and the page-opening tools their timeout plus 10 s,
// evaluate_script its timeout, the page-list tools 10 s.
func stressBudget(tool string, args map[string]any) time.Duration {
	timeout := func(def time.Duration) time.Duration {
		if ms, ok := args["timeout"].(int); ok && ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
		return def
	}
	switch tool {
	case "click", "fill":
		return 20 * time.Second
	case "take_snapshot":
		return 30 * time.Second
	case "wait_for":
		return timeout(5*time.Second) + 10*time.Second
	case "navigate_page", "new_page":
		return timeout(10*time.Second) + 10*time.Second
	case "evaluate_script":
		return timeout(30 * time.Second)
	}
	return 10 * time.Second
}

// stressRecordPage is the fixture every worker drives. Its DOM records what
// was done to it: a click appends "click <label>/<n>", a fill "fill
// <value>", and the suite's scripts "eval <token>"; <label> names the
// session, page slot and visit that loaded it (from ?l=). Fill values and
// eval tokens carry the label of the worker that sent them, so an action
// that lands on another page leaves a foreign entry there. The field has
// autocomplete=off so that a reload does not restore its value.
const stressRecordPage = `<h1 id=h></h1>
<button id=b>Act</button>
<input id=f aria-label=Field autocomplete=off>
<ol id=log></ol>
<script>
var label = new URLSearchParams(location.search).get('l'), clicks = 0;
document.title = 'Record ' + label;
h.textContent = 'Page ' + label;
function rec(s) { const li = document.createElement('li'); li.textContent = s; log.append(li); }
b.onclick = () => rec('click ' + label + '/' + (++clicks));
f.oninput = () => rec('fill ' + f.value);
</script>`

// stressStateJS reads a record page back.
const stressStateJS = `() => ({label: window.label, log: Array.from(document.querySelectorAll('#log li'), (li) => li.textContent), value: document.getElementById('f').value})`

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
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
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
	exe, err := browsertest.Executable()
	if err != nil {
		t.Fatal(err)
	}
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
	r.ts.Config.Handler = r.srv.HTTPHandler(transport.HTTPConfig{Addr: r.ts.Listener.Addr().String()})
	r.ts.Start()
	r.endpoint = r.ts.URL + transport.HTTPPath
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

// stressSite serves the record page.
func stressSite() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/rec", browsertest.HTML("Record", stressRecordPage))
	return mux
}

// stressRun is one run of the suite: the server under test and what the
// run saw.
type stressRun struct {
	t    *testing.T
	cfg  stressConfig
	seed uint64
	// start is when the run began; times in failure messages count from it.
	start time.Time
	// siteServer serves the fixture page at site.
	siteServer *httptest.Server
	site       string
	sup        *browser.Supervisor
	srv        *transport.Server
	ts         *httptest.Server
	endpoint   string // the MCP endpoint
	client     *http.Client
	closed     sync.Once
	stats      stressStats

	failures atomic.Int64 // reported through failf, which stops printing after a while

	mu sync.Mutex // guards the fields below
	// opened maps every page id the run opened to who opened it: ids must
	// never be reused (DESIGN §3).
	opened map[int]string
	maxID  int
	// killedAt is when the browser was killed and relaunchedAt when the
	// supervisor reported the new browser; maxIDAtKill is the highest page
	// id opened before the kill. Zero until then.
	killedAt, relaunchedAt time.Time
	maxIDAtKill            int
	// faults lists the faults injected on each page, for failure messages.
	faults map[int][]string
}

// stressMaxReported bounds the failures printed: past it, a broken server
// would bury the first, telling ones.
const stressMaxReported = 40

// failf reports a failure. Safe from any goroutine.
func (r *stressRun) failf(format string, args ...any) {
	n := r.failures.Add(1)
	switch {
	case n <= stressMaxReported:
		r.t.Errorf(format, args...)
	case n == stressMaxReported+1:
		r.t.Errorf("more failures follow; only the first %d are printed", stressMaxReported)
	default:
		r.t.Fail()
	}
}

// shutdown closes the HTTP server, the MCP server and the browser, in that
// order, once.
func (r *stressRun) shutdown() {
	r.closed.Do(func() {
		r.ts.Close()
		r.srv.Close()
		if err := r.sup.Close(); err != nil {
			r.t.Errorf("close supervisor: %v", err)
		}
		r.client.CloseIdleConnections()
		r.siteServer.Close()
	})
}

// stressSession is one MCP client session over streamable HTTP.
type stressSession struct {
	name    string
	cs      *mcp.ClientSession
	notices atomic.Int32 // replies that carried the reconnect notice
}

func (r *stressRun) connect(name string) *stressSession {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "stress-" + name, Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.endpoint, HTTPClient: r.client}, nil)
	if err != nil {
		r.t.Fatalf("connect session %s: %v", name, err)
	}
	return &stressSession{name: name, cs: cs}
}

// warmUp starts the browser and runs one session through every tool the
// workers use, so that lazily built state (the browser, schemas, pools)
// is in the baseline, and returns the baseline heap.
func (r *stressRun) warmUp() uint64 {
	r.t.Helper()
	s := r.connect("warm-up")
	w := r.newWorker(s, 0, 0)
	w.name = "warm-up"
	if !w.reopen() {
		r.t.Fatal("warm-up: could not open a page")
	}
	w.snapshot()
	w.click()
	w.fill()
	w.evaluate()
	w.waitFor()
	w.navigate()
	if !w.check() {
		r.t.Fatal("warm-up: the record page did not read back")
	}
	w.closePage()
	s.cs.Close()
	r.client.CloseIdleConnections()
	r.waitSessionsEnded(r.srv.Metrics())
	r.stats.reset() // the summary is the run's
	return stressHeap()
}

// waitSessionsEnded waits until the server has seen every session end.
func (r *stressRun) waitSessionsEnded(m *transport.Metrics) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for m.Counter("tabhive_sessions") > 0 {
		if time.Now().After(deadline) {
			r.t.Errorf("%v sessions still open 10s after every client closed its own", m.Counter("tabhive_sessions"))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// drive runs the sessions' workers and the fault goroutine for the run's
// duration, then closes the sessions.
func (r *stressRun) drive() {
	r.t.Helper()
	start := time.Now()
	end := start.Add(r.cfg.duration)
	var sessions []*stressSession
	var workers []*stressWorker
	for i := range r.cfg.sessions {
		s := r.connect(fmt.Sprintf("s%d", i))
		sessions = append(sessions, s)
		for p := range r.cfg.pages {
			workers = append(workers, r.newWorker(s, i, p))
		}
	}
	faults := r.connect("fault")

	var wg sync.WaitGroup // the workers and the fault goroutine
	for _, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.work(end) }()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.injectFaults(faults, workers, start, end.Add(-stressQuiet), rand.New(rand.NewPCG(r.seed, 0)))
	}()
	wg.Wait()

	for _, s := range append(sessions, faults) {
		s.cs.Close()
	}
	r.client.CloseIdleConnections()

	// Every session must have been told once that the browser changed.
	r.mu.Lock()
	killed := !r.killedAt.IsZero()
	maxIDAtKill := r.maxIDAtKill
	r.mu.Unlock()
	if !killed {
		r.failf("the browser was never killed: the run ended first")
		return
	}
	for _, s := range sessions {
		if n := s.notices.Load(); n != 1 {
			r.failf("session %s got the reconnect notice %d times, want once", s.name, n)
		}
	}
	if n := faults.notices.Load(); n > 1 {
		r.failf("the fault session got the reconnect notice %d times, want at most once", n)
	}
	for _, w := range workers {
		if w.lastID != 0 && w.lastID <= maxIDAtKill {
			r.failf("%s still drove page %d after the browser was killed (the highest id then was %d)", w.name, w.lastID, maxIDAtKill)
		}
	}
}

// when says when a call started, relative to the browser's death if it
// was killed, to tell failures it caused from others.
func (r *stressRun) when(t time.Time) string {
	r.mu.Lock()
	killedAt := r.killedAt
	r.mu.Unlock()
	if killedAt.IsZero() {
		return "before the browser was killed"
	}
	return fmt.Sprintf("%+v from the browser's death", t.Sub(killedAt).Round(time.Millisecond))
}

// killedDuring reports whether the browser was killed while the call
// was under way.
func (r *stressRun) killedDuring(rep stressReply) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.killedAt.IsZero() && r.killedAt.After(rep.start) && r.killedAt.Before(rep.start.Add(rep.took))
}

// since says when, from the start of the run, something happens.
func (r *stressRun) since() string {
	return fmt.Sprintf("+%.3fs", time.Since(r.start).Seconds())
}

// noteFault records a fault injected on page id and its outcome.
func (r *stressRun) noteFault(id int, what string, rep stressReply) {
	r.mu.Lock()
	r.faults[id] = append(r.faults[id], fmt.Sprintf("%s %s (%s after %v)", r.since(), what, rep.kind, rep.took.Round(time.Millisecond)))
	r.mu.Unlock()
}

func (r *stressRun) faultsOn(id int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.faults[id]) == 0 {
		return "none"
	}
	return strings.Join(r.faults[id], "; ")
}

// noteOpened records a page id a worker opened; ids are never reused.
func (r *stressRun) noteOpened(who string, id int) {
	r.mu.Lock()
	prev, reused := r.opened[id]
	r.opened[id] = who
	r.maxID = max(r.maxID, id)
	r.mu.Unlock()
	if reused {
		r.failf("%s got page id %d, already given to %s: ids must never be reused", who, id, prev)
	}
}

// stressReply is a tool call's reply as the suite sees it.
type stressReply struct {
	text  string // without the reconnect notice
	isErr bool
	// kind is "ok" or the kind of error: dialog, no-page, crashed,
	// script-timeout, went-away, no-dialog; or unexpected / no-reply,
	// which have been reported already.
	kind   string
	dialog string // the message of the dialog the reply reports open, if any
	start  time.Time
	took   time.Duration
}

var (
	stressDialogRe  = regexp.MustCompile(`(?m)^# Open dialog\n\w+: (.*)\.\nCall handle_dialog to handle it before continuing\.$`)
	stressNoPageRe  = regexp.MustCompile(`^Error: No page found with id (\d+)\. Call list_pages to see open pages\.$`)
	stressAwayRe    = regexp.MustCompile(`^Error: The page went away while the call ran \((.*)\)\. Call list_pages to see open pages\.$`)
	stressLabelRe   = regexp.MustCompile(`Page (s\d+p\d+v\d+|warm-upv\d+)`)
	stressJSONRe    = regexp.MustCompile("(?s)```json\n(.*?)\n```")
	stressTraceHint = regexp.MustCompile(`goroutine \d+|\.go:\d+`)
	// stressPlumbingRe matches what only tabhive's insides say: CDP and
	// WebSocket errors, actor names, endpoints.
	stressPlumbingRe = regexp.MustCompile(`(?i)rpcc|cdp\.|websocket|ws://|dial tcp|actor stopped`)
)

// call makes one tool call, records it, and checks what holds for every
// reply: it came, it holds no Go trace, an error is of a known kind.
func (r *stressRun) call(s *stressSession, who, tool string, args map[string]any) stressReply {
	budget := stressBudget(tool, args)
	// Give the client more time than any reply may take, so that a late
	// reply is measured rather than cut off.
	ctx, cancel := context.WithTimeout(context.Background(), budget+stressRelaunch+stressMargin+10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	rep := stressReply{start: start, took: time.Since(start)}
	defer func() { r.stats.record(tool, rep.kind, start, rep.took, budget) }()
	if err != nil {
		rep.kind = "no-reply"
		r.failf("%s: %s(%v): no reply after %v: %v", who, tool, args, rep.took, err)
		return rep
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	rep.text, rep.isErr = b.String(), res.IsError
	if rest, ok := strings.CutPrefix(rep.text, stressNotice); ok {
		s.notices.Add(1)
		rep.text = strings.TrimPrefix(rest, "\n")
	}
	if stressTraceHint.MatchString(rep.text) {
		r.failf("%s: %s(%v) reply holds a Go trace:\n%s", who, tool, args, rep.text)
	}
	if m := stressDialogRe.FindStringSubmatch(rep.text); m != nil {
		rep.dialog = m[1]
	}
	rep.kind = stressKind(rep)
	if rep.kind == "unexpected" {
		r.failf("%s: %s(%v) failed after %v, at %s, with an unexpected error:\n%s", who, tool, args, rep.took, r.when(start), rep.text)
	}
	// An error about a page must be about the page the call named.
	if id, ok := args["pageId"].(int); ok && tool != "close_page" {
		if m := stressNoPageRe.FindStringSubmatch(lastLine(rep.text)); m != nil && m[1] != fmt.Sprint(id) {
			r.failf("%s: %s on page %d answered about another page: %q", who, tool, id, rep.text)
		}
	}
	return rep
}

// stressKind classifies a reply by its error sentence, the last line.
func stressKind(rep stressReply) string {
	if !rep.isErr {
		return "ok"
	}
	last := lastLine(rep.text)
	if stressNoPageRe.MatchString(last) {
		return "no-page"
	}
	if m := stressAwayRe.FindStringSubmatch(last); m != nil {
		// Closed by close_page, or gone with the browser: the two ways a
		// page goes away in this suite. The cause is for the agent: it
		// must not be the plumbing's own error.
		if stressPlumbingRe.MatchString(m[1]) {
			return "unexpected"
		}
		return "went-away"
	}
	for _, k := range stressKinds {
		if strings.HasPrefix(last, k.prefix) {
			return k.kind
		}
	}
	return "unexpected"
}

// stressKinds are the error sentences a fault may cause, by kind.
var stressKinds = []struct{ prefix, kind string }{
	{"Error: A dialog is open (", "dialog"},
	{"Error: The page's renderer crashed; other pages are unaffected.", "crashed"},
	{"Error: The script did not finish within the ", "script-timeout"},
	{"Error: The page was closed while the call ran.", "went-away"},
	{"Error: The browser connection was lost.", "went-away"},
	{"Error: No open dialog found", "no-dialog"},
	// The call's budget ran out (transport's budgetError). Expected only of
	// evaluate_script: a hung script that waited for its page behind
	// another call has too little budget left for its own timeout to
	// report first.
	{"Error: evaluate_script did not finish within its ", "budget"},
}

func lastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }

// stressWorker drives one page of one session, as one agent would: it
// keeps a page open, acts on it at random, answers what faults do to it,
// and keeps its own log of what the page's DOM must record.
type stressWorker struct {
	r    *stressRun
	s    *stressSession
	name string // "s3p1": session 3, page slot 1
	rng  *rand.Rand
	// pageID is the page the worker drives, 0 while it has none. The fault
	// goroutine reads it to pick its victims.
	pageID atomic.Int64

	// Owned by the worker's goroutine.
	id     int // the page the worker drives
	lastID int // the last page it drove, after it closed it
	visits int // numbers the documents it loads
	// label names the document loaded in the page; "" when the worker
	// no longer knows (a navigation failed, the renderer crashed), and
	// must load a fresh one before acting.
	label string
	// button and field are the uids of the record page's controls in the
	// page's latest snapshot; "" until the worker takes one.
	button, field string
	seq           int // numbers fill values and eval tokens
	want          stressRecord
	lastCheck     time.Time
	checking      bool // a read-back is under way
}

// stressRecord is a worker's log of what it did to the current document,
// which the document's DOM must match. An action whose call failed may or
// may not have happened ("maybe"); one that succeeded must be there.
type stressRecord struct {
	clicks, maybeClicks int
	entries             []stressEntry // fills and evals, in the order sent
	// history lists the worker's actions on the document and the first
	// line of their replies, for the failure message.
	history []string
}

type stressEntry struct {
	text    string // as the page records it
	certain bool
}

func (r *stressRun) newWorker(s *stressSession, session, slot int) *stressWorker {
	return &stressWorker{
		r: r, s: s,
		name: fmt.Sprintf("s%dp%d", session, slot),
		rng:  rand.New(rand.NewPCG(r.seed, uint64(1+session*r.cfg.pages+slot))),
	}
}

func (w *stressWorker) call(tool string, args map[string]any) stressReply {
	return w.r.call(w.s, w.name, tool, args)
}

// did notes an action and its reply in the worker's history of the
// document.
func (w *stressWorker) did(what string, rep stressReply) {
	first, _, _ := strings.Cut(rep.text, "\n")
	w.want.history = append(w.want.history, fmt.Sprintf("%s %s: %s", w.r.since(), what, first))
}

func (w *stressWorker) failf(format string, args ...any) {
	w.r.failf(w.name+": "+format, args...)
}

// work runs the worker until end, then reads its page back a last time and
// closes it.
func (w *stressWorker) work(end time.Time) {
	time.Sleep(time.Duration(w.rng.Int64N(int64(w.r.cfg.rampUp))))
	if !w.reopen() {
		return
	}
	for time.Now().Before(end) {
		w.pause()
		if w.id == 0 {
			// An agent whose tab went away takes a while to notice and
			// open another; after the browser's death, all of them at
			// once would measure how fast Chromium opens tabs.
			time.Sleep(time.Duration(w.rng.Int64N(int64(w.r.cfg.rampUp / 2))))
			if !w.reopen() {
				return
			}
		}
		if w.label == "" {
			w.navigate()
			continue
		}
		switch n := w.rng.IntN(100); {
		case n < 15:
			w.snapshot()
		case n < 40:
			w.click()
		case n < 60:
			w.fill()
		case n < 80:
			w.evaluate()
		case n < 90:
			w.waitFor()
		default:
			w.navigate()
		}
		if w.label != "" && time.Since(w.lastCheck) >= w.r.cfg.checkEvery {
			w.check()
		}
	}
	// The final read-back must succeed: faults have stopped, but one
	// injected just before may still need answering first.
	for attempt := 1; ; attempt++ {
		if w.id == 0 && !w.reopen() {
			return
		}
		if w.label == "" {
			w.navigate()
		} else if w.check() {
			break
		}
		if attempt == 8 {
			w.failf("could not read page %d back at the end: every attempt met a fault", w.id)
			break
		}
	}
	w.closePage()
}

func (w *stressWorker) pause() {
	lo, hi := w.r.cfg.pause[0], w.r.cfg.pause[1]
	time.Sleep(lo + time.Duration(w.rng.Int64N(int64(hi-lo))))
}

// nextLabel names a fresh document of this worker's page.
func (w *stressWorker) nextLabel() string {
	w.visits++
	return fmt.Sprintf("%sv%d", w.name, w.visits)
}

func (w *stressWorker) url(label string) string { return w.r.site + "/rec?l=" + label }

// loaded resets the worker's view of its page to a fresh document.
func (w *stressWorker) loaded(label string) {
	w.label, w.button, w.field = label, "", ""
	w.want = stressRecord{}
	w.lastCheck = time.Now()
}

// reopen opens a new page on a fresh record document and makes it the
// worker's.
func (w *stressWorker) reopen() bool {
	for range 5 {
		label := w.nextLabel()
		url := w.url(label)
		rep := w.call("new_page", map[string]any{"url": url, "timeout": 10000})
		if rep.kind != "ok" {
			// The browser died while the page opened: try again, in the
			// new one.
			continue
		}
		m := regexp.MustCompile(`(?m)^(\d+): (?:.*\()?` + regexp.QuoteMeta(url) + `(?:\)|$| )`).FindStringSubmatch(rep.text)
		if m == nil {
			// The page opened, then the browser died before the reply
			// listed the pages: the list is the new browser's.
			if !w.r.killedDuring(rep) {
				w.failf("new_page(%s) reply does not list the page:\n%s", url, rep.text)
			}
			continue
		}
		var id int
		fmt.Sscan(m[1], &id)
		w.r.noteOpened(w.name, id)
		w.id = id
		w.pageID.Store(int64(id))
		w.loaded(label)
		return true
	}
	w.failf("could not open a page in 5 attempts")
	return false
}

// closePage closes the worker's page when it is done with it.
func (w *stressWorker) closePage() {
	if w.id == 0 {
		return
	}
	rep := w.call("close_page", map[string]any{"pageId": w.id})
	if rep.kind != "ok" && rep.kind != "no-page" && rep.kind != "went-away" {
		w.failf("close_page(%d): %s", w.id, rep.text)
	}
	w.forget()
}

// forget drops the worker's page: it is closed, or gone with the browser.
func (w *stressWorker) forget() {
	w.lastID, w.id = w.id, 0
	w.pageID.Store(0)
	w.label = ""
}

// settle answers what a reply says happened to the page besides the
// call's own result, as an agent would: it handles an open dialog, marks a
// crashed page for reloading, replaces a page that went away. It reports
// whether the call did what it was asked.
func (w *stressWorker) settle(tool string, rep stressReply) bool {
	if rep.dialog != "" {
		if want := fmt.Sprintf("stress-%d", w.id); rep.dialog != want {
			w.failf("%s on page %d reports another page's dialog %q, want %q", tool, w.id, rep.dialog, want)
		}
	}
	switch rep.kind {
	case "no-page", "went-away":
		w.lost(tool, rep)
		return false
	case "crashed":
		w.label = "" // reloaded by the next navigation
		return false
	case "unexpected", "no-reply":
		// Already reported. Read the page back, which tells whether the
		// page's record holds what the worker expects (unless the call
		// was a navigation, which leaves the document unknown); then start
		// again on a fresh document.
		if !w.checking && tool != "navigate_page" {
			w.check()
		}
		w.label = ""
		return false
	}
	if rep.dialog != "" {
		w.answerDialog(tool, rep)
	}
	return rep.kind == "ok"
}

// answerDialog checks that the open dialog blocks the page's other tools,
// fast, and then accepts it. The call that reported the dialog is not held
// to that: it may have been under way when the dialog opened.
func (w *stressWorker) answerDialog(tool string, reported stressReply) {
	w.r.stats.fault("alert")
	probe := w.call("take_snapshot", map[string]any{"pageId": w.id})
	switch probe.kind {
	case "dialog":
		if probe.took > stressFast {
			w.failf("take_snapshot on page %d with a dialog open failed only after %v, want at once (under %v)", w.id, probe.took, stressFast)
		}
	case "no-page", "went-away":
		w.lost("take_snapshot", probe)
		return
	case "crashed":
		w.label = ""
		return
	case "ok":
		w.failf("%s on page %d reported a dialog open, but take_snapshot then succeeded:\n%s\n\n%s reply:\n%s\nfaults on the page: %s",
			tool, w.id, probe.text, tool, reported.text, w.r.faultsOn(w.id))
	}
	rep := w.call("handle_dialog", map[string]any{"pageId": w.id, "action": "accept"})
	switch rep.kind {
	case "ok", "no-dialog":
	case "no-page", "went-away":
		w.lost("handle_dialog", rep)
	case "crashed":
		w.label = ""
	default:
		w.failf("handle_dialog on page %d: %s", w.id, rep.text)
	}
}

// lost handles a call that found the worker's page gone: every later call
// on the id must answer "No page found" (once the server has seen the tab
// go); then the worker carries on in a new page.
func (w *stressWorker) lost(tool string, rep stressReply) {
	id := w.id
	deadline := time.Now().Add(10 * time.Second)
	for rep.kind != "no-page" {
		if time.Now().After(deadline) {
			w.failf("page %d went away during %s, but 10s later calls on it still answer:\n%s", id, tool, rep.text)
			break
		}
		time.Sleep(50 * time.Millisecond)
		rep = w.call("take_snapshot", map[string]any{"pageId": id})
		if rep.kind == "ok" {
			w.failf("page %d went away during %s, but it still answers take_snapshot:\n%s", id, tool, rep.text)
			break
		}
	}
	w.forget()
}

// navigate loads a fresh record document, or now and then reloads the
// current one.
func (w *stressWorker) navigate() {
	if w.label != "" && w.rng.IntN(4) == 0 {
		rep := w.call("navigate_page", map[string]any{"pageId": w.id, "type": "reload", "timeout": 10000})
		if !w.settle("navigate_page", rep) {
			w.label = "" // did it reload? Only a fresh document tells.
			return
		}
		if !strings.HasPrefix(rep.text, "Successfully reloaded the page.") {
			w.failf("reload of page %d replied:\n%s", w.id, rep.text)
		}
		w.loaded(w.label)
		return
	}
	label := w.nextLabel()
	url := w.url(label)
	rep := w.call("navigate_page", map[string]any{"pageId": w.id, "url": url, "timeout": 10000})
	if !w.settle("navigate_page", rep) {
		w.label = ""
		return
	}
	if !strings.HasPrefix(rep.text, "Successfully navigated to "+url+".\n") {
		w.failf("navigate_page(%d, %s) replied:\n%s", w.id, url, rep.text)
		w.label = ""
		return
	}
	w.loaded(label)
}

// showsLabel checks that a reply that shows the page shows this worker's
// document, and no other.
func (w *stressWorker) showsLabel(tool, text string) {
	labels := stressLabelRe.FindAllStringSubmatch(text, -1)
	if len(labels) == 0 {
		w.failf("%s on page %d shows no record page (want %q):\n%s", tool, w.id, w.label, text)
		return
	}
	for _, m := range labels {
		if m[1] != w.label {
			w.failf("%s on page %d shows page %q, want %q: a reply about another page", tool, w.id, m[1], w.label)
			return
		}
	}
}

func (w *stressWorker) snapshot() {
	rep := w.call("take_snapshot", map[string]any{"pageId": w.id})
	if !w.settle("take_snapshot", rep) {
		return
	}
	w.showsLabel("take_snapshot", rep.text)
	button := regexp.MustCompile(`uid=(\S+) button "Act"`).FindStringSubmatch(rep.text)
	field := regexp.MustCompile(`uid=(\S+) textbox "Field"`).FindStringSubmatch(rep.text)
	if button == nil || field == nil {
		w.failf("take_snapshot on page %d lacks the button or the field:\n%s", w.id, rep.text)
		return
	}
	w.button, w.field = button[1], field[1]
}

func (w *stressWorker) click() {
	if w.button == "" {
		if w.snapshot(); w.button == "" {
			return
		}
	}
	rep := w.call("click", map[string]any{"pageId": w.id, "uid": w.button})
	w.did("click", rep)
	if rep.kind == "ok" && strings.Contains(rep.text, "\nThe page closed.\n") {
		// tabhive's reply for a click that closes its page (window.close).
		// The record page never closes itself: another agent closed it, or
		// the browser died, under the click.
		w.want.maybeClicks++
		w.lost("click", rep)
		return
	}
	if !w.settle("click", rep) {
		w.want.maybeClicks++
		return
	}
	if !strings.HasPrefix(rep.text, "Successfully clicked on the element") && !strings.HasPrefix(rep.text, "The element was clicked and it opened a dialog.") {
		w.failf("click on page %d replied:\n%s", w.id, rep.text)
	}
	w.want.clicks++
}

func (w *stressWorker) fill() {
	if w.field == "" {
		if w.snapshot(); w.field == "" {
			return
		}
	}
	w.seq++
	value := fmt.Sprintf("%s#%d", w.label, w.seq)
	rep := w.call("fill", map[string]any{"pageId": w.id, "uid": w.field, "value": value})
	w.did("fill "+value, rep)
	ok := w.settle("fill", rep)
	if ok && !strings.HasPrefix(rep.text, "Successfully filled out the element") && !strings.HasPrefix(rep.text, "The element was filled out and it opened a dialog.") {
		w.failf("fill on page %d replied:\n%s", w.id, rep.text)
	}
	w.want.entries = append(w.want.entries, stressEntry{text: "fill " + value, certain: ok})
}

func (w *stressWorker) evaluate() {
	w.seq++
	token := fmt.Sprintf("eval %s#%d", w.label, w.seq)
	args := map[string]any{
		"pageId":   w.id,
		"function": fmt.Sprintf("() => { rec(%q); return window.label }", token),
		"timeout":  5000,
	}
	if w.rng.IntN(2) == 0 {
		args["waitForStableDom"] = false
	}
	label := w.label
	rep := w.call("evaluate_script", args)
	w.did(token, rep)
	ok := w.settle("evaluate_script", rep)
	w.want.entries = append(w.want.entries, stressEntry{text: token, certain: ok})
	if !ok {
		return
	}
	if m := stressJSONRe.FindStringSubmatch(rep.text); m == nil || m[1] != fmt.Sprintf("%q", label) {
		w.failf("evaluate_script on page %d returned another page's label (want %q): a reply about another page:\n%s", w.id, label, rep.text)
	}
}

func (w *stressWorker) waitFor() {
	// The heading, or now and then the last entry the page must hold.
	text := "Page " + w.label
	if n := len(w.want.entries); n > 0 && w.want.entries[n-1].certain && w.rng.IntN(2) == 0 {
		text = w.want.entries[n-1].text
	}
	rep := w.call("wait_for", map[string]any{"pageId": w.id, "text": []string{text}, "timeout": 3000})
	if !w.settle("wait_for", rep) {
		return
	}
	want := fmt.Sprintf("Element matching one of [%q] found.", text)
	if !strings.HasPrefix(rep.text, want) {
		w.failf("wait_for(%q) on page %d replied:\n%s", text, w.id, rep.text)
	}
	w.showsLabel("wait_for", rep.text)
}

// check reads the page's record back and compares it with the worker's
// log. It reports whether the read-back happened (whatever it found).
func (w *stressWorker) check() bool {
	w.checking = true
	defer func() { w.checking = false }()
	rep := w.call("evaluate_script", map[string]any{"pageId": w.id, "function": stressStateJS, "waitForStableDom": false, "timeout": 5000})
	if !w.settle("evaluate_script", rep) {
		return false
	}
	w.lastCheck = time.Now()
	w.r.stats.checked()
	m := stressJSONRe.FindStringSubmatch(rep.text)
	var got struct {
		Label string   `json:"label"`
		Log   []string `json:"log"`
		Value string   `json:"value"`
	}
	if m == nil || json.Unmarshal([]byte(m[1]), &got) != nil {
		w.failf("reading page %d back replied:\n%s", w.id, rep.text)
		return true
	}
	if got.Label != w.label {
		w.failf("page %d holds document %q, want %q: an action or reply went to the wrong page", w.id, got.Label, w.label)
		w.label = ""
		return true
	}
	if err := w.want.match(w.label, got.Log, got.Value); err != "" {
		w.failf("page %d (%s) does not record what was done to it: %s\npage's record: %q, field %q\nworker's actions:\n\t%s\nfaults on the page: %s",
			w.id, w.label, err, got.Log, got.Value, strings.Join(w.want.history, "\n\t"), w.r.faultsOn(w.id))
		w.label = "" // start again on a fresh document rather than repeat the failure
		return true
	}
	// What the page shows is now known: keep it as certain.
	w.want = stressRecord{history: w.want.history}
	for _, e := range got.Log {
		if strings.HasPrefix(e, "click ") {
			w.want.clicks++
		} else {
			w.want.entries = append(w.want.entries, stressEntry{text: e, certain: true})
		}
	}
	return true
}

// match compares a page's record with the worker's log and returns what
// is wrong, or "". Clicks are numbered by the page, so they are counted;
// fills and evals carry the sender's label and a sequence number, so
// each must be one the worker sent, in the order sent, and every one
// whose call succeeded must be there. The field holds the last fill.
func (want stressRecord) match(label string, log []string, value string) string {
	clicks := 0
	var others []string
	for _, e := range log {
		if rest, ok := strings.CutPrefix(e, "click "); ok {
			clicks++
			if rest != fmt.Sprintf("%s/%d", label, clicks) {
				return fmt.Sprintf("click entry %q, want %q", e, fmt.Sprintf("click %s/%d", label, clicks))
			}
			continue
		}
		others = append(others, e)
	}
	if clicks < want.clicks || clicks > want.clicks+want.maybeClicks {
		return fmt.Sprintf("%d clicks recorded, want %d (and up to %d more whose call failed)", clicks, want.clicks, want.maybeClicks)
	}
	i := 0
	for _, e := range want.entries {
		if i < len(others) && others[i] == e.text {
			i++
			continue
		}
		if e.certain {
			return fmt.Sprintf("%q is missing or out of order, though its call succeeded", e.text)
		}
	}
	if i < len(others) {
		return fmt.Sprintf("entry %q was never sent to this page, or not in this order", others[i])
	}
	lastFill := ""
	for _, e := range others {
		if v, ok := strings.CutPrefix(e, "fill "); ok {
			lastFill = v
		}
	}
	if value != lastFill {
		return fmt.Sprintf("the field holds %q, want the last fill %q", value, lastFill)
	}
	return ""
}

// injectFaults injects faults on the workers' pages at random times until
// end: tabs closed, alerts, hung scripts, renderer crashes, all through a
// session of its own as another agent would; and the browser killed once,
// at a random time in the middle of the run.
func (r *stressRun) injectFaults(s *stressSession, workers []*stressWorker, start, end time.Time, rng *rand.Rand) {
	killAt := start.Add(time.Duration((0.3 + 0.2*rng.Float64()) * float64(r.cfg.duration)))
	for {
		lo, hi := r.cfg.faultPause[0], r.cfg.faultPause[1]
		time.Sleep(lo + time.Duration(rng.Int64N(int64(hi-lo))))
		if time.Now().After(end) {
			return
		}
		r.mu.Lock()
		killed := !r.killedAt.IsZero()
		r.mu.Unlock()
		if !killed && time.Now().After(killAt) {
			r.killBrowser()
			continue
		}
		id := int(workers[rng.IntN(len(workers))].pageID.Load())
		if id == 0 {
			continue // between two pages
		}
		switch kind := stressFaults[rng.IntN(len(stressFaults))]; kind {
		case "close":
			r.stats.try(kind)
			r.closeTab(s, id)
		case "alert":
			r.stats.try(kind)
			r.openAlert(s, id, rng)
		case "hung script":
			r.stats.try(kind)
			r.hangScript(s, id)
		case "crash":
			r.stats.try(kind)
			r.crashRenderer(id)
		}
	}
}

// stressFaults are the faults injected on pages, picked at random.
var stressFaults = []string{"close", "alert", "hung script", "crash"}

// closeTab closes a page a worker is using, as another agent may.
func (r *stressRun) closeTab(s *stressSession, id int) {
	rep := r.call(s, "fault", "close_page", map[string]any{"pageId": id})
	r.noteFault(id, "close_page", rep)
	switch rep.kind {
	case "ok":
		if strings.Contains("\n"+rep.text, fmt.Sprintf("\n%d: ", id)) {
			r.failf("fault: close_page(%d) still lists the page:\n%s", id, rep.text)
		}
		r.stats.fault("close")
	case "no-page", "went-away": // its worker or the browser beat us to it
	default:
		r.failf("fault: close_page(%d): %s", id, rep.text)
	}
}

// openAlert has the page open an alert a little later. The delay must
// outlast the script's own call, which answers the dialogs that open while
// it runs (evaluate_script's dialogAction, "accept" by default): 50 ms does
// not on a loaded machine. The alert then lands between two of the
// worker's calls or in the middle of one; the worker counts it when it
// sees it.
func (r *stressRun) openAlert(s *stressSession, id int, rng *rand.Rand) {
	delay := 200 + rng.IntN(500)
	rep := r.call(s, "fault", "evaluate_script", map[string]any{
		"pageId":           id,
		"function":         fmt.Sprintf("() => { setTimeout(() => alert('stress-%d'), %d); return 1 }", id, delay),
		"waitForStableDom": false,
		"timeout":          5000,
	})
	r.noteFault(id, fmt.Sprintf("alert in %dms", delay), rep)
	switch rep.kind {
	case "ok", "dialog", "no-page", "went-away", "crashed", "script-timeout", "budget":
	default:
		r.failf("fault: alert on page %d: %s", id, rep.text)
	}
}

// hangScript runs while(true){} with a 1 s timeout: the call must fail at
// its timeout, the script be stopped, and the page work again.
func (r *stressRun) hangScript(s *stressSession, id int) {
	rep := r.call(s, "fault", "evaluate_script", map[string]any{"pageId": id, "function": "() => { while (true) {} }", "timeout": 1000})
	r.noteFault(id, "while(true)", rep)
	switch rep.kind {
	case "script-timeout", "budget":
		r.stats.fault("hung script")
	case "dialog", "no-page", "went-away", "crashed":
	case "ok":
		r.failf("fault: while(true){} on page %d returned:\n%s", id, rep.text)
	default:
		r.failf("fault: hung script on page %d: %s", id, rep.text)
	}
}

// crashRenderer crashes a page's renderer from a debugger connection of
// its own, as isolation_test.go does.
func (r *stressRun) crashRenderer(id int) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	dbg, err := r.sup.Debugger(ctx, id)
	if err != nil {
		return // closed meanwhile, or the browser is gone
	}
	defer dbg.Close()
	cctx, ccancel := context.WithTimeout(ctx, 500*time.Millisecond)
	dbg.Client.Page.Crash(cctx) // no reply comes back from a crashed renderer
	ccancel()
	r.noteFault(id, "Page.crash", stressReply{kind: "sent"})
	r.stats.fault("crash")
}

// killBrowser kills the browser process and waits for the workers' calls
// to have it relaunched.
func (r *stressRun) killBrowser() {
	gen := r.sup.Generation()
	pid := r.sup.BrowserPID()
	if pid == 0 {
		r.failf("fault: no browser to kill")
		return
	}
	r.stats.try("browser killed")
	r.mu.Lock()
	r.killedAt, r.maxIDAtKill = time.Now(), r.maxID
	r.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		r.failf("fault: kill the browser: %v", err)
		return
	}
	r.stats.fault("browser killed")
	deadline := time.Now().Add(stressRelaunch + 10*time.Second)
	for r.sup.Generation() == gen {
		if time.Now().After(deadline) {
			r.failf("fault: the browser was not relaunched %v after it was killed", stressRelaunch+10*time.Second)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.mu.Lock()
	r.relaunchedAt = time.Now()
	r.mu.Unlock()
}

// stressStats collects what the run did, for its checks and its summary.
type stressStats struct {
	mu     sync.Mutex // guards the fields below
	calls  []stressCall
	tried  map[string]int // faults attempted, by kind
	faults map[string]int // faults that landed, by kind
	checks int
}

// stressCall is one tool call as measured by its client.
type stressCall struct {
	tool, kind string
	start      time.Time
	took       time.Duration
	budget     time.Duration
}

func (st *stressStats) init() { st.tried, st.faults = map[string]int{}, map[string]int{} }

func (st *stressStats) reset() {
	st.mu.Lock()
	st.calls, st.checks = nil, 0
	st.mu.Unlock()
}

func (st *stressStats) try(kind string) {
	st.mu.Lock()
	st.tried[kind]++
	st.mu.Unlock()
}

func (st *stressStats) record(tool, kind string, start time.Time, took, budget time.Duration) {
	st.mu.Lock()
	st.calls = append(st.calls, stressCall{tool: tool, kind: kind, start: start, took: took, budget: budget})
	st.mu.Unlock()
}

func (st *stressStats) fault(kind string) {
	st.mu.Lock()
	st.faults[kind]++
	st.mu.Unlock()
}

func (st *stressStats) checked() {
	st.mu.Lock()
	st.checks++
	st.mu.Unlock()
}

// summarize checks every call against its budget and returns the run's
// summary. It drops the call records, so that they do not count in the
// heap measured after it.
func (r *stressRun) summarize() string {
	r.stats.mu.Lock()
	calls := r.stats.calls
	r.stats.calls = nil
	tried, faults, checks := r.stats.tried, r.stats.faults, r.stats.checks
	r.stats.mu.Unlock()
	r.mu.Lock()
	killedAt, relaunchedAt := r.killedAt, r.relaunchedAt
	pages := len(r.opened)
	r.mu.Unlock()

	type toolStats struct {
		calls, errors int
		took          []time.Duration
	}
	byTool := map[string]*toolStats{}
	kinds := map[string]int{}
	late := 0
	var inFlightAtKill time.Duration // the slowest call the kill caught
	var refusals int                 // calls refused for an open dialog by the worker's probe
	var slowestRefusal time.Duration
	var first, last time.Time
	for _, c := range calls {
		ts := byTool[c.tool]
		if ts == nil {
			ts = &toolStats{}
			byTool[c.tool] = ts
		}
		ts.calls++
		ts.took = append(ts.took, c.took)
		if c.kind != "ok" {
			ts.errors++
			kinds[c.kind]++
		}
		if c.kind == "dialog" && c.tool == "take_snapshot" {
			refusals++
			slowestRefusal = max(slowestRefusal, c.took)
		}
		end := c.start.Add(c.took)
		if first.IsZero() || c.start.Before(first) {
			first = c.start
		}
		if end.After(last) {
			last = end
		}
		limit := c.budget + stressMargin
		// A call under way while the browser died and came back may have
		// waited for the relaunch before its budget started.
		if !killedAt.IsZero() && c.start.Before(relaunchedAt.Add(time.Second)) && end.After(killedAt) {
			limit += stressRelaunch
			if c.start.Before(killedAt) {
				inFlightAtKill = max(inFlightAtKill, end.Sub(killedAt))
			}
		}
		if c.took > limit {
			late++
			if late <= 10 {
				r.failf("%s took %v (%s), over its %v budget + %v", c.tool, c.took.Round(time.Millisecond), c.kind, c.budget, limit-c.budget)
			}
		}
	}

	var b strings.Builder
	elapsed := last.Sub(first)
	fmt.Fprintf(&b, "stress: %d sessions × %d pages for %v, seed %d\n", r.cfg.sessions, r.cfg.pages, r.cfg.duration, r.seed)
	fmt.Fprintf(&b, "calls: %d in %v (%.1f/s), %d pages opened, %d record read-backs matched\n",
		len(calls), elapsed.Round(100*time.Millisecond), float64(len(calls))/elapsed.Seconds(), pages, checks)
	fmt.Fprintf(&b, "%-16s %7s %7s %9s %9s %9s\n", "tool", "calls", "errors", "p50", "p95", "max")
	tools := make([]string, 0, len(byTool))
	for tool := range byTool {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	for _, tool := range tools {
		ts := byTool[tool]
		slices.Sort(ts.took)
		fmt.Fprintf(&b, "%-16s %7d %7d %9v %9v %9v\n", tool, ts.calls, ts.errors,
			stressQuantile(ts.took, 0.5), stressQuantile(ts.took, 0.95), ts.took[len(ts.took)-1].Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "errors by kind: %s\n", stressCounts(kinds))
	fmt.Fprintf(&b, "snapshots refused for an open dialog: %d, the slowest in %v\n", refusals, slowestRefusal.Round(time.Millisecond))
	var injected []string
	for _, k := range append(slices.Clone(stressFaults), "browser killed") {
		injected = append(injected, fmt.Sprintf("%s %d/%d", k, faults[k], tried[k]))
	}
	fmt.Fprintf(&b, "faults landed/tried: %s", strings.Join(injected, ", "))
	if !relaunchedAt.IsZero() {
		fmt.Fprintf(&b, "\nbrowser killed at +%v, relaunched %v later; the slowest call under way then ended %v after the kill",
			killedAt.Sub(r.start).Round(100*time.Millisecond), relaunchedAt.Sub(killedAt).Round(time.Millisecond), inFlightAtKill.Round(time.Millisecond))
	}
	return b.String()
}

func stressQuantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[int(q*float64(len(sorted)-1))].Round(time.Millisecond)
}

func stressCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// stressHeap returns the live Go heap after a full collection. Two
// collections: finalizers run by the first free memory for the second.
func stressHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// stressNoChromiumLeft checks that every Chromium process started since
// before is gone, waiting a few seconds for them to exit.
func stressNoChromiumLeft(t *testing.T, before []string) {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		left = left[:0]
		for _, pid := range browsertest.ChromiumProcesses() {
			if !slices.Contains(before, pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
	}
	t.Errorf("Chromium processes left after shutdown: %v", left)
}

// Bugs the suite found, each reduced to a test of its own (all fixed
// 2026-11-29; the tests keep them fixed).

// TestStressBrowserDeathFailsCallsClearly was a bug the suite found (issue
// 6, item 2: "in-flight calls on the lost browser fail at once with a
// clear sentence"). When the browser died, a call under way on one of its
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
	mux.HandleFunc("/clicked", func(http.ResponseWriter, *http.Request) { stressSignal(clicked) })
	mux.HandleFunc("/slow", func(_ http.ResponseWriter, r *http.Request) {
		stressSignal(navigating)
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
	for range 2 {
		select {
		case r := <-inFlight:
			if r.end.Before(killedAt) {
				t.Fatalf("%s ended before the browser died: the test did not hold it:\n%s", r.call, r.text)
			}
			// "At once": the relaunch, which it may wait for, takes a
			// second or two.
			if d := r.end.Sub(killedAt); d > 5*time.Second {
				t.Errorf("%s under way when the browser died returned %v later, want at once", r.call, d.Round(time.Millisecond))
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
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
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

// stressSignal tells a waiting test that a request came, once; later
// requests must not block the server.
func stressSignal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
