package page

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/snapshot"
)

// actionabilityTimeout bounds the wait for an element to get a box that can
// be clicked. It is fixed: unlike upstream's locator timeout (5 s × CPU),
// it does not scale with the emulated CPU.
const actionabilityTimeout = 5 * time.Second

// errNotInteractive is the cause of an [*InteractError] for an element that
// never got a visible box within the actionability timeout.
var errNotInteractive = errors.New("the element did not become interactive")

// errNodeGone is the cause of a [*UIDError] for a node that left the DOM.
var errNodeGone = walker.ErrNodeGone

// InputOptions are the options every input tool shares.
type InputOptions struct {
	// IncludeSnapshot appends a fresh snapshot to the result.
	IncludeSnapshot bool
}

// InputResult is what an input action did.
type InputResult struct {
	ActionResult
	// Snapshot is the snapshot text when IncludeSnapshot was asked for.
	Snapshot string
	// SnapshotSeq orders Snapshot among the page's snapshots (see
	// [Snapshot.Seq]).
	SnapshotSeq int64
}

// elementRef is an element an input action works on: its uid, its snapshot
// node and its backend DOM node id, with the client of the session that
// reaches its frame (the page's, or an out-of-process iframe's) and the
// steps from that frame's coordinates to the page's.
//
// Mouse events for the element go to its own session, at its point in its
// frame's coordinates ([elementRef.point]): an out-of-process iframe's
// session delivers them to its renderer directly, where the page's session
// would hit-test them against the browser's picture of the page, which
// lags behind a frame that just loaded or changed (measured: a click or a
// hover now and then landed in the parent on a loaded machine).
type elementRef struct {
	uid  string
	node *snapshot.Node
	id   dom.BackendNodeID
	c    *cdp.Client
	hops []hop
}

// point scrolls the element into view and returns the centre of its first
// visible box, in the viewport of its frame's session (the page's, for
// frames the page's renderer draws): where t.c sends mouse events.
func (t elementRef) point(ctx context.Context) (x, y float64, err error) {
	return clickablePoint(ctx, t.c, t.id)
}

// pagePoint is point in the page's viewport, for an action whose mouse
// events cross frames (a drag from one out-of-process iframe to another
// frame): the point shifted by the offsets of the iframes above it.
func (t elementRef) pagePoint(ctx context.Context) (x, y float64, err error) {
	x, y, err = t.point(ctx)
	if err != nil || len(t.hops) == 0 {
		return x, y, err
	}
	dx, dy, err := offset(ctx, t.hops, true)
	if err != nil {
		return 0, 0, err
	}
	return x + dx, y + dy, nil
}

// element resolves uid for an input action. It runs on the actor goroutine.
func (a *Actor) element(ctx context.Context, uid string) (elementRef, error) {
	n, err := a.resolve(uid)
	if err != nil {
		return elementRef{}, err
	}
	id, err := a.nodeID(ctx, n)
	if err != nil {
		return elementRef{}, err
	}
	return elementRef{uid: uid, node: n, id: id, c: a.frames.sessionOf(n.FrameID).c, hops: a.frames.hops(n.FrameID)}, nil
}

// onElement resolves uid and runs an input action on it under the waiter;
// what names the action (see actionOptions.gate). It runs on the actor
// goroutine.
func (a *Actor) onElement(ctx context.Context, uid, what string, opts InputOptions, action func(ctx context.Context, t elementRef, p *Progress) error) (InputResult, error) {
	if err := a.needRenderer(); err != nil {
		return InputResult{}, err
	}
	t, err := a.element(ctx, uid)
	if err != nil {
		return InputResult{}, err
	}
	res, err := a.actOn(ctx, t, actionOptions{gate: what}, action)
	return a.finishInput(ctx, res, err, opts)
}

// actOn performs an action on t and words its failure: a node that left the
// page is a [*UIDError], errors the agent can fix (a [BadInput], such as a
// bad fill value) pass through, and anything else is an [*InteractError].
func (a *Actor) actOn(ctx context.Context, t elementRef, opts actionOptions, action func(ctx context.Context, t elementRef, p *Progress) error) (ActionResult, error) {
	if f := a.frames.byID[t.node.FrameID]; len(t.hops) > 0 && f != nil && f.context != 0 {
		opts.frame = scriptContext{c: t.c, id: f.context}
	}
	res, err := a.perform(ctx, opts, func(ctx context.Context, p *Progress) error { return action(ctx, t, p) })
	if err == nil {
		return res, nil
	}
	var bi BadInput
	var de *DialogError
	switch {
	case errors.Is(err, errNodeGone):
		err = &UIDError{UID: t.uid, PageID: a.id, Gone: true, Cause: err}
	case errors.As(err, &bi), errors.As(err, &de), errors.Is(err, ErrCrashed), ctx.Err() != nil:
	default:
		if _, ok := agenterr.Reason(err); !ok {
			// The agent reads a sentence instead of Chrome's text.
			a.log.Warn().Err(err).Str("uid", t.uid).Msg("an action failed in Chrome")
		}
		err = &InteractError{UID: t.uid, Cause: err}
	}
	return res, err
}

// onPage runs an action that needs no element (keys, coordinates) under the
// waiter; what names the action (see actionOptions.gate). It runs on the
// actor goroutine.
func (a *Actor) onPage(ctx context.Context, what string, opts InputOptions, action func(ctx context.Context, p *Progress) error) (InputResult, error) {
	if err := a.needRenderer(); err != nil {
		return InputResult{}, err
	}
	res, err := a.perform(ctx, actionOptions{gate: what}, action)
	return a.finishInput(ctx, res, err, opts)
}

