package page

// The in-page walker (js/snapshot.js) and the default snapshot built with
// it: installing and calling the walker in each frame's isolated world,
// decoding what it returns, filling in what it cannot see (closed shadow
// roots, user-agent shadow parts) and hanging each frame's tree under its
// <iframe>. See snapshot.go for why a default snapshot is walked rather
// than read from the AX tree.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/accessibility"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/snapshot"
)

// js.WalkerCall calls the walker (js.Snapshot, whose walk the package
// snapshot decodes with [snapshot.DecodeWalk]) once it is installed in the
// isolated world, and answers walkerMissing when it is not. walkerInstall
// installs it (in a global of the isolated world, which lives as long as
// the document) and calls it. So the walker's source is sent and compiled
// once per document, and V8 keeps its type feedback and optimized code from
// one snapshot to the next.
const walkerMissing = "\u0000install"

var walkerInstall = strings.Replace(js.WalkerInstall, "__WALKER__", js.Snapshot, 1)

// callWalker runs the walker with op and args, on the element obj if set,
// else in the isolated world context. byValue returns the result as JSON
// rather than as a remote object.
func callWalker(ctx context.Context, c *cdp.Client, world runtime.ExecutionContextID, obj runtime.RemoteObjectID, byValue bool, op string, args ...runtime.CallArgument) (*runtime.CallFunctionOnReply, error) {
	opArg, _ := json.Marshal(op)
	call := func(fn string) (*runtime.CallFunctionOnReply, error) {
		a := runtime.NewCallFunctionOnArgs(fn).
			SetArguments(append([]runtime.CallArgument{{Value: opArg}}, args...)).
			SetReturnByValue(byValue).SetSilent(true)
		if obj != "" {
			a.SetObjectID(obj)
		} else {
			a.SetExecutionContextID(world)
		}
		return c.Runtime.CallFunctionOn(ctx, a)
	}
	r, err := call(js.WalkerCall)
	if err != nil {
		return nil, err
	}
	if r.ExceptionDetails == nil && r.Result.Type == "string" {
		var s string
		if json.Unmarshal(r.Result.Value, &s) == nil && s == walkerMissing {
			r, err = call(walkerInstall)
			if err != nil {
				return nil, err
			}
		}
	}
	if r.ExceptionDetails != nil {
		return nil, walkerError(r.ExceptionDetails)
	}
	return r, nil
}

// snapshotWorld is the name of the isolated world the walker runs in. The
// page cannot see it, and its state (node ids) lives as long as the
// document.
const snapshotWorld = "__tabhive_snapshot"

// walked is the walker's result for one frame.
type walked struct {
	walk    *snapshot.Walk
	context runtime.ExecutionContextID
	owner   int                     // walker id of the frame's <iframe> in its parent's walk
	opaque  map[int]*snapshot.Frame // AX subtrees of the walk's opaque nodes, by id
}

