// Command cdpceiling measures how many iterations per second Chromium
// itself can do of the harness's interact scenario (bench/lib/harness.mjs):
// the same browser work, straight over CDP from a minimal Go loop, with no
// MCP server and no settle waits after actions. Its figure is the ceiling
// the MCP servers' figures in BENCHMARKS.md are compared with.
//
//	go run ./bench/cdpceiling -agents 8 -iterations 5
//
// node bench/run.mjs ceiling runs it beside tabhive.
//
// Chromium is started with tabhive's own launcher (same flags, headless),
// with a DevTools port rather than the pipe tabhive drives it over, so that
// each page gets a WebSocket of its own.
// Each of the -agents agents does one unmeasured warm-up iteration, then
// -iterations measured ones, each on a page of its own (a tab with focus
// emulation, as tabhive opens them; -focus=false without it, -new-window
// for a window each): open /button-async and wait for its load, snapshot
// (Accessibility.getFullAXTree), click "Run task", wait for "Done 1",
// navigate to /nav-a, snapshot, click "Go to page B" and wait for /nav-b's
// load, snapshot and check "Page B loaded", close the page (-wait-snapshot:
// with a snapshot after wait_for too, as the wait_for reply of
// chrome-devtools-mcp and of tabhive carries one). The fixture
// pages are served byte for byte as the harness's bench/lib/fixtures.mjs
// does.
// It prints one JSON line on stdout and a summary on stderr.
// -walk-profile N profiles the walker's snapshots instead (walkprofile.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/accessibility"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/emulation"
	"github.com/mafredri/cdp/protocol/input"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/protocol/target"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/launch"
)

// fixture wraps a body as fixtures/server.mjs's page() does.
func fixture(title, body string) string {
	return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + title +
		"</title>\n<link rel=\"icon\" href=\"data:,\"></head>\n<body>\n" + body + "\n</body></html>"
}

var fixtures = map[string]string{
	"/button-async": fixture("Button async", `<h1>Button async</h1>
<button id="go" type="button">Run task</button>
<div id="out"></div>
<script>
let n = 0;
document.getElementById('go').addEventListener('click', () => {
  const k = ++n;
  setTimeout(() => {
    const p = document.createElement('p');
    p.textContent = 'Done ' + k;
    document.getElementById('out').appendChild(p);
  }, 50);
});
</script>`),
	"/nav-a": fixture("Page A", `<h1>Page A</h1>
<p><a id="to-b" href="/nav-b">Go to page B</a></p>`),
	"/nav-b": fixture("Page B", `<h1>Page B</h1><p>Page B loaded</p>`),
}

// waitText resolves once the page's visible text contains the text passed
// as argument: a MutationObserver, so the wait ends on the change itself.
const waitText = `(want) => new Promise((resolve) => {
  const has = () => document.body.innerText.includes(want);
  if (has()) return resolve(true);
  new MutationObserver((_, o) => { if (has()) { o.disconnect(); resolve(true); } })
    .observe(document.body, {childList: true, subtree: true, characterData: true});
})`

const callTimeout = 30 * time.Second

func main() {
	agents := flag.Int("agents", 1, "concurrent agents, each on its own page")
	iterations := flag.Int("iterations", 5, "measured iterations per agent")
	chromium := flag.String("chromium", "", "Chromium binary (default: the first found on PATH, as launch.FindExecutable)")
	label := flag.String("label", "cdp-direct", "label copied into the output")
	newWindow := flag.Bool("new-window", false, "open each page in a window of its own instead of a tab")
	focus := flag.Bool("focus", true, "turn focus emulation on in each page, as tabhive's page actors do")
	feats := flag.String("features", "", "what tabhive turns on in the browser, comma-separated: domains, tracker, walker (walker-doc, walker-compile, walker-lazy: other ways to install it; walker-world, walker-parse: parts of walker-doc alone), or tabhive for what tabhive does (see features.go)")
	jsDir := flag.String("js", "page/js", "tabhive's page scripts, for -features tracker and walker")
	waitSnapshot := flag.Bool("wait-snapshot", false, "take a snapshot after wait_for, as the wait_for reply of chrome-devtools-mcp and of tabhive carries one")
	idle := flag.Duration("idle", 0, "after opening the page, each click and the navigation, keep the page open this long doing nothing, as tabhive's wait for the page to settle does (about 100 ms each)")
	calls := flag.Int("calls", 0, "with each click, before its mouse events, send this many more commands the page's renderer answers (Runtime.evaluate of a constant): what a CDP command costs Chromium, against the same run without")
	traceTabs := flag.Int("walk-trace", 0, "instead of the loop, trace the walker's snapshots in this many tabs and sum the renderer's events by name (see walktrace.go)")
	walkTabs := flag.Int("walk-profile", 0, "instead of the loop, profile the walker's snapshots in this many tabs, one after another (with -features walker-doc; see walkprofile.go)")
	flag.Parse()
	f, err := parseFeatures(*feats, *jsDir)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(*agents, *iterations, *chromium, *label, *newWindow, *focus, *waitSnapshot, *idle, *calls, *walkTabs, *traceTabs, f); err != nil {
		log.Fatal(err)
	}
}

