package emulation_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/emulation"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

// snapshot returns the text of a snapshot of page a.
func snapshot(t *testing.T, a *page.Actor) string {
	t.Helper()
	s, err := axsnapshot.Take(transporttest.Context(t), a, false)
	if err != nil {
		t.Fatalf("Snapshot = %v", err)
	}
	return s.Text
}

// button returns the uid of page a's button called name, in a new snapshot.
func button(t *testing.T, a *page.Actor, name string) string {
	t.Helper()
	return transporttest.UIDOf(t, snapshot(t, a), "button", name)
}

// emulationSite serves the page the emulation tests load and /echo, which
// answers with the request headers it got.
// On a site of its own: CPU throttling slows the page's whole renderer
// process (browsertest.ServeOwnSite).
func emulationSite(t testing.TB) string {
	mux := http.NewServeMux()
	for p, h := range emulationRoutes() {
		mux.Handle(p, h)
	}
	return browsertest.ServeOwnSite(t, mux).URL
}

func emulationRoutes() map[string]http.Handler {
	return map[string]http.Handler{
		"/": browsertest.HTML("Probe", `<button onclick="">Nothing</button>
<button onclick="setTimeout(() => { document.title = 'late' }, 1500)">Late</button>
<button onclick="alert('emulation dialog')">Alert</button>`),
		"/echo": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"ua": r.UserAgent(), "x": r.Header.Get("X-Test")})
		}),
	}
}

// prober reads what a page sees through a CDP session of its own on the
// page's tab: the actor's session is the one under test.
type prober struct {
	t    testing.TB
	conn *cdpconn.Conn
}

// openProbed starts a page actor on a fresh tab at url, with a prober on
// the same tab.
func openProbed(t testing.TB, url string) (*page.Actor, prober) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b := browsertest.Chromium(t)
	tab := b.NewTab(t)
	a := page.Start(page.Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach, Grant: b.Grant})
	t.Cleanup(func() { a.Stop(nil) })
	if _, err := a.Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: url}); err != nil {
		t.Fatalf("Navigate(%s) = %v", url, err)
	}
	conn, err := tab.Attach(ctx, cdpconn.Options{Keep: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return a, prober{t, conn}
}

// eval evaluates expr in the page, awaiting a promise, and decodes its
// value into v.
func (p prober) eval(expr string, v any) {
	p.t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := p.conn.Client.Runtime.Evaluate(c, runtime.NewEvaluateArgs(expr).SetAwaitPromise(true).SetReturnByValue(true))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	if r.ExceptionDetails != nil {
		p.t.Fatalf("evaluate %s: %s", expr, r.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		p.t.Fatalf("evaluate %s = %s: %v", expr, r.Result.Value, err)
	}
}

func (p prober) str(expr string) string {
	p.t.Helper()
	var s string
	p.eval(expr, &s)
	return s
}

func (p prober) boolean(expr string) bool {
	p.t.Helper()
	var b bool
	p.eval(expr, &b)
	return b
}

func (p prober) number(expr string) float64 {
	p.t.Helper()
	var f float64
	p.eval(expr, &f)
	return f
}

const (
	geoJS  = `new Promise(r => navigator.geolocation.getCurrentPosition(p => r(p.coords.latitude + ',' + p.coords.longitude), e => r('error ' + e.code), {timeout: 1000}))`
	echoJS = `fetch('/echo').then(r => r.json()).then(j => j.ua + '|' + j.x, e => 'failed: ' + e.message)`
	sizeJS = `innerWidth + 'x' + innerHeight + 'x' + devicePixelRatio`
	// loopJS times a fixed amount of work, in ms.
	loopJS = `(() => { const t = performance.now(); let x = 0; for (let i = 0; i < 2e7; i++) x += i % 7; return performance.now() - t })()`
)

// checkEmulation fails the test unless the emulation a State reports, got,
// is want.
func checkEmulation(t *testing.T, what string, got, want emulation.Emulation) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s =\n%s\nwant\n%s", what, g, w)
	}
}

