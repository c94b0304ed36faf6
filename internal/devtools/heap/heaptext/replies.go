package heaptext

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tabhive/tabhive/internal/devtools/heap"
	"github.com/tabhive/tabhive/internal/jsfmt"
)

// section starts every memory-analysis reply.
const section = "## Heap Snapshot Data"

// Summary is get_heapsnapshot_summary's reply; ctx bounds the query
// it makes.
func Summary(ctx context.Context, s *heap.Snapshot, maxName int) ([]string, error) {
	lines := []string{section,
		"Statistics: " + jsonIndent(s.Statistics()),
		"Static Data: " + jsonIndent(s.StaticData()),
		"### Native Contexts",
		"nodeId,nodeName,selfSize,retainedSize,attributedSize",
	}
	sizes := s.NativeContextSizes()
	ctxs := append([]heap.NativeContext(nil), sizes.Contexts...)
	sortStable(len(ctxs), func(i, j int) bool { return ctxs[i].AttributedSize > ctxs[j].AttributedSize }, func(i, j int) { ctxs[i], ctxs[j] = ctxs[j], ctxs[i] })
	for _, c := range ctxs {
		lines = append(lines, fmt.Sprintf("%d,%s,%s,%s,%s", c.NodeID, formatName(c.NodeName, maxName), formatKB(c.SelfSize), formatKB(c.RetainedSize), formatKB(c.AttributedSize)))
	}
	lines = append(lines, "Shared Size: "+formatKB(sizes.SharedSize), "Unattributed Size: "+formatKB(sizes.NoAttributionSize))
	r, err := s.RetainedByContextSummary(ctx)
	if err != nil {
		return nil, err
	}
	lines = append(lines, "### Retained by Context Summary",
		fmt.Sprintf("Context count: %d", r.ContextCount),
		fmt.Sprintf("Retained by context size: %s (%d objects)", formatKB(r.RetainedByContextSize), r.RetainedByContextCount),
		fmt.Sprintf("Not retained by context size: %s (%d objects)", formatKB(r.NotRetainedByContextSize), r.NotRetainedByContextCount),
		"Total size: "+formatKB(r.TotalSize))
	return lines, nil
}

// Details is get_heapsnapshot_details' reply.
func Details(a heap.Aggregates, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(len(a.Classes), pageIdx, pageSize)
	lines := []string{section, fmt.Sprintf("Objects: %d", a.ObjectCount), "Total shallow size: " + formatKB(a.TotalSelfSize)}
	lines = append(lines, p.info...)
	lines = append(lines, "id,className,count,selfSize,retainedSize")
	for _, c := range a.Classes[p.start:p.end] {
		lines = append(lines, fmt.Sprintf("%d,%s,%d,%s,%s", c.ID, formatName(c.ClassName, maxName), c.Count, formatKB(c.SelfSize), formatKB(c.RetainedSize)))
	}
	return lines
}

// Nodes lists nodes, then the paging lines: the reply of
// get_heapsnapshot_class_nodes and query_heapsnapshot_objects.
func Nodes(nodes heap.Nodes, pageIdx, pageSize *int, maxName int) []string {
	return pagedTable(nodes.Len(), nodes.Slice, pageIdx, pageSize, "nodeId,nodeName,type,distance,selfSize,retainedSize", func(n heap.Node) string {
		return fmt.Sprintf("%d,%s,%s,%d,%s,%s", n.ID, formatName(n.Name, maxName), n.Type, n.Distance, formatKB(n.SelfSize), formatKB(n.RetainedSize))
	})
}

// Edges lists edges and their nodes, then the paging lines: the reply of
// get_heapsnapshot_retainers and get_heapsnapshot_edges.
func Edges(edges heap.Edges, pageIdx, pageSize *int, maxName int) []string {
	return pagedTable(edges.Len(), edges.Slice, pageIdx, pageSize, "name,type,nodeId,nodeName,selfSize,retainedSize", func(e heap.Edge) string {
		return fmt.Sprintf("%s,%s,%d,%s,%s,%s", formatName(e.Name, maxName), e.Type, e.Node.ID, formatName(e.Node.Name, maxName), formatKB(e.Node.SelfSize), formatKB(e.Node.RetainedSize))
	})
}

// pagedTable is the reply listing one page of n items: a CSV table, its
// header left out when there are no items, then the paging lines.
func pagedTable[T any](n int, slice func(start, end int) []T, pageIdx, pageSize *int, header string, row func(T) string) []string {
	p := paginate(n, pageIdx, pageSize)
	var table []string
	if n > 0 {
		table = append(table, header)
	}
	for _, x := range slice(p.start, p.end) {
		table = append(table, row(x))
	}
	return append([]string{section, strings.Join(table, "\n")}, p.info...)
}