// snapshotWalk builds a default snapshot with the in-page walker, one
// isolated world per frame, all frames at once. Each frame is walked
// through the session that reaches it, out-of-process iframes through
// their own (oopif.go), and its <iframe> is found through its parent's. It
// runs on the actor goroutine.
func (a *Actor) snapshotWalk(ctx context.Context, frames []frame) (*snapshot.Node, error) {
	results := make([]walked, len(frames))
	clients, parents := a.frameClients(frames)
	err := a.call(ctx, func(ctx context.Context) error {
		g, ctx := errgroup.WithContext(ctx)
		for i, f := range frames {
			c := clients[i]
			g.Go(func() error {
				ctx := ctx
				if c != a.c {
					// A hung out-of-process iframe is left out, not
					// allowed to take the page's snapshot down with it.
					var cancel context.CancelFunc
					ctx, cancel = childBudget(ctx)
					defer cancel()
				}
				w, err := walkFrame(ctx, c, f.id)
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
					owner, err := frameOwnerID(ctx, parents[i], f)
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
		trees[i] = r.walk.Tree(frames[i].id, frames[i].loaderID, int(r.context), opaque)
		if trees[i] != nil {
			byFrame[frames[i].id] = trees[i]
		}
	}
	// Hang each frame's tree under its <iframe> in its parent's tree.
	for i, t := range trees {
		if i == 0 || t == nil || results[i].owner == 0 {
			continue
		}
		parent := byFrame[frames[i].parent]
		if parent == nil {
			continue
		}
		parent.Walk(func(n *snapshot.Node, _ int) {
			if n.Role == "Iframe" && n.Ref.ID == results[i].owner && n.FrameID == frames[i].parent {
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

// frameClients returns, for each frame, the client of the session that
// reaches it and that of the session that reaches its parent, where its
// <iframe> is.
func (a *Actor) frameClients(frames []frame) (clients, parents []*cdp.Client) {
	clients = make([]*cdp.Client, len(frames))
	parents = make([]*cdp.Client, len(frames))
	for i, f := range frames {
		clients[i] = a.sessionOf(f.id).c
		parents[i] = a.sessionOf(f.parent).c
	}
	return clients, parents
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

// walkFrame runs the walker in frame's isolated world. When the walk meets
// custom elements it cannot see into, it gives them their closed shadow
// roots and walks again.
//
// A document replaced during the walk (a navigation the page started) takes
// the world with it: the walk starts again on the new document, twice at
// most.
func walkFrame(ctx context.Context, c *cdp.Client, frameID string) (walked, error) {
	for tries := 0; ; tries++ {
		res, err := walkFrameOnce(ctx, c, frameID)
		if tries == 2 || !contextGone(err) {
			return res, err
		}
	}
}

// contextGone reports whether err says an execution context no longer
// exists: its document was replaced.
func contextGone(err error) bool {
	var re *rpcc.ResponseError
	return errors.As(err, &re) && strings.Contains(re.Message, "Cannot find context")
}

func walkFrameOnce(ctx context.Context, c *cdp.Client, frameID string) (walked, error) {
	w, err := c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(frameID)).
		SetWorldName(snapshotWorld))
	if err != nil {
		return walked{}, err
	}
	res, err := walkOnce(ctx, c, w.ExecutionContextID)
	if err != nil || len(res.walk.Hosts) == 0 {
		return res, err
	}
	found, err := closedRoots(ctx, c, res)
	if err != nil || !found {
		return res, err
	}
	return walkOnce(ctx, c, w.ExecutionContextID)
}

// closedRoots looks up, for each possible host of the walk, a closed shadow
// root (DOM.describeNode pierces them) and hands it to the walker. It
// reports whether it found any.
func closedRoots(ctx context.Context, c *cdp.Client, res walked) (bool, error) {
	var found atomic.Bool
	g, ctx := errgroup.WithContext(ctx)
	for _, id := range res.walk.Hosts {
		g.Go(func() error {
			host, err := refObject(ctx, c, snapshot.Ref{Context: int(res.context), Doc: res.walk.Doc, ID: id})
			if err != nil {
				return nil
			}
			defer releaseObject(c, host)
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
				defer releaseObject(c, *root.Object.ObjectID)
				_, err = callWalker(ctx, c, 0, host, true, "root", runtime.CallArgument{ObjectID: root.Object.ObjectID})
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
func walkOnce(ctx context.Context, c *cdp.Client, world runtime.ExecutionContextID) (walked, error) {
	r, err := callWalker(ctx, c, world, "", true, "walk")
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
func opaqueTrees(ctx context.Context, c *cdp.Client, f frame, w *walked) error {
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
			obj, err := refObject(ctx, c, snapshot.Ref{Context: int(w.context), Doc: w.walk.Doc, ID: id})
			if err != nil {
				return nil // gone since the walk: leave it out
			}
			defer releaseObject(c, obj)
			r, err := c.Accessibility.QueryAXTree(ctx, accessibility.NewQueryAXTreeArgs().SetObjectID(obj))
			if err != nil {
				return nil
			}
			trees[i] = &snapshot.Frame{FrameID: f.id, LoaderID: f.loaderID, Nodes: r.Nodes}
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
// of the <iframe> element that holds frame f; c is the client of the
// parent frame's session.
func frameOwnerID(ctx context.Context, c *cdp.Client, f frame) (int, error) {
	o, err := c.DOM.GetFrameOwner(ctx, dom.NewGetFrameOwnerArgs(page.FrameID(f.id)))
	if err != nil {
		return 0, err
	}
	w, err := c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(f.parent)).
		SetWorldName(snapshotWorld))
	if err != nil {
		return 0, err
	}
	obj, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(o.BackendNodeID).
		SetExecutionContextID(w.ExecutionContextID))
	if err != nil {
		return 0, err
	}
	if obj.Object.ObjectID == nil {
		return 0, errNodeGone
	}
	defer releaseObject(c, *obj.Object.ObjectID)
	r, err := callWalker(ctx, c, 0, *obj.Object.ObjectID, true, "id")
	if err != nil {
		return 0, err
	}
	var id int
	if err := json.Unmarshal(r.Result.Value, &id); err != nil {
		return 0, err
	}
	return id, nil
}

// walkerError reports an exception the walker threw, stack included: it is
// a bug of ours, not of the page.
func walkerError(e *runtime.ExceptionDetails) error {
	if e.Exception != nil && e.Exception.Description != nil {
		return fmt.Errorf("snapshot walker: %s", *e.Exception.Description)
	}
	return fmt.Errorf("snapshot walker: %s", e.Text)
}

// refObject returns the DOM node a walker ref names, as a remote object of
// the walker's isolated world, or errNodeGone. The caller releases it.
func refObject(ctx context.Context, c *cdp.Client, ref snapshot.Ref) (runtime.RemoteObjectID, error) {
	doc, _ := json.Marshal(ref.Doc)
	id, _ := json.Marshal(ref.ID)
	r, err := callWalker(ctx, c, runtime.ExecutionContextID(ref.Context), "", false, "node",
		runtime.CallArgument{Value: doc}, runtime.CallArgument{Value: id})
	if err != nil {
		// The isolated world went with its document.
		if contextGone(err) {
			return "", errNodeGone
		}
		return "", err
	}
	if r.Result.ObjectID == nil {
		return "", errNodeGone
	}
	return *r.Result.ObjectID, nil
}