func emulate(t *testing.T, a *page.Actor, e emulation.Emulation) page.State {
	t.Helper()
	s, err := emulation.Of(a).Emulate(transporttest.Context(t), e)
	if err != nil {
		t.Fatalf("Emulate(%+v) = %v", e, err)
	}
	return s
}

func TestEmulationTimeouts(t *testing.T) {
	tests := []struct {
		e                   emulation.Emulation
		navigation, waitFor time.Duration
	}{
		{emulation.Emulation{}, 10 * time.Second, 5 * time.Second},
		{emulation.Emulation{CPU: 1}, 10 * time.Second, 5 * time.Second},
		{emulation.Emulation{Network: emulation.NetworkSlow3G, CPU: 4}, 400 * time.Second, 20 * time.Second},
		{emulation.Emulation{Network: emulation.NetworkFast3G}, 50 * time.Second, 5 * time.Second},
		{emulation.Emulation{Network: emulation.NetworkSlow4G, CPU: 2.5}, 62500 * time.Millisecond, 12500 * time.Millisecond},
		{emulation.Emulation{Network: emulation.NetworkFast4G, CPU: 20}, 200 * time.Second, 100 * time.Second},
		{emulation.Emulation{Network: emulation.NetworkOffline}, 10 * time.Second, 5 * time.Second},
		// Upstream prints 27500.000000000004 ms; whole milliseconds here.
		{emulation.Emulation{Network: emulation.NetworkSlow4G, CPU: 1.1}, 27500 * time.Millisecond, 5500 * time.Millisecond},
	}
	for _, tt := range tests {
		got := tt.e.Timeouts()
		if got.Navigation != tt.navigation || got.WaitFor != tt.waitFor {
			t.Errorf("%+v.Timeouts() = %+v, want {Navigation:%v WaitFor:%v}", tt.e, got, tt.navigation, tt.waitFor)
		}
	}
	if got, want := (emulation.Emulation{}).Timeouts(), page.DefaultTimeouts(); got != want {
		t.Errorf("no emulation: %+v, want the defaults %+v", got, want)
	}
}

// everything is an emulation with every setting on.
func everything() emulation.Emulation {
	return emulation.Emulation{
		Network:              emulation.NetworkFast3G,
		CPU:                  4,
		Geolocation:          &emulation.Geolocation{Latitude: 51.5, Longitude: -0.12},
		UserAgent:            "TabhiveTest/1.0",
		ColorScheme:          "dark",
		ForcedColors:         "active",
		PrefersContrast:      "more",
		PrefersReducedMotion: "reduce",
		Viewport:             &emulation.Viewport{Width: 400, Height: 300, DeviceScaleFactor: 2},
		Headers:              map[string]string{"X-Test": "hello"},
	}
}

