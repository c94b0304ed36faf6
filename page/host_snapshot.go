package page

// The page's latest snapshot and its uids are the core's: every element
// tool (input, evaluate's arguments, screenshots, styles) resolves uids
// against it, through the [Elements] handle. The snapshot capability
// (page/axsnapshot) takes snapshots and sets the latest through
// [Elements.SetSnapshot]; the core takes one
// after an action through the [SnapshotTaker] it registered. What
// capabilities need of the latest snapshot: a uid's node, the backend
// node id CDP commands act on, and the walker's DOM nodes as remote
// objects (page/internal/walker).

import (
	"context"
	"errors"

	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/snapshot"
)

// ErrNodeGone is the error of a DOM node that has left the page since the
// snapshot named it: the cause of a [*UIDError] with Gone set.
var ErrNodeGone = errNodeGone

// IsNodeGone reports whether a DOM command failed because its node no
// longer exists.
func IsNodeGone(err error) bool { return isNodeGone(err) }

// WalkerError is the error of an exception one of the page's own scripts
// threw: a bug of ours, not of the page, reported with its stack.
func WalkerError(e *runtime.ExceptionDetails) error { return walker.Error(e) }

// Elements is the handle on the page's latest snapshot, the elements its
// uids name, and the actions on them under the post-action waiter
// (host_input.go, host_script.go): [Host.Elements].
type Elements struct{ a *Actor }

// Elements returns the handle on the page's uids and element actions.
func (h *Host) Elements() Elements { return Elements{h.a} }

// Resolve finds the node uid names in the latest snapshot, checked against
// its frame's current document: a [*UIDError] for a uid the snapshot
// never had or whose node has gone, [ErrNoSnapshot] before any snapshot.
func (e Elements) Resolve(uid string) (*snapshot.Node, error) { return e.a.resolve(uid) }

// BackendNodeID returns the backend DOM node id of a snapshot node, for
// CDP commands on the session of the node's frame ([Host.SessionOf]),
// looking it up the first time for a node known by its walker ref only. A
// node that has left the page gives a [*UIDError] with Gone set. Call it
// outside [Host.Call].
func (e Elements) BackendNodeID(ctx context.Context, n *snapshot.Node) (dom.BackendNodeID, error) {
	return e.a.nodeID(ctx, n)
}

// Snapshot returns the root of the page's latest snapshot, or nil before
// the first. Its nodes are the run goroutine's: read them there only.
func (e Elements) Snapshot() *snapshot.Node { return e.a.snap }

// SetSnapshot makes root the page's latest snapshot, the one uids resolve
// against, giving its nodes their uids (a node keeps its uid from one
// snapshot to the next); nil forgets the latest. It returns the
// snapshot's sequence number: of two snapshots of the page, the later has
// the larger (the previous one's when root is nil).
func (e Elements) SetSnapshot(root *snapshot.Node) (seq int64) {
	a := e.a
	if root == nil {
		a.snap, a.uids = nil, nil
		return a.ids.Last()
	}
	a.uids = a.ids.Assign(root)
	a.snap = root
	return a.ids.Last()
}

// FrameInfo is what a snapshot reads of one of the page's frames.
type FrameInfo struct {
	ID, Parent, LoaderID string
	// Scripted reports that the frame's document has its default
	// execution context.
	Scripted bool
	// World is the snapshot walker's isolated world in the frame's
	// document, 0 until a snapshot or a uid made it ([Session.SnapshotWorld]).
	World runtime.ExecutionContextID
}

// Frames lists the page's frames, out-of-process ones included, the main
// frame first.
func (h *Host) Frames() []FrameInfo {
	a := h.a
	frames := make([]FrameInfo, 0, len(a.frames.byID))
	info := func(f *frame) FrameInfo {
		return FrameInfo{ID: f.id, Parent: f.parent, LoaderID: f.loaderID, Scripted: f.context != 0, World: f.world}
	}
	if f := a.frames.byID[a.frames.main]; f != nil {
		frames = append(frames, info(f))
	}
	for _, f := range a.frames.byID {
		if f.id != a.frames.main {
			frames = append(frames, info(f))
		}
	}
	return frames
}

// A SnapshotTaker is the [Slice] that takes the page's snapshots and
// makes each the latest ([Elements.SetSnapshot]); the core asks it for the
// default snapshot an input action ends with. TakeSnapshot runs on the
// run goroutine and returns the snapshot's text.
type SnapshotTaker interface {
	TakeSnapshot(ctx context.Context, verbose bool) (string, error)
}

// takeSnapshot takes a snapshot of the page through the capability that
// takes them. It runs on the run goroutine.
func (a *Actor) takeSnapshot(ctx context.Context, verbose bool) (string, error) {
	for _, sl := range a.slices {
		if t, ok := sl.(SnapshotTaker); ok {
			return t.TakeSnapshot(ctx, verbose)
		}
	}
	return "", errors.New("snapshot: no capability takes snapshots (page/axsnapshot is not linked in)")
}

// Within returns a context that ends some headroom before ctx does, for a
// wait whose running out must be told from the call's: a tenth of what
// is left, 20 ms to 250 ms.
func Within(ctx context.Context) (context.Context, context.CancelFunc) { return within(ctx) }

// ChildBudget returns a context for work in an out-of-process iframe that
// ends when three quarters of ctx's remaining time have passed, so that a
// frame whose renderer hangs is left out while the page's own work still
// returns in time.
func ChildBudget(ctx context.Context) (context.Context, context.CancelFunc) { return childBudget(ctx) }

// ApplyEvents applies the events the page's sessions have queued, the
// slices' included: what Chrome announced before it answered a call.
func (h *Host) ApplyEvents() { h.a.drainEvents() }

// SnapshotWorld returns the execution context of the snapshot walker's
// isolated world in frame frameID, made if it is not there yet: the world
// in which the walker's nodes ([Session.RefObject]) live. It is one call
// to Chrome: a caller on the run goroutine takes the world the page
// already knows from [FrameInfo.World] first. Safe from any goroutine.
func (s *Session) SnapshotWorld(ctx context.Context, frameID string) (runtime.ExecutionContextID, error) {
	w, err := s.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(frameID)).SetWorldName(walker.World))
	if err != nil {
		return 0, err
	}
	return w.ExecutionContextID, nil
}

// RefObject returns the DOM node a walker ref names as a remote object of
// the walker's isolated world, or [ErrNodeGone]. The caller releases it
// ([Session.ReleaseObject]). Safe from any goroutine.
func (s *Session) RefObject(ctx context.Context, ref snapshot.Ref) (runtime.RemoteObjectID, error) {
	return walker.Object(ctx, s.c, ref)
}

// ReleaseObject frees a remote object, under a second of its own even if
// the caller has given up. Safe from any goroutine.
func (s *Session) ReleaseObject(id runtime.RemoteObjectID) { releaseObject(s.c, id) }
