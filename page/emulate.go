package page

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp/protocol/browser"
	"github.com/mafredri/cdp/protocol/emulation"
	"github.com/mafredri/cdp/protocol/network"
	cdptarget "github.com/mafredri/cdp/protocol/target"
	"github.com/mafredri/cdp/rpcc"
	"golang.org/x/sync/errgroup"
)

// Emulation (emulate, resize_page). Every override is set on the
// page's own CDP session, so it applies to this page only, lasts across its
// navigations, and ends with the session. The settings in force live in
// [emulationState], owned by the actor goroutine; the timeouts they imply are
// also published through an atomic pointer, so that the transport can size a
// call's budget without waiting on a busy page ([Actor.Timeouts]).

// Network condition names, as emulate's networkConditions takes them.
const (
	NetworkOffline = "Offline"
	NetworkSlow3G  = "Slow 3G"
	NetworkFast3G  = "Fast 3G"
	NetworkSlow4G  = "Slow 4G"
	NetworkFast4G  = "Fast 4G"
)

// Emulation is what [Actor.Emulate] makes a page emulate. Each call replaces
// every setting: a zero field turns its emulation off. The exception is
// Headers, which a nil map leaves as they are.
type Emulation struct {
	// Network is one of the Network* names, or "" for no throttling.
	Network string
	// CPU is the CPU slowdown factor, from 1 to 20; 0 or 1 means none.
	CPU float64
	// Geolocation, if non-nil, is the position navigator.geolocation
	// reports.
	Geolocation *Geolocation
	// UserAgent replaces the browser's user agent, in navigator.userAgent
	// and in request headers. "" restores the browser's own.
	UserAgent string
	// ColorScheme is the prefers-color-scheme media feature: "dark",
	// "light", or "" (or "auto") for the browser's own.
	ColorScheme string
	// ForcedColors is the forced-colors media feature: "active", "none",
	// or "" (or "auto").
	ForcedColors string
	// PrefersContrast is the prefers-contrast media feature: "more",
	// "less", "custom", "no-preference", or "" (or "auto").
	PrefersContrast string
	// PrefersReducedMotion is the prefers-reduced-motion media feature:
	// "reduce", "no-preference", or "" (or "auto").
	PrefersReducedMotion string
	// Viewport, if non-nil, overrides the page's viewport and device
	// metrics.
	Viewport *Viewport
	// Headers, if non-nil, replaces the extra HTTP headers sent with every
	// request of the page; an empty map removes them. Nil keeps them.
	Headers map[string]string
}

// Geolocation is an emulated position, in degrees.
type Geolocation struct {
	Latitude  float64 // -90 to 90
	Longitude float64 // -180 to 180
}

// Viewport is an emulated device screen.
type Viewport struct {
	Width, Height int // CSS pixels
	// DeviceScaleFactor is the device pixel ratio; 0 means not given, and
	// 1 is used.
	DeviceScaleFactor float64
	Mobile            bool // mobile layout: meta viewport, overlay scrollbars
	Touch             bool // touch events and a coarse pointer
	Landscape         bool // landscape screen orientation
}

// MaxViewportSide is the largest width or height, in CSS pixels, that
// Chrome accepts for a viewport.
const MaxViewportSide = 10_000_000

// Timeouts are a page's default timeouts: the base defaults scaled by the
// CPU and network it emulates, as chrome-devtools-mcp 1.11 scales them,
// so that throttling does not make every wait time out.
type Timeouts struct {
	// Navigation bounds a navigation's wait for its document when the
	// caller gives no timeout: DefaultNavigationTimeout × network × CPU.
	Navigation time.Duration
	// WaitFor is wait_for's budget when the caller gives none:
	// DefaultWaitForTimeout × CPU.
	WaitFor time.Duration
}

// DefaultTimeouts returns the timeouts of a page that emulates nothing.
func DefaultTimeouts() Timeouts {
	return Timeouts{Navigation: DefaultNavigationTimeout, WaitFor: DefaultWaitForTimeout}
}