func TestEmulateAppliesEachSetting(t *testing.T) {
	t.Parallel()
	a, p := openProbed(t, emulationSite(t)+"/")
	// A second, unemulated page, on a site (and so a process) of its own,
	// runs the same CPU loop right after each throttled run, so that both
	// see the same machine load.
	_, plain := openProbed(t, emulationSite(t)+"/")
	defaultUA := p.str(`navigator.userAgent`)

	state := emulate(t, a, everything())
	want := everything()
	want.Headers = nil // not reported
	checkEmulation(t, "State.Emulation", emulation.FromState(state), want)
	if got := a.Timeouts(); got != (page.Timeouts{Navigation: 200 * time.Second, WaitFor: 20 * time.Second}) {
		t.Errorf("Timeouts() = %+v, want 200s and 20s", got)
	}

	if got := p.str(`navigator.userAgent`); got != "TabhiveTest/1.0" {
		t.Errorf("navigator.userAgent = %q (default %q)", got, defaultUA)
	}
	start := time.Now()
	if got := p.str(echoJS); got != "TabhiveTest/1.0|hello" {
		t.Errorf("request headers (user agent|X-Test) = %q", got)
	}
	// Fast 3G adds 562.5 ms of latency to every request: a lower bound,
	// which a loaded machine only lengthens.
	if took := time.Since(start); took < 450*time.Millisecond {
		t.Errorf("a request under Fast 3G took %v, want at least ~560ms", took)
	}
	for _, q := range []string{"(prefers-color-scheme: dark)", "(forced-colors: active)", "(prefers-contrast: more)", "(prefers-reduced-motion: reduce)"} {
		if !p.boolean(`matchMedia('` + q + `').matches`) {
			t.Errorf("matchMedia(%s) does not match", q)
		}
	}
	if got := p.str(sizeJS); got != "400x300x2" {
		t.Errorf("viewport = %s, want 400x300x2", got)
	}
	if got := p.str(geoJS); got != "51.5,-0.12" {
		t.Errorf("geolocation = %q, want 51.5,-0.12", got)
	}
	// The CPU slowdown is measured at rate 20, where its effect dwarfs a
	// loaded machine's noise: at rate 4 a throttled page that the
	// scheduler favours after each pause can run almost as fast as an
	// unthrottled one on a busy 2-core machine (a ratio of 1.44 was seen,
	// against 4 on a quiet one). At rate 20 the throttled page may run one
	// twentieth of the time, so the fastest of three throttled loops must
	// take longer than the fastest of three unthrottled ones run in turn:
	// at least 1.5 times, where a page that is not throttled gives about
	// 1 (about 20 times on a quiet machine; with two busy loops beside the
	// package's tests, ratios of 11.7 to 17.1 were seen; with three other
	// test suites on the machine, load average 15, 2.1).
	// The rate of 4 reached the page too: the state above names it, and
	// BenchmarkCPUThrottling measures its effect.
	// At load 30 one round can still see the plain page starved (a ratio
	// of 0.5 was seen): a throttle that works shows in one of five rounds,
	// one that does not in none.
	emulate(t, a, emulation.Emulation{CPU: 20})
	var throttled, unthrottled, ratio float64
	for round := 0; round < 5 && ratio < 1.5; round++ {
		throttled, unthrottled = cpuLoops(p, plain, 3)
		ratio = throttled / unthrottled
		t.Logf("CPU rate 20: fastest loop %.0f ms throttled, %.0f ms not (ratio %.1f)", throttled, unthrottled, ratio)
	}
	if ratio < 1.5 {
		t.Errorf("CPU rate 20: fastest loop %.0f ms throttled, %.0f ms not (ratio %.1f), want a ratio of 1.5 or more", throttled, unthrottled, ratio)
	}
}

// cpuLoops runs loopJS n times on the throttled page and on the plain one
// in turn, so that both see the same machine load, and returns the fastest
// run of each: the ones the load disturbed least.
func cpuLoops(throttled, plain prober, n int) (float64, float64) {
	bestThrottled, bestPlain := math.Inf(1), math.Inf(1)
	for range n {
		bestThrottled = min(bestThrottled, throttled.number(loopJS))
		bestPlain = min(bestPlain, plain.number(loopJS))
	}
	return bestThrottled, bestPlain
}

