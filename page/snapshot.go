package page

// Snapshots.
//
// A default (non-verbose) snapshot is computed in the page by the walker
// (js/snapshot.js) instead of from Accessibility.getFullAXTree, for speed
// at the same fidelity. Measured on the benchmark's /large?n=2000 page (16k
// DOM nodes, 22k AX nodes; docs/bench/snapshot.md): getFullAXTree alone
// takes 0.9–3.5 s and returns 8.5 MB, most of it Chrome serialising every
// AX node (depth=3 still 0.7 s, queryAXTree 0.6–1.4 s); the DOM-based
// alternatives, DOMSnapshot.captureSnapshot (106–250 ms) and
// DOM.getDocument(depth=-1) (86–190 ms), spend the budget before a single
// role or name is computed. The walker computes the 8,000 nodes that are
// printed, with Chrome's roles, names and states, and returns 415 KB of
// text in about 100–150 ms.
//
// Identity costs nothing at snapshot time: the walker keeps a node's id in
// its isolated world, where the page cannot see or disturb it, for as long
// as the document lives; a node keeps its uid across snapshots by (loader
// id, walker id) as it does by (loader id, backend node id) in AX-tree
// snapshots. The backend node id CDP commands need is looked up (walker id
// → node → DOM.describeNode) only when an action uses the node (nodeID).
//
// What the walker cannot see, Chrome fills in: the user-agent shadow parts
// of date fields, media controls and plugins come from
// Accessibility.queryAXTree of that element alone (a few ms, plus one
// build of Chrome's tree, tens of ms on a large page, for pages that have
// them); closed shadow roots are found once per host with DOM.describeNode
// (pierce) and handed to the walker. Frames in another renderer process are
// left out by both paths alike.
//
// A verbose snapshot is the full AX tree, unfiltered, as before: it is
// meant to be exhaustive (InlineTextBoxes, ignored nodes). Its nodes are
// known by backend node id, so switching between verbose and default
// snapshots renumbers uids (each kind keeps its own uids stable).

import (
	"context"
	_ "embed"
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

	"github.com/tabhive/tabhive/page/snapshot"
)

// snapshotJS is the in-page snapshot walker: a function (op, ...) that,
// called with op "walk" in a frame's isolated world, returns the kept nodes
// of the default snapshot of that document ([snapshot.DecodeWalk]); with op
// "id" on an element, that element's walker id; with op "root" on an
// element, takes the element's closed shadow root; with op "node" (doc,
// id), the DOM node a walker id names, or null.
//
//go:embed js/snapshot.js
var snapshotJS string

// walkerCall calls the walker once it is installed in the isolated world,
// and says so when it is not. walkerInstall installs it (in a global of the
// isolated world, which lives as long as the document) and calls it. So the
// walker's source is sent and compiled once per document, and V8 keeps its
// type feedback and optimized code from one snapshot to the next.
const (
	walkerCall = `function (op, a, b) {
  const w = globalThis.__tabhiveWalker;
  return w ? w.call(this, op, a, b) : '\u0000install';
}`
	walkerMissing = "\u0000install"
)

var walkerInstall = "function (op, a, b) {\n" +
	"const w = globalThis.__tabhiveWalker ??= (" + snapshotJS + ");\n" +
	"return w.call(this, op, a, b);\n}"

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
	r, err := call(walkerCall)
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

// Snapshot is the text of an accessibility snapshot, with the page's state.
type Snapshot struct {
	Text string
	State
}

// Snapshot captures the page's accessibility tree, every same-process
// iframe included, and makes it the page's latest snapshot: the one uids
// resolve against.
//
// A default snapshot is computed in the page by the walker (js/snapshot.js),
// which gives the roles, names and states Chrome's accessibility tree has,
// filtered as chrome-devtools-mcp filters it, in a fraction of the time
// Accessibility.getFullAXTree takes on a large page. A verbose snapshot is
// the full AX tree, unfiltered.
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
	frames := a.snapshotFrames()
	if len(frames) == 0 {
		return "", fmt.Errorf("snapshot: page has no frame yet")
	}
	var root *snapshot.Node
	var err error
	if verbose {
		root, err = a.snapshotAX(ctx, frames, true)
	} else {
		root, err = a.snapshotWalk(ctx, frames)
	}
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	if root == nil {
		a.snap, a.uids = nil, nil
		return "", nil
	}
	a.uids = a.ids.Assign(root)
	a.snap = root
	return root.Text(verbose), nil
}