// Timeouts returns the default timeouts that emulating e implies.
func (e Emulation) Timeouts() Timeouts {
	cpu, net := cpuFactor(e.CPU), networkPreset(e.Network).multiplier
	return Timeouts{
		Navigation: scale(DefaultNavigationTimeout, net*cpu),
		WaitFor:    scale(DefaultWaitForTimeout, cpu),
	}
}

// scale multiplies d by f, rounded to the millisecond (upstream prints the
// product of floats, 27500.000000000004 ms, where we print 27500 ms).
func scale(d time.Duration, f float64) time.Duration {
	return time.Duration(math.Round(float64(d.Milliseconds())*f)) * time.Millisecond
}

func cpuFactor(rate float64) float64 { return max(rate, 1) }

// check reports the first setting of e that cannot be emulated. The
// transport words these for agents; this is the page's own guard.
func (e Emulation) check() error {
	if _, ok := networkPresetOK(e.Network); !ok {
		return fmt.Errorf("unknown network conditions %q", e.Network)
	}
	if e.CPU != 0 && (e.CPU < 1 || e.CPU > 20 || math.IsNaN(e.CPU)) {
		return fmt.Errorf("CPU throttling rate %v is not between 1 and 20", e.CPU)
	}
	if g := e.Geolocation; g != nil && !(math.Abs(g.Latitude) <= 90 && math.Abs(g.Longitude) <= 180) {
		return fmt.Errorf("geolocation %v,%v is out of range", g.Latitude, g.Longitude)
	}
	if v := e.Viewport; v != nil {
		if v.Width <= 0 || v.Height <= 0 || v.Width > MaxViewportSide || v.Height > MaxViewportSide {
			return fmt.Errorf("viewport %dx%d is out of range", v.Width, v.Height)
		}
		if v.DeviceScaleFactor < 0 || math.IsNaN(v.DeviceScaleFactor) || math.IsInf(v.DeviceScaleFactor, 0) {
			return fmt.Errorf("device scale factor %v is not positive", v.DeviceScaleFactor)
		}
	}
	return nil
}

// preset is a network condition: Puppeteer's PredefinedNetworkConditions,
// which chrome-devtools-mcp uses (its Slow 4G has Fast 3G's figures), and
// the multiplier of timeouts that wait on the network, as upstream's.
type preset struct {
	download, upload float64 // bytes per second; -1 for no limit
	latency          float64 // added round-trip time, ms
	multiplier       float64
}

func networkPresetOK(name string) (preset, bool) {
	switch name {
	case "":
		return preset{download: -1, upload: -1, multiplier: 1}, true
	case NetworkOffline:
		// Nothing loads, and a navigation fails at once with
		// net::ERR_INTERNET_DISCONNECTED: no reason to wait longer (1, as
		// upstream's multiplier table has no entry for it).
		return preset{download: -1, upload: -1, multiplier: 1}, true
	case NetworkSlow3G:
		return preset{download: 500_000 / 8 * 0.8, upload: 500_000 / 8 * 0.8, latency: 400 * 5, multiplier: 10}, true
	case NetworkFast3G:
		return preset{download: 1_600_000 / 8 * 0.9, upload: 750_000 / 8 * 0.9, latency: 150 * 3.75, multiplier: 5}, true
	case NetworkSlow4G:
		return preset{download: 1_600_000 / 8 * 0.9, upload: 750_000 / 8 * 0.9, latency: 150 * 3.75, multiplier: 2.5}, true
	case NetworkFast4G:
		return preset{download: 9_000_000 / 8 * 0.9, upload: 1_500_000 / 8 * 0.9, latency: 60 * 2.75, multiplier: 1}, true
	}
	return preset{}, false
}

func networkPreset(name string) preset {
	p, ok := networkPresetOK(name)
	if !ok {
		p, _ = networkPresetOK("")
	}
	return p
}

// metrics are the device metrics a page is given: from emulate's viewport,
// else from resize_page's size, else none. It is comparable, so that an
// unchanged override is not sent again (each one fires resize events).
type metrics struct {
	set                      bool
	width, height            int
	dpr                      float64 // 0: the device's own
	mobile, touch, landscape bool
	orient                   bool // set the screen orientation (emulate's viewport)
}

