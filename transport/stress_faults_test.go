// The stress suite's faults (see stress_test.go): tabs closed, alerts,
// hung scripts, renderer crashes, and the browser killed once.

package transport_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"time"

	"github.com/tabhive/tabhive/internal/testwait"
)

// injectFaults injects faults on the workers' pages at random times until
// end: tabs closed, alerts, hung scripts, renderer crashes, all through a
// session of its own as another agent would; and the browser killed once,
// at a random time in the middle of the run.
func (r *stressRun) injectFaults(s *stressSession, workers []*stressWorker, start, end time.Time, rng *rand.Rand) {
	killAt := start.Add(time.Duration((0.3 + 0.2*rng.Float64()) * float64(r.cfg.duration)))
	for {
		lo, hi := r.cfg.faultPause[0], r.cfg.faultPause[1]
		time.Sleep(lo + time.Duration(rng.Int64N(int64(hi-lo)))) // the faults' pace, not a wait
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
	if !testwait.Poll(stressRelaunch+10*time.Second, func() bool { return r.sup.Generation() != gen }) {
		r.failf("fault: the browser was not relaunched %v after it was killed", stressRelaunch+10*time.Second)
		return
	}
	r.mu.Lock()
	r.relaunchedAt = time.Now()
	r.mu.Unlock()
}