func run(agents, iterations int, chromium, label string, newWindow, focus, waitSnapshot bool, idle time.Duration, calls, walkTabs, traceTabs int, f features) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for fixtures: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(serveFixture)}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	ctx := context.Background()
	proc, err := launch.Start(ctx, launch.Options{ExecutablePath: chromium, Headless: true, DebuggingPort: true})
	if err != nil {
		return fmt.Errorf("launch chromium: %w", err)
	}
	defer proc.Close()
	// The browser connection only creates and closes targets: no events.
	browser, err := cdpconn.Dial(ctx, proc.WebSocketURL(), cdpconn.Options{Keep: func(string) bool { return false }})
	if err != nil {
		return fmt.Errorf("connect to browser: %w", err)
	}
	defer browser.Close()
	u, err := url.Parse(proc.WebSocketURL())
	if err != nil {
		return fmt.Errorf("parse browser endpoint: %w", err)
	}
	b := &bench{browser: browser.Client, wsHost: u.Host, base: base, newWindow: newWindow, focus: focus, waitSnapshot: waitSnapshot, idle: idle, calls: calls, features: f, steps: map[string][]time.Duration{}}
	if walkTabs > 0 {
		return b.profileWalks(ctx, walkTabs)
	}
	if traceTabs > 0 {
		return b.traceWalks(ctx, traceTabs)
	}

	// Warm-up: every agent runs one iteration at once, as they will in the
	// measured phase; then its step times are forgotten.
	if failed := b.phase("warm-up", agents, 1); failed > 0 {
		return fmt.Errorf("%d warm-up iterations failed", failed)
	}
	b.steps = map[string][]time.Duration{}
	cpu := newCPUSampler(proc.PID())
	cpu.start()
	self0 := selfCPU()
	start := time.Now()
	failed := b.phase("measured", agents, iterations)
	wall := time.Since(start).Seconds()
	chromiumCPU, byKind := cpu.stop()
	loopCPU := selfCPU() - self0
	ok := agents*iterations - failed

	out := struct {
		Label          string                        `json:"label"`
		Agents         int                           `json:"agents"`
		Iterations     int                           `json:"iterations"`
		IterationsOK   int                           `json:"iterations_ok"`
		IterationsFail int                           `json:"iterations_failed"`
		WallS          float64                       `json:"wall_s"`
		IterationsPerS float64                       `json:"iterations_per_s"`
		Features       string                        `json:"features,omitempty"`
		ChromiumCPUS   float64                       `json:"chromium_cpu_s"`
		ChromiumCPUMS  float64                       `json:"chromium_cpu_ms_per_iteration"`
		ByProcess      map[string]float64            `json:"chromium_cpu_ms_per_iteration_by_process"`
		LoopCPUMS      float64                       `json:"loop_cpu_ms_per_iteration"`
		StepMS         map[string]map[string]float64 `json:"step_ms"`
	}{label, agents, iterations, ok, failed, round(wall, 3), round(float64(ok)/wall, 2), f.String(),
		round(chromiumCPU, 2), perIteration(chromiumCPU, ok), map[string]float64{}, perIteration(loopCPU, ok), map[string]map[string]float64{}}
	for kind, s := range byKind {
		out.ByProcess[kind] = perIteration(s, ok)
	}
	for name, d := range b.steps {
		out.StepMS[name] = map[string]float64{"p50": percentile(d, 50), "p95": percentile(d, 95)}
	}
	line, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	fmt.Fprintf(os.Stderr, "%s: %d agents x %d iterations: %d ok, %d failed in %.2f s, %.2f iterations/s, Chromium %.0f ms CPU an iteration %v\n",
		label, agents, iterations, ok, failed, wall, out.IterationsPerS, out.ChromiumCPUMS, out.ByProcess)
	if failed > 0 {
		return fmt.Errorf("%d iterations failed", failed)
	}
	return nil
}