func (a *Actor) finishInput(ctx context.Context, res ActionResult, err error, opts InputOptions) (InputResult, error) {
	out := InputResult{ActionResult: res}
	if err != nil {
		out.State = a.state()
		return out, err
	}
	if opts.IncludeSnapshot && a.dialogs.open == nil {
		text, err := a.takeSnapshot(ctx, false)
		if err != nil {
			return out, err
		}
		out.Snapshot, out.SnapshotSeq = text, a.ids.Last()
	}
	return out, nil
}

// zeroAreaGrace is how long an element whose boxes have no area is given
// to get one (an element animating in) before it is taken as one that has
// none, such as a code editor's input (a textarea 0 px wide): a few
// frames, not the whole actionability timeout.
const zeroAreaGrace = 300 * time.Millisecond

// clickablePoint scrolls a node into view and returns the centre of its
// first visible box, in the top frame's viewport. It waits up to the
// actionability timeout for the node to get a box; a node whose boxes
// have no area for zeroAreaGrace fails with a [*NoAreaError] that holds
// its place.
func clickablePoint(ctx context.Context, c *cdp.Client, node dom.BackendNodeID) (x, y float64, err error) {
	ctx, cancel := context.WithTimeout(ctx, actionabilityTimeout)
	defer cancel()
	var flat time.Time // when the node was first seen with boxes, none of any area
	for {
		err := c.DOM.ScrollIntoViewIfNeeded(ctx, dom.NewScrollIntoViewIfNeededArgs().SetBackendNodeID(node))
		if isNodeGone(err) {
			return 0, 0, errNodeGone
		}
		if err == nil {
			q, err := c.DOM.GetContentQuads(ctx, dom.NewGetContentQuadsArgs().SetBackendNodeID(node))
			if isNodeGone(err) {
				return 0, 0, errNodeGone
			}
			if err == nil {
				for _, quad := range q.Quads {
					if len(quad) == 8 && area(quad) >= 1 {
						return (quad[0] + quad[2] + quad[4] + quad[6]) / 4, (quad[1] + quad[3] + quad[5] + quad[7]) / 4, nil
					}
				}
				if len(q.Quads) > 0 && len(q.Quads[0]) == 8 {
					if flat.IsZero() {
						flat = time.Now()
					} else if time.Since(flat) >= zeroAreaGrace {
						quad := q.Quads[0]
						w := max(quad[0], quad[2], quad[4], quad[6]) - min(quad[0], quad[2], quad[4], quad[6])
						h := max(quad[1], quad[3], quad[5], quad[7]) - min(quad[1], quad[3], quad[5], quad[7])
						return 0, 0, &NoAreaError{Width: w, Height: h,
							x: (quad[0] + quad[2] + quad[4] + quad[6]) / 4, y: (quad[1] + quad[3] + quad[5] + quad[7]) / 4}
					}
				} else {
					flat = time.Time{}
				}
			}
		}
		select {
		case <-ctx.Done():
			return 0, 0, errNotInteractive
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func area(q dom.Quad) float64 {
	var s float64
	for i := 0; i < 4; i++ {
		j := (i + 1) % 4
		s += q[2*i]*q[2*j+1] - q[2*j]*q[2*i+1]
	}
	if s < 0 {
		s = -s
	}
	return s / 2
}

// isNodeGone reports whether a DOM command failed because the node no longer
// exists.
func isNodeGone(err error) bool {
	var re *rpcc.ResponseError
	return errors.As(err, &re) && (strings.Contains(re.Message, "No node") || strings.Contains(re.Message, "Could not find node"))
}

// resolveObject gives a node's JavaScript object in its frame's main world.
func resolveObject(ctx context.Context, c *cdp.Client, node dom.BackendNodeID) (runtime.RemoteObjectID, error) {
	r, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(node))
	if isNodeGone(err) {
		return "", errNodeGone
	}
	if err != nil {
		return "", err
	}
	if r.Object.ObjectID == nil {
		return "", errNodeGone
	}
	return *r.Object.ObjectID, nil
}

// releaseObject frees a remote object. It waits for Chrome's answer, for a
// second at most, under a context of its own: an object is freed even when
// the caller has given up (callers defer it). Failing to free one leaks it
// only until its document goes away.
func releaseObject(c *cdp.Client, id runtime.RemoteObjectID) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Runtime.ReleaseObject(ctx, runtime.NewReleaseObjectArgs(id))
}

// callOn calls a function declaration on a node's JavaScript object, with
// args passed by value, and decodes its JSON result into out (nil: ignore).
func callOn(ctx context.Context, c *cdp.Client, node dom.BackendNodeID, fn string, out any, args ...any) error {
	obj, err := resolveObject(ctx, c, node)
	if err != nil {
		return err
	}
	defer releaseObject(c, obj)
	call := runtime.NewCallFunctionOnArgs(fn).SetObjectID(obj).SetReturnByValue(true)
	if len(args) > 0 {
		cargs := make([]runtime.CallArgument, len(args))
		for i, v := range args {
			if cargs[i], err = jsonArg(v); err != nil {
				return err
			}
		}
		call.SetArguments(cargs)
	}
	r, err := c.Runtime.CallFunctionOn(ctx, call)
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("in page: %s", exceptionText(r.ExceptionDetails))
	}
	if out != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// exceptionText is the message of a thrown exception as the page would
// print it, without its stack.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != nil {
		first, _, _ := strings.Cut(*d.Exception.Description, "\n    at ")
		return first
	}
	return d.Text
}
