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
// (pierce) and handed to the walker. Frames in another renderer process
// (out-of-process iframes) are walked, or read, through their own sessions
// (oopif.go) and hung under their <iframe> as same-process frames are.
//
// A verbose snapshot is the full AX tree, unfiltered, as before: it is
// meant to be exhaustive (InlineTextBoxes, ignored nodes). Its nodes are
// known by backend node id, so switching between verbose and default
// snapshots renumbers uids (each kind keeps its own uids stable).

import (
	"context"
	"fmt"

	"github.com/tabhive/tabhive/page/snapshot"
)

// Snapshot is the text of an accessibility snapshot, with the page's state.
type Snapshot struct {
	Text string
	// Full is the whole snapshot's text: Text itself, unless
	// [Actor.SnapshotView] printed a part of it.
	Full string
	// Seq orders the page's snapshots: a later one has a larger Seq.
	Seq int64
	State
}

// Snapshot captures the page's accessibility tree, every iframe included
// (out-of-process ones through their own sessions), and makes it the page's latest snapshot: the one uids
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
		return Snapshot{Text: text, Full: text, Seq: a.ids.Last(), State: a.state()}, err
	})
}

// snapshot runs on the actor goroutine.
func (a *Actor) snapshot(ctx context.Context, verbose bool) (string, error) {
	if err := a.needRenderer(); err != nil {
		return "", err
	}
	if err := a.awaitChildren(ctx); err != nil {
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
