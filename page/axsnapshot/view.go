package axsnapshot

// Parts of a snapshot: take_snapshot's uid, depth, query and
// inViewport. The whole snapshot is taken as before, so that it becomes
// the page's latest (uids resolve against it, and the session's diff
// compares whole snapshots); the view only chooses what is printed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mafredri/cdp/protocol/runtime"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/snapshot"
)

// Options choose the part of a snapshot printed; see [snapshot.View].
// With Depth -1 and nothing else set, all of it.
type Options struct {
	// Verbose reads Chrome's full accessibility tree.
	Verbose bool
	// UID roots the printed part at that node of the new snapshot.
	UID string
	// Depth, if not negative, is the levels printed below the root (below
	// each match with Query).
	Depth int
	// Query prints only the matching nodes, with their ancestors.
	Query *snapshot.Query
	// InViewport prints only what intersects the viewport, with the root
	// and landmarks as anchors. It needs a default (not verbose) snapshot.
	InViewport bool
}

// whole reports whether the options print the whole snapshot.
func (o Options) whole() bool {
	return o.UID == "" && o.Depth < 0 && o.Query == nil && !o.InViewport
}

// ViewRootError reports a take_snapshot uid that names no node of the new
// snapshot: the element is gone, or the uid is mistyped.
type ViewRootError struct {
	UID    string
	PageID int
}

func (e *ViewRootError) Error() string {
	return fmt.Sprintf("uid %q is not in the snapshot of page %d", e.UID, e.PageID)
}

// ErrViewportVerbose is returned for inViewport on a verbose snapshot,
// whose nodes the walker did not see and cannot place.
var ErrViewportVerbose = errors.New("inViewport needs a default snapshot, not a verbose one")

// TakeView takes a snapshot of page a, as [Take], and prints the part of
// it opts choose. The result's Full is the whole snapshot's text.
func TakeView(ctx context.Context, a *page.Actor, opts Options) (Snapshot, error) {
	if opts.InViewport && opts.Verbose {
		return Snapshot{}, ErrViewportVerbose
	}
	s := key.Of(a)
	return page.Do(ctx, s.h, func(ctx context.Context) (Snapshot, error) {
		full, seq, err := s.take(ctx, opts.Verbose)
		snap := Snapshot{Text: full, Full: full, Seq: seq, State: s.h.State()}
		root := s.h.Elements().Snapshot()
		if err != nil || opts.whole() || root == nil {
			return snap, err
		}
		view := snapshot.View{Depth: opts.Depth, Query: opts.Query, Verbose: opts.Verbose}
		if opts.UID != "" {
			view.Root = byUID(root, opts.UID)
			if view.Root == nil {
				return snap, &ViewRootError{UID: opts.UID, PageID: s.h.ID()}
			}
		}
		if opts.InViewport {
			vis, err := s.visibility(ctx, root)
			if err != nil {
				return snap, fmt.Errorf("snapshot: viewport: %w", err)
			}
			view.Visible = func(n *snapshot.Node) snapshot.Visibility { return vis[n] }
		}
		snap.Text, err = root.ViewText(view)
		return snap, err
	})
}

// byUID returns the node of the tree whose uid is uid, or nil.
func byUID(root *snapshot.Node, uid string) *snapshot.Node {
	var found *snapshot.Node
	root.Walk(func(n *snapshot.Node, _ int) {
		if found == nil && n.UID == uid {
			found = n
		}
	})
	return found
}

// visibility finds which nodes of the tree intersect their frame's
// viewport, asking each frame's walker for its nodes at once. A frame's
// nodes are outside the viewport when its <iframe> is. It runs on the
// run goroutine.
func (s *slice) visibility(ctx context.Context, root *snapshot.Node) (map[*snapshot.Node]snapshot.Visibility, error) {
	type world struct {
		context int
		doc     string
	}
	nodes := map[world][]*snapshot.Node{}
	root.Walk(func(n *snapshot.Node, _ int) {
		if !n.Ref.IsZero() {
			w := world{n.Ref.Context, n.Ref.Doc}
			nodes[w] = append(nodes[w], n)
		}
	})
	results := make(map[world]string, len(nodes))
	c := s.h.Client()
	err := s.h.Call(ctx, func(ctx context.Context) error {
		g, ctx := errgroup.WithContext(ctx)
		out := make(chan struct {
			w world
			s string
		}, len(nodes))
		for w, ns := range nodes {
			ids := make([]int, len(ns))
			for i, n := range ns {
				ids[i] = n.Ref.ID
			}
			g.Go(func() error {
				docArg, _ := json.Marshal(w.doc)
				idsArg, err := json.Marshal(ids)
				if err != nil {
					return err
				}
				r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.InView).
					SetExecutionContextID(runtime.ExecutionContextID(w.context)).
					SetArguments([]runtime.CallArgument{{Value: docArg}, {Value: idsArg}}).
					SetReturnByValue(true).SetSilent(true))
				if err != nil || r.ExceptionDetails != nil {
					return nil // a frame that went away: its nodes stay unknown
				}
				var s string
				if json.Unmarshal(r.Result.Value, &s) == nil {
					out <- struct {
						w world
						s string
					}{w, s}
				}
				return nil
			})
		}
		err := g.Wait()
		close(out)
		for r := range out {
			results[r.w] = r.s
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	vis := make(map[*snapshot.Node]snapshot.Visibility, len(nodes))
	for w, ns := range nodes {
		s := results[w]
		for i, n := range ns {
			if i < len(s) {
				vis[n] = snapshot.Visibility(s[i] - '0')
			}
		}
	}
	hideFramesOutside(root, vis, false)
	return vis, nil
}

// hideFramesOutside marks the nodes of a frame whose <iframe> is outside
// the viewport as outside it too: their boxes are measured in their own
// frame's viewport, not the page's. hidden is set below such a frame.
func hideFramesOutside(n *snapshot.Node, vis map[*snapshot.Node]snapshot.Visibility, hidden bool) {
	for _, c := range n.Children {
		h := hidden || c.FrameID != n.FrameID && vis[n] == snapshot.Hidden
		if h {
			vis[c] = snapshot.Hidden
		}
		hideFramesOutside(c, vis, h)
	}
}
