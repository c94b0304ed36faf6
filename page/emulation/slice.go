package emulation

// The page's side of the emulation, this capability's [page.Slice]: the
// settings in force, applied to the page's sessions, published to the
// core as they change.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/mafredri/cdp/protocol/browser"
	cdpemu "github.com/mafredri/cdp/protocol/emulation"
	cdptarget "github.com/mafredri/cdp/protocol/target"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page"
)

// slices finds a page's emulation.
var slices = page.Register(page.Capability[*Slice]{
	Name: "emulation",
	New:  func(h *page.Host) *Slice { return &Slice{h: h} },
})

// Of returns page a's emulation slice.
func Of(a *page.Actor) *Slice { return slices.Of(a) }

// Slice is the conditions a page is made to emulate (emulate,
// resize_page). Its methods may be called from any goroutine; each runs
// on the page's run goroutine, which owns its fields. The zero value
// emulates nothing.
type Slice struct {
	h *page.Host
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
}

// Report is the emulation's part of the page's [page.State]: the settings
// in force, sharing no memory with the slice's own ([FromState]).
func (sl *Slice) Report() any {
	c := sl.cur
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

// publish tells the core the pace the settings in force imply.
func (sl *Slice) publish() { sl.h.Loads().SetPace(sl.cur.pace()) }

// Emulate makes the page emulate e, replacing what earlier calls set (see
// [Emulation]). Settings are applied in order, each only if it changed;
// when one fails the page keeps the ones applied before it, and the
// returned State reports exactly what is in force. A change of the mobile
// or touch flags reloads the page, as Puppeteer does, since pages detect
// touch support when they load; the reload is waited for like a
// navigation. While a dialog is open it fails with a [*page.DialogError]
// and changes nothing.
func (sl *Slice) Emulate(ctx context.Context, e Emulation) (page.State, error) {
	if err := e.check(); err != nil {
		return page.State{}, err
	}
	// The slice keeps e: it must not share memory with the caller.
	if g := e.Geolocation; g != nil {
		e.Geolocation = &Geolocation{g.Latitude, g.Longitude}
	}
	if v := e.Viewport; v != nil {
		vc := *v
		e.Viewport = &vc
	}
	e.Headers = maps.Clone(e.Headers)
	return withState(page.Do(ctx, sl.h, func(ctx context.Context) (stateAndError, error) {
		err := sl.emulate(ctx, e)
		return stateAndError{sl.h.State(), err}, nil
	}))
}

// stateAndError carries a call's error together with the page's state
// through [page.Do], which drops the value of a failed call: after a
// failed emulate the reply still says what is emulated, and which dialog
// is open.
type stateAndError struct {
	state page.State
	err   error
}

func withState(r stateAndError, err error) (page.State, error) {
	if err != nil {
		return page.State{}, err
	}
	return r.state, r.err
}

// Resize sets the size of the page's viewport to width × height CSS pixels
// (resize_page). It overrides the page's device metrics rather than resizing
// the browser window: tabs share a window, and resizing it would resize
// every other agent's tab too. A viewport set by [Slice.Emulate] takes
// precedence; the size applies again once that viewport is removed.
func (sl *Slice) Resize(ctx context.Context, width, height int) (page.State, error) {
	if width <= 0 || height <= 0 || width > MaxViewportSide || height > MaxViewportSide {
		return page.State{}, fmt.Errorf("page size %dx%d is out of range", width, height)
	}
	h := sl.h
	return withState(page.Do(ctx, h, func(ctx context.Context) (stateAndError, error) {
		if err := h.NeedRenderer(); err != nil {
			return stateAndError{h.State(), err}, nil
		}
		size := &[2]int{width, height}
		if err := sl.setMetrics(ctx, metricsOf(sl.cur.Viewport, size)); err != nil {
			return stateAndError{h.State(), fmt.Errorf("resize: %w", err)}, nil
		}
		sl.size = size
		return stateAndError{h.State(), nil}, nil
	}))
}

// emulate applies e on the run goroutine.
func (sl *Slice) emulate(ctx context.Context, e Emulation) error {
	h := sl.h
	// Overrides are applied by the renderer, which a dialog pauses: every
	// call would hang until it closes (emulate is blockedByDialog upstream).
	if err := h.NeedRenderer(); err != nil {
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
	defer sl.publish()

	// Each setting goes to the page's session and to its out-of-process
	// iframes' (OnAll), whose renderers, requests and documents are their
	// own; an iframe that attaches later gets the settings in force
	// (SetUpChild).
	if e.Network != sl.cur.Network {
		if err := h.OnAll(ctx, func(ctx context.Context, s *page.Session) error { return setNetwork(ctx, s, e.Network) }); err != nil {
			return fmt.Errorf("emulate network conditions: %w", err)
		}
		sl.cur.Network = e.Network
	}
	if e.CPU != sl.cur.CPU {
		err := h.OnAll(ctx, func(ctx context.Context, s *page.Session) error {
			return setCPU(ctx, s, e.CPU)
		})
		if err != nil {
			return fmt.Errorf("emulate CPU throttling: %w", err)
		}
		sl.cur.CPU = e.CPU
	}
	if !sameGeolocation(e.Geolocation, sl.cur.Geolocation) {
		if err := sl.setGeolocation(ctx, e.Geolocation); err != nil {
			return fmt.Errorf("emulate geolocation: %w", err)
		}
		sl.cur.Geolocation = e.Geolocation
	}
	if e.UserAgent != sl.cur.UserAgent {
		// An empty user agent removes the override.
		err := h.OnAll(ctx, func(ctx context.Context, s *page.Session) error {
			return setUserAgent(ctx, s, e.UserAgent)
		})
		if err != nil {
			return fmt.Errorf("emulate user agent: %w", err)
		}
		sl.cur.UserAgent = e.UserAgent
	}
	if e.ColorScheme != sl.cur.ColorScheme || e.ForcedColors != sl.cur.ForcedColors ||
		e.PrefersContrast != sl.cur.PrefersContrast || e.PrefersReducedMotion != sl.cur.PrefersReducedMotion {
		// setEmulatedMedia replaces every feature at once; an empty value
		// removes that feature's override.
		err := h.OnAll(ctx, func(ctx context.Context, s *page.Session) error {
			return setMedia(ctx, s, e)
		})
		if err != nil {
			return fmt.Errorf("emulate media features: %w", err)
		}
		sl.cur.ColorScheme, sl.cur.ForcedColors = e.ColorScheme, e.ForcedColors
		sl.cur.PrefersContrast, sl.cur.PrefersReducedMotion = e.PrefersContrast, e.PrefersReducedMotion
	}
	if e.Headers != nil {
		hs, err := json.Marshal(e.Headers)
		if err != nil {
			return fmt.Errorf("emulate extra headers: %w", err)
		}
		err = h.OnAll(ctx, func(ctx context.Context, s *page.Session) error {
			return setHeaders(ctx, s, hs)
		})
		if err != nil {
			return fmt.Errorf("emulate extra headers: %w", err)
		}
		sl.headers = hs
		if len(e.Headers) == 0 {
			sl.headers = nil
		}
	}
	// The viewport goes last, after the timeouts it may need are published:
	// it can reload the page (upstream does the same, for the same reason).
	sl.publish()
	before := sl.applied
	m := metricsOf(e.Viewport, sl.size)
	if err := sl.setMetrics(ctx, m); err != nil {
		return fmt.Errorf("emulate viewport: %w", err)
	}
	sl.cur.Viewport = e.Viewport
	if m.mobile != before.mobile || m.touch != before.touch {
		return sl.reloadForMetrics(ctx)
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
func (sl *Slice) setGeolocation(ctx context.Context, g *Geolocation) error {
	h := sl.h
	c := h.Client()
	if g == nil {
		return h.Call(ctx, func(ctx context.Context) error { return c.Emulation.ClearGeolocationOverride(ctx) })
	}
	if !sl.granted {
		grant := h.Owner().Grant()
		err := h.Call(ctx, func(ctx context.Context) error {
			info, err := c.Target.GetTargetInfo(ctx, cdptarget.NewGetTargetInfoArgs())
			if err != nil {
				return err
			}
			var contextID string
			if id := info.TargetInfo.BrowserContextID; id != nil {
				contextID = string(*id)
			}
			if grant != nil {
				return grant(ctx, contextID, "geolocation")
			}
			args := browser.NewSetPermissionArgs(browser.PermissionDescriptor{Name: "geolocation"}, browser.PermissionSettingGranted)
			if contextID != "" {
				args.SetBrowserContextID(browser.ContextID(contextID))
			}
			return c.Browser.SetPermission(ctx, args)
		})
		var de *page.DialogError
		if errors.As(err, &de) || ctx.Err() != nil {
			return err
		}
		if err != nil {
			// The override is still worth setting: a headed Chrome may
			// have the permission already.
			h.Log().Debug().Err(err).Msg("grant geolocation permission")
		} else {
			sl.granted = true
		}
	}
	return h.Call(ctx, func(ctx context.Context) error {
		return c.Emulation.SetGeolocationOverride(ctx, cdpemu.NewSetGeolocationOverrideArgs().
			SetLatitude(g.Latitude).SetLongitude(g.Longitude).SetAccuracy(0))
	})
}

// SetUpChild applies the page's emulation to each new out-of-process
// iframe's session before its renderer runs ([page.ChildSetUp]): the
// settings in force and the extra headers, captured now.
func (sl *Slice) SetUpChild() func(ctx context.Context, s *page.Session) error {
	cur, headers := sl.cur, sl.headers
	return func(ctx context.Context, s *page.Session) error {
		g, ctx := errgroup.WithContext(ctx)
		if cur.Network != "" {
			g.Go(func() error { return setNetwork(ctx, s, cur.Network) })
		}
		if cur.CPU != 0 {
			g.Go(func() error { return setCPU(ctx, s, cur.CPU) })
		}
		if cur.UserAgent != "" {
			g.Go(func() error { return setUserAgent(ctx, s, cur.UserAgent) })
		}
		if cur.ColorScheme != "" || cur.ForcedColors != "" || cur.PrefersContrast != "" || cur.PrefersReducedMotion != "" {
			g.Go(func() error { return setMedia(ctx, s, cur) })
		}
		if headers != nil {
			g.Go(func() error { return setHeaders(ctx, s, headers) })
		}
		return g.Wait()
	}
}

// Restore sets the page's emulation in force again on its own session,
// after Lighthouse replaced it with its own ([page.Restorer]).
func (sl *Slice) Restore(ctx context.Context) error {
	h := sl.h
	cur, s := sl.cur, h.Top()
	var errs []error
	if cur.Network != "" {
		errs = append(errs, h.Call(ctx, func(ctx context.Context) error { return setNetwork(ctx, s, cur.Network) }))
	}
	if cur.CPU != 0 {
		errs = append(errs, h.Call(ctx, func(ctx context.Context) error { return setCPU(ctx, s, cur.CPU) }))
	}
	// Lighthouse's user agent goes with its session; the page's own, if
	// any, is set again (an empty one clears any left over).
	errs = append(errs, h.Call(ctx, func(ctx context.Context) error { return setUserAgent(ctx, s, cur.UserAgent) }))
	if cur.ColorScheme != "" || cur.ForcedColors != "" || cur.PrefersContrast != "" || cur.PrefersReducedMotion != "" {
		errs = append(errs, h.Call(ctx, func(ctx context.Context) error { return setMedia(ctx, s, cur) }))
	}
	if hs := sl.headers; hs != nil {
		errs = append(errs, h.Call(ctx, func(ctx context.Context) error { return setHeaders(ctx, s, hs) }))
	}
	// The device metrics are sent again whatever they were: Lighthouse's
	// screen emulation replaced them.
	m := sl.applied
	sl.applied = metrics{set: true, width: -1}
	if err := sl.setMetrics(ctx, m); err != nil {
		sl.applied = m
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// A slice is each of these.
var (
	_ page.Slice      = (*Slice)(nil)
	_ page.ChildSetUp = (*Slice)(nil)
	_ page.Reporter   = (*Slice)(nil)
	_ page.Restorer   = (*Slice)(nil)
)