func metricsOf(v *Viewport, size *[2]int) metrics {
	switch {
	case v != nil:
		dpr := v.DeviceScaleFactor
		if dpr == 0 {
			dpr = 1
		}
		return metrics{set: true, width: v.Width, height: v.Height, dpr: dpr,
			mobile: v.Mobile, touch: v.Touch, landscape: v.Landscape, orient: true}
	case size != nil:
		return metrics{set: true, width: size[0], height: size[1]}
	}
	return metrics{}
}

// emulationState is the conditions a page is made to emulate (emulate,
// resize_page). It is owned by the actor goroutine, except published, which
// any goroutine may load. The zero value emulates nothing.
type emulationState struct {
	// cur is the settings in force; each field is updated once Chrome has
	// accepted it, so after a failed call it still says what the page
	// emulates. cur.Headers is unused: headers are not reported.
	cur     Emulation
	size    *[2]int // resize_page's width and height, if called
	applied metrics // the device metrics override in force
	granted bool    // geolocation permission granted in the page's browser context
	// headers is the JSON of the extra HTTP headers in force, nil for none:
	// an out-of-process iframe that attaches later gets them too.
	headers json.RawMessage
	// published holds cur.Timeouts() for [Actor.Timeouts]. Written only on
	// the actor goroutine, after each change; nil means the defaults.
	published atomic.Pointer[Timeouts]
}

// cpu returns the CPU slowdown being emulated, 1 for none. Timeouts of
// waits that depend on the page's own speed scale with it, as upstream's.
func (e *emulationState) cpu() float64 { return cpuFactor(e.cur.CPU) }

// network returns the network slowdown being emulated (Slow 3G = 10), 1
// for none. Timeouts of waits for the network scale with it.
func (e *emulationState) network() float64 { return networkPreset(e.cur.Network).multiplier }

// timeouts returns the page's default timeouts.
func (e *emulationState) timeouts() Timeouts { return e.cur.Timeouts() }

func (e *emulationState) publish() {
	t := e.timeouts()
	e.published.Store(&t)
}

// inForce returns the settings in force for [State], sharing no memory
// with the actor's own: a State crosses to other goroutines.
func (e *emulationState) inForce() Emulation {
	c := e.cur
	c.Headers = nil
	if g := c.Geolocation; g != nil {
		gc := *g
		c.Geolocation = &gc
	}
	if v := c.Viewport; v != nil {
		vc := *v
		c.Viewport = &vc
	}
	return c
}

// Timeouts returns the page's default timeouts under the emulation in force.
// It never waits on the actor, so a caller can size a call's budget before
// the call queues behind others; an emulate call still queued is not yet
// reflected.
func (a *Actor) Timeouts() Timeouts {
	if t := a.emu.published.Load(); t != nil {
		return *t
	}
	return DefaultTimeouts()
}

// Emulate makes the page emulate e, replacing what earlier calls set (see
// [Emulation]). Settings are applied in order, each only if it changed;
// when one fails the page keeps the ones applied before it, and the
// returned State reports exactly what is in force. A change of the mobile
// or touch flags reloads the page, as Puppeteer does, since pages detect
// touch support when they load; the reload is waited for like a
// navigation. While a dialog is open it fails with a [*DialogError] and
// changes nothing.
func (a *Actor) Emulate(ctx context.Context, e Emulation) (State, error) {
	if err := e.check(); err != nil {
		return State{}, err
	}
	// The actor keeps e: it must not share memory with the caller.
	if g := e.Geolocation; g != nil {
		e.Geolocation = &Geolocation{g.Latitude, g.Longitude}
	}
	if v := e.Viewport; v != nil {
		vc := *v
		e.Viewport = &vc
	}
	e.Headers = maps.Clone(e.Headers)
	return withState(ask(ctx, a, func(ctx context.Context) (stateAndError, error) {
		err := a.emulate(ctx, e)
		return stateAndError{a.state(), err}, nil
	}))
}

