// Package axsnapshot is the snapshot capability: it takes a page's
// accessibility snapshot, the text agents read with its uids, and serves
// take_snapshot and wait_for. Package page/snapshot is its engine (the
// tree, its text, uids, views, diffs; no I/O), which the page's core
// imports too, so the capability cannot live there; this package is what
// fetches the trees from Chrome.
//
// The latest snapshot and its uid table are the page core's (element
// tools everywhere resolve uids against it): a snapshot taken here is
// made the latest with [page.Elements.SetSnapshot], and the core asks this
// package's slice ([page.SnapshotTaker]) for the snapshot an input
// action ends with. The session's previous snapshots, the bound on a
// snapshot in a reply, its outline and diffs are the transport's.
//
// The slice holds no state of its own. Its work runs on the page's run
// goroutine through [page.Do]; the goroutines it starts are each frame's
// walk (or AX tree, or viewport check), in an errgroup the call waits
// for, and wait_for's search of each frame (findText), which the call
// cancels and waits for before it returns.
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
// → node → DOM.describeNode) only when an action uses the node (the core's
// page/uid.go).
//
// What the walker cannot see, Chrome fills in: the user-agent shadow parts
// of date fields, media controls and plugins come from
// Accessibility.queryAXTree of that element alone (a few ms, plus one
// build of Chrome's tree, tens of ms on a large page, for pages that have
// them); closed shadow roots are found once per host with DOM.describeNode
// (pierce) and handed to the walker. Frames in another renderer process
// (out-of-process iframes) are walked, or read, through their own sessions
// (the core's page/oopif.go) and hung under their <iframe> as same-process frames are.
//
// A verbose snapshot is the full AX tree, unfiltered, as before: it is
// meant to be exhaustive (InlineTextBoxes, ignored nodes). Its nodes are
// known by backend node id, so switching between verbose and default
// snapshots renumbers uids (each kind keeps its own uids stable).
package axsnapshot

import (
	"context"
	"fmt"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/snapshot"
)

// key finds a page's snapshot slice.
var key = page.Register(page.Capability[*slice]{
	Name: "snapshot",
	New:  func(h *page.Host) *slice { return &slice{h: h} },
})

// slice takes a page's snapshots, on the page's run goroutine.
type slice struct{ h *page.Host }

// TakeSnapshot takes a snapshot for the core: the one an input action
// ends with ([page.SnapshotTaker]).
func (s *slice) TakeSnapshot(ctx context.Context, verbose bool) (string, error) {
	text, _, err := s.take(ctx, verbose)
	return text, err
}

// Snapshot is the text of an accessibility snapshot, with the page's state.
type Snapshot struct {
	Text string
	// Full is the whole snapshot's text: Text itself, unless
	// [TakeView] printed a part of it.
	Full string
	// Seq orders the page's snapshots: a later one has a larger Seq.
	Seq int64
	page.State
}

// Take captures page a's accessibility tree, every iframe included
// (out-of-process ones through their own sessions), and makes it the
// page's latest snapshot: the one uids resolve against.
//
// A default snapshot is computed in the page by the walker (js/snapshot.js),
// which gives the roles, names and states Chrome's accessibility tree has,
// filtered as chrome-devtools-mcp filters it, in a fraction of the time
// Accessibility.getFullAXTree takes on a large page. A verbose snapshot is
// the full AX tree, unfiltered.
func Take(ctx context.Context, a *page.Actor, verbose bool) (Snapshot, error) {
	s := key.Of(a)
	return page.Do(ctx, s.h, func(ctx context.Context) (Snapshot, error) {
		text, seq, err := s.take(ctx, verbose)
		return Snapshot{Text: text, Full: text, Seq: seq, State: s.h.State()}, err
	})
}

// take takes a snapshot, makes it the page's latest and returns its text
// and sequence number. It runs on the run goroutine.
func (s *slice) take(ctx context.Context, verbose bool) (string, int64, error) {
	root, err := s.tree(ctx, verbose)
	if err != nil {
		return "", 0, err
	}
	seq := s.h.Elements().SetSnapshot(root)
	if root == nil {
		return "", seq, nil
	}
	return root.Text(verbose), seq, nil
}

// tree fetches the page's accessibility tree, walked or read whole.
func (s *slice) tree(ctx context.Context, verbose bool) (*snapshot.Node, error) {
	if err := s.h.NeedRenderer(); err != nil {
		return nil, err
	}
	if err := s.h.AwaitChildren(ctx); err != nil {
		return nil, err
	}
	frames := s.h.Frames()
	if len(frames) == 0 {
		return nil, fmt.Errorf("snapshot: page has no frame yet")
	}
	var root *snapshot.Node
	var err error
	if verbose {
		root, err = s.readAX(ctx, frames, true)
	} else {
		root, err = s.walk(ctx, frames)
		if err == nil && root == nil {
			// A walk always shows its document's root; one that shows
			// nothing walked a document being torn down (seen when the
			// browser was killed during the call). Walk once more: a page
			// that went away then fails as such.
			root, err = s.walk(ctx, frames)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if root == nil && !verbose {
		return nil, errNoDocument
	}
	return root, nil
}

// errNoDocument is a walk that found no document twice: never an empty
// snapshot in a reply.
var errNoDocument = agenterr.New("snapshot: the page has no document to walk",
	"The page's document was being replaced or closed while the snapshot was taken. Call take_snapshot again.")
