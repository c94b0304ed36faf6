package page

import (
	"context"
	"fmt"

	"github.com/mafredri/cdp/protocol/accessibility"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page/snapshot"
)

// Snapshot is the text of an accessibility snapshot, with the page's state.
type Snapshot struct {
	Text string
	State
}

// Snapshot captures the page's accessibility tree, every same-process
// iframe included, and makes it the page's latest snapshot: the one uids
// resolve against.
func (a *Actor) Snapshot(ctx context.Context, verbose bool) (Snapshot, error) {
	return ask(ctx, a, func(ctx context.Context) (Snapshot, error) {
		text, err := a.snapshot(ctx, verbose)
		return Snapshot{Text: text, State: a.state()}, err
	})
}

// snapshot runs on the actor goroutine.
func (a *Actor) snapshot(ctx context.Context, verbose bool) (string, error) {
	if err := a.needRenderer(); err != nil {
		return "", err
	}
	frames := make([]frame, 0, len(a.frames))
	if f := a.frames[a.mainFrame]; f != nil {
		frames = append(frames, *f) // main frame first
	}
	for _, f := range a.frames {
		if f.id != a.mainFrame {
			frames = append(frames, *f)
		}
	}
	if len(frames) == 0 {
		return "", fmt.Errorf("snapshot: page has no frame yet")
	}
	trees := make([]*snapshot.Frame, len(frames))
	owners := make([]int, len(frames))
	err := a.call(ctx, func(ctx context.Context) error {
		g, ctx := errgroup.WithContext(ctx)
		for i, f := range frames {
			g.Go(func() error {
				r, err := a.c.Accessibility.GetFullAXTree(ctx,
					accessibility.NewGetFullAXTreeArgs().SetFrameID(page.FrameID(f.id)))
				if err != nil {
					if i == 0 {
						return err
					}
					return nil // a frame that went away or lives in another process
				}
				trees[i] = &snapshot.Frame{FrameID: f.id, LoaderID: f.loaderID, Nodes: r.Nodes}
				if i > 0 {
					if o, err := a.c.DOM.GetFrameOwner(ctx, dom.NewGetFrameOwnerArgs(page.FrameID(f.id))); err == nil {
						owners[i] = int(o.BackendNodeID)
					}
				}
				return nil
			})
		}
		return g.Wait()
	})
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	byID := map[string]*snapshot.Frame{}
	for _, t := range trees {
		if t != nil {
			byID[t.FrameID] = t
		}
	}
	for i, t := range trees {
		if i == 0 || t == nil || owners[i] == 0 {
			continue
		}
		if parent := byID[frames[i].parent]; parent != nil {
			if parent.Children == nil {
				parent.Children = map[int]*snapshot.Frame{}
			}
			parent.Children[owners[i]] = t
		}
	}
	root := snapshot.Build(trees[0], verbose)
	if root == nil {
		a.snap, a.uids = nil, nil
		return "", nil
	}
	a.uids = a.ids.Assign(root)
	a.snap = root
	return root.Text(verbose), nil
}

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
	f := a.frames[n.FrameID]
	switch {
	case f == nil:
		return nil, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: fmt.Errorf("its frame is gone")}
	case f.loaderID != n.LoaderID:
		return nil, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: fmt.Errorf("the page navigated since the snapshot")}
	case n.BackendNodeID == 0:
		return nil, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: fmt.Errorf("it has no DOM node")}
	}
	return n, nil
}

// nodeID returns the backend DOM node id of a snapshot node, for CDP
// commands that act on it. It runs on the actor goroutine.
func (a *Actor) nodeID(ctx context.Context, n *snapshot.Node) (dom.BackendNodeID, error) {
	return dom.BackendNodeID(n.BackendNodeID), nil
}