// stateAndError carries a call's error together with the page's state
// through [actor.Ask], which drops the value of a failed call: after a
// failed emulate the reply still says what is emulated, and which dialog
// is open.
type stateAndError struct {
	state State
	err   error
}

func withState(r stateAndError, err error) (State, error) {
	if err != nil {
		return State{}, err
	}
	return r.state, r.err
}

// Resize sets the size of the page's viewport to width × height CSS pixels
// (resize_page). It overrides the page's device metrics rather than resizing
// the browser window: tabs share a window, and resizing it would resize
// every other agent's tab too. A viewport set by [Actor.Emulate] takes
// precedence; the size applies again once that viewport is removed.
func (a *Actor) Resize(ctx context.Context, width, height int) (State, error) {
	if width <= 0 || height <= 0 || width > MaxViewportSide || height > MaxViewportSide {
		return State{}, fmt.Errorf("page size %dx%d is out of range", width, height)
	}
	return withState(ask(ctx, a, func(ctx context.Context) (stateAndError, error) {
		if err := a.needRenderer(); err != nil {
			return stateAndError{a.state(), err}, nil
		}
		size := &[2]int{width, height}
		if err := a.setMetrics(ctx, metricsOf(a.emu.cur.Viewport, size)); err != nil {
			return stateAndError{a.state(), fmt.Errorf("resize: %w", err)}, nil
		}
		a.emu.size = size
		return stateAndError{a.state(), nil}, nil
	}))
}

// emulate applies e on the actor goroutine.
func (a *Actor) emulate(ctx context.Context, e Emulation) error {
	// Overrides are applied by the renderer, which a dialog pauses: every
	// call would hang until it closes (emulate is blockedByDialog upstream).
	if err := a.needRenderer(); err != nil {
		return err
	}
	for _, f := range []*string{&e.ColorScheme, &e.ForcedColors, &e.PrefersContrast, &e.PrefersReducedMotion} {
		if *f == "auto" {
			*f = ""
		}
	}
	if e.CPU == 1 {
		e.CPU = 0
	}
	s := &a.emu
	defer s.publish()

	// Each setting goes to the page's session and to its out-of-process
	// iframes' (onAll), whose renderers, requests and documents are their
	// own; an iframe that attaches later gets the settings in force
	// (setUpChild).
	if e.Network != s.cur.Network {
		if err := a.onAll(ctx, func(ctx context.Context, s *Session) error { return setNetwork(ctx, s, e.Network) }); err != nil {
			return fmt.Errorf("emulate network conditions: %w", err)
		}
		s.cur.Network = e.Network
	}
	if e.CPU != s.cur.CPU {
		err := a.onAll(ctx, func(ctx context.Context, s *Session) error {
			return setCPU(ctx, s, e.CPU)
		})
		if err != nil {
			return fmt.Errorf("emulate CPU throttling: %w", err)
		}
		s.cur.CPU = e.CPU
	}
	if !sameGeolocation(e.Geolocation, s.cur.Geolocation) {
		if err := a.setGeolocation(ctx, e.Geolocation); err != nil {
			return fmt.Errorf("emulate geolocation: %w", err)
		}
		s.cur.Geolocation = e.Geolocation
	}
	if e.UserAgent != s.cur.UserAgent {
		// An empty user agent removes the override.
		err := a.onAll(ctx, func(ctx context.Context, s *Session) error {
			return setUserAgent(ctx, s, e.UserAgent)
		})
		if err != nil {
			return fmt.Errorf("emulate user agent: %w", err)
		}
		s.cur.UserAgent = e.UserAgent
	}
	if e.ColorScheme != s.cur.ColorScheme || e.ForcedColors != s.cur.ForcedColors ||
		e.PrefersContrast != s.cur.PrefersContrast || e.PrefersReducedMotion != s.cur.PrefersReducedMotion {
		// setEmulatedMedia replaces every feature at once; an empty value
		// removes that feature's override.
		err := a.onAll(ctx, func(ctx context.Context, s *Session) error {
			return setMedia(ctx, s, e)
		})
		if err != nil {
			return fmt.Errorf("emulate media features: %w", err)
		}
		s.cur.ColorScheme, s.cur.ForcedColors = e.ColorScheme, e.ForcedColors
		s.cur.PrefersContrast, s.cur.PrefersReducedMotion = e.PrefersContrast, e.PrefersReducedMotion
	}
	if e.Headers != nil {
		h, err := json.Marshal(e.Headers)
		if err != nil {
			return fmt.Errorf("emulate extra headers: %w", err)
		}
		err = a.onAll(ctx, func(ctx context.Context, s *Session) error {
			return setHeaders(ctx, s, h)
		})
		if err != nil {
			return fmt.Errorf("emulate extra headers: %w", err)
		}
		s.headers = h
		if len(e.Headers) == 0 {
			s.headers = nil
		}
	}
	// The viewport goes last, after the timeouts it may need are published:
	// it can reload the page (upstream does the same, for the same reason).
	s.publish()
	before := s.applied
	m := metricsOf(e.Viewport, s.size)
	if err := a.setMetrics(ctx, m); err != nil {
		return fmt.Errorf("emulate viewport: %w", err)
	}
	s.cur.Viewport = e.Viewport
	if m.mobile != before.mobile || m.touch != before.touch {
		return a.reloadForMetrics(ctx)
	}
	return nil
}