// BenchmarkCPUThrottling reports the slowdown a CPU throttling rate of 4
// gives a loop in the page (ratio, about 4 on a quiet machine), measured as
// TestEmulateAppliesEachSetting measures rate 20's. A precise figure needs
// a quiet machine, which a test cannot ask for:
//
//	go test -run XXX -bench CPUThrottling -benchtime 5x ./page
func BenchmarkCPUThrottling(b *testing.B) {
	a, p := openProbed(b, emulationSite(b)+"/")
	_, plain := openProbed(b, emulationSite(b)+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := emulation.Of(a).Emulate(ctx, emulation.Emulation{CPU: 4}); err != nil {
		b.Fatal(err)
	}
	var ratios []float64
	for b.Loop() {
		throttled, unthrottled := cpuLoops(p, plain, 1)
		ratios = append(ratios, throttled/unthrottled)
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "ratio")
}

// TestEmulateResetsOmittedSettings: each call replaces every setting,
// except the extra headers, which only change when given.
func TestEmulateResetsOmittedSettings(t *testing.T) {
	t.Parallel()
	a, p := openProbed(t, emulationSite(t)+"/")
	defaultUA := p.str(`navigator.userAgent`)
	defaultSize := p.str(sizeJS)
	e := everything()
	e.Network = emulation.NetworkOffline
	emulate(t, a, e)
	if p.boolean(`navigator.onLine`) {
		t.Errorf("navigator.onLine is true while emulating Offline")
	}
	if got := p.str(echoJS); !strings.HasPrefix(got, "failed") {
		t.Errorf("a request while Offline = %q, want a failure", got)
	}

	state := emulate(t, a, emulation.Emulation{CPU: 2})
	checkEmulation(t, "State.Emulation", emulation.FromState(state), emulation.Emulation{CPU: 2})
	if got := a.Timeouts(); got != (page.Timeouts{Navigation: 20 * time.Second, WaitFor: 10 * time.Second}) {
		t.Errorf("Timeouts() = %+v, want 20s and 10s", got)
	}
	if !p.boolean(`navigator.onLine`) {
		t.Errorf("still offline after the network was omitted")
	}
	if got := p.str(`navigator.userAgent`); got != defaultUA {
		t.Errorf("user agent = %q, want the default %q", got, defaultUA)
	}
	if got := p.str(echoJS); got != defaultUA+"|hello" {
		t.Errorf("request headers (user agent|X-Test) = %q, want the default agent and the kept header", got)
	}
	for _, q := range []string{"(prefers-color-scheme: dark)", "(forced-colors: active)", "(prefers-contrast: more)", "(prefers-reduced-motion: reduce)"} {
		if p.boolean(`matchMedia('` + q + `').matches`) {
			t.Errorf("matchMedia(%s) still matches", q)
		}
	}
	// The renderer takes the cleared size with its next frame, which a
	// background tab may get late: waited for, not assumed.
	var size string
	if !testwait.Poll(30*time.Second, func() bool { size = p.str(sizeJS); return size == defaultSize }) {
		t.Errorf("viewport = %s, want the default %s", size, defaultSize)
	}
	if got := p.str(geoJS); got == "51.5,-0.12" {
		t.Errorf("geolocation still emulated: %s", got)
	}

	state = emulate(t, a, emulation.Emulation{Headers: map[string]string{}})
	checkEmulation(t, "State.Emulation after a reset", emulation.FromState(state), emulation.Emulation{})
	if got := p.str(echoJS); got != defaultUA+"|" {
		t.Errorf("request headers (user agent|X-Test) = %q, want the header cleared", got)
	}
	if got := a.Timeouts(); got != page.DefaultTimeouts() {
		t.Errorf("Timeouts() = %+v after a reset, want the defaults", got)
	}
}

// TestEmulatedCPUStretchesTheWait: the waiter's horizon is 1 s × CPU. At
// full speed a click that sets a timer of 1.5 s returns without waiting for
// it and says it is pending; under a rate of 4 the timer is within the
// horizon and its effect is waited for.
func TestEmulatedCPUStretchesTheWait(t *testing.T) {
	t.Parallel()
	a, p := openProbed(t, emulationSite(t)+"/")
	// A click on "Nothing" first, to see what a click that waits for
	// nothing costs on this machine now: one so loaded that it takes the
	// timer's 1.5 s would see the timer fire whether or not the click
	// waited for it (and a timer that fired is rightly not pending).
	s0 := snapshot(t, a)
	start := time.Now()
	if _, err := input.Click(transporttest.Context(t), a, transporttest.UIDOf(t, s0, "button", "Nothing"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(Nothing) = %v", err)
	}
	if idle := time.Since(start); idle > 500*time.Millisecond {
		t.Logf("a click that waits for nothing took %v: the full-speed half cannot tell waiting from a busy machine", idle)
	} else {
		res, err := input.Click(transporttest.Context(t), a, transporttest.UIDOf(t, s0, "button", "Late"), false, page.InputOptions{})
		if err != nil {
			t.Fatalf("Click = %v", err)
		}
		if len(res.Pending) != 1 || res.Pending[0] != "a timer of 1.5 s" {
			t.Errorf("click at full speed: Pending = %q, want the 1.5 s timer", res.Pending)
		}
		if got := p.str(`document.title`); got == "late" {
			t.Errorf("click at full speed waited for a timer past the horizon")
		}
		// Its timer fires later; the title is cleared after it, so that
		// the next click's effect is that click's.
		testwait.Poll(30*time.Second, func() bool { return p.str(`document.title`) == "late" })
		p.eval(`document.title = ''`, new(string))
	}
	emulate(t, a, emulation.Emulation{CPU: 4})
	res, err := input.Click(transporttest.Context(t), a, button(t, a, "Late"), false, page.InputOptions{})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if got := p.str(`document.title`); got != "late" || len(res.Pending) != 0 {
		t.Errorf("click under a 4x CPU slowdown: title %q, Pending %q; want the timer's effect waited for", got, res.Pending)
	}
	checkEmulation(t, "click's State.Emulation", emulation.FromState(res.State), emulation.Emulation{CPU: 4})
}

// TestEmulateMobileTouchReloads: turning on touch reloads the page, as
// Puppeteer does, so that the new document offers touch events; turning it
// off reloads again.
func TestEmulateMobileTouchReloads(t *testing.T) {
	t.Parallel()
	a, p := openProbed(t, emulationSite(t)+"/")
	p.eval(`window.marker = 'before'`, new(string))
	emulate(t, a, emulation.Emulation{Viewport: &emulation.Viewport{Width: 390, Height: 844, DeviceScaleFactor: 3, Mobile: true, Touch: true}})
	if p.boolean(`window.marker === 'before'`) {
		t.Errorf("page not reloaded after touch was turned on")
	}
	if !p.boolean(`'ontouchstart' in window && navigator.maxTouchPoints > 0 && matchMedia('(pointer: coarse)').matches`) {
		t.Errorf("no touch support after emulating a touch viewport")
	}
	if got := p.number(`devicePixelRatio`); got != 3 {
		t.Errorf("devicePixelRatio = %v, want 3", got)
	}
	if got := p.str(`screen.orientation.type`); got != "portrait-primary" {
		t.Errorf("screen orientation = %s, want portrait-primary", got)
	}
	p.eval(`window.marker = 'mobile'`, new(string))
	emulate(t, a, emulation.Emulation{})
	if p.boolean(`window.marker === 'mobile'`) {
		t.Errorf("page not reloaded after touch was turned off")
	}
	if p.boolean(`'ontouchstart' in window`) {
		t.Errorf("touch events still offered after the viewport was removed")
	}
}

// TestResize: resize_page sets this page's size only; an emulated viewport
// takes precedence, and the size comes back when it is removed.
func TestResize(t *testing.T) {
	t.Parallel()
	base := emulationSite(t)
	a, p := openProbed(t, base+"/")
	_, other := openProbed(t, base+"/")
	otherSize := other.str(sizeJS)

	state, err := emulation.Of(a).Resize(transporttest.Context(t), 500, 400)
	if err != nil {
		t.Fatalf("Resize = %v", err)
	}
	// upstream reports no resize
	checkEmulation(t, "State.Emulation after a resize", emulation.FromState(state), emulation.Emulation{})
	if got := p.str(`innerWidth + 'x' + innerHeight`); got != "500x400" {
		t.Errorf("size after Resize(500, 400) = %s", got)
	}
	if got := other.str(sizeJS); got != otherSize {
		t.Errorf("another page's size changed from %s to %s", otherSize, got)
	}
	emulate(t, a, emulation.Emulation{Viewport: &emulation.Viewport{Width: 300, Height: 200}})
	if got := p.str(sizeJS); got != "300x200x1" {
		t.Errorf("size with an emulated viewport = %s, want 300x200x1", got)
	}
	emulate(t, a, emulation.Emulation{})
	if got := p.str(`innerWidth + 'x' + innerHeight`); got != "500x400" {
		t.Errorf("size after the viewport was removed = %s, want the resized 500x400", got)
	}
	if _, err := emulation.Of(a).Resize(transporttest.Context(t), 0, 400); err == nil {
		t.Errorf("Resize(0, 400) succeeded")
	}
}

// TestEmulateWhileDialogOpen: a dialog pauses the renderer, which applies
// the overrides; emulate and resize fail at once and change nothing.
func TestEmulateWhileDialogOpen(t *testing.T) {
	t.Parallel()
	a, _ := openProbed(t, emulationSite(t)+"/")
	emulate(t, a, emulation.Emulation{CPU: 2})
	if _, err := input.Click(transporttest.Context(t), a, button(t, a, "Alert"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(alert) = %v", err)
	}
	// A paused renderer would hold the calls to their context's deadline:
	// they must fail before it passes (the deadline is the event; 8 s for
	// the two is generous for a loaded machine, where they take well
	// under a second).
	callCtx, cancel := context.WithTimeout(transporttest.Context(t), 8*time.Second)
	defer cancel()
	state, err := emulation.Of(a).Emulate(callCtx, everything())
	var de *page.DialogError
	if !errors.As(err, &de) {
		t.Fatalf("Emulate with a dialog open = %v, want DialogError", err)
	}
	if !reflect.DeepEqual(emulation.FromState(state), emulation.Emulation{CPU: 2}) || state.Dialog == nil {
		t.Errorf("State = %+v, want the old emulation (CPU 2) and the dialog", state)
	}
	if _, err := emulation.Of(a).Resize(callCtx, 500, 400); !errors.As(err, &de) {
		t.Errorf("Resize with a dialog open = %v, want DialogError", err)
	}
	if callCtx.Err() != nil {
		t.Errorf("failing with a dialog open ran to the calls' deadline")
	}
	if got := a.Timeouts(); got.WaitFor != 10*time.Second {
		t.Errorf("Timeouts() = %+v, want those of the CPU rate 2 still in force", got)
	}
	if _, err := a.HandleDialog(transporttest.Context(t), true, ""); err != nil {
		t.Fatalf("HandleDialog = %v", err)
	}
}

// TestEmulateRejectsBadSettings: settings out of range fail before anything
// is applied.
func TestEmulateRejectsBadSettings(t *testing.T) {
	t.Parallel()
	a, _ := openProbed(t, emulationSite(t)+"/")
	emulate(t, a, emulation.Emulation{CPU: 2})
	for _, e := range []emulation.Emulation{
		{Network: "5G"},
		{CPU: 0.5},
		{CPU: 21},
		{Geolocation: &emulation.Geolocation{Latitude: 91}},
		{Geolocation: &emulation.Geolocation{Longitude: -181}},
		{Viewport: &emulation.Viewport{Width: 0, Height: 10}},
		{Viewport: &emulation.Viewport{Width: 10, Height: 10, DeviceScaleFactor: -1}},
	} {
		if _, err := emulation.Of(a).Emulate(transporttest.Context(t), e); err == nil {
			t.Errorf("Emulate(%+v) succeeded", e)
		}
	}
	state, err := a.State(transporttest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	checkEmulation(t, "State.Emulation after rejected calls", emulation.FromState(state), emulation.Emulation{CPU: 2})
}