func serveFixture(w http.ResponseWriter, r *http.Request) {
	html, ok := fixtures[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, html)
}

// bench holds what the agents share: the browser connection and the step
// times of the measured phase.
type bench struct {
	browser *cdp.Client
	wsHost  string // host:port of the DevTools endpoint
	base    string // fixture server URL

	newWindow bool // open pages as windows rather than tabs
	focus     bool // focus emulation in each page
	// waitSnapshot: a snapshot after wait_for, which its reply carries
	waitSnapshot bool
	// idle is how long the page stays open doing nothing after it is
	// opened, after each click and after the navigation (-idle).
	idle time.Duration
	// calls is how many more commands each click sends before its
	// mouse events (-calls).
	calls    int
	features features

	mu    sync.Mutex
	steps map[string][]time.Duration
}

// phase runs n iterations on each of k agents in parallel and returns how
// many failed; failures are reported on stderr.
func (b *bench) phase(name string, k, n int) (failed int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for a := 0; a < k; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				if err := b.iteration(a, i); err != nil {
					fmt.Fprintf(os.Stderr, "%s: agent %d iteration %d: %v\n", name, a, i, err)
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return failed
}

// step times fn, run under its own deadline.
func (b *bench) step(name string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	t := time.Now()
	err := fn(ctx)
	b.mu.Lock()
	b.steps[name] = append(b.steps[name], time.Since(t))
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// iteration is the interact scenario, once.
func (b *bench) iteration(agent, iter int) (err error) {
	var p *tab
	err = b.step("open", func(ctx context.Context) (err error) {
		p, err = b.open(ctx, fmt.Sprintf("%s/button-async?agent=%d&iter=%d", b.base, agent, iter))
		if err == nil {
			err = p.settleLoaded(ctx)
		}
		return err
	})
	if err != nil {
		return err
	}
	b.rest()
	defer func() {
		if cerr := b.step("close", p.close); err == nil {
			err = cerr
		}
	}()

	var nodes []accessibility.AXNode
	snapshot := func(ctx context.Context) (err error) { nodes, err = p.snapshot(ctx); return err }
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"snapshot", snapshot},
		{"click", func(ctx context.Context) error {
			return p.followed(ctx, false, func() error { return p.click(ctx, nodes, "button", "Run task", "") })
		}},
		{"wait_for", func(ctx context.Context) error {
			if err := p.waitFor(ctx, "Done 1"); err != nil || !b.waitSnapshot {
				return err
			}
			return snapshot(ctx)
		}},
		{"navigate", func(ctx context.Context) error {
			if err := p.navigate(ctx, b.base+"/nav-a"); err != nil {
				return err
			}
			return p.settleLoaded(ctx)
		}},
		{"snapshot", snapshot},
		{"click", func(ctx context.Context) error {
			return p.followed(ctx, true, func() error { return p.click(ctx, nodes, "link", "Go to page B", "/nav-b") })
		}},
		{"snapshot", snapshot},
	}
	for _, s := range steps {
		if err := b.step(s.name, s.fn); err != nil {
			return err
		}
		if s.name == "click" || s.name == "navigate" {
			b.rest()
		}
	}
	if !hasText(nodes, "Page B loaded") {
		return errors.New(`check failed: snapshot after clicking the link lacks "Page B loaded"`)
	}
	return nil
}

// rest keeps the page open doing nothing for -idle: the time tabhive's
// settle waits leave a page open after an action, without their work.
func (b *bench) rest() {
	if b.idle > 0 {
		time.Sleep(b.idle)
	}
}

// tab is one page with its own DevTools connection, which queues only the
// two events a load wait needs, in the order Chrome sent them.
type tab struct {
	b    *bench
	id   target.ID
	conn *cdpconn.Conn
	doc  string // the walker's state in the document (-features walker)
	// world is the walker's isolated world in the main frame's document
	// (-features walker-doc, walker-lazy), 0 until it is known.
	world runtime.ExecutionContextID
	// tracker is the controller of the document's tracker (-features
	// tracker-follow), "" until looked up.
	tracker runtime.RemoteObjectID
}

