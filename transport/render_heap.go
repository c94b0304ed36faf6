package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tabhive/tabhive/internal/devtools/heap"
	"github.com/tabhive/tabhive/internal/jsfmt"
)

// The memory tools' replies, in chrome-devtools-mcp 1.11's text: CSV
// tables under "## Heap Snapshot Data", sizes in kilobytes as DevTools
// prints them, names cut at maxNameLength (100 by default), paging as its
// other listings page.

// defaultMaxNameLength is where names are cut when the call gives no
// maxNameLength.
const defaultMaxNameLength = 100

// heapSection starts every memory-analysis reply.
const heapSection = "## Heap Snapshot Data"

// formatKB prints bytes in kilobytes as DevTools' formatBytesToKb does
// (en-US): one decimal under 100 kB, whole kilobytes with thousands
// separators from 100 kB, rounded half away from zero, a no-break space
// before the unit.
func formatKB(bytes float64) string {
	if math.IsNaN(bytes) {
		return "NaN\u00a0kB"
	}
	// ICU shows the sign of any negative number, even one that rounds to
	// zero ("-0.0 kB").
	neg := math.Signbit(bytes)
	abs := math.Abs(bytes)
	var s string
	if bytes/1000 < 100 {
		// Tenths of a kilobyte: bytes/100, rounded half up on the decimal
		// value (ICU rounds the decimal, not the binary float).
		tenths := roundHalfUp(abs, 100)
		s = groupThousands(strconv.FormatInt(tenths/10, 10)) + "." + strconv.FormatInt(tenths%10, 10)
	} else {
		s = groupThousands(strconv.FormatInt(roundHalfUp(abs, 1000), 10))
	}
	if neg {
		s = "-" + s
	}
	return s + "\u00a0kB"
}

// roundHalfUp returns v/unit rounded half up, for a non-negative integer
// v.
func roundHalfUp(v, unit float64) int64 {
	whole := int64(v)
	q, r := whole/int64(unit), whole%int64(unit)
	if frac := v - float64(whole); float64(r)+frac >= unit/2 {
		q++
	}
	return q
}

func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// signedKB prints a size with a "+" when positive (diff totals).
func signedKB(bytes float64) string {
	if bytes > 0 {
		return "+" + formatKB(bytes)
	}
	return formatKB(bytes)
}

func signedCount(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// truncateName cuts a name to max UTF-16 code units, as JavaScript counts,
// with "..." after a cut.
func truncateName(name string, max int) string {
	if jsLength(name) <= max {
		return name
	}
	return jsPrefix(name, max) + "..."
}

// formatName is a name for a one-line listing: cut, line breaks escaped.
func formatName(name string, max int) string {
	s := truncateName(name, max)
	s = strings.ReplaceAll(s, "\r", `\r`)
	return strings.ReplaceAll(s, "\n", `\n`)
}

// jsLength is a string's length in UTF-16 code units.
func jsLength(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// jsPrefix is the first n UTF-16 code units of s (a split surrogate pair
// becomes U+FFFD).
func jsPrefix(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			if units < n {
				return s[:i] + "\ufffd"
			}
			return s[:i]
		}
		units += w
	}
	return s
}

// listPage is the part of a list a paged reply shows, and the lines that say
// which.
type listPage struct {
	start, end int
	info       []string
}

// paginate pages a list of n items as chrome-devtools-mcp does: everything
// when neither pageIdx nor pageSize is given; else pages of pageSize (20 by
// default), an out-of-range pageIdx showing the first page with a note.
func paginate(n int, pageIdx, pageSize *int) listPage {
	var p listPage
	given := pageIdx != nil || pageSize != nil
	size, idx, total := n, 0, 1
	if given {
		size = 20
		if pageSize != nil {
			size = *pageSize
		}
		total = max(1, (n+size-1)/size)
		if pageIdx != nil {
			if *pageIdx < 0 || *pageIdx >= total {
				p.info = append(p.info, "Invalid page number provided. Showing first page.")
			} else {
				idx = *pageIdx
			}
		}
	}
	p.start = min(idx*size, n)
	p.end = min(p.start+size, n)
	if !given {
		p.start, p.end = 0, n
	}
	shown := p.start + 1
	if n == 0 {
		shown = 0
	}
	p.info = append(p.info, fmt.Sprintf("Showing %d-%d of %d (Page %d of %d).", shown, p.end, n, idx+1, total))
	if given {
		if idx < total-1 {
			p.info = append(p.info, fmt.Sprintf("Next page: %d", idx+1))
		}
		if idx > 0 {
			p.info = append(p.info, fmt.Sprintf("Previous page: %d", idx-1))
		}
	}
	return p
}

