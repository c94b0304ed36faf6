package input

import (
	"context"
	"errors"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	cdpinput "github.com/mafredri/cdp/protocol/input"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/js"
)

// Click clicks the element uid names on page a, twice for a double click,
// and waits for the consequences. Clicking an <option> of a native
// <select> selects it, as a user picking it from the list would.
func Click(ctx context.Context, a *page.Actor, uid string, double bool, opts page.InputOptions) (page.InputResult, error) {
	h := key.Of(a).h
	clicks, what := clickCount(double)
	return page.Do(ctx, h, func(ctx context.Context) (page.InputResult, error) {
		return h.Elements().OnElement(ctx, uid, what, opts, func(ctx context.Context, t page.Element, p *page.Progress) error {
			if !double && t.Node().Role == "option" {
				p.Commit()
				if picked, err := selectNativeOption(ctx, t); err != nil || picked {
					return err
				}
			}
			x, y, err := t.Point(ctx)
			var na *page.NoAreaError
			if errors.As(err, &na) {
				return clickNoArea(ctx, t, na, clicks, p)
			}
			if err != nil {
				return err
			}
			return mouseClick(ctx, t.Client(), x, y, clicks, p)
		})
	})
}

// clickCount is how many clicks a click or a double click makes, and the
// name of the action a dialog may cut short.
func clickCount(double bool) (clicks int, what string) {
	if double {
		return 2, "double click"
	}
	return 1, "click"
}

// clickNoArea clicks an element that has no area, as a code editor's
// input (a textarea 0 px wide inside the editor): one that can take focus
// is focused and clicked at its place, where the page (the editor) sees
// the click, then given the focus back if the click took it away; one that
// cannot fails with na.
func clickNoArea(ctx context.Context, t page.Element, na *page.NoAreaError, clicks int, p *page.Progress) error {
	c := t.Client()
	focus := func() error {
		return c.DOM.Focus(ctx, dom.NewFocusArgs().SetBackendNodeID(t.BackendNodeID()))
	}
	if err := focus(); err != nil {
		if page.IsNodeGone(err) {
			return page.ErrNodeGone
		}
		return na
	}
	if m, err := c.Page.GetLayoutMetrics(ctx); err == nil {
		vp := m.CSSLayoutViewport
		x, y := na.Place()
		if x >= 0 && y >= 0 && x <= float64(vp.ClientWidth) && y <= float64(vp.ClientHeight) {
			if err := mouseClick(ctx, c, x, y, clicks, p); err != nil {
				return err
			}
		}
	}
	p.Commit()
	return focus()
}

// selectNativeOption selects t if it is an <option> of a native <select>,
// and says whether it was.
func selectNativeOption(ctx context.Context, t page.Element) (bool, error) {
	var picked bool
	err := page.CallOnNode(ctx, t.Client(), t.BackendNodeID(), js.SelectOption, &picked)
	return picked, err
}

// ClickAt clicks at viewport coordinates of page a (click_at, behind
// --experimental-vision) and waits for the consequences.
func ClickAt(ctx context.Context, a *page.Actor, x, y float64, double bool, opts page.InputOptions) (page.InputResult, error) {
	clicks, what := clickCount(double)
	return onPage(ctx, a, what, opts, func(ctx context.Context, c *cdp.Client, p *page.Progress) error {
		return mouseClick(ctx, c, x, y, clicks, p)
	})
}

// Hover moves the mouse over the element uid names on page a and waits
// for the consequences.
func Hover(ctx context.Context, a *page.Actor, uid string, opts page.InputOptions) (page.InputResult, error) {
	h := key.Of(a).h
	return page.Do(ctx, h, func(ctx context.Context) (page.InputResult, error) {
		return h.Elements().OnElement(ctx, uid, "hover", opts, func(ctx context.Context, t page.Element, p *page.Progress) error {
			x, y, err := t.Point(ctx)
			if err != nil {
				return err
			}
			p.Commit()
			return t.Client().Input.DispatchMouseEvent(ctx, cdpinput.NewDispatchMouseEventArgs("mouseMoved", x, y))
		})
	})
}

// mouseClick clicks at x, y through c, clicks times in a row; the last
// release is the click's decisive step, marked on p.
func mouseClick(ctx context.Context, c *cdp.Client, x, y float64, clicks int, p *page.Progress) error {
	if err := c.Input.DispatchMouseEvent(ctx, cdpinput.NewDispatchMouseEventArgs("mouseMoved", x, y)); err != nil {
		return err
	}
	for i := 1; i <= clicks; i++ {
		down := cdpinput.NewDispatchMouseEventArgs("mousePressed", x, y).
			SetButton(cdpinput.MouseButtonLeft).SetButtons(1).SetClickCount(i)
		if err := c.Input.DispatchMouseEvent(ctx, down); err != nil {
			return err
		}
		up := cdpinput.NewDispatchMouseEventArgs("mouseReleased", x, y).
			SetButton(cdpinput.MouseButtonLeft).SetButtons(0).SetClickCount(i)
		if i == clicks {
			p.Commit() // the release makes the click
		}
		if err := c.Input.DispatchMouseEvent(ctx, up); err != nil {
			return err
		}
	}
	return nil
}
