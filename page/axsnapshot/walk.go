package axsnapshot

// The in-page walker (js/snapshot.js) and the default snapshot built with
// it: installing and calling the walker in each frame's isolated world,
// decoding what it returns, filling in what it cannot see (closed shadow
// roots, user-agent shadow parts) and hanging each frame's tree under its
// <iframe>. See the package doc for why a default snapshot is walked
// rather than read from the AX tree; page/internal/walker installs and
// calls the walker.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/mafredri/cdp/protocol/accessibility"
	"github.com/mafredri/cdp/protocol/dom"
	pg "github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/snapshot"
)

// walked is the walker's result for one frame.
type walked struct {
	walk    *snapshot.Walk
	context runtime.ExecutionContextID
	owner   int                     // walker id of the frame's <iframe> in its parent's walk
	opaque  map[int]*snapshot.Frame // AX subtrees of the walk's opaque nodes, by id
}

// walk builds a default snapshot with the in-page walker, one isolated
// world per frame, all frames at once. Each frame is walked through the
// session that reaches it, out-of-process iframes through their own, and
// its <iframe> is found through its parent's. It runs on the run
// goroutine.
func (s *slice) walk(ctx context.Context, frames []page.FrameInfo) (*snapshot.Node, error) {
	results := make([]walked, len(frames))
	sessions, parents := s.frameSessions(frames)
	worlds := map[string]runtime.ExecutionContextID{}
	for _, f := range frames {
		worlds[f.ID] = f.World
	}
	err := s.h.Call(ctx, func(ctx context.Context) error {
		g, ctx := errgroup.WithContext(ctx)
		for i, f := range frames {
			c := sessions[i]
			g.Go(func() error {
				ctx := ctx
				if !c.IsTop() {
					// A hung out-of-process iframe is left out, not
					// allowed to take the page's snapshot down with it.
					var cancel context.CancelFunc
					ctx, cancel = page.ChildBudget(ctx)
					defer cancel()
				}
				w, err := walkFrame(ctx, c, f)
				if err != nil {
					if i == 0 {
						return err
					}
					return nil // a frame that went away, or hangs in its own process
				}
				if err := opaqueTrees(ctx, c, f, &w); err != nil {
					if i == 0 {
						return err
					}
					return nil
				}
				if i > 0 {
					owner, err := frameOwnerID(ctx, parents[i], f, worlds[f.Parent])
					if err != nil {
						return nil
					}
					w.owner = owner
				}
				results[i] = w
				return nil
			})
		}
		return g.Wait()
	})
	if err != nil {
		return nil, err
	}
	trees := make([]*snapshot.Node, len(frames))
	byFrame := map[string]*snapshot.Node{}
	for i, r := range results {
		if r.walk == nil {
			continue
		}
		opaque := map[int][]*snapshot.Node{}
		for _, n := range r.walk.Nodes {
			if n.Opaque != 0 && r.opaque[n.ID] != nil {
				opaque[n.ID] = snapshot.Subtree(r.opaque[n.ID], n.Opaque == 2)
			}
		}
		trees[i] = r.walk.Tree(frames[i].ID, frames[i].LoaderID, int(r.context), opaque)
		if trees[i] != nil {
			byFrame[frames[i].ID] = trees[i]
		}
	}
	// Hang each frame's tree under its <iframe> in its parent's tree.
	for i, t := range trees {
		if i == 0 || t == nil || results[i].owner == 0 {
			continue
		}
		parent := byFrame[frames[i].Parent]
		if parent == nil {
			continue
		}
		parent.Walk(func(n *snapshot.Node, _ int) {
			if n.Role == "Iframe" && n.Ref.ID == results[i].owner && n.FrameID == frames[i].Parent {
				n.Children = append(n.Children, t)
			}
		})
	}
	root := trees[0]
	if root != nil {
		dropEmptyIframes(root)
	}
	return root, nil
}

// frameSessions returns, for each frame, the session that reaches it and
// the session that reaches its parent, where its <iframe> is.
func (s *slice) frameSessions(frames []page.FrameInfo) (sessions, parents []*page.Session) {
	sessions = make([]*page.Session, len(frames))
	parents = make([]*page.Session, len(frames))
	for i, f := range frames {
		sessions[i] = s.h.SessionOf(f.ID)
		parents[i] = s.h.SessionOf(f.Parent)
	}
	return sessions, parents
}

// dropEmptyIframes removes Iframe nodes left without a document (another
// process's, or gone) that are not worth showing on their own: Puppeteer
// shows an iframe when it has a snapshot or, as a leaf, a name or a
// description. The walker keeps every iframe so that its document can be
// attached.
func dropEmptyIframes(n *snapshot.Node) {
	kept := n.Children[:0]
	for _, c := range n.Children {
		dropEmptyIframes(c)
		if c.Role == "Iframe" && len(c.Children) == 0 && c.Name == "" && c.Prop("description") == nil {
			continue
		}
		kept = append(kept, c)
	}
	n.Children = kept
}

// walkFrame runs the walker in frame f's isolated world: the one the page
// knows, or else made now. When the walk meets custom elements it cannot
// see into, it gives them their closed shadow roots and walks again.
//
// A document replaced during the walk (a navigation the page started) takes
// the world with it: the walk starts again on the new document, in a world
// made for it, twice at most.
func walkFrame(ctx context.Context, c *page.Session, f page.FrameInfo) (walked, error) {
	world := f.World
	for tries := 0; ; tries++ {
		res, err := walkFrameOnce(ctx, c, f.ID, world)
		if tries == 2 || !walker.ContextGone(err) {
			return res, err
		}
		world = 0
	}
}