// jsonIndent is JSON.stringify(v, null, 2).
func jsonIndent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// summaryLines is get_heapsnapshot_summary's reply; ctx bounds the query
// it makes.
func summaryLines(ctx context.Context, s *heap.Snapshot, maxName int) ([]string, error) {
	lines := []string{heapSection,
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

// sortStable is an insertion sort, stable, for the short lists replies
// sort (native contexts).
func sortStable(n int, less func(i, j int) bool, swap func(i, j int)) {
	for i := 1; i < n; i++ {
		for j := i; j > 0 && less(j, j-1); j-- {
			swap(j, j-1)
		}
	}
}

// aggregatesLines is get_heapsnapshot_details' reply.
func aggregatesLines(a heap.Aggregates, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(len(a.Classes), pageIdx, pageSize)
	lines := []string{heapSection, fmt.Sprintf("Objects: %d", a.ObjectCount), "Total shallow size: " + formatKB(a.TotalSelfSize)}
	lines = append(lines, p.info...)
	lines = append(lines, "id,className,count,selfSize,retainedSize")
	for _, c := range a.Classes[p.start:p.end] {
		lines = append(lines, fmt.Sprintf("%d,%s,%d,%s,%s", c.ID, formatName(c.ClassName, maxName), c.Count, formatKB(c.SelfSize), formatKB(c.RetainedSize)))
	}
	return lines
}

// nodesLines lists nodes, then the paging lines.
func nodesLines(nodes heap.Nodes, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(nodes.Len(), pageIdx, pageSize)
	var table []string
	if nodes.Len() > 0 {
		table = append(table, "nodeId,nodeName,type,distance,selfSize,retainedSize")
	}
	for _, n := range nodes.Slice(p.start, p.end) {
		table = append(table, fmt.Sprintf("%d,%s,%s,%d,%s,%s", n.ID, formatName(n.Name, maxName), n.Type, n.Distance, formatKB(n.SelfSize), formatKB(n.RetainedSize)))
	}
	return append([]string{heapSection, strings.Join(table, "\n")}, p.info...)
}

// edgesLines lists edges and their nodes, then the paging lines.
func edgesLines(edges heap.Edges, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(edges.Len(), pageIdx, pageSize)
	var table []string
	if edges.Len() > 0 {
		table = append(table, "name,type,nodeId,nodeName,selfSize,retainedSize")
	}
	for _, e := range edges.Slice(p.start, p.end) {
		table = append(table, fmt.Sprintf("%s,%s,%d,%s,%s,%s", formatName(e.Name, maxName), e.Type, e.Node.ID, formatName(e.Node.Name, maxName), formatKB(e.Node.SelfSize), formatKB(e.Node.RetainedSize)))
	}
	return append([]string{heapSection, strings.Join(table, "\n")}, p.info...)
}

// pathsLines is get_heapsnapshot_retaining_paths' reply.
func pathsLines(paths []heap.Path, limits heap.Limits, maxName int) []string {
	lines := []string{heapSection, "### Retaining Paths"}
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

// dominatorsLines is get_heapsnapshot_dominators' reply.
func dominatorsLines(chain []heap.Dominator, maxName int) []string {
	lines := []string{heapSection, "### Dominator Chain"}
	if len(chain) == 0 {
		return append(lines, "No dominators found.")
	}
	table := []string{"nodeId,nodeName,selfSize,retainedSize"}
	for _, d := range chain {
		table = append(table, fmt.Sprintf("%d,%s,%s,%s", d.NodeID, formatName(d.NodeName, maxName), formatKB(d.SelfSize), formatKB(d.RetainedSize)))
	}
	return append(lines, strings.Join(table, "\n"))
}

// objectLines is get_heapsnapshot_object_details' reply.
func objectLines(o heap.ObjectInfo, maxName int) []string {
	state := "unknown"
	switch o.Detachedness {
	case 1:
		state = "attached"
	case 2:
		state = "detached"
	}
	return []string{heapSection, "### Object Details", strings.Join([]string{
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

// duplicatesLines is get_heapsnapshot_duplicate_strings' reply.
func duplicatesLines(groups []heap.StringGroup, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(len(groups), pageIdx, pageSize)
	lines := append([]string{heapSection, "### Duplicate Strings"}, p.info...)
	table := []string{"value,count,totalSelfSize,totalRetainedSize,truncated,nodeIds"}
	for _, g := range groups[p.start:p.end] {
		ids := make([]string, len(g.IDs))
		for i, id := range g.IDs {
			ids[i] = "@" + strconv.FormatUint(uint64(id), 10)
		}
		table = append(table, fmt.Sprintf("%s,%d,%s,%s,%t,%s", jsJSONString(truncateName(g.Value, maxName)), g.Count, formatKB(g.TotalSelfSize), formatKB(g.TotalRetainedSize), g.Truncated, strings.Join(ids, " ")))
	}
	return append(lines, strings.Join(table, "\n"))
}

// jsJSONString is JSON.stringify of a string: unlike Go's encoder it
// leaves <, > and & alone and escapes only what JSON requires.
func jsJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
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

// diffLines is compare_heapsnapshots' summary reply.
func diffLines(diffs []heap.ClassDiff, pageIdx, pageSize *int, maxName int) []string {
	p := paginate(len(diffs), pageIdx, pageSize)
	lines := []string{heapSection, "### Heap Snapshot Diff", diffTotalsLine(diffs)}
	lines = append(lines, p.info...)
	table := []string{"index,className,addedCount,removedCount,countDelta,addedSize,removedSize,sizeDelta"}
	for _, d := range diffs[p.start:p.end] {
		table = append(table, fmt.Sprintf("%d,%s,%d,%d,%d,%s,%s,%s", d.Index, formatName(d.ClassName, maxName), d.AddedCount, d.RemovedCount, d.CountDelta, formatKB(d.AddedSize), formatKB(d.RemovedSize), formatKB(d.SizeDelta)))
	}
	return append(lines, strings.Join(table, "\n"))
}

// classDiffLines is compare_heapsnapshots' reply for one class.
func classDiffLines(d heap.ClassDiff, maxName int) []string {
	out := []string{fmt.Sprintf("%s: # new: %d, # deleted: %d, # delta: %s, alloc size: %s, freed size: %s, size delta: %s",
		formatName(d.ClassName, maxName), d.AddedCount, d.RemovedCount, signedCount(d.CountDelta), signedKB(d.AddedSize), signedKB(d.RemovedSize), signedKB(d.SizeDelta)), "Objects:"}
	for i, id := range d.AddedIDs {
		out = append(out, fmt.Sprintf("  + @%d (self_size: %s)", id, formatKB(d.AddedSelfSizes[i])))
	}
	for i, id := range d.DeletedIDs {
		out = append(out, fmt.Sprintf("  - @%d (self_size: %s)", id, formatKB(d.DeletedSelfSizes[i])))
	}
	return []string{heapSection, "### Heap Snapshot Detailed Diff", strings.Join(out, "\n")}
}

// contextsLines is analyze_heapsnapshot_contexts' reply.
func contextsLines(a heap.ContextAnalysis, r *byteRange, scopeInfo *int, pageIdx, pageSize *int, maxName int) []string {
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
			if r != nil && (score < r.min || r.max != nil && score > *r.max) {
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
	lines := append([]string{heapSection, "### Context Analysis"}, p.info...)
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

func countOf(n int, singular string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%d %ss", n, singular)
}
