package page

import (
	"context"

	"github.com/mafredri/cdp/protocol/input"

	"github.com/tabhive/tabhive/page/js"
)

// The core's own tests (the waiter and its tracker, snapshots,
// screenshots) need actions on elements to wait after; package page/input,
// which has the real ones, imports page, so they cannot use it. click and
// fillText are the plainest such actions, run through the same core
// (onElement: the uid's element, the waiter, the result) as input's.

// click clicks the element uid names once, as input.Click does an element
// with an area.
func click(ctx context.Context, a *Actor, uid string) (InputResult, error) {
	return ask(ctx, a, func(ctx context.Context) (InputResult, error) {
		return a.onElement(ctx, uid, "click", InputOptions{}, func(ctx context.Context, t elementRef, p *Progress) error {
			x, y, err := t.point(ctx)
			if err != nil {
				return err
			}
			for _, ev := range []*input.DispatchMouseEventArgs{
				input.NewDispatchMouseEventArgs("mouseMoved", x, y),
				input.NewDispatchMouseEventArgs("mousePressed", x, y).SetButton(input.MouseButtonLeft).SetButtons(1).SetClickCount(1),
			} {
				if err := t.c.Input.DispatchMouseEvent(ctx, ev); err != nil {
					return err
				}
			}
			p.Commit()
			return t.c.Input.DispatchMouseEvent(ctx, input.NewDispatchMouseEventArgs("mouseReleased", x, y).
				SetButton(input.MouseButtonLeft).SetClickCount(1))
		})
	})
}

// fillText gives the text field uid names the focus and text, as
// input.Fill does a text field.
func fillText(ctx context.Context, a *Actor, uid, text string) (InputResult, error) {
	return ask(ctx, a, func(ctx context.Context) (InputResult, error) {
		return a.onElement(ctx, uid, "fill", InputOptions{}, func(ctx context.Context, t elementRef, p *Progress) error {
			if err := callOn(ctx, t.c, t.id, js.FocusText, nil); err != nil {
				return err
			}
			p.Commit()
			return t.c.Input.InsertText(ctx, input.NewInsertTextArgs(text))
		})
	})
}
