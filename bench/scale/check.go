package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/internal/mcptext"
)

// agent is one MCP session through the balancer, driving a page of its
// own, and checking after each call that what it sees is its own: its
// page, its selection, its clicks. A call that reached another instance
// would fail (that instance does not hold the session), and one that
// acted on another session's page or selection would show another count.
type agent struct {
	name     string // in its page's URL and title
	site     *site
	cs       *mcp.ClientSession
	instance string // from the session id
	page     int
	uid      string // its button
	clicks   int
	steps    int
}

// callTimeout bounds each call of the check: far beyond any call's normal
// time, so that a hang fails the check instead of stalling CI.
const callTimeout = 3 * time.Minute

// connect starts the agent's session through url and opens its page: the
// session's first call.
func connect(ctx context.Context, url, name string, s *site) (*agent, error) {
	return connectOpening(ctx, url, name, s, nil)
}

// connectOpening is connect whose new_page holds opening, if not nil:
// the check's sessions start at once but open their tabs one at a time,
// since a page's setup has a bound of its own (15 s) that a dozen tabs
// starting at once on a loaded 2-core machine can exceed.
func connectOpening(ctx context.Context, url, name string, s *site, opening *sync.Mutex) (*agent, error) {
	a := &agent{name: name, site: s}
	c := mcp.NewClient(&mcp.Implementation{Name: "scale-check", Version: "0"}, nil)
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	cs, err := c.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w", name, err)
	}
	a.cs = cs
	a.instance, _, _ = strings.Cut(cs.ID(), ".")
	// A generous timeout for a busy CI machine (on 2 cores at load 30,
	// six tabs at once took 16 s).
	if opening != nil {
		opening.Lock()
	}
	text, err := a.call(ctx, "new_page", map[string]any{"url": a.url(), "timeout": 120000})
	if opening != nil {
		opening.Unlock()
	}
	if err != nil {
		cs.Close()
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^(\d+): S ` + regexp.QuoteMeta(name) + ` \(` + regexp.QuoteMeta(a.url()) + `\) \[selected\]$`).FindStringSubmatch(text)
	if m == nil {
		cs.Close()
		return nil, fmt.Errorf("%s: new_page did not select its page:\n%s", name, text)
	}
	fmt.Sscan(m[1], &a.page)
	return a, nil
}

func (a *agent) url() string { return a.site.url + "/s/" + a.name }

// call calls a tool; a protocol error or a tool error is an error.
func (a *agent) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s (%s): %s: %w", a.name, a.instance, tool, err)
	}
	text := mcptext.Of(res)
	if res.IsError {
		return text, fmt.Errorf("%s (%s): %s failed: %s", a.name, a.instance, tool, text)
	}
	return text, nil
}

// step makes the agent's next call, one of five kinds in turn, and checks
// that its reply is the agent's own.
func (a *agent) step(ctx context.Context) error {
	a.steps++
	var (
		tool string
		args map[string]any
		want string
	)
	switch a.steps % 5 {
	case 0:
		tool, want = "take_snapshot", `button "Count `+a.name+`"`
	case 1:
		if a.uid == "" {
			tool, want = "take_snapshot", `button "Count `+a.name+`"`
			break
		}
		tool, args = "click", map[string]any{"uid": a.uid}
	case 2:
		tool, args = "evaluate_script", map[string]any{"function": "() => document.title + '|' + document.getElementById('out').textContent"}
		want = fmt.Sprintf("S %s|%s clicks: %d", a.name, a.name, a.clicks)
	case 3:
		tool = "list_pages"
		want = fmt.Sprintf("%d: S %s (%s) [selected]", a.page, a.name, a.url())
	case 4:
		tool, args = "evaluate_script", map[string]any{"pageId": a.page, "function": "() => location.pathname"}
		want = `"/s/` + a.name + `"`
	}
	text, err := a.call(ctx, tool, args)
	if err != nil {
		return err
	}
	if tool == "click" {
		a.clicks++
	}
	if tool == "take_snapshot" {
		m := regexp.MustCompile(`uid=(\S+) button "Count ` + regexp.QuoteMeta(a.name) + `"`).FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("%s (%s): take_snapshot shows another page:\n%s", a.name, a.instance, text)
		}
		a.uid = m[1]
	}
	if want != "" && !strings.Contains(text, want) {
		return fmt.Errorf("%s (%s): %s: want %q in:\n%s", a.name, a.instance, tool, want, text)
	}
	return nil
}

// clear reports whether err says the session is not (or no longer) served
// where the request went, so that the client starts a new one: one of
// tabhive's sentences (its 404's JSON-RPC error), or the SDK client's
// ErrSessionMissing, which is what it makes of a 404 on its notification
// stream (it does not read that 404's body).
func clear(err error) bool {
	if err == nil {
		return false
	}
	// The SDK wraps ErrSessionMissing with %v on the way to the call
	// that fails, so it is known by its text.
	return strings.Contains(err.Error(), ": "+mcp.ErrSessionMissing.Error()) ||
		strings.Contains(err.Error(), "start a new session (initialize without Mcp-Session-Id)")
}

// result is what one balancer's check found.
type result struct {
	Balancer     string         `json:"balancer"`
	Sessions     map[string]int `json:"sessions_per_instance"`
	Calls        int            `json:"calls"`
	Misrouted    int            `json:"misrouted_or_incoherent"`
	FirstProblem string         `json:"first_problem,omitempty"`
	Kill         killResult     `json:"kill"`
	Drain        drainResult    `json:"drain"`
	Seconds      float64        `json:"seconds"`
	Failures     []string       `json:"failures,omitempty"`
}

type killResult struct {
	Victim         string   `json:"victim"`
	VictimSessions int      `json:"victim_sessions"`
	ClearErrors    int      `json:"clear_errors"`
	SessionMissing int      `json:"of_which_sdk_session_missing"`
	Reinitialized  int      `json:"reinitialized"`
	OtherCalls     int      `json:"other_calls"`
	OtherErrors    int      `json:"other_errors"`
	P50BeforeMs    float64  `json:"others_p50_before_ms"`
	P50AfterMs     float64  `json:"others_p50_after_ms"`
	Errors         []string `json:"errors,omitempty"`
}

type drainResult struct {
	Victim        string   `json:"victim"`
	Sessions      int      `json:"victim_sessions"`
	InFlight      int      `json:"calls_in_flight_at_sigterm"`
	Completed     int      `json:"completed"`
	ReadyzStatus  int      `json:"readyz_status_while_draining"`
	NewSessions   int      `json:"new_sessions_elsewhere_while_draining"`
	ClearErrors   int      `json:"clear_errors_after"`
	Reinitialized int      `json:"reinitialized"`
	OtherErrors   int      `json:"other_errors"`
	ExitedCleanly bool     `json:"exited_cleanly"`
	Errors        []string `json:"errors,omitempty"`
}

// checkBalancer runs the whole check through one balancer, on three fresh
// instances: routing (sessionsPer sessions on each instance, calls calls
// each), killing one, draining another.
func checkBalancer(ctx context.Context, kind, bin, deployDir string, sessionsPer, calls int) (res result, err error) {
	start := time.Now()
	res = result{Balancer: kind, Sessions: map[string]int{}}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	fail := func(format string, a ...any) { res.Failures = append(res.Failures, fmt.Sprintf(format, a...)) }

	s, err := startSite()
	if err != nil {
		return res, err
	}
	defer s.close()
	var instances []*instance
	defer func() { stopAll(instances) }()
	for i := 1; i <= 3; i++ {
		in, err := startInstance(ctx, bin, fmt.Sprintf("tabhive-%d", i), "", "--drain-timeout", "60s")
		if err != nil {
			return res, err
		}
		instances = append(instances, in)
	}
	if err := allReady(ctx, instances); err != nil {
		return res, err
	}
	lb, err := startBalancer(ctx, kind, deployDir, "", instances)
	if err != nil {
		return res, err
	}
	defer lb.stop()
	byID := map[string]*instance{}
	for _, in := range instances {
		byID[in.id] = in
	}

	// Routing: every session's calls land on its own instance, for calls
	// calls each, all sessions at once.
	n := 3 * sessionsPer
	agents := make([]*agent, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	var misrouted atomic.Int64
	var firstMu, opening sync.Mutex
	for i := range agents {
		wg.Go(func() {
			a, err := connectOpening(ctx, lb.url(), fmt.Sprintf("%s%02d", kind[:1], i), s, &opening)
			if err != nil {
				errs[i] = err
				misrouted.Add(int64(calls))
				return
			}
			agents[i] = a
			for a.steps < calls-1 { // new_page was the first call
				if err := a.step(ctx); err != nil {
					misrouted.Add(1)
					firstMu.Lock()
					if res.FirstProblem == "" {
						res.FirstProblem = err.Error()
					}
					firstMu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return res, e
		}
	}
	res.Calls = n * calls
	res.Misrouted = int(misrouted.Load())
	for _, a := range agents {
		res.Sessions[a.instance]++
	}
	if res.Misrouted != 0 {
		fail("%d of %d calls misrouted or incoherent; first: %s", res.Misrouted, res.Calls, res.FirstProblem)
	}
	// The balancer spreads new sessions; the check needs each instance to
	// hold some (the kill and the drain below take their sessions). An
	// exact share is not the balancer's promise: nginx's round robin gave
	// 3, 4 and 5 of 12 in one run, as concurrent initializes met it.
	for _, in := range instances {
		if res.Sessions[in.id] == 0 {
			fail("sessions per instance %v, want some on each", res.Sessions)
			break
		}
	}
	defer func() {
		for _, a := range agents {
			if a != nil {
				a.cs.Close()
			}
		}
	}()

	res.Kill = killOne(ctx, lb, s, byID["tabhive-1"], agents, &agents, fail)
	res.Drain = drainOne(ctx, lb, s, byID["tabhive-2"], agents, fail)
	return res, nil
}

// timedCall is one call's time, and when it ended.
type timedCall struct {
	end time.Time
	d   time.Duration
}

// killOne kills victim (SIGKILL) while the other instances' sessions keep
// calling: the victim's sessions get a clear error and start over; the
// others see no error.
func killOne(ctx context.Context, lb *balancer, s *site, victim *instance, agents []*agent, all *[]*agent, fail func(string, ...any)) killResult {
	r := killResult{Victim: victim.id}
	var mine, others []*agent
	for _, a := range agents {
		if a.instance == victim.id {
			mine = append(mine, a)
		} else {
			others = append(others, a)
		}
	}
	r.VictimSessions = len(mine)

	// The others call on, without pause, until the victim's sessions have
	// started over.
	stop := make(chan struct{})
	var mu sync.Mutex
	var times []timedCall
	var wg sync.WaitGroup
	for _, a := range others {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				t := time.Now()
				err := a.step(ctx)
				mu.Lock()
				times = append(times, timedCall{time.Now(), time.Since(t)})
				r.OtherCalls++
				if err != nil {
					r.OtherErrors++
					if len(r.Errors) < 3 {
						r.Errors = append(r.Errors, err.Error())
					}
				}
				mu.Unlock()
			}
		})
	}
	// calls counts the others' calls so far.
	calls := func() int { mu.Lock(); defer mu.Unlock(); return r.OtherCalls }
	// Let the others make a few calls each before the kill, to time them.
	waitCalls(calls, 3*len(others))
	killed := time.Now()
	victim.kill()
	for _, a := range mine {
		err := a.step(ctx)
		switch {
		case clear(err) && strings.Contains(err.Error(), victim.id):
			r.ClearErrors++
			if !strings.Contains(err.Error(), "start a new session") {
				r.SessionMissing++
			}
		case err == nil:
			fail("kill: a session of the killed instance %s made a call without error", victim.id)
		default:
			fail("kill: a session of the killed instance got an unclear error: %v", err)
			if len(r.Errors) < 3 {
				r.Errors = append(r.Errors, err.Error())
			}
		}
		a.cs.Close()
		// It starts over: a new session, through the balancer, elsewhere.
		b, err := connect(ctx, lb.url(), a.name+"r", s)
		if err != nil {
			fail("kill: starting over: %v", err)
			continue
		}
		ok := b.instance != victim.id
		for range 5 {
			if err := b.step(ctx); err != nil {
				fail("kill: the new session of %s: %v", a.name, err)
				ok = false
				break
			}
		}
		if ok {
			r.Reinitialized++
		}
		*all = append(*all, b)
	}
	// The others go on after the kill (and after the victims started over)
	// for a few calls each.
	waitCalls(calls, calls()+3*len(others))
	close(stop)
	wg.Wait()
	var before, after []float64
	for _, t := range times {
		ms := float64(t.d.Microseconds()) / 1000
		switch {
		case t.end.Before(killed):
			before = append(before, ms)
		case t.end.After(killed.Add(t.d)): // started after the kill
			after = append(after, ms)
		}
	}
	r.P50BeforeMs, r.P50AfterMs = p50(before), p50(after)
	if r.OtherErrors != 0 {
		fail("kill: %d of %d calls of the other instances' sessions failed: %v", r.OtherErrors, r.OtherCalls, r.Errors)
	}
	// The killed instance's sessions start over on the others, whose
	// calls may then be a little slower; a balancer that tried the dead
	// instance first, or waited on it, would add seconds to each. The
	// bound is loose, for a loaded machine: the median, not the worst.
	if r.P50AfterMs > 2*r.P50BeforeMs+1000 {
		fail("kill: the other sessions' calls took %.0f ms (median) after the kill, %.0f ms before", r.P50AfterMs, r.P50BeforeMs)
	}
	if r.ClearErrors != len(mine) || r.Reinitialized != len(mine) {
		fail("kill: %d sessions on %s, %d clear errors, %d started over", len(mine), victim.id, r.ClearErrors, r.Reinitialized)
	}
	return r
}

// drainOne sends SIGTERM to victim while each of its sessions has a call
// in flight (a script waiting 3 s on the site): the calls complete, the
// sessions then get a clear error and start over, the others see none.
func drainOne(ctx context.Context, lb *balancer, s *site, victim *instance, agents []*agent, fail func(string, ...any)) drainResult {
	r := drainResult{Victim: victim.id}
	var mine, others []*agent
	for _, a := range agents {
		if a.instance == victim.id {
			mine = append(mine, a)
		} else if a.instance != "tabhive-1" {
			others = append(others, a)
		}
	}
	if len(mine) == 0 {
		fail("drain: no session on %s to drain", victim.id)
		return r
	}
	// Up to four of them have a call in flight (Chromium opens at most
	// six connections to one host; the others are drained idle).
	busy := mine[:min(len(mine), 4)]
	base := s.inFlight()
	results := make(chan error, len(busy))
	for _, a := range busy {
		go func() { // ends with its call, bounded by callTimeout
			// A URL of its own: Chromium's cache lets one request at a
			// time fetch the same URL.
			text, err := a.call(ctx, "evaluate_script", map[string]any{"function": "async () => (await fetch('/slow?ms=3000&for=" + a.name + "')).text()"})
			if err == nil && !strings.Contains(text, "slow done") {
				err = fmt.Errorf("%s: the call in flight returned %q", a.name, text)
			}
			results <- err
		}()
	}
	for deadline := time.Now().Add(callTimeout); s.inFlight()-base < len(busy); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) || len(results) > 0 {
			fail("drain: the calls never reached their pages (%d of %d did)", s.inFlight()-base, len(busy))
			for range len(results) {
				fail("drain: %v", <-results)
			}
			return r
		}
	}
	r.InFlight = len(busy)
	victim.term()
	// Draining starts at once; poll only for the signal to land.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r.ReadyzStatus, _ = get(ctx, "http://"+victim.addr+"/readyz"); r.ReadyzStatus == http.StatusServiceUnavailable {
			break
		}
	}
	if r.ReadyzStatus != http.StatusServiceUnavailable {
		fail("drain: /readyz answered %d while draining, want 503", r.ReadyzStatus)
	}
	// New sessions meanwhile go elsewhere: the balancer may still send an
	// initialize to the draining instance (its readiness check has not run
	// yet), which refuses it with 503, and the balancer retries it on
	// another.
	for i := range 3 {
		b, err := connect(ctx, lb.url(), fmt.Sprintf("%sn%d", victim.id[len(victim.id)-1:], i), s)
		if err != nil {
			fail("drain: a new session while draining: %v", err)
			continue
		}
		if b.instance == victim.id {
			fail("drain: a new session went to the draining instance")
		} else {
			r.NewSessions++
		}
		b.cs.Close()
	}
	// The others go on meanwhile.
	for _, a := range others {
		for range 3 {
			if err := a.step(ctx); err != nil {
				r.OtherErrors++
				r.Errors = append(r.Errors, err.Error())
			}
		}
	}
	for range busy {
		if err := <-results; err != nil {
			fail("drain: a call in flight at SIGTERM failed: %v", err)
			r.Errors = append(r.Errors, err.Error())
		} else {
			r.Completed++
		}
	}
	for _, a := range mine {
		err := a.step(ctx)
		if clear(err) {
			r.ClearErrors++
		} else {
			fail("drain: a session of the drained instance, after its call: %v, want a clear error", err)
		}
		a.cs.Close()
		b, err := connect(ctx, lb.url(), a.name+"d", s)
		if err != nil {
			fail("drain: starting over: %v", err)
			continue
		}
		ok := b.instance != victim.id
		for range 3 {
			if err := b.step(ctx); err != nil {
				fail("drain: the new session of %s: %v", a.name, err)
				ok = false
				break
			}
		}
		b.cs.Close()
		if ok {
			r.Reinitialized++
		}
	}
	select {
	case <-victim.exited:
		r.ExitedCleanly = victim.err == nil
	case <-time.After(2 * time.Minute):
	}
	if !r.ExitedCleanly {
		fail("drain: %s did not exit cleanly after the drain: %v", victim.id, victim.err)
	}
	if r.OtherErrors != 0 {
		fail("drain: %d calls of other sessions failed: %v", r.OtherErrors, r.Errors)
	}
	r.Sessions = len(mine)
	if r.Completed != len(busy) || r.ClearErrors != len(mine) || r.Reinitialized != len(mine) {
		fail("drain: %d in flight, %d completed; %d sessions, %d clear errors, %d started over", len(busy), r.Completed, len(mine), r.ClearErrors, r.Reinitialized)
	}
	return r
}

// waitCalls waits until calls() reaches n, or a minute passes (the
// others' errors then tell why).
func waitCalls(calls func() int, n int) {
	for deadline := time.Now().Add(time.Minute); calls() < n && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}

// p50 is the nearest-rank median, 0 for none.
func p50(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	return s[(len(s)+1)/2-1]
}