// RetainingPaths is get_heapsnapshot_retaining_paths' reply.
func RetainingPaths(paths []heap.Path, limits heap.Limits, maxName int) []string {
	lines := []string{section, "### Retaining Paths"}
	if len(paths) == 0 {
		lines = append(lines, "No retaining paths found.")
	} else {
		var tree []string
		var walk func(p heap.Path, depth int)
		walk = func(p heap.Path, depth int) {
			tree = append(tree, fmt.Sprintf("%s<- @%d %s via %s %s (distance: %d)", strings.Repeat("  ", depth), p.NodeID, formatName(p.NodeName, maxName), p.EdgeType, formatName(p.EdgeName, maxName), p.Distance))
			for _, c := range p.Children {
				walk(c, depth+1)
			}
		}
		for _, p := range paths {
			walk(p, 0)
		}
		lines = append(lines, strings.Join(tree, "\n"))
	}
	if len(limits) > 0 {
		lines = append(lines, fmt.Sprintf("Note: results are truncated, the following limits were reached: %s.", strings.Join(limits, ", ")))
	}
	return lines
}

// Dominators is get_heapsnapshot_dominators' reply.
func Dominators(chain []heap.Dominator, maxName int) []string {
	lines := []string{section, "### Dominator Chain"}
	if len(chain) == 0 {
		return append(lines, "No dominators found.")
	}
	table := []string{"nodeId,nodeName,selfSize,retainedSize"}
	for _, d := range chain {
		table = append(table, fmt.Sprintf("%d,%s,%s,%s", d.NodeID, formatName(d.NodeName, maxName), formatKB(d.SelfSize), formatKB(d.RetainedSize)))
	}
	return append(lines, strings.Join(table, "\n"))
}

// Object is get_heapsnapshot_object_details' reply.
func Object(o heap.ObjectInfo, maxName int) []string {
	state := "unknown"
	switch o.Detachedness {
	case 1:
		state = "attached"
	case 2:
		state = "detached"
	}
	return []string{section, "### Object Details", strings.Join([]string{
		fmt.Sprintf("id: @%d", o.ID),
		"name: " + formatName(o.Name, maxName),
		"type: " + o.Type,
		"detachedness: " + state,
		"selfSize: " + formatKB(o.SelfSize),
		"retainedSize: " + formatKB(o.RetainedSize),
		fmt.Sprintf("distance: %d", o.Distance),
		fmt.Sprintf("edgeCount: %d", o.EdgeCount),
		fmt.Sprintf("retainerCount: %d", o.RetainerCount),
	}, "\n")}
}

// DuplicateStrings is get_heapsnapshot_duplicate_strings' reply.
func DuplicateStrings(groups []heap.StringGroup, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(len(groups), pageIdx, pageSize)
	lines := append([]string{section, "### Duplicate Strings"}, p.info...)
	table := []string{"value,count,totalSelfSize,totalRetainedSize,truncated,nodeIds"}
	for _, g := range groups[p.start:p.end] {
		ids := make([]string, len(g.IDs))
		for i, id := range g.IDs {
			ids[i] = "@" + strconv.FormatUint(uint64(id), 10)
		}
		table = append(table, fmt.Sprintf("%s,%d,%s,%s,%t,%s", jsfmt.Quote(truncateName(g.Value, maxName)), g.Count, formatKB(g.TotalSelfSize), formatKB(g.TotalRetainedSize), g.Truncated, strings.Join(ids, " ")))
	}
	return append(lines, strings.Join(table, "\n"))
}

// diffTotalsLine sums a diff's classes.
func diffTotalsLine(diffs []heap.ClassDiff) string {
	var added, removed, delta int
	var addedSize, removedSize, sizeDelta float64
	for _, d := range diffs {
		added += d.AddedCount
		removed += d.RemovedCount
		delta += d.CountDelta
		addedSize += d.AddedSize
		removedSize += d.RemovedSize
		sizeDelta += d.SizeDelta
	}
	return fmt.Sprintf("Total: # new: %d, # deleted: %d, # delta: %s, alloc size: %s, freed size: %s, size delta: %s",
		added, removed, signedCount(delta), signedKB(addedSize), signedKB(removedSize), signedKB(sizeDelta))
}

// diffSummary is compare_heapsnapshots' reply without a classIndex.
func diffSummary(diffs []heap.ClassDiff, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(len(diffs), pageIdx, pageSize)
	lines := []string{section, "### Heap Snapshot Diff", diffTotalsLine(diffs)}
	lines = append(lines, p.info...)
	table := []string{"index,className,addedCount,removedCount,countDelta,addedSize,removedSize,sizeDelta"}
	for _, d := range diffs[p.start:p.end] {
		table = append(table, fmt.Sprintf("%d,%s,%d,%d,%d,%s,%s,%s", d.Index, formatName(d.ClassName, maxName), d.AddedCount, d.RemovedCount, d.CountDelta, formatKB(d.AddedSize), formatKB(d.RemovedSize), formatKB(d.SizeDelta)))
	}
	return append(lines, strings.Join(table, "\n"))
}