func sameGeolocation(x, y *Geolocation) bool {
	if x == nil || y == nil {
		return x == y
	}
	return *x == *y
}

// setGeolocation sets or clears the geolocation override. Setting it also
// grants the geolocation permission in the page's browser context, once:
// headless Chromium denies it otherwise, and the override would never reach
// the page (chrome-devtools-mcp has that bug). The grant covers every origin
// of the context, since the agent may navigate after emulating; it is made
// over Config.Grant's long-lived connection when there is one, because
// Chrome withdraws a grant when the session that made it detaches.
func (a *Actor) setGeolocation(ctx context.Context, g *Geolocation) error {
	if g == nil {
		return a.call(ctx, func(ctx context.Context) error { return a.c.Emulation.ClearGeolocationOverride(ctx) })
	}
	if !a.emu.granted {
		err := a.call(ctx, func(ctx context.Context) error {
			info, err := a.c.Target.GetTargetInfo(ctx, cdptarget.NewGetTargetInfoArgs())
			if err != nil {
				return err
			}
			var contextID string
			if id := info.TargetInfo.BrowserContextID; id != nil {
				contextID = string(*id)
			}
			if a.grant != nil {
				return a.grant(ctx, contextID, "geolocation")
			}
			args := browser.NewSetPermissionArgs(browser.PermissionDescriptor{Name: "geolocation"}, browser.PermissionSettingGranted)
			if contextID != "" {
				args.SetBrowserContextID(browser.ContextID(contextID))
			}
			return a.c.Browser.SetPermission(ctx, args)
		})
		if _, isDialog := errDialog(err); isDialog || ctx.Err() != nil {
			return err
		}
		if err != nil {
			// The override is still worth setting: a headed Chrome may
			// have the permission already.
			a.log.Debug().Err(err).Msg("grant geolocation permission")
		} else {
			a.emu.granted = true
		}
	}
	return a.call(ctx, func(ctx context.Context) error {
		return a.c.Emulation.SetGeolocationOverride(ctx, emulation.NewSetGeolocationOverrideArgs().
			SetLatitude(g.Latitude).SetLongitude(g.Longitude).SetAccuracy(0))
	})
}

