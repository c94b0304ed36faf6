package emulation

// The device metrics override that emulate's viewport and resize_page's
// size share.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	cdpemu "github.com/mafredri/cdp/protocol/emulation"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/page/js"
)

// setMetrics makes m the page's device metrics override, unless it already
// is.
func (sl *Slice) setMetrics(ctx context.Context, m metrics) error {
	if m == sl.applied {
		return nil
	}
	c := sl.h.Client()
	err := sl.h.Call(ctx, func(ctx context.Context) error {
		if !m.set {
			if err := c.Emulation.ClearDeviceMetricsOverride(ctx); err != nil {
				return err
			}
			return c.Emulation.SetTouchEmulationEnabled(ctx, cdpemu.NewSetTouchEmulationEnabledArgs(false))
		}
		args := cdpemu.NewSetDeviceMetricsOverrideArgs(m.width, m.height, m.dpr, m.mobile)
		if m.orient {
			o := cdpemu.ScreenOrientation{Type: "portraitPrimary", Angle: 0}
			if m.landscape {
				o = cdpemu.ScreenOrientation{Type: "landscapePrimary", Angle: 90}
			}
			args.SetScreenOrientation(o)
		}
		if err := c.Emulation.SetDeviceMetricsOverride(ctx, args); err != nil {
			return err
		}
		return c.Emulation.SetTouchEmulationEnabled(ctx, cdpemu.NewSetTouchEmulationEnabledArgs(m.touch))
	})
	if err != nil {
		return err
	}
	prev := sl.applied
	sl.applied = m
	sl.awaitViewport(ctx, prev, m)
	return nil
}

// awaitViewport waits, briefly, until the page itself reports the viewport
// that setMetrics asked for: Chrome answers the override before the
// renderer has resized, so a script or a screenshot right after could see
// the old size. Best effort: it gives up after viewportSettle.
func (sl *Slice) awaitViewport(ctx context.Context, prev, m metrics) {
	want := ""
	if m.set && !m.mobile {
		want = fmt.Sprintf("%dx%d", m.width, m.height)
	} else if !prev.set || prev.mobile {
		return // no size to expect, nor an old one to see go
	}
	old := fmt.Sprintf("%dx%d", prev.width, prev.height)
	ctx, cancel := context.WithTimeout(ctx, viewportSettle)
	defer cancel()
	c := sl.h.Client()
	for {
		var size string
		err := sl.h.Call(ctx, func(ctx context.Context) error {
			r, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.WindowSize).SetReturnByValue(true))
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

// viewportSettle bounds [Slice.awaitViewport].
const viewportSettle = 500 * time.Millisecond

// reloadForMetrics reloads the page after the mobile or touch flag changed,
// waiting for it as navigate_page does: whether a page offers touch events
// ('ontouchstart' in window) is fixed when its document is created.
func (sl *Slice) reloadForMetrics(ctx context.Context) error {
	if err := sl.h.Loads().Reload(ctx); err != nil {
		return fmt.Errorf("reload for the new viewport: %w", err)
	}
	return nil
}
