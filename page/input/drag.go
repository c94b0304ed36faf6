package input

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mafredri/cdp"
	cdpinput "github.com/mafredri/cdp/protocol/input"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
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

// Drag drags the element fromUID onto toUID on page a and waits for the
// consequences. HTML5 drag and drop (draggable elements with dragstart and
// drop handlers) is intercepted and replayed with Chrome's drag events, as
// Puppeteer does; otherwise the mouse drag itself is what the page sees.
func Drag(ctx context.Context, a *page.Actor, fromUID, toUID string, opts page.InputOptions) (page.InputResult, error) {
	sl := key.Of(a)
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (page.InputResult, error) {
		if err := h.NeedRenderer(); err != nil {
			return page.InputResult{}, err
		}
		from, err := h.Elements().Element(ctx, fromUID)
		if err != nil {
			return page.InputResult{}, err
		}
		to, err := h.Elements().Element(ctx, toUID)
		if err != nil {
			return page.InputResult{}, err
		}
		fromSession := h.SessionOf(from.Node().FrameID)
		// A drag goes through the page's session, in the page's
		// coordinates, even within an out-of-process iframe: Chrome
		// intercepts and replays HTML5 drags for the whole page there
		// (an iframe's session reports no intercepted drag).
		c := h.Client()
		if err := h.Call(ctx, func(ctx context.Context) error {
			return c.Input.SetInterceptDrags(ctx, cdpinput.NewSetInterceptDragsArgs(true))
		}); err != nil {
			return page.InputResult{}, err
		}
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			h.Await(rctx, func(ctx context.Context) error {
				return c.Input.SetInterceptDrags(ctx, cdpinput.NewSetInterceptDragsArgs(false))
			}, nil)
		}()
		watch, stop := sl.watching()
		defer stop()
		res, err := h.Elements().ActOn(ctx, from, "drag", func(ctx context.Context, from page.Element, p *page.Progress) error {
			return dragAction(ctx, c, from, fromSession, to, watch, p)
		})
		return h.Elements().FinishInput(ctx, res, err, opts)
	})
}

// dragAction presses on from, moves onto to, and releases there, through
// c, the page's session, at their points in the page. It runs on the
// waiter's goroutine. The drop, or the release when Chrome intercepted no
// HTML5 drag, is the drag's decisive step, marked on p.
func dragAction(ctx context.Context, c *cdp.Client, from page.Element, fromSession *page.Session, to page.Element, watch <-chan cdpconn.Event, p *page.Progress) error {
	fx, fy, err := from.PagePoint(ctx)
	if err != nil {
		return err
	}
	mouse := func(typ string, x, y float64, buttons int) error {
		ev := cdpinput.NewDispatchMouseEventArgs(typ, x, y).SetButton(cdpinput.MouseButtonLeft).SetButtons(buttons)
		if typ != "mouseMoved" {
			ev.SetClickCount(1)
		}
		return c.Input.DispatchMouseEvent(ctx, ev)
	}
	// Events the page's session routes into an out-of-process iframe are
	// hit-tested against what the iframe last drew: let it draw first.
	page.Painted(ctx, from, to)
	started := watchDragStart(ctx, from, fromSession)
	defer func() { // stops listening, whatever came of the drag
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		started(cctx, true)
	}()
	if err := mouse("mouseMoved", fx, fy, 0); err != nil {
		return err
	}
	if err := mouse("mousePressed", fx, fy, 1); err != nil {
		return err
	}
	tx, ty, err := to.PagePoint(ctx)
	if err != nil {
		return err
	}
	page.Painted(ctx, to)
	settle := dragSettle
	if from.InIframe() || to.InIframe() {
		settle = oopifDragSettle
	}
	if err := mouse("mouseMoved", tx, ty, 1); err != nil {
		return err
	}
	known := started(ctx, false)
	if known {
		// The page began an HTML5 drag: Chrome reports it intercepted,
		// however long that takes on a busy machine.
		settle = dragReportCap
	}
	deadline := time.NewTimer(settle)
	defer deadline.Stop()
	for {
		select {
		case ev := <-watch:
			if err := drop(ctx, c, ev, tx, ty, p); err != nil {
				return err
			}
		case <-deadline.C:
			if !known && started(ctx, false) {
				// The dragstart fired after the move was answered (a
				// loaded machine runs the iframe's renderer late): wait
				// for Chrome's report as for one known at once.
				known = true
				deadline.Reset(dragReportCap)
				continue
			}
			// Not an HTML5 drag: the mouse events are the drag.
		case <-ctx.Done():
			return ctx.Err()
		}
		break
	}
	p.Commit()
	return mouse("mouseReleased", tx, ty, 0)
}

// drop replays the HTML5 drag Chrome reported intercepted (ev) onto the
// point tx, ty, through c, the page's session: over the target, then the
// drop, the drag's decisive step, marked on p.
func drop(ctx context.Context, c *cdp.Client, ev cdpconn.Event, tx, ty float64, p *page.Progress) error {
	var e struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(ev.Params, &e); err != nil {
		return err
	}
	var data cdpinput.DragData
	if err := json.Unmarshal(e.Data, &data); err != nil {
		return err
	}
	for _, typ := range []string{"dragEnter", "dragOver"} {
		if err := c.Input.DispatchDragEvent(ctx, cdpinput.NewDispatchDragEventArgs(typ, tx, ty, data)); err != nil {
			return err
		}
	}
	if err := sleep(ctx, dragSettle); err != nil {
		return err
	}
	p.Commit()
	return c.Input.DispatchDragEvent(ctx, cdpinput.NewDispatchDragEventArgs("drop", tx, ty, data))
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
// from may fire, through s, the session of from's frame, and returns the
// function that says whether it has fired; called with last, it stops
// listening, and later calls do nothing and say false. It says false
// whenever it cannot tell (a snapshot the walker did not take, a document
// gone, a page listener that stopped the event first): the caller then
// waits as before, for a fixed time.
func watchDragStart(ctx context.Context, from page.Element, s *page.Session) func(ctx context.Context, last bool) bool {
	no := func(context.Context, bool) bool { return false }
	n := from.Node()
	if n == nil || n.Ref.IsZero() {
		return no
	}
	el, err := s.RefObject(ctx, n.Ref)
	if err != nil {
		return no
	}
	defer s.ReleaseObject(el)
	c := s.Client()
	r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.DragStart).SetObjectID(el).SetSilent(true))
	if err != nil || r.ExceptionDetails != nil || r.Result.ObjectID == nil {
		return no
	}
	st, over := *r.Result.ObjectID, false
	return func(ctx context.Context, last bool) bool {
		if over {
			return false
		}
		if last {
			over = true
			defer s.ReleaseObject(st)
		}
		r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.DragStarted).SetObjectID(st).
			SetArguments([]runtime.CallArgument{{Value: json.RawMessage(strconv.FormatBool(last))}}).
			SetReturnByValue(true).SetSilent(true))
		if err != nil || r.ExceptionDetails != nil {
			return false
		}
		var fired bool
		return json.Unmarshal(r.Result.Value, &fired) == nil && fired
	}
}