// open creates a page (a tab, or a window with -new-window), connects to it
// and loads url.
func (b *bench) open(ctx context.Context, rawURL string) (*tab, error) {
	r, err := b.browser.Target.CreateTarget(ctx, target.NewCreateTargetArgs("about:blank").SetNewWindow(b.newWindow))
	if err != nil {
		return nil, fmt.Errorf("create target: %w", err)
	}
	p := &tab{b: b, id: r.TargetID}
	worlds := b.features.worldEvents()
	p.conn, err = cdpconn.Dial(ctx, "ws://"+b.wsHost+"/devtools/page/"+string(r.TargetID), cdpconn.Options{Keep: func(m string) bool {
		return m == "Page.frameNavigated" || m == "Page.loadEventFired" || (worlds && m == "Runtime.executionContextCreated")
	}})
	if err == nil {
		err = p.conn.Client.Page.Enable(ctx)
	}
	if err == nil {
		err = b.features.enable(ctx, p)
	}
	if err == nil && b.focus {
		// As tabhive's page actors do: a background tab then renders as a
		// focused one, and a mouse move does not wait seconds for a frame.
		err = p.conn.Client.Emulation.SetFocusEmulationEnabled(ctx, emulation.NewSetFocusEmulationEnabledArgs(true))
	}
	if err == nil {
		err = p.navigate(ctx, rawURL)
	}
	if err != nil {
		p.close(ctx)
		return nil, err
	}
	return p, nil
}

func (p *tab) close(ctx context.Context) error {
	if p.conn != nil {
		p.conn.Close()
	}
	_, err := p.b.browser.Target.CloseTarget(ctx, target.NewCloseTargetArgs(p.id))
	return err
}

func (p *tab) navigate(ctx context.Context, rawURL string) error {
	r, err := p.conn.Client.Page.Navigate(ctx, page.NewNavigateArgs(rawURL))
	if err != nil {
		return err
	}
	if r.ErrorText != nil {
		return fmt.Errorf("navigate to %s: %s", rawURL, *r.ErrorText)
	}
	u, _ := url.Parse(rawURL)
	return p.waitLoad(ctx, u.Path)
}

// waitLoad waits for the main frame to commit a document at path and fire
// its load event. Matching the commit first keeps a late load event of the
// previous document (the initial about:blank) from ending the wait.
func (p *tab) waitLoad(ctx context.Context, path string) error {
	committed := false
	for {
		evs := p.conn.Take()
		for i, ev := range evs {
			switch ev.Method {
			case "Page.frameNavigated":
				var e page.FrameNavigatedReply
				if err := json.Unmarshal(ev.Params, &e); err != nil {
					return err
				}
				if e.Frame.ParentID == nil {
					p.world, p.tracker = 0, "" // a new document: the walker's world and the tracker go with the old one
					u, err := url.Parse(e.Frame.URL)
					committed = err == nil && u.Path == path
				}
			case "Runtime.executionContextCreated":
				p.absorb(evs[i : i+1])
			case "Page.loadEventFired":
				if committed {
					p.absorb(evs[i+1:])
					return nil
				}
			}
		}
		select {
		case <-p.conn.Ready():
		case <-p.conn.Done():
			return errors.New("page connection closed while waiting for load")
		case <-ctx.Done():
			return fmt.Errorf("wait for load of %s: %w", path, ctx.Err())
		}
	}
}

// absorb keeps the walker's world of the main frame's document from the
// Runtime.executionContextCreated events among evs (-features walker-doc
// with the Runtime domain on); it comes after the document's
// Page.frameNavigated, which forgets the last one.
func (p *tab) absorb(evs []cdpconn.Event) {
	for _, ev := range evs {
		if ev.Method != "Runtime.executionContextCreated" {
			continue
		}
		var e runtime.ExecutionContextCreatedReply
		if json.Unmarshal(ev.Params, &e) != nil || e.Context.Name != walkerWorld {
			continue
		}
		var aux struct {
			FrameID string `json:"frameId"`
		}
		if json.Unmarshal(e.Context.AuxData, &aux) == nil && aux.FrameID == string(p.id) {
			p.world = e.Context.ID
		}
	}
}