// networkConditions are the throttling figures of
// Network.emulateNetworkConditionsByRule and Network.overrideNetworkState,
// which cdp v0.35.0 does not generate.
type networkConditions struct {
	URLPattern         *string `json:"urlPattern,omitempty"`
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

// setNetwork emulates the named network conditions, "" for none, on
// session s. It uses the rule-based commands that replaced
// Network.emulateNetworkConditions (deprecated), as Puppeteer does, and
// falls back to the old one on a Chrome that lacks them.
func setNetwork(ctx context.Context, s *Session, name string) error {
	p := networkPreset(name)
	state := networkConditions{Offline: name == NetworkOffline, Latency: p.latency, DownloadThroughput: p.download, UploadThroughput: p.upload}
	if state.Offline {
		state.Latency, state.DownloadThroughput, state.UploadThroughput = 0, -1, -1
	}
	rules := []networkConditions{}
	if name != "" {
		all := "" // matches every URL
		r := state
		r.URLPattern = &all
		rules = append(rules, r)
	}
	rpc := s.conn.RPC()
	err := rpcc.Invoke(ctx, "Network.emulateNetworkConditionsByRule", map[string]any{"matchedNetworkConditions": rules}, nil, rpc)
	var re *rpcc.ResponseError
	if errors.As(err, &re) && re.Code == -32601 { // method not found
		return s.c.Network.EmulateNetworkConditions(ctx, network.NewEmulateNetworkConditionsArgs(
			state.Offline, state.Latency, state.DownloadThroughput, state.UploadThroughput))
	}
	if err != nil {
		return err
	}
	// navigator.onLine and navigator.connection.
	return rpcc.Invoke(ctx, "Network.overrideNetworkState", state, nil, rpc)
}

// setCPU emulates a CPU slowdown (0 for none) on session s's renderer.
func setCPU(ctx context.Context, s *Session, cpu float64) error {
	return s.c.Emulation.SetCPUThrottlingRate(ctx, emulation.NewSetCPUThrottlingRateArgs(cpuFactor(cpu)))
}

// setUserAgent overrides the user agent of session s; "" removes the
// override.
func setUserAgent(ctx context.Context, s *Session, ua string) error {
	return s.c.Emulation.SetUserAgentOverride(ctx, emulation.NewSetUserAgentOverrideArgs(ua))
}

// setMedia emulates e's media features on session s. setEmulatedMedia
// replaces every feature at once; an empty value removes that feature's
// override.
func setMedia(ctx context.Context, s *Session, e Emulation) error {
	features := []emulation.MediaFeature{
		{Name: "prefers-color-scheme", Value: e.ColorScheme},
		{Name: "forced-colors", Value: e.ForcedColors},
		{Name: "prefers-contrast", Value: e.PrefersContrast},
		{Name: "prefers-reduced-motion", Value: e.PrefersReducedMotion},
	}
	return s.c.Emulation.SetEmulatedMedia(ctx, emulation.NewSetEmulatedMediaArgs().SetFeatures(features))
}

// setHeaders sets the extra HTTP headers (a JSON object) of session s.
func setHeaders(ctx context.Context, s *Session, h json.RawMessage) error {
	return s.c.Network.SetExtraHTTPHeaders(ctx, network.NewSetExtraHTTPHeadersArgs(network.Headers(h)))
}

// childEmulation is what an out-of-process iframe that attaches must
// emulate to match its page: the settings in force and the extra headers.
type childEmulation struct {
	cur     Emulation
	headers json.RawMessage
}

// emulateChild applies the page's emulation to a child session as it is
// set up, before its renderer runs. It runs on an adopt goroutine and
// touches no actor state.
func emulateChild(ctx context.Context, s *Session, e childEmulation) error {
	g, ctx := errgroup.WithContext(ctx)
	if e.cur.Network != "" {
		g.Go(func() error { return setNetwork(ctx, s, e.cur.Network) })
	}
	if e.cur.CPU != 0 {
		g.Go(func() error { return setCPU(ctx, s, e.cur.CPU) })
	}
	if e.cur.UserAgent != "" {
		g.Go(func() error { return setUserAgent(ctx, s, e.cur.UserAgent) })
	}
	if e.cur.ColorScheme != "" || e.cur.ForcedColors != "" || e.cur.PrefersContrast != "" || e.cur.PrefersReducedMotion != "" {
		g.Go(func() error { return setMedia(ctx, s, e.cur) })
	}
	if e.headers != nil {
		g.Go(func() error { return setHeaders(ctx, s, e.headers) })
	}
	return g.Wait()
}