// Compare is compare_heapsnapshots' reply: the classes that changed, or,
// given a classIndex, the objects of that one class. A classIndex that is
// no index of diffs fails with upstream's sentence.
func Compare(diffs []heap.ClassDiff, classIndex *float64, pageIdx, pageSize *int, maxName int) ([]string, error) {
	if classIndex == nil {
		return diffSummary(diffs, pageIdx, pageSize, maxName), nil
	}
	i := *classIndex
	if i != math.Trunc(i) || i < 0 || i >= float64(len(diffs)) {
		return nil, &Error{(&heap.ClassIndexError{Index: i, Count: len(diffs)}).Error()}
	}
	return classDiff(diffs[int(i)], maxName), nil
}

// classDiff is compare_heapsnapshots' reply for one class.
func classDiff(d heap.ClassDiff, maxName int) []string {
	out := []string{fmt.Sprintf("%s: # new: %d, # deleted: %d, # delta: %s, alloc size: %s, freed size: %s, size delta: %s",
		formatName(d.ClassName, maxName), d.AddedCount, d.RemovedCount, signedCount(d.CountDelta), signedKB(d.AddedSize), signedKB(d.RemovedSize), signedKB(d.SizeDelta)), "Objects:"}
	for i, id := range d.AddedIDs {
		out = append(out, fmt.Sprintf("  + @%d (self_size: %s)", id, formatKB(d.AddedSelfSizes[i])))
	}
	for i, id := range d.DeletedIDs {
		out = append(out, fmt.Sprintf("  - @%d (self_size: %s)", id, formatKB(d.DeletedSelfSizes[i])))
	}
	return []string{section, "### Heap Snapshot Detailed Diff", strings.Join(out, "\n")}
}

// Contexts is analyze_heapsnapshot_contexts' reply.
func Contexts(a heap.ContextAnalysis, r *ByteRange, scopeInfo *int, pageIdx, pageSize *int, maxName int) []string {
	type ranked struct {
		scope *heap.Scope
		ctx   heap.DeadContext
	}
	var all []ranked
	for i := range a.Scopes {
		sc := &a.Scopes[i]
		if scopeInfo != nil && int64(sc.ScopeInfoNodeID) != int64(*scopeInfo) {
			continue
		}
		for _, c := range sc.Contexts {
			score := c.DeadFieldsRetainedSize
			if r != nil && (score < r.Min || r.Max != nil && score > *r.Max) {
				continue
			}
			all = append(all, ranked{sc, c})
		}
	}
	sortStable(len(all), func(i, j int) bool { return all[i].ctx.DeadFieldsRetainedSize > all[j].ctx.DeadFieldsRetainedSize }, func(i, j int) { all[i], all[j] = all[j], all[i] })
	if pageIdx == nil {
		zero := 0
		pageIdx = &zero
	}
	p := paginate(len(all), pageIdx, pageSize)
	lines := append([]string{section, "### Context Analysis"}, p.info...)
	var body []string
	if p.end-p.start == 0 {
		body = append(body, "No live contexts with dead fields were found.")
	}
	for _, x := range all[p.start:p.end] {
		if len(body) > 0 {
			body = append(body, "")
		}
		body = append(body,
			fmt.Sprintf("#### Context @%d in `%s` — %s", x.ctx.ContextNodeID, scopeName(x.scope, maxName), formatKB(x.ctx.DeadFieldsRetainedSize)),
			fmt.Sprintf("Script @%d, ScopeInfo @%d, offsets %s-%s, %s", x.scope.ScriptNodeID, x.scope.ScopeInfoNodeID, jsfmt.Number(x.scope.ScopeStart), jsfmt.Number(x.scope.ScopeEnd), countOf(x.scope.ContextFieldCount, "context field")))
		for _, f := range x.ctx.DeadFields {
			body = append(body, fmt.Sprintf("- `%s` (%s @%d) — %s", formatName(f.Name, maxName), formatName(f.ValueName, maxName), f.ValueNodeID, formatKB(f.RetainedSize)))
		}
	}
	if len(a.ScriptsWithoutScopes) > 0 {
		body = append(body, "", "Scripts without scope metadata could not be analyzed:")
		for _, w := range a.ScriptsWithoutScopes {
			name := fmt.Sprintf("script @%d", w.ScriptNodeID)
			if w.ScriptName != "" {
				name = formatName(w.ScriptName, maxName)
			}
			body = append(body, fmt.Sprintf("- `%s` (@%d) — %s", name, w.ScriptNodeID, countOf(w.ContextCount, "context")))
		}
	}
	return append(lines, strings.Join(body, "\n"))
}

func scopeName(s *heap.Scope, maxName int) string {
	script := fmt.Sprintf("script @%d", s.ScriptNodeID)
	if s.ScriptName != "" {
		script = formatName(s.ScriptName, maxName)
	}
	if s.ScopeName != "" {
		return fmt.Sprintf("%s (%s)", formatName(s.ScopeName, maxName), script)
	}
	return script
}