// walkFrameOnce walks frame frameID in the isolated world world, made
// first if 0.
func walkFrameOnce(ctx context.Context, c *page.Session, frameID string, world runtime.ExecutionContextID) (walked, error) {
	if world == 0 {
		var err error
		if world, err = c.SnapshotWorld(ctx, frameID); err != nil {
			return walked{}, err
		}
	}
	res, err := walkOnce(ctx, c, world)
	if err != nil || len(res.walk.Hosts) == 0 {
		return res, err
	}
	found, err := closedRoots(ctx, c, res)
	if err != nil || !found {
		return res, err
	}
	return walkOnce(ctx, c, world)
}

// closedRoots looks up, for each possible host of the walk, a closed shadow
// root (DOM.describeNode pierces them) and hands it to the walker. It
// reports whether it found any.
func closedRoots(ctx context.Context, s *page.Session, res walked) (bool, error) {
	c := s.Client()
	var found atomic.Bool
	g, ctx := errgroup.WithContext(ctx)
	for _, id := range res.walk.Hosts {
		g.Go(func() error {
			host, err := s.RefObject(ctx, snapshot.Ref{Context: int(res.context), Doc: res.walk.Doc, ID: id})
			if err != nil {
				return nil
			}
			defer s.ReleaseObject(host)
			d, err := c.DOM.DescribeNode(ctx, dom.NewDescribeNodeArgs().SetObjectID(host).SetPierce(true))
			if err != nil {
				return nil
			}
			for _, sr := range d.Node.ShadowRoots {
				if sr.ShadowRootType != dom.ShadowRootTypeClosed {
					continue
				}
				root, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(sr.BackendNodeID).
					SetExecutionContextID(res.context))
				if err != nil || root.Object.ObjectID == nil {
					return nil
				}
				defer s.ReleaseObject(*root.Object.ObjectID)
				_, err = walker.Call(ctx, c, res.context, host, true, "root", runtime.CallArgument{ObjectID: root.Object.ObjectID})
				if err == nil {
					found.Store(true)
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return found.Load(), err
}

// walkOnce runs the walker once in an isolated world.
func walkOnce(ctx context.Context, c *page.Session, world runtime.ExecutionContextID) (walked, error) {
	r, err := walker.Call(ctx, c.Client(), world, "", true, "walk")
	if err != nil {
		return walked{}, err
	}
	var text string
	if err := json.Unmarshal(r.Result.Value, &text); err != nil {
		return walked{}, fmt.Errorf("snapshot walker: %w", err)
	}
	walk, err := snapshot.DecodeWalk(text)
	if err != nil {
		return walked{}, err
	}
	return walked{walk: walk, context: world}, nil
}

// opaqueTrees fetches Chrome's accessibility subtree of each element the
// walker could not see into (date fields, media controls, plugins), all at
// once. The first such query on a document builds Chrome's accessibility
// tree (tens of milliseconds on a large page); pages without such elements
// never pay it.
func opaqueTrees(ctx context.Context, s *page.Session, f page.FrameInfo, w *walked) error {
	var ids []int
	for _, n := range w.walk.Nodes {
		if n.Opaque != 0 {
			ids = append(ids, n.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	trees := make([]*snapshot.Frame, len(ids))
	g, ctx := errgroup.WithContext(ctx)
	for i, id := range ids {
		g.Go(func() error {
			obj, err := s.RefObject(ctx, snapshot.Ref{Context: int(w.context), Doc: w.walk.Doc, ID: id})
			if err != nil {
				return nil // gone since the walk: leave it out
			}
			defer s.ReleaseObject(obj)
			r, err := s.Client().Accessibility.QueryAXTree(ctx, accessibility.NewQueryAXTreeArgs().SetObjectID(obj))
			if err != nil {
				return nil
			}
			trees[i] = &snapshot.Frame{FrameID: f.ID, LoaderID: f.LoaderID, Nodes: r.Nodes}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	w.opaque = map[int]*snapshot.Frame{}
	for i, id := range ids {
		if trees[i] != nil {
			w.opaque[id] = trees[i]
		}
	}
	return nil
}

// frameOwnerID returns the walker id, in the parent frame's isolated world,
// of the <iframe> element that holds frame f; s is the parent frame's
// session, world the parent's isolated world if the page knows it.
func frameOwnerID(ctx context.Context, s *page.Session, f page.FrameInfo, world runtime.ExecutionContextID) (int, error) {
	c := s.Client()
	o, err := c.DOM.GetFrameOwner(ctx, dom.NewGetFrameOwnerArgs(pg.FrameID(f.ID)))
	if err != nil {
		return 0, err
	}
	resolve := func() (*dom.ResolveNodeReply, error) {
		if world == 0 {
			if world, err = s.SnapshotWorld(ctx, f.Parent); err != nil {
				return nil, err
			}
		}
		return c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(o.BackendNodeID).
			SetExecutionContextID(world))
	}
	known := world != 0
	obj, err := resolve()
	if known && err != nil {
		// The parent's document was replaced since the page heard of its
		// world (Chrome then says the node "does not belong to the
		// document"): the world it has now.
		world = 0
		obj, err = resolve()
	}
	if err != nil {
		return 0, err
	}
	if obj.Object.ObjectID == nil {
		return 0, page.ErrNodeGone
	}
	defer s.ReleaseObject(*obj.Object.ObjectID)
	r, err := walker.Call(ctx, c, world, *obj.Object.ObjectID, true, "id")
	if err != nil {
		return 0, err
	}
	var id int
	if err := json.Unmarshal(r.Result.Value, &id); err != nil {
		return 0, err
	}
	return id, nil
}
