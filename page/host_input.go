package page

// What the input capability (package page/input) needs of the page's
// core: a uid's element with the session that reaches it, and the
// post-action waiter that every action runs under (navigation and
// evaluate use it too, so it stays here). [Elements] methods run on the
// page's run goroutine, inside [Do]; Element's and the functions' say
// where they may run.

import (
	"context"
	"errors"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"

	"github.com/tabhive/tabhive/page/snapshot"
)

// Element is an element an input action works on: the node a uid named
// in the latest snapshot, with the session that reaches its frame.
type Element struct{ r elementRef }

// UID returns the uid that named the element.
func (e Element) UID() string { return e.r.uid }

// Node returns the element's node in the snapshot that named it. Its
// role, name, children and walker ref do not change once the snapshot is
// taken: an action's steps may read them on the waiter's goroutine.
func (e Element) Node() *snapshot.Node { return e.r.node }

// Client returns the client of the session that reaches the element's
// frame (the page's, or an out-of-process iframe's).
func (e Element) Client() *cdp.Client { return e.r.c }

// BackendNodeID returns the element's backend DOM node id, for commands
// on [Element.Client].
func (e Element) BackendNodeID() dom.BackendNodeID { return e.r.id }

// Point scrolls the element into view and returns the centre of its first
// visible box, in the viewport of its frame's session: where
// [Element.Client] sends mouse events. It waits up to the actionability
// timeout for a box, and fails with a [*NoAreaError] for an element whose
// boxes have no area. Safe from any goroutine.
func (e Element) Point(ctx context.Context) (x, y float64, err error) { return e.r.point(ctx) }

// PagePoint is [Element.Point] in the page's viewport, for mouse events
// the page's session sends across frames. Safe from any goroutine.
func (e Element) PagePoint(ctx context.Context) (x, y float64, err error) {
	return e.r.pagePoint(ctx)
}

// Painted is [Element.AwaitPainted] for several elements at once (a
// drag's two), their iframes waited for together: mouse events the
// page's session sends are then hit-tested against what they show now.
// Safe from any goroutine.
func Painted(ctx context.Context, elems ...Element) {
	var frames []frameClient
	for _, e := range elems {
		frames = append(frames, oopifFrames(e.r.c, e.r.hops)...)
	}
	painted(ctx, frames...)
}

// Place returns where the element with no area lies, in its frame's
// viewport: where a click reaches what it is part of (a code editor).
func (e *NoAreaError) Place() (x, y float64) { return e.x, e.y }

// A BadInput is an error of an input action that its input caused (a fill
// value the element cannot take): [Elements.ActOn] returns it as it is, for
// the agent to fix its input, rather than as an [*InteractError].
type BadInput interface {
	error
	BadInput()
}

// Element resolves uid for an input action.
func (e Elements) Element(ctx context.Context, uid string) (Element, error) {
	r, err := e.a.element(ctx, uid)
	return Element{r}, err
}

// BackendNodeIDs is [Elements.BackendNodeID] for several nodes at once (the
// options of a combobox), in one round of lookups.
func (e Elements) BackendNodeIDs(ctx context.Context, ns []*snapshot.Node) ([]dom.BackendNodeID, error) {
	return e.a.nodeIDs(ctx, ns)
}

// ActOn performs action on e under the post-action waiter and words its
// failure, as every input action does; gate names the action in the
// sentence of a dialog that stopped it.
func (e Elements) ActOn(ctx context.Context, t Element, gate string, action func(ctx context.Context, t Element, p *Progress) error) (ActionResult, error) {
	return e.a.actOn(ctx, t.r, actionOptions{gate: gate}, func(ctx context.Context, r elementRef, p *Progress) error {
		return action(ctx, Element{r}, p)
	})
}

// OnElement resolves uid and performs action on it under the waiter
// ([Elements.ActOn]), then makes the result ([Elements.FinishInput]): an input
// action on one element from start to end.
func (e Elements) OnElement(ctx context.Context, uid, gate string, opts InputOptions, action func(ctx context.Context, t Element, p *Progress) error) (InputResult, error) {
	return e.a.onElement(ctx, uid, gate, opts, func(ctx context.Context, r elementRef, p *Progress) error {
		return action(ctx, Element{r}, p)
	})
}

// Act performs an action that needs no element (keys, coordinates) under
// the waiter, then makes its result; gate names the action as in
// [Elements.ActOn].
func (e Elements) Act(ctx context.Context, gate string, opts InputOptions, action func(ctx context.Context, p *Progress) error) (InputResult, error) {
	return e.a.onPage(ctx, gate, opts, action)
}

// FinishInput makes an input action's result: its state, and the
// snapshot taken after it when opts asks for one.
func (e Elements) FinishInput(ctx context.Context, res ActionResult, err error, opts InputOptions) (InputResult, error) {
	return e.a.finishInput(ctx, res, err, opts)
}

// CallOn calls the function declaration fn on t's JavaScript object, as
// a blocking exchange (see [Host.Call]), and decodes its JSON result into
// out; a node that has left the page fails with a [*UIDError].
func (e Elements) CallOn(ctx context.Context, t Element, fn string, out any, args ...any) error {
	err := e.a.call(ctx, func(ctx context.Context) error { return callOn(ctx, t.r.c, t.r.id, fn, out, args...) })
	if errors.Is(err, errNodeGone) {
		return &UIDError{UID: t.r.uid, PageID: e.a.id, Gone: true, Cause: err}
	}
	return err
}

// CallOnNode calls the function declaration fn on node's JavaScript
// object through c, with args passed by value, and decodes its JSON
// result into out (nil: ignore); a node that has left the page fails
// with [ErrNodeGone]. Safe from any goroutine: an action's own steps use
// it, on the waiter's.
func CallOnNode(ctx context.Context, c *cdp.Client, node dom.BackendNodeID, fn string, out any, args ...any) error {
	return callOn(ctx, c, node, fn, out, args...)
}
