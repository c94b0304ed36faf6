package page

// uid resolution: from a uid an agent passes to the node of the page's
// latest snapshot, checked against the frame's current document, and from
// that node to the backend DOM node id CDP commands act on.

import (
	"context"
	"errors"
	"fmt"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/snapshot"
)

// resolve finds the node a uid names in the latest snapshot and checks that
// its document is still the frame's current one, so a uid never acts on a
// node of another document.
func (a *Actor) resolve(uid string) (*snapshot.Node, error) {
	if a.snap == nil {
		return nil, ErrNoSnapshot
	}
	n := a.uids[uid]
	if n == nil {
		return nil, &UIDError{UID: uid, PageID: a.id}
	}
	f := a.frames.byID[n.FrameID]
	switch {
	case f == nil:
		return nil, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: fmt.Errorf("its frame is gone")}
	case f.loaderID != n.LoaderID:
		return nil, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: fmt.Errorf("the page navigated since the snapshot")}
	case n.BackendNodeID == 0 && n.Ref.IsZero():
		return nil, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: fmt.Errorf("it has no DOM node")}
	}
	return n, nil
}

// nodeID returns the backend DOM node id of a snapshot node, for CDP
// commands that act on it through the session of the node's frame
// ([Actor.sessionOf]): backend node ids are per renderer. A node of a default snapshot is known by its
// walker ref only; the first call looks it up (the walker's id → the DOM
// node in the isolated world → DOM.describeNode) and remembers it on the
// node. A node that has left the page gives a [*UIDError] with Gone set.
//
// It runs on the actor goroutine, outside a.call.
func (a *Actor) nodeID(ctx context.Context, n *snapshot.Node) (dom.BackendNodeID, error) {
	if n.BackendNodeID != 0 {
		return dom.BackendNodeID(n.BackendNodeID), nil
	}
	if n.Ref.IsZero() {
		return 0, &UIDError{UID: n.UID, PageID: a.id, Gone: true, Cause: fmt.Errorf("it has no DOM node")}
	}
	var id dom.BackendNodeID
	c := a.frames.sessionOf(n.FrameID).c
	err := a.call(ctx, func(ctx context.Context) (err error) {
		id, err = lookupRef(ctx, c, n.Ref)
		return err
	})
	if errors.Is(err, errNodeGone) {
		return 0, &UIDError{UID: n.UID, PageID: a.id, Gone: true, Cause: err}
	}
	if err != nil {
		return 0, err
	}
	n.BackendNodeID = int(id)
	return id, nil
}

// nodeIDs is nodeID for several nodes at once (the options of a
// combobox), looked up concurrently in one exchange. A node that has left
// the page gives a [*UIDError] with Gone set, for the first such node.
//
// It runs on the actor goroutine, outside a.call.
func (a *Actor) nodeIDs(ctx context.Context, ns []*snapshot.Node) ([]dom.BackendNodeID, error) {
	ids := make([]dom.BackendNodeID, len(ns))
	var todo []int
	for i, n := range ns {
		switch {
		case n.BackendNodeID != 0:
			ids[i] = dom.BackendNodeID(n.BackendNodeID)
		case n.Ref.IsZero():
			return nil, &UIDError{UID: n.UID, PageID: a.id, Gone: true, Cause: fmt.Errorf("it has no DOM node")}
		default:
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return ids, nil
	}
	errs := make([]error, len(ns))
	clients := make([]*cdp.Client, len(ns))
	for _, i := range todo {
		clients[i] = a.frames.sessionOf(ns[i].FrameID).c
	}
	err := a.call(ctx, func(ctx context.Context) error {
		var g errgroup.Group
		g.SetLimit(16)
		for _, i := range todo {
			g.Go(func() error {
				ids[i], errs[i] = lookupRef(ctx, clients[i], ns[i].Ref)
				return nil
			})
		}
		return g.Wait()
	})
	if err != nil {
		return nil, err
	}
	for _, i := range todo {
		if errors.Is(errs[i], errNodeGone) {
			return nil, &UIDError{UID: ns[i].UID, PageID: a.id, Gone: true, Cause: errs[i]}
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		ns[i].BackendNodeID = int(ids[i])
	}
	return ids, nil
}

// lookupRef finds the backend node id of the DOM node a walker ref names.
func lookupRef(ctx context.Context, c *cdp.Client, ref snapshot.Ref) (dom.BackendNodeID, error) {
	obj, err := walker.Object(ctx, c, ref)
	if err != nil {
		return 0, err
	}
	defer releaseObject(c, obj)
	d, err := c.DOM.DescribeNode(ctx, dom.NewDescribeNodeArgs().SetObjectID(obj))
	if isNodeGone(err) {
		return 0, errNodeGone
	}
	if err != nil {
		return 0, err
	}
	return d.Node.BackendNodeID, nil
}
