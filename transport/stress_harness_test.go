// The stress suite's harness (see stress_test.go): its forms and bounds,
// the fixture page, the server under test and its sessions, the calls and
// how their replies are classified, and the checks made after shutdown.

package transport_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport"
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
	// fail at once (ARCHITECTURE.md §2, law 6), not after a wait. Generous for a
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
	// stressNotice is the reconnect notice (chrome-devtools-mcp's wording).
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
	// never be reused (ARCHITECTURE.md §3).
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
	if !testwait.Poll(10*time.Second, func() bool { return m.Counter("tabhive_sessions") == 0 }) {
		r.t.Errorf("%v sessions still open 10s after every client closed its own", m.Counter("tabhive_sessions"))
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
func (r *stressRun) since() string { return r.sinceAt(time.Now()) }

// sinceAt says when, from the start of the run, t was.
func (r *stressRun) sinceAt(t time.Time) string {
	return fmt.Sprintf("+%.3fs", t.Sub(r.start).Seconds())
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
		faults := "none"
		if id, ok := args["pageId"].(int); ok {
			faults = r.faultsOn(id)
		}
		r.failf("%s: %s(%v) failed after %v, at %s (%s), with an unexpected error:\n%s\nfaults on the page: %s", who, tool, args, rep.took, r.when(start), r.sinceAt(start), rep.text, faults)
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
	// A click whose element did not pass the actionability checks in
	// time, with its cause in words: on a machine the suite saturates, a
	// tab not in front gets animation frames late, and the checks wait
	// for frames (seen once in CI, on a page opened after the relaunch).
	{"Cause: the element did not become interactive", "not-interactive"},
}

func lastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }

// stressNoChromiumLeft checks that every Chromium process started since
// before is gone, waiting for them to exit (up to 30 s: a loaded machine
// reaps a killed browser slowly).
func stressNoChromiumLeft(t *testing.T, before []string) {
	t.Helper()
	var left []string
	if !testwait.Poll(30*time.Second, func() bool {
		left = left[:0]
		for _, pid := range browsertest.ChromiumProcesses() {
			if !slices.Contains(before, pid) {
				left = append(left, pid)
			}
		}
		return len(left) == 0
	}) {
		t.Errorf("Chromium processes left after shutdown: %v", left)
	}
}
