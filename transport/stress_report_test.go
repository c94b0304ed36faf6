// The stress suite's report (see stress_test.go): what a run did, its
// latencies and errors per kind, and the heap figures.

package transport_test

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

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