func (p *tab) snapshot(ctx context.Context) ([]accessibility.AXNode, error) {
	if p.b.features.walker != "" {
		return p.b.features.walk(ctx, p)
	}
	r, err := p.conn.Client.Accessibility.GetFullAXTree(ctx, accessibility.NewGetFullAXTreeArgs())
	if err != nil {
		return nil, err
	}
	return r.Nodes, nil
}

// click clicks the centre of the node of that role and name, as a user
// would; if loads is not empty, it then waits for that page to load.
func (p *tab) click(ctx context.Context, nodes []accessibility.AXNode, role, name, loads string) error {
	node, ok := find(nodes, role, name)
	if !ok {
		return fmt.Errorf("check failed: %s %q not in snapshot", role, name)
	}
	if p.b.features.walker != "" {
		var err error
		if node, err = p.b.features.resolve(ctx, p, node); err != nil {
			return err
		}
	}
	c := p.conn.Client
	if err := c.DOM.ScrollIntoViewIfNeeded(ctx, dom.NewScrollIntoViewIfNeededArgs().SetBackendNodeID(node)); err != nil {
		return err
	}
	q, err := c.DOM.GetContentQuads(ctx, dom.NewGetContentQuadsArgs().SetBackendNodeID(node))
	if err != nil {
		return err
	}
	if len(q.Quads) == 0 || len(q.Quads[0]) != 8 {
		return fmt.Errorf("%s %q has no box", role, name)
	}
	b := q.Quads[0]
	x, y := (b[0]+b[2]+b[4]+b[6])/4, (b[1]+b[3]+b[5]+b[7])/4
	for i := 0; i < p.b.calls; i++ {
		if _, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs("0").SetReturnByValue(true)); err != nil {
			return err
		}
	}
	for _, ev := range []*input.DispatchMouseEventArgs{
		input.NewDispatchMouseEventArgs("mouseMoved", x, y),
		input.NewDispatchMouseEventArgs("mousePressed", x, y).SetButton(input.MouseButtonLeft).SetButtons(1).SetClickCount(1),
		input.NewDispatchMouseEventArgs("mouseReleased", x, y).SetButton(input.MouseButtonLeft).SetButtons(0).SetClickCount(1),
	} {
		if err := c.Input.DispatchMouseEvent(ctx, ev); err != nil {
			return err
		}
	}
	if loads == "" {
		return nil
	}
	return p.waitLoad(ctx, loads)
}

func (p *tab) waitFor(ctx context.Context, text string) error {
	// The harness gives wait_for 5 s.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	arg, _ := json.Marshal(text)
	r, err := p.conn.Client.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs("("+waitText+")("+string(arg)+")").SetAwaitPromise(true))
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("wait for %q: %s", text, r.ExceptionDetails.Text)
	}
	return nil
}

// find returns the DOM node of the first accessibility node with that role
// and name.
func find(nodes []accessibility.AXNode, role, name string) (dom.BackendNodeID, bool) {
	for _, n := range nodes {
		if n.Role == nil || n.Name == nil || n.BackendDOMNodeID == nil {
			continue
		}
		var r, nm string
		json.Unmarshal(n.Role.Value, &r)
		json.Unmarshal(n.Name.Value, &nm)
		if r == role && nm == name {
			return *n.BackendDOMNodeID, true
		}
	}
	return 0, false
}

// hasText reports whether some accessibility node is named text.
func hasText(nodes []accessibility.AXNode, text string) bool {
	for _, n := range nodes {
		var nm string
		if n.Name != nil && json.Unmarshal(n.Name.Value, &nm) == nil && nm == text {
			return true
		}
	}
	return false
}

// selfCPU is the CPU seconds this process has used.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// perIteration is s seconds over n iterations, in milliseconds.
func perIteration(s float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return round(s/float64(n)*1000, 1)
}

// percentile is the nearest-rank percentile in milliseconds, rounded to
// 0.1 as the harness does.
func percentile(d []time.Duration, p float64) float64 {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	i = max(0, min(len(s)-1, i))
	return round(float64(s[i])/float64(time.Millisecond), 1)
}

func round(x float64, digits int) float64 {
	f := math.Pow(10, float64(digits))
	return math.Round(x*f) / f
}
