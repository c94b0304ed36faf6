package page

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/input"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/js"
)

// dragSettle is how long a drag waits for Chrome to report an HTML5 drag
// it intercepted, and pauses between dragging over the target and
// dropping, as chrome-devtools-mcp does (its one fixed delay).
const dragSettle = 50 * time.Millisecond

// oopifDragSettle is how long a drag from or onto an element of an
// out-of-process iframe waits for Chrome to report an intercepted HTML5
// drag: the drag starts in the iframe's renderer, which tells the browser,
// which tells the page's session; on a loaded machine that takes longer
// than dragSettle (measured: the drop was missed in 1 of 4 runs).
const oopifDragSettle = 500 * time.Millisecond

// dragReportCap bounds the wait for Chrome's report of an HTML5 drag the
// page is known to have begun (its dragstart fired and was not cancelled):
// the report comes within milliseconds on a quiet machine and seconds at a
// load of 30 on 2 cores; past this, the drag is released as a mouse drag.
const dragReportCap = 10 * time.Second

// Drag drags the element fromUID onto toUID and waits for the
// consequences. HTML5 drag and drop (draggable elements with dragstart and
// drop handlers) is intercepted and replayed with Chrome's drag events, as
// Puppeteer does; otherwise the mouse drag itself is what the page sees.
func (a *Actor) Drag(ctx context.Context, fromUID, toUID string, opts InputOptions) (InputResult, error) {
	return ask(ctx, a, func(ctx context.Context) (InputResult, error) {
		if err := a.needRenderer(); err != nil {
			return InputResult{}, err
		}
		from, err := a.element(ctx, fromUID)
		if err != nil {
			return InputResult{}, err
		}
		to, err := a.element(ctx, toUID)
		if err != nil {
			return InputResult{}, err
		}
		// A drag goes through the page's session, in the page's
		// coordinates, even within an out-of-process iframe: Chrome
		// intercepts and replays HTML5 drags for the whole page there
		// (an iframe's session reports no intercepted drag).
		c := a.c
		if err := a.call(ctx, func(ctx context.Context) error {
			return c.Input.SetInterceptDrags(ctx, input.NewSetInterceptDragsArgs(true))
		}); err != nil {
			return InputResult{}, err
		}
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			a.act.Await(rctx, func(ctx context.Context) error {
				return c.Input.SetInterceptDrags(ctx, input.NewSetInterceptDragsArgs(false))
			}, nil)
		}()
		watch := make(chan cdpconn.Event, 4)
		a.watch = watch
		defer func() { a.watch = nil }()
		res, err := a.actOn(ctx, from, actionOptions{gate: "drag"}, func(ctx context.Context, from elementRef, p *Progress) error {
			return dragAction(ctx, c, from, to, watch, p)
		})
		return a.finishInput(ctx, res, err, opts)
	})
}

// dragAction presses on from, moves onto to, and releases there, through
// c, the page's session, at their points in the page. It runs on the
// waiter's goroutine. The drop, or the release when Chrome intercepted no
// HTML5 drag, is the drag's decisive step, marked on p.
func dragAction(ctx context.Context, c *cdp.Client, from, to elementRef, watch <-chan cdpconn.Event, p *Progress) error {
	fx, fy, err := from.pagePoint(ctx)
	if err != nil {
		return err
	}
	mouse := func(typ string, x, y float64, buttons int) error {
		ev := input.NewDispatchMouseEventArgs(typ, x, y).SetButton(input.MouseButtonLeft).SetButtons(buttons)
		if typ != "mouseMoved" {
			ev.SetClickCount(1)
		}
		return c.Input.DispatchMouseEvent(ctx, ev)
	}
	// Events the page's session routes into an out-of-process iframe are
	// hit-tested against what the iframe last drew: let it draw first.
	painted(ctx, append(oopifFrames(from.c, from.hops), oopifFrames(to.c, to.hops)...)...)
	started := watchDragStart(ctx, from)
	defer func() { // stops listening if the drag failed before asking
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		started(cctx)
	}()
	if err := mouse("mouseMoved", fx, fy, 0); err != nil {
		return err
	}
	if err := mouse("mousePressed", fx, fy, 1); err != nil {
		return err
	}
	tx, ty, err := to.pagePoint(ctx)
	if err != nil {
		return err
	}
	painted(ctx, oopifFrames(to.c, to.hops)...)
	settle := dragSettle
	if len(from.hops) > 0 || len(to.hops) > 0 {
		settle = oopifDragSettle
	}
	if err := mouse("mouseMoved", tx, ty, 1); err != nil {
		return err
	}
	if started(ctx) {
		// The page began an HTML5 drag: Chrome reports it intercepted,
		// however long that takes on a busy machine.
		settle = dragReportCap
	}
	select {
	case ev := <-watch:
		var e struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		var data input.DragData
		if err := json.Unmarshal(e.Data, &data); err != nil {
			return err
		}
		for _, typ := range []string{"dragEnter", "dragOver"} {
			if err := c.Input.DispatchDragEvent(ctx, input.NewDispatchDragEventArgs(typ, tx, ty, data)); err != nil {
				return err
			}
		}
		if err := sleep(ctx, dragSettle); err != nil {
			return err
		}
		p.Commit()
		if err := c.Input.DispatchDragEvent(ctx, input.NewDispatchDragEventArgs("drop", tx, ty, data)); err != nil {
			return err
		}
	case <-time.After(settle):
		// Not an HTML5 drag: the mouse events are the drag.
	case <-ctx.Done():
		return ctx.Err()
	}
	p.Commit()
	return mouse("mouseReleased", tx, ty, 0)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watchDragStart starts listening for the dragstart a press and move on
// from may fire, and returns the function that says whether it fired (the
// first time it is called; later calls do nothing and say false). It
// says false whenever it cannot tell (a snapshot the walker did not take, a
// document gone, a page listener that stopped the event first): the caller
// then waits as before, for a fixed time.
func watchDragStart(ctx context.Context, from elementRef) func(context.Context) bool {
	no := func(context.Context) bool { return false }
	if from.node == nil || from.node.Ref.IsZero() {
		return no
	}
	el, err := walker.Object(ctx, from.c, from.node.Ref)
	if err != nil {
		return no
	}
	defer releaseObject(from.c, el)
	r, err := from.c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.DragStart).SetObjectID(el).SetSilent(true))
	if err != nil || r.ExceptionDetails != nil || r.Result.ObjectID == nil {
		return no
	}
	st, asked := *r.Result.ObjectID, false
	return func(ctx context.Context) bool {
		if asked {
			return false
		}
		asked = true
		defer releaseObject(from.c, st)
		r, err := from.c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.DragStarted).SetObjectID(st).
			SetReturnByValue(true).SetSilent(true))
		if err != nil || r.ExceptionDetails != nil {
			return false
		}
		var fired bool
		return json.Unmarshal(r.Result.Value, &fired) == nil && fired
	}
}
