package axsnapshot

// take_snapshot and wait_for: the tools that read a page as text. What a
// reply holds of a snapshot (the bound, the outline, the diff against
// the session's previous one) is the transport's, reached through
// [tool.Call].

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/snapshot"
	"github.com/tabhive/tabhive/transport/tool"
)

// Tools are the snapshot capability's tools.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "take_snapshot", Description: "Take a text snapshot of the target page based on the a11y tree. The snapshot lists page elements along with a unique identifier (uid). Always use the latest snapshot. Prefer taking a snapshot over taking a screenshot. " +
			"On a large page, ask only for the part you need: query (find elements by text or /regex/), uid (one element's subtree), depth (levels shown), inViewport (what is on screen); diff returns only what changed since your previous snapshot. " +
			"A snapshot over the server's bound (256 KB by default) is saved to a file, and the reply gives its outline: landmarks and headings with their uids.", Page: true},
			tool.Fixed[snapshotArgs](tool.SnapshotBudget), runSnapshot),
		tool.Define(tool.Tool{Name: "wait_for", Description: "Wait for the specified text to appear on the selected page.", Page: true, ReadOnly: true},
			func(a *waitForArgs) time.Duration {
				return tool.Millis(a.Timeout, page.DefaultWaitForTimeout) + tool.Overhead
			}, runWaitFor),
	}
}

type snapshotArgs struct {
	Verbose    bool   `json:"verbose" desc:"Whether to include all possible information available in the full a11y tree. Default is false."`
	FilePath   string `json:"filePath" desc:"The absolute path, or a path relative to the current working directory, to save the snapshot to instead of attaching it to the response."`
	UID        string `json:"uid" desc:"Only the subtree of the element with this uid (from a previous snapshot or outline), its ancestors shown above it as a one-line path."`
	Depth      *int   `json:"depth" min:"0" desc:"How many levels to show below the root (with query: below each match; default 0 there). A deeper subtree is shown as one line counting its nodes, with the uid that expands it."`
	Query      string `json:"query" desc:"Show only the elements whose name, value or description contains this text (case-insensitive), or matches /regex/ (Go syntax; (?i) for case-insensitive), each with its ancestors; other nodes are counted, not shown. At most 500 characters."`
	InViewport bool   `json:"inViewport" desc:"Show only what intersects the viewport (plus the page root and landmarks as anchors). Default is false."`
	Diff       bool   `json:"diff" desc:"Show only what changed since your previous snapshot of this page: added (+), removed (-) and changed (~) lines with their uids. Default is false."`
}

// view checks the arguments that choose a part of the snapshot and turns
// them into options.
func (a *snapshotArgs) view() (Options, error) {
	opts := Options{Verbose: a.Verbose, UID: a.UID, Depth: -1, InViewport: a.InViewport}
	if a.Diff && (a.Verbose || a.UID != "" || a.Depth != nil || a.Query != "" || a.InViewport) {
		return opts, tool.BadArgs("diff compares whole default snapshots: call take_snapshot with diff alone, or without diff to use verbose, uid, depth, query or inViewport.")
	}
	if a.Diff && a.FilePath != "" {
		return opts, tool.BadArgs("diff is sent in the reply, not saved: call take_snapshot with diff alone, or with filePath alone to save the whole snapshot.")
	}
	if a.InViewport && a.Verbose {
		return opts, tool.BadArgs("inViewport works on the default snapshot only: drop verbose, or inViewport.")
	}
	if a.UID != "" {
		if _, err := snapshot.ParseUID(a.UID); err != nil {
			return opts, tool.BadArgs("Invalid argument \"uid\" for tool \"take_snapshot\": %q is not a uid; pass one from a snapshot, such as 3_12, or call take_snapshot without uid.", a.UID)
		}
	}
	if a.Query != "" {
		q, err := snapshot.ParseQuery(a.Query)
		if errors.Is(err, snapshot.ErrQueryTooLong) {
			return opts, tool.BadArgs("Invalid argument \"query\" for tool \"take_snapshot\": it is %d characters long, over %d; pass a shorter text or pattern.", len(a.Query), snapshot.MaxQueryLen)
		}
		var qe *snapshot.QueryError
		if errors.As(err, &qe) && errors.Is(qe.Err, snapshot.ErrQueryTooComplex) {
			return opts, tool.BadArgs("Invalid argument \"query\" for tool \"take_snapshot\": %s compiles to %d instructions, over the %d allowed, and would take too long to match; simplify it (fewer or smaller repetitions), or pass plain text without the enclosing slashes.", a.Query, qe.Size, snapshot.MaxQueryProgram)
		}
		if errors.As(err, &qe) {
			return opts, tool.BadArgs("Invalid argument \"query\" for tool \"take_snapshot\": %s is not a valid regular expression (%v); fix it, or pass plain text without the enclosing slashes.", a.Query, qe.Err)
		}
		if err != nil {
			return opts, err
		}
		opts.Query = q
		opts.Depth = 0
	}
	if a.Depth != nil {
		opts.Depth = *a.Depth
	}
	return opts, nil
}

func runSnapshot(ctx context.Context, c tool.Call, a *snapshotArgs) error {
	opts, err := a.view()
	if err != nil {
		return err
	}
	if a.Diff && !c.Snapshots().Has() {
		return tool.BadArgs("This session has no previous snapshot of page %d to compare with: call take_snapshot without diff first, then diff shows what changed after it.", c.PageID())
	}
	snap, err := TakeView(ctx, c.Page(), opts)
	var qe *snapshot.QueryTimeoutError
	if errors.As(err, &qe) {
		return fmt.Errorf("the query %s took more than %v to match the snapshot (it had matched %d of %d nodes), so it was stopped; simplify the pattern, or pass uid to search below one node", a.Query, snapshot.QueryBudget, qe.Matched, qe.Nodes)
	}
	var re *ViewRootError
	if errors.As(err, &re) {
		return tool.BadArgs("uid %s is not in page %d's snapshot now (the element is gone, or the uid is mistyped): call take_snapshot with query to find the element, or without uid for the whole page.", re.UID, re.PageID)
	}
	if err != nil {
		return err
	}
	c.Reply().State(snap.State)
	if a.FilePath != "" {
		path, err := c.Sandbox(ctx).WriteFile(a.FilePath, []byte(snap.Text), ".txt")
		if err != nil {
			return err
		}
		c.Snapshots().Saved(path)
	} else if a.Diff {
		c.Snapshots().ShowDiff(ctx, snap.Full)
	} else {
		c.Snapshots().Show(ctx, snap.Text)
	}
	if !a.Verbose {
		c.Snapshots().Saw(snap.Seq, snap.Full)
	}
	return nil
}

type waitForArgs struct {
	Text    []string `json:"text" required:"true" minItems:"1" desc:"Non-empty list of texts. Resolves when any value appears on the page."`
	Timeout *int     `json:"timeout" min:"0" max:"3600000" desc:"Maximum wait time in milliseconds. If set to 0, the default timeout will be used. At most 300000 (5 minutes): a larger value is lowered to it."`
}

func runWaitFor(ctx context.Context, c tool.Call, a *waitForArgs) error {
	res, err := WaitForText(ctx, c.Page(), a.Text, tool.Millis(a.Timeout, 0))
	if err != nil {
		return err
	}
	texts, _ := json.Marshal(a.Text)
	c.Reply().Line("Element matching one of %s found.", texts)
	c.Reply().State(res.State)
	c.Snapshots().Show(ctx, res.Snapshot)
	c.Snapshots().Saw(0, res.Snapshot)
	return nil
}
