package heap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// The .heapsnapshot format (V8's HeapSnapshotJSONSerializer) is one JSON
// object: "snapshot" (the meta data and counts) first, then the flat
// integer arrays "nodes" and "edges", optional tables (allocation traces,
// samples, locations, scopes), and "strings" last. Each node is
// len(meta.node_fields) integers; each edge is len(meta.edge_fields)
// integers, and a node's edges follow those of the nodes before it.

// header is the "snapshot" member: what the arrays mean, and their sizes.
type header struct {
	nodeFields, edgeFields []string
	nodeTypes, edgeTypes   []string
	locationFields         []string
	scopeFields            []string
	scopeVarFields         []string
	scopeUseFields         []string
	nodeCount, edgeCount   int64
	rootIndex              int64
	extraNativeBytes       float64
}

// maxHeaderBytes bounds the "snapshot" member, which holds only names and
// counts (a few kilobytes in practice).
const maxHeaderBytes = 1 << 20

func parseFloat(s *scanner, b []byte) (float64, error) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, s.syntax("bad number %q", b)
	}
	return f, nil
}

// parse reads a heap snapshot from sc into a graph, refusing (before
// allocating them) arrays whose size would take the graph past budget
// bytes (0: no bound). size is the stream's size if known (0 if not), to
// refuse counts the file cannot hold.
func parse(ctx context.Context, sc *scanner, size int64, budget int64) (*graph, error) {
	g := &graph{}
	var h *header
	if err := sc.expect('{'); err != nil {
		return nil, notSnapshot(err)
	}
	seen := map[string]bool{}
	for first := true; ; first = false {
		if !first {
			more, err := sc.more('}')
			if err != nil {
				return nil, err
			}
			if !more {
				break
			}
		} else if done, err := sc.empty('}'); err != nil {
			return nil, err
		} else if done {
			return nil, notSnapshot(errors.New(`it has no "snapshot" member`))
		}
		key, err := sc.str(nil)
		if err != nil {
			return nil, err
		}
		if err := sc.expect(':'); err != nil {
			return nil, err
		}
		k := string(key)
		if seen[k] {
			return nil, notSnapshot(fmt.Errorf("member %q appears twice", k))
		}
		seen[k] = true
		if h == nil && k != "snapshot" {
			return nil, notSnapshot(fmt.Errorf(`it starts with %q, not "snapshot"`, k))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch k {
		case "snapshot":
			h, err = parseHeader(sc)
			if err != nil {
				return nil, err
			}
			if err := g.setHeader(h, size, budget); err != nil {
				return nil, err
			}
		case "nodes":
			err = g.readNodes(ctx, sc)
		case "edges":
			if !seen["nodes"] {
				return nil, notSnapshot(errors.New(`"edges" comes before "nodes"`))
			}
			err = g.readEdges(ctx, sc)
		case "locations":
			err = g.readLocations(ctx, sc)
		case "scopes":
			g.rawScopes, err = sc.ints()
		case "scope_context_vars":
			g.rawScopeVars, err = sc.ints()
		case "scope_uses":
			g.rawScopeUses, err = sc.ints()
		case "strings":
			err = g.readStrings(ctx, sc, size, budget)
		default:
			err = sc.skip(0)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"nodes", "edges", "strings"} {
		if !seen[k] {
			return nil, notSnapshot(fmt.Errorf("it has no %q member", k))
		}
	}
	return g, g.check()
}

// parseHeader reads the "snapshot" member.
func parseHeader(sc *scanner) (*header, error) {
	v, err := sc.value(0, sc.offset()+maxHeaderBytes)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, notSnapshot(errors.New(`"snapshot" is not an object`))
	}
	meta, ok := m["meta"].(map[string]any)
	if !ok {
		return nil, notSnapshot(errors.New(`"snapshot" has no "meta"`))
	}
	h := &header{
		nodeFields:     strList(meta["node_fields"]),
		edgeFields:     strList(meta["edge_fields"]),
		locationFields: strList(meta["location_fields"]),
		scopeFields:    strList(meta["scope_fields"]),
		scopeVarFields: strList(meta["scope_context_var_fields"]),
		scopeUseFields: strList(meta["scope_use_fields"]),
	}
	// node_types and edge_types list, for each field, its value type; the
	// type field's entry is the list of type names.
	typeNames := func(key string, fields []string) []string {
		l, _ := meta[key].([]any)
		i := slices.Index(fields, "type")
		if i < 0 || i >= len(l) {
			return nil
		}
		return strList(l[i])
	}
	h.nodeTypes = typeNames("node_types", h.nodeFields)
	h.edgeTypes = typeNames("edge_types", h.edgeFields)
	num := func(key string) (int64, bool) {
		f, ok := m[key].(float64)
		if !ok || f < 0 || f != float64(int64(f)) {
			return 0, false
		}
		return int64(f), true
	}
	var okN, okE bool
	h.nodeCount, okN = num("node_count")
	h.edgeCount, okE = num("edge_count")
	if !okN || !okE {
		return nil, notSnapshot(errors.New(`"snapshot" has no node_count or edge_count`))
	}
	h.rootIndex, _ = num("root_index")
	h.extraNativeBytes, _ = m["extra_native_bytes"].(float64)
	for _, f := range []string{"type", "name", "id", "self_size", "edge_count"} {
		if !slices.Contains(h.nodeFields, f) {
			return nil, notSnapshot(fmt.Errorf("its nodes have no %q field", f))
		}
	}
	for _, f := range []string{"type", "name_or_index", "to_node"} {
		if !slices.Contains(h.edgeFields, f) {
			return nil, notSnapshot(fmt.Errorf("its edges have no %q field", f))
		}
	}
	if len(h.nodeTypes) == 0 || len(h.edgeTypes) == 0 || len(h.nodeTypes) > 255 || len(h.edgeTypes) > 254 {
		return nil, notSnapshot(errors.New("its node or edge types are missing"))
	}
	return h, nil
}

func strList(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// setHeader sizes the graph's columns from the header, refusing counts
// the file cannot hold or the budget cannot afford.
func (g *graph) setHeader(h *header, size, budget int64) error {
	g.h = h
	nf, ef := int64(len(h.nodeFields)), int64(len(h.edgeFields))
	// Each integer takes at least two bytes ("0,").
	// A file too short for its header's counts was almost always cut
	// short (a copy or a write that stopped).
	if size > 0 && (h.nodeCount*nf+h.edgeCount*ef)*2 > size+16 {
		return fmt.Errorf("%w: its header claims %d nodes and %d edges, more than %d bytes can hold", errTruncated, h.nodeCount, h.edgeCount, size)
	}
	if h.nodeCount == 0 || h.nodeCount >= maxUint32/2 || h.edgeCount >= maxUint32-1 {
		return notSnapshot(fmt.Errorf("it claims %d nodes and %d edges", h.nodeCount, h.edgeCount))
	}
	// DevTools expects the root to be the first node or the last.
	if r := h.rootIndex; r%nf != 0 || r != 0 && r/nf != h.nodeCount-1 {
		return notSnapshot(fmt.Errorf("its root index %d is neither the first node nor the last", h.rootIndex))
	}
	if need := EstimateBytes(h.nodeCount, h.edgeCount); budget > 0 && need > budget {
		return &TooLargeError{Need: need, Budget: budget}
	}
	n, e := int(h.nodeCount), int(h.edgeCount)
	g.nodeCount, g.edgeCount = n, e
	g.root = uint32(h.rootIndex / nf)
	g.nType = make([]uint8, n)
	g.nName = make([]uint32, n)
	g.nID = make([]uint32, n)
	g.nSelf = make([]uint32, n)
	g.firstEdge = make([]uint32, n+1)
	g.eType = make([]uint8, e)
	g.eName = make([]uint32, e)
	g.eTo = make([]uint32, e)
	g.nodeFieldCount = int(nf)
	return nil
}

// readNodes reads the "nodes" array into the node columns; edge_count
// becomes the index of each node's first edge.
func (g *graph) readNodes(ctx context.Context, sc *scanner) error {
	h := g.h
	nf := len(h.nodeFields)
	if slices.Contains(h.nodeFields, "detachedness") {
		g.hasDetachedness = true
		g.detachedInput = make([]uint8, g.nodeCount)
	}
	types := uint32(len(h.nodeTypes))
	off := func(f string) int { return slices.Index(h.nodeFields, f) }
	tOff, nOff, iOff, sOff, eOff, dOff := off("type"), off("name"), off("id"), off("self_size"), off("edge_count"), off("detachedness")
	node := 0
	var edges uint64
	n := g.nodeCount
	put := func(v []uint32) error {
		if node >= n {
			return notSnapshot(errors.New(`its "nodes" array is longer than node_count says`))
		}
		if v[tOff] >= types {
			return notSnapshot(fmt.Errorf("node %d has type %d, which is not a node type", node, v[tOff]))
		}
		g.nType[node] = uint8(v[tOff])
		g.nName[node] = v[nOff]
		g.nID[node] = v[iOff]
		g.nSelf[node] = v[sOff]
		g.firstEdge[node] = uint32(edges)
		edges += uint64(v[eOff])
		if edges > uint64(g.edgeCount) {
			return notSnapshot(errors.New("its nodes have more edges than edge_count says"))
		}
		if dOff >= 0 {
			g.detachedInput[node] = uint8(v[dOff] & 3)
		}
		node++
		return nil
	}
	field, err := sc.records(ctx, nf, put)
	if err != nil {
		return err
	}
	if node != n || field != 0 {
		return notSnapshot(fmt.Errorf(`its "nodes" array holds %d nodes, node_count says %d`, node, n))
	}
	if edges != uint64(g.edgeCount) {
		return notSnapshot(fmt.Errorf("its nodes have %d edges, edge_count says %d", edges, g.edgeCount))
	}
	g.firstEdge[n] = uint32(edges)
	g.nodesRead = true
	return nil
}

// readEdges reads the "edges" array into the edge columns, with each
// target as a node ordinal.
func (g *graph) readEdges(ctx context.Context, sc *scanner) error {
	h := g.h
	ef := len(h.edgeFields)
	tIdx := slices.Index(h.edgeFields, "type")
	nIdx := slices.Index(h.edgeFields, "name_or_index")
	toIdx := slices.Index(h.edgeFields, "to_node")
	types := uint32(len(h.edgeTypes))
	nf := uint32(g.nodeFieldCount)
	limit := uint32(g.nodeCount)
	edge := 0
	e := g.edgeCount
	put := func(v []uint32) error {
		if edge >= e {
			return notSnapshot(errors.New(`its "edges" array is longer than edge_count says`))
		}
		if v[tIdx] >= types {
			return notSnapshot(fmt.Errorf("edge %d has type %d, which is not an edge type", edge, v[tIdx]))
		}
		to := v[toIdx]
		if to%nf != 0 || to/nf >= limit {
			return notSnapshot(fmt.Errorf("edge %d points to %d, which is not a node", edge, to))
		}
		g.eType[edge] = uint8(v[tIdx])
		g.eName[edge] = v[nIdx]
		g.eTo[edge] = to / nf
		edge++
		return nil
	}
	field, err := sc.records(ctx, ef, put)
	if err != nil {
		return err
	}
	if edge != e || field != 0 {
		return notSnapshot(fmt.Errorf(`its "edges" array holds %d edges, edge_count says %d`, edge, e))
	}
	g.edgesRead = true
	return nil
}

// readStrings reads the "strings" array into one arena.
func (g *graph) readStrings(ctx context.Context, sc *scanner, size, budget int64) error {
	if err := sc.expect('['); err != nil {
		return err
	}
	// The strings are most of what follows in the file; reserving the
	// rest of it avoids copying the arena as it grows.
	if size > 0 {
		if rest := size - sc.offset(); rest > 0 && rest < 1<<32 {
			g.arena = make([]byte, 0, rest)
		}
	}
	g.offs = append(g.offs, 0)
	if done, err := sc.empty(']'); done || err != nil {
		return err
	}
	for i := 1; ; i++ {
		var err error
		g.arena, err = sc.str(g.arena)
		if err != nil {
			return err
		}
		if len(g.arena) > maxUint32 {
			return notSnapshot(errors.New("its strings are too large"))
		}
		if budget > 0 && int64(len(g.arena)) > budget {
			return &TooLargeError{Need: int64(len(g.arena)), Budget: budget}
		}
		g.offs = append(g.offs, uint32(len(g.arena)))
		if i&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		more, err := sc.more(']')
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	g.arena = slices.Clip(g.arena)
	return nil
}

// check validates what parsing could not check as it went: that every
// name is a string of the table.
func (g *graph) check() error {
	if !g.nodesRead || !g.edgesRead {
		return notSnapshot(errors.New(`its "nodes" or "edges" array is missing`))
	}
	ns := uint32(len(g.offs) - 1)
	for i, v := range g.nName {
		if v >= ns {
			return notSnapshot(fmt.Errorf("node %d is named by string %d, past the %d strings", i, v, ns))
		}
	}
	elem := uint8(slices.Index(g.h.edgeTypes, "element"))
	hidden := uint8(slices.Index(g.h.edgeTypes, "hidden"))
	for i, v := range g.eName {
		if t := g.eType[i]; t != elem && t != hidden && v >= ns {
			return notSnapshot(fmt.Errorf("edge %d is named by string %d, past the %d strings", i, v, ns))
		}
	}
	return nil
}

// readLocations reads the "locations" table: where each object's
// constructor is defined. Entries naming no node are dropped.
func (g *graph) readLocations(ctx context.Context, sc *scanner) error {
	f := g.h.locationFields
	stride := len(f)
	oi, si, li, ci := slices.Index(f, "object_index"), slices.Index(f, "script_id"), slices.Index(f, "line"), slices.Index(f, "column")
	if stride == 0 || oi < 0 || si < 0 || li < 0 || ci < 0 || g.nodeCount == 0 {
		return sc.skip(0)
	}
	nf := uint32(g.nodeFieldCount)
	_, err := sc.records(ctx, stride, func(v []uint32) error {
		idx := v[oi]
		if idx%nf != 0 || idx/nf >= uint32(g.nodeCount) {
			return nil
		}
		g.locNode = append(g.locNode, idx/nf)
		g.locScript = append(g.locScript, v[si])
		g.locLine = append(g.locLine, v[li])
		g.locCol = append(g.locCol, v[ci])
		return nil
	})
	return err
}

// records reads a JSON array of numbers as records of width numbers
// each, and hands put each whole record in order, one split between two
// batches of the scanner put back together first; put must not keep the
// slice. It returns how many numbers were left after the last whole
// record (a record cut short), and stops at put's first error or when ctx
// ends.
func (sc *scanner) records(ctx context.Context, width int, put func(record []uint32) error) (int, error) {
	carry := make([]uint32, 0, width)
	batch := make([]uint32, (64<<10)/width*width)
	err := sc.uints(batch, func(vs []uint32) error {
		if len(carry) > 0 {
			k := min(width-len(carry), len(vs))
			carry = append(carry, vs[:k]...)
			vs = vs[k:]
			if len(carry) < width {
				return nil
			}
			if err := put(carry); err != nil {
				return err
			}
			carry = carry[:0]
		}
		for len(vs) >= width {
			if err := put(vs[:width]); err != nil {
				return err
			}
			vs = vs[width:]
		}
		carry = append(carry, vs...)
		return ctx.Err()
	})
	return len(carry), err
}
