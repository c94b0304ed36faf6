package page

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mafredri/cdp/protocol/emulation"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/page/js"
)

// setMetrics makes m the page's device metrics override, unless it already
// is.
func (a *Actor) setMetrics(ctx context.Context, m metrics) error {
	if m == a.emu.applied {
		return nil
	}
	err := a.call(ctx, func(ctx context.Context) error {
		if !m.set {
			if err := a.c.Emulation.ClearDeviceMetricsOverride(ctx); err != nil {
				return err
			}
			return a.c.Emulation.SetTouchEmulationEnabled(ctx, emulation.NewSetTouchEmulationEnabledArgs(false))
		}
		args := emulation.NewSetDeviceMetricsOverrideArgs(m.width, m.height, m.dpr, m.mobile)
		if m.orient {
			o := emulation.ScreenOrientation{Type: "portraitPrimary", Angle: 0}
			if m.landscape {
				o = emulation.ScreenOrientation{Type: "landscapePrimary", Angle: 90}
			}
			args.SetScreenOrientation(o)
		}
		if err := a.c.Emulation.SetDeviceMetricsOverride(ctx, args); err != nil {
			return err
		}
		return a.c.Emulation.SetTouchEmulationEnabled(ctx, emulation.NewSetTouchEmulationEnabledArgs(m.touch))
	})
	if err != nil {
		return err
	}
	prev := a.emu.applied
	a.emu.applied = m
	a.awaitViewport(ctx, prev, m)
	return nil
}

// awaitViewport waits, briefly, until the page itself reports the viewport
// that setMetrics asked for: Chrome answers the override before the
// renderer has resized, so a script or a screenshot right after could see
// the old size. Best effort: it gives up after viewportSettle.
func (a *Actor) awaitViewport(ctx context.Context, prev, m metrics) {
	want := ""
	if m.set && !m.mobile {
		want = fmt.Sprintf("%dx%d", m.width, m.height)
	} else if !prev.set || prev.mobile {
		return // no size to expect, nor an old one to see go
	}
	old := fmt.Sprintf("%dx%d", prev.width, prev.height)
	ctx, cancel := context.WithTimeout(ctx, viewportSettle)
	defer cancel()
	for {
		var size string
		err := a.call(ctx, func(ctx context.Context) error {
			r, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.WindowSize).SetReturnByValue(true))
			if err == nil && r.ExceptionDetails == nil {
				json.Unmarshal(r.Result.Value, &size)
			}
			return err
		})
		if err != nil || (want != "" && size == want) || (want == "" && size != old) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// viewportSettle bounds [Actor.awaitViewport].
const viewportSettle = 500 * time.Millisecond

// reloadForMetrics reloads the page after the mobile or touch flag changed,
// waiting for it as navigate_page does: whether a page offers touch events
// ('ontouchstart' in window) is fixed when its document is created.
func (a *Actor) reloadForMetrics(ctx context.Context) error {
	opts := actionOptions{
		navigationTimeout: a.emu.timeouts().Navigation,
		handleDialog: func(typ string) (dialogAnswer, bool) {
			return dialogAnswer{accept: true}, typ == "beforeunload"
		},
	}
	_, err := a.perform(ctx, opts, func(ctx context.Context, _ *actionProgress) error {
		return a.c.Page.Reload(ctx, page.NewReloadArgs())
	})
	if err != nil {
		return fmt.Errorf("reload for the new viewport: %w", err)
	}
	return nil
}