// snapshotFrames lists the page's frames, the main frame first.
func (a *Actor) snapshotFrames() []frame {
	frames := make([]frame, 0, len(a.frames))
	if f := a.frames[a.mainFrame]; f != nil {
		frames = append(frames, *f)
	}
	for _, f := range a.frames {
		if f.id != a.mainFrame {
			frames = append(frames, *f)
		}
	}
	return frames
}

// snapshotAX builds a snapshot from Accessibility.getFullAXTree of every
// frame, filtered as Puppeteer filters it unless verbose. It runs on the
// actor goroutine.
func (a *Actor) snapshotAX(ctx context.Context, frames []frame, verbose bool) (*snapshot.Node, error) {
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
		return nil, err
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
	return snapshot.Build(trees[0], verbose), nil
}

// walked is the walker's result for one frame.
type walked struct {
	walk    *snapshot.Walk
	context runtime.ExecutionContextID
	owner   int                     // walker id of the frame's <iframe> in its parent's walk
	opaque  map[int]*snapshot.Frame // AX subtrees of the walk's opaque nodes, by id
}

// snapshotWalk builds a default snapshot with the in-page walker, one
// isolated world per frame, all frames at once. Frames in another renderer
// process (out-of-process iframes) cannot be walked from this target and
// are left out, as the AX tree path leaves them out. It runs on the actor
// goroutine.
func (a *Actor) snapshotWalk(ctx context.Context, frames []frame) (*snapshot.Node, error) {
	results := make([]walked, len(frames))
	err := a.call(ctx, func(ctx context.Context) error {
		g, ctx := errgroup.WithContext(ctx)
		for i, f := range frames {
			g.Go(func() error {
				w, err := walkFrame(ctx, a.c, f.id)
				if err != nil {
					if i == 0 {
						return err
					}
					return nil // a frame that went away or lives in another process
				}
				if err := opaqueTrees(ctx, a.c, f, &w); err != nil {
					return err
				}
				if i > 0 {
					owner, err := frameOwnerID(ctx, a.c, f)
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
func walkFrame(ctx context.Context, c *cdp.Client, frameID string) (walked, error) {
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
// of the <iframe> element that holds frame f.
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
	case n.BackendNodeID == 0 && n.Ref.IsZero():
		return nil, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: fmt.Errorf("it has no DOM node")}
	}
	return n, nil
}

// nodeID returns the backend DOM node id of a snapshot node, for CDP
// commands that act on it. A node of a default snapshot is known by its
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
	err := a.call(ctx, func(ctx context.Context) (err error) {
		id, err = lookupRef(ctx, a.c, n.Ref)
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
	err := a.call(ctx, func(ctx context.Context) error {
		var g errgroup.Group
		g.SetLimit(16)
		for _, i := range todo {
			g.Go(func() error {
				ids[i], errs[i] = lookupRef(ctx, a.c, ns[i].Ref)
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
	obj, err := refObject(ctx, c, ref)
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

// refObject returns the DOM node a walker ref names, as a remote object of
// the walker's isolated world, or errNodeGone. The caller releases it.
func refObject(ctx context.Context, c *cdp.Client, ref snapshot.Ref) (runtime.RemoteObjectID, error) {
	doc, _ := json.Marshal(ref.Doc)
	id, _ := json.Marshal(ref.ID)
	r, err := callWalker(ctx, c, runtime.ExecutionContextID(ref.Context), "", false, "node",
		runtime.CallArgument{Value: doc}, runtime.CallArgument{Value: id})
	if err != nil {
		// The isolated world went with its document.
		var re *rpcc.ResponseError
		if errors.As(err, &re) && strings.Contains(re.Message, "Cannot find context") {
			return "", errNodeGone
		}
		return "", err
	}
	if r.Result.ObjectID == nil {
		return "", errNodeGone
	}
	return *r.Result.ObjectID, nil
}
