package page

// What capabilities need of the page's latest snapshot: a uid's node, the
// backend node id CDP commands act on, and the walker's DOM nodes as
// remote objects.

import (
	"context"

	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

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
func WalkerError(e *runtime.ExceptionDetails) error { return walkerError(e) }

// Resolve finds the node uid names in the latest snapshot, checked against
// its frame's current document: a [*UIDError] for a uid the snapshot
// never had or whose node has gone, [ErrNoSnapshot] before any snapshot.
func (h *Host) Resolve(uid string) (*snapshot.Node, error) { return h.a.resolve(uid) }

// BackendNodeID returns the backend DOM node id of a snapshot node, for
// CDP commands on the session of the node's frame ([Host.SessionOf]),
// looking it up the first time for a node known by its walker ref only. A
// node that has left the page gives a [*UIDError] with Gone set. Call it
// outside [Host.Call].
func (h *Host) BackendNodeID(ctx context.Context, n *snapshot.Node) (dom.BackendNodeID, error) {
	return h.a.nodeID(ctx, n)
}

// Snapshot returns the root of the page's latest snapshot, or nil before
// the first. Its nodes are the run goroutine's: read them there only.
func (h *Host) Snapshot() *snapshot.Node { return h.a.snap }

// ApplyEvents applies the events the page's sessions have queued, the
// slices' included: what Chrome announced before it answered a call.
func (h *Host) ApplyEvents() { h.a.drainEvents() }

// SnapshotWorld returns the execution context of the snapshot walker's
// isolated world in frame frameID, made if it is not there yet: the world
// in which the walker's nodes ([Session.RefObject]) live. Safe from any
// goroutine.
func (s *Session) SnapshotWorld(ctx context.Context, frameID string) (runtime.ExecutionContextID, error) {
	w, err := s.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(frameID)).SetWorldName(snapshotWorld))
	if err != nil {
		return 0, err
	}
	return w.ExecutionContextID, nil
}

// RefObject returns the DOM node a walker ref names as a remote object of
// the walker's isolated world, or [ErrNodeGone]. The caller releases it
// ([Session.ReleaseObject]). Safe from any goroutine.
func (s *Session) RefObject(ctx context.Context, ref snapshot.Ref) (runtime.RemoteObjectID, error) {
	return refObject(ctx, s.c, ref)
}

// ReleaseObject frees a remote object, under a second of its own even if
// the caller has given up. Safe from any goroutine.
func (s *Session) ReleaseObject(id runtime.RemoteObjectID) { releaseObject(s.c, id) }
