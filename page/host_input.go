package page

// What the input capability (package page/input) needs of the page's
// core: a uid's element with the session that reaches it, the
// post-action waiter that every action runs under (navigation and
// evaluate use it too, so it stays here), and the watch on the events an
// action waits for. Every method runs on the page's run goroutine, inside
// [Do].

import (
	"context"
	"errors"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// Element is an element an input action works on: the node a uid named
// in the latest snapshot, with the session that reaches its frame.
type Element struct{ r elementRef }

// UID returns the uid that named the element.
func (e Element) UID() string { return e.r.uid }

// Client returns the client of the session that reaches the element's
// frame (the page's, or an out-of-process iframe's).
func (e Element) Client() *cdp.Client { return e.r.c }

// BackendNodeID returns the element's backend DOM node id, for commands
// on [Element.Client].
func (e Element) BackendNodeID() dom.BackendNodeID { return e.r.id }

// Point scrolls the element into view and returns the centre of its first
// visible box, in the viewport of its frame's session: where
// [Element.Client] sends mouse events.
func (e Element) Point(ctx context.Context) (x, y float64, err error) { return e.r.point(ctx) }

// Element resolves uid for an input action.
func (h *Host) Element(ctx context.Context, uid string) (Element, error) {
	r, err := h.a.element(ctx, uid)
	return Element{r}, err
}

// ActOn performs action on e under the post-action waiter and words its
// failure, as every input action does; gate names the action in the
// sentence of a dialog that stopped it.
func (h *Host) ActOn(ctx context.Context, e Element, gate string, action func(ctx context.Context, e Element, p *Progress) error) (ActionResult, error) {
	return h.a.actOn(ctx, e.r, actionOptions{gate: gate}, func(ctx context.Context, r elementRef, p *Progress) error {
		return action(ctx, Element{r}, p)
	})
}

// FinishInput makes an input action's result: its state, and the
// snapshot taken after it when opts asks for one.
func (h *Host) FinishInput(ctx context.Context, res ActionResult, err error, opts InputOptions) (InputResult, error) {
	return h.a.finishInput(ctx, res, err, opts)
}

// CallOn calls the function declaration fn on e's JavaScript object, as
// a blocking exchange (see [Host.Call]), and decodes its JSON result into
// out; a node that has left the page fails with a [*UIDError].
func (h *Host) CallOn(ctx context.Context, e Element, fn string, out any, args ...any) error {
	err := h.a.call(ctx, func(ctx context.Context) error { return callOn(ctx, e.r.c, e.r.id, fn, out, args...) })
	if errors.Is(err, errNodeGone) {
		return &UIDError{UID: e.r.uid, PageID: h.a.id, Gone: true, Cause: err}
	}
	return err
}

// Watch makes ch receive the events an action in progress waits for
// (Input.dragIntercepted, Page.fileChooserOpened) as the page applies
// them, until Watch(nil). Events that find ch full are dropped.
func (h *Host) Watch(ch chan cdpconn.Event) { h.a.watch = ch }

// MouseClick clicks at x, y through c, clicks times in a row; the last
// release is the click's decisive step, marked on p. Safe from any
// goroutine.
func MouseClick(ctx context.Context, c *cdp.Client, x, y float64, clicks int, p *Progress) error {
	return mouseClick(ctx, c, x, y, clicks, p)
}
