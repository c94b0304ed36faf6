// Package emulation is the page capability that makes a page emulate
// other conditions (the emulate and resize_page tools): network and CPU
// throttling, a position, a user agent, media features, a device's
// viewport, extra HTTP headers, and resize_page's size. Every override is
// set on the page's own CDP session and on its out-of-process iframes',
// so it applies to this page only, lasts across its navigations, and ends
// with the session; an iframe that attaches later gets the settings in
// force before its renderer runs ([page.ChildSetUp]).
//
// A page's settings live in its [Slice], owned by the page's run
// goroutine. The core learns what it needs of them through its
// [page.Host]: the pace the emulation implies (the default timeouts, read
// by [page.Actor.Timeouts] from any goroutine, and the slowdowns that
// stretch the waiter's waits), the emulation's part of every page-scoped
// reply's [page.State] ([FromState]), and setting them again after
// Lighthouse replaced them.
//
// Goroutines: none of its own. A slice's methods run on its page's run
// goroutine; what a new out-of-process iframe's session needs runs on the
// page's goroutine that sets the session up, one goroutine per setting
// (errgroup), all ended before it returns.
package emulation

import (
	"fmt"
	"math"
	"time"

	"github.com/tabhive/tabhive/page"
)

// Network condition names, as emulate's networkConditions takes them.
const (
	NetworkOffline = "Offline"
	NetworkSlow3G  = "Slow 3G"
	NetworkFast3G  = "Fast 3G"
	NetworkSlow4G  = "Slow 4G"
	NetworkFast4G  = "Fast 4G"
)

// Emulation is what [Slice.Emulate] makes a page emulate. Each call
// replaces every setting: a zero field turns its emulation off. The
// exception is Headers, which a nil map leaves as they are.
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

// FromState returns the emulation a page's state reports: as
// [Slice.Emulate] keeps it, a media feature given as "auto" is "", a CPU
// rate of 1 is 0, and Headers is always nil, as extra headers are not
// reported. resize_page's size is not part of it. The zero value means
// nothing is emulated.
func FromState(s page.State) Emulation {
	for _, p := range s.Parts {
		if e, ok := p.(Emulation); ok {
			return e
		}
	}
	return Emulation{}
}

// Timeouts returns the default timeouts that emulating e implies.
func (e Emulation) Timeouts() page.Timeouts {
	cpu, net := cpuFactor(e.CPU), networkPreset(e.Network).multiplier
	return page.Timeouts{
		Navigation: scale(page.DefaultNavigationTimeout, net*cpu),
		WaitFor:    scale(page.DefaultWaitForTimeout, cpu),
	}
}

// pace returns what emulating e implies for the page's waits.
func (e Emulation) pace() page.Pace {
	return page.Pace{Timeouts: e.Timeouts(), CPU: e.CPU, Network: e.Network,
		NetworkFactor: networkPreset(e.Network).multiplier}
}

// scale multiplies d by f, rounded to the millisecond (upstream prints the
// product of floats, 27500.000000000004 ms, where we print 27500 ms).
func scale(d time.Duration, f float64) time.Duration {
	return time.Duration(math.Round(float64(d.Milliseconds())*f)) * time.Millisecond
}

func cpuFactor(rate float64) float64 { return max(rate, 1) }

// check reports the first setting of e that cannot be emulated. The
// tools word these for agents; this is the slice's own guard.
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
