package heap

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// Aggregate is one class of objects.
type Aggregate struct {
	// ID is the class's id, for ClassNodes: its position plus one among
	// the unfiltered classes in DevTools' order.
	ID           int
	ClassName    string
	Count        int
	SelfSize     float64
	RetainedSize float64 // of the instances no other instance of the class dominates
}

// Aggregates is the heap by class.
type Aggregates struct {
	Classes       []Aggregate // by retained size, largest first
	ObjectCount   int
	TotalSelfSize float64
}

// Aggregates returns the classes of the objects a filter keeps (filter
// "" keeps all; contextID is the native context's node id for
// [FilterSpecificContext], nil if not given).
func (s *Snapshot) Aggregates(ctx context.Context, filter string, contextID *float64) (_ Aggregates, err error) {
	if err := s.begin(ctx); err != nil {
		return Aggregates{}, err
	}
	defer s.end(&err)
	c := classes{s}
	c.allObjects()
	set, err := c.aggregatesFor(filter, ctxArg(contextID))
	if err != nil {
		return Aggregates{}, err
	}
	var out Aggregates
	for _, a := range set.list {
		id, ok := s.classIndex[a.key]
		if !ok {
			return Aggregates{}, fmt.Errorf("no class ID found for class key %s", a.key)
		}
		out.ObjectCount += a.count
		out.TotalSelfSize += a.self
		out.Classes = append(out.Classes, Aggregate{ID: id, ClassName: a.name, Count: a.count, SelfSize: a.self, RetainedSize: a.maxRet})
	}
	slices.SortStableFunc(out.Classes, func(a, b Aggregate) int { return cmpDesc(a.RetainedSize, b.RetainedSize) })
	return out, nil
}

// ctxArg turns an optional context id into namedFilter's argument.
func ctxArg(id *float64) float64 {
	if id == nil {
		return -1
	}
	if *id < 0 {
		// A negative id names no node; keep it apart from "not given".
		return -2
	}
	return *id
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// Node is a node as replies show it.
type Node struct {
	ID           uint32
	Name         string
	Type         string
	Distance     int32
	SelfSize     float64
	RetainedSize float64
	NodeIndex    int
}

// Edge is an edge and the node at its other end (its target, or for a
// retainer, its source).
type Edge struct {
	Name      string
	Type      string
	Node      Node
	EdgeIndex int
}

func (s *model) node(o uint32) Node {
	return Node{
		ID:           s.nID[o],
		Name:         s.nodeName(o),
		Type:         s.nodeTypeName(o),
		Distance:     s.distance[o],
		SelfSize:     float64(s.nSelf[o]),
		RetainedSize: s.retained[o],
		NodeIndex:    int(o) * s.nodeFieldCount,
	}
}

// ClassNotFoundError is returned for a class id no class has.
type ClassNotFoundError struct{ ID float64 }

func (e *ClassNotFoundError) Error() string {
	return fmt.Sprintf("Class with ID %s not found in heap snapshot", jsfmt.Number(e.ID))
}

// ClassNodes returns the instances of class id that a filter keeps, by
// retained size (largest first).
func (s *Snapshot) ClassNodes(ctx context.Context, id float64, filter string, contextID *float64) (_ Nodes, err error) {
	if err := s.begin(ctx); err != nil {
		return Nodes{}, err
	}
	defer s.end(&err)
	c := classes{s}
	c.allObjects()
	if _, _, err := c.filterKey(filter, ctxArg(contextID)); err != nil {
		return Nodes{}, err
	}
	i := int(id)
	if float64(i) != id || i < 1 || i > len(s.classKeys) {
		return Nodes{}, &ClassNotFoundError{ID: id}
	}
	set, err := c.aggregatesFor(filter, ctxArg(contextID))
	if err != nil {
		return Nodes{}, err
	}
	a := set.byKey[s.classKeys[i-1]]
	if a == nil {
		return Nodes{}, &NoInstancesError{ClassName: s.classNameOfKey(s.classKeys[i-1]), Filter: filter}
	}
	return s.byRetained(slices.Clone(a.nodes)), nil
}

// Nodes is a list of nodes, made into [Node] values a page at a time: a
// class may have millions of instances.
type Nodes struct {
	s    *Snapshot
	ords []uint32
}

// Len returns the number of nodes.
func (l Nodes) Len() int { return len(l.ords) }

// Slice returns nodes start to end (excluded).
func (l Nodes) Slice(start, end int) []Node {
	out := make([]Node, 0, end-start)
	for _, o := range l.ords[start:end] {
		out = append(out, l.s.node(o))
	}
	return out
}

// byRetained orders nodes as chrome-devtools-mcp lists them: by retained
// size, largest first, keeping the given order among equals.
func (s *Snapshot) byRetained(ords []uint32) Nodes {
	slices.SortStableFunc(ords, func(a, b uint32) int { return cmpDesc(s.retained[a], s.retained[b]) })
	return Nodes{s, ords}
}

// NoInstancesError is returned when a filter keeps no instance of a class.
type NoInstancesError struct{ ClassName, Filter string }

func (e *NoInstancesError) Error() string {
	return fmt.Sprintf("class %s has no objects that filter %s keeps", e.ClassName, e.Filter)
}

func (s *Snapshot) classNameOfKey(key string) string {
	if a := s.aggregates[""]; a != nil {
		if ag := a.byKey[key]; ag != nil {
			return ag.name
		}
	}
	return key
}

// Retainers returns the edges that retain a node, from the nodes holding
// them: not the root's, not weak ones.
func (s *Snapshot) Retainers(ctx context.Context, id float64) (_ Edges, err error) {
	o, err := s.beginAt(ctx, id)
	if err != nil {
		return Edges{}, err
	}
	defer s.end(&err)
	var ris []uint32
	for ri := s.firstRetainer[o]; ri < s.firstRetainer[o+1]; ri++ {
		ei, from := s.retEdge[ri], s.retNode[ri]
		if t := int(s.eType[ei]); t == s.eInvisible || t == s.eWeak || from == s.root {
			continue
		}
		ris = append(ris, ri)
	}
	return Edges{s: s, items: ris, retainers: true}, nil
}

// Edges is a list of edges, made into [Edge] values a page at a time: an
// array may have millions of elements.
type Edges struct {
	s *Snapshot
	// items are edge ordinals, or retainer slots when retainers is set.
	items     []uint32
	retainers bool
}

// Len returns the number of edges.
func (l Edges) Len() int { return len(l.items) }

// Slice returns edges start to end (excluded). A retainer's node is the
// node holding the edge, with its distance as the retainers view shows it.
func (l Edges) Slice(start, end int) []Edge {
	s := l.s
	out := make([]Edge, 0, end-start)
	for _, x := range l.items[start:end] {
		if l.retainers {
			ei, from := s.retEdge[x], s.retNode[x]
			n := s.node(from)
			n.Distance = s.retainerDistance(from)
			out = append(out, Edge{Name: s.edgeName(ei), Type: s.edgeTypeName(ei), Node: n, EdgeIndex: int(ei) * len(s.h.edgeFields)})
			continue
		}
		out = append(out, Edge{Name: s.edgeName(x), Type: s.edgeTypeName(x), Node: s.node(s.eTo[x]), EdgeIndex: int(x) * len(s.h.edgeFields)})
	}
	return out
}

// retainerDistance is a retainer's distance as the retainers view shows
// it: an unreachable node's counts from baseUnreachableDist.
func (s *model) retainerDistance(o uint32) int32 {
	if d := s.distance[o]; d != noDistance {
		return d
	}
	return baseUnreachableDist
}

// EdgeOptions select and order a node's outgoing edges.
type EdgeOptions struct {
	// SortBy is "retainedSize" (the default), "selfSize" or "name".
	SortBy string
	// MinRetainedSize, if not nil, drops edges to smaller nodes.
	MinRetainedSize *float64
	// ExcludePrimitives drops edges to numbers and to undefined, null,
	// true and false.
	ExcludePrimitives bool
}

// Edges returns a node's outgoing edges.
func (s *Snapshot) Edges(ctx context.Context, id float64, opts EdgeOptions) (_ Edges, err error) {
	o, err := s.beginAt(ctx, id)
	if err != nil {
		return Edges{}, err
	}
	defer s.end(&err)
	var eis []uint32
	for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
		if int(s.eType[ei]) == s.eInvisible {
			continue
		}
		to := s.eTo[ei]
		if opts.MinRetainedSize != nil && s.retained[to] < *opts.MinRetainedSize {
			continue
		}
		if opts.ExcludePrimitives {
			if t := int(s.nType[to]); t == s.tNumber {
				continue
			} else if t == s.tNative {
				switch s.name(to) {
				case "undefined", "null", "true", "false":
					continue
				}
			}
		}
		eis = append(eis, ei)
	}
	byName := func(a, b uint32) int {
		// '__proto__' goes last whatever the direction, as DevTools has it.
		if s.edgeName(b) == "__proto__" {
			return -1
		}
		if s.edgeName(a) == "__proto__" {
			return 1
		}
		ha, hb := s.edgeHasStringName(a), s.edgeHasStringName(b)
		if ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		return jsfmt.Compare(s.edgeName(a), s.edgeName(b))
	}
	node := func(field string) func(a, b uint32) int {
		return func(a, b uint32) int {
			ta, tb := s.eTo[a], s.eTo[b]
			if field == "selfSize" {
				return cmpAsc(float64(s.nSelf[ta]), float64(s.nSelf[tb]))
			}
			return cmpAsc(s.retained[ta], s.retained[tb])
		}
	}
	var cmp func(a, b uint32) int
	switch opts.SortBy {
	case "selfSize":
		first := node("selfSize")
		cmp = func(a, b uint32) int { return or(-first(a, b), byName(a, b)) }
	case "name":
		second := node("retainedSize")
		cmp = func(a, b uint32) int { return or(byName(a, b), -second(a, b)) }
	default:
		first := node("retainedSize")
		cmp = func(a, b uint32) int { return or(-first(a, b), byName(a, b)) }
	}
	slices.SortStableFunc(eis, func(a, b uint32) int {
		if r := cmp(a, b); r != 0 {
			return r
		}
		return int(a) - int(b)
	})
	return Edges{s: s, items: eis}, nil
}

func or(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func cmpAsc(a, b float64) int { return -cmpDesc(a, b) }

// ObjectInfo is one object's details.
type ObjectInfo struct {
	ID            uint32
	Name          string
	Type          string
	NodeIndex     int
	Detachedness  int // 0 unknown, 1 attached, 2 detached
	SelfSize      float64
	RetainedSize  float64
	Distance      int32
	EdgeCount     int
	RetainerCount int
}

// ObjectInfo returns an object's details.
func (s *Snapshot) ObjectInfo(ctx context.Context, id float64) (_ ObjectInfo, err error) {
	o, err := s.beginAt(ctx, id)
	if err != nil {
		return ObjectInfo{}, err
	}
	defer s.end(&err)
	return ObjectInfo{
		ID:            s.nID[o],
		Name:          s.nodeName(o),
		Type:          s.nodeTypeName(o),
		NodeIndex:     int(o) * s.nodeFieldCount,
		Detachedness:  int(s.state(o)),
		SelfSize:      float64(s.nSelf[o]),
		RetainedSize:  s.retained[o],
		Distance:      s.distance[o],
		EdgeCount:     int(s.firstEdge[o+1] - s.firstEdge[o]),
		RetainerCount: int(s.firstRetainer[o+1] - s.firstRetainer[o]),
	}, nil
}

// Dominator is one link of a dominator chain.
type Dominator struct {
	NodeID       uint32
	NodeIndex    int
	NodeName     string
	RetainedSize float64
	SelfSize     float64
}

// Dominators returns the chain of immediate dominators from a node up to
// the root, the node first.
func (s *Snapshot) Dominators(ctx context.Context, id float64) (_ []Dominator, err error) {
	o, err := s.beginAt(ctx, id)
	if err != nil {
		return nil, err
	}
	defer s.end(&err)
	var chain []Dominator
	for {
		chain = append(chain, Dominator{NodeID: s.nID[o], NodeIndex: int(o) * s.nodeFieldCount, NodeName: s.nodeName(o), RetainedSize: s.retained[o], SelfSize: float64(s.nSelf[o])})
		if o == s.root {
			break
		}
		next := s.dominator[o]
		if next == o {
			break
		}
		o = next
	}
	return chain, nil
}

// Path is one retainer in a tree of retaining paths: the edge from Node
// to the node below it, and Node's own retainers.
type Path struct {
	EdgeIndex int
	EdgeName  string
	EdgeType  string
	NodeID    uint32
	NodeIndex int
	NodeName  string
	Distance  int32
	Children  []Path
}

// Limits names which bounds cut a retaining-paths search short, in the
// order they were first hit.
type Limits []string

// RetainingPaths returns the shortest retaining paths of a node as a tree,
// leaf first: each retainer closer to the roots than the node, skipping
// weak edges, nearest first, down to retainers one step from a root.
// maxDepth, maxNodes and maxSiblings bound it (nil: 30, 5000, 100).
func (s *Snapshot) RetainingPaths(ctx context.Context, id float64, maxDepth, maxNodes, maxSiblings *float64) (_ []Path, _ Limits, err error) {
	o, err := s.beginAt(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	defer s.end(&err)
	depthLimit, nodesLimit, siblingsLimit := 30.0, 5000.0, 100.0
	if maxDepth != nil {
		depthLimit = *maxDepth
	}
	if maxNodes != nil {
		nodesLimit = *maxNodes
	}
	if maxSiblings != nil {
		siblingsLimit = *maxSiblings
	}
	const rootDistance = 2
	var limits Limits
	hit := func(name string) {
		if !slices.Contains(limits, name) {
			limits = append(limits, name)
		}
	}
	traversed := 0.0
	visiting := map[uint32]bool{}
	visited := map[uint32]float64{}
	type retainer struct {
		ri   uint32
		dist int32
		node uint32
	}
	var build func(cur uint32, depth float64) []Path
	build = func(cur uint32, depth float64) []Path {
		s.tick()
		traversed++
		if traversed > nodesLimit {
			hit("nodes")
			return nil
		}
		if depth >= depthLimit {
			hit("depth")
			return nil
		}
		if s.distance[cur] <= rootDistance || visiting[cur] {
			return nil
		}
		if d, ok := visited[cur]; ok && depth >= d {
			return nil
		}
		visiting[cur] = true
		var rs []retainer
		for ri := s.firstRetainer[cur]; ri < s.firstRetainer[cur+1]; ri++ {
			from := s.retNode[ri]
			dist := s.distance[from]
			if int(s.eType[s.retEdge[ri]]) == s.eWeak {
				continue
			}
			if dist >= 0 {
				if float64(dist-rootDistance) < depthLimit-depth {
					rs = append(rs, retainer{ri, dist, from})
				} else {
					hit("depth")
				}
			}
		}
		slices.SortStableFunc(rs, func(a, b retainer) int { return int(a.dist) - int(b.dist) })
		n := len(rs)
		if float64(n) > siblingsLimit {
			hit("siblings")
			n = int(max(siblingsLimit, 0))
			if float64(n) < siblingsLimit { // a fractional limit takes one more, as Math.min compares
				n++
			}
			n = min(n, len(rs))
		}
		var forest []Path
		for _, r := range rs[:n] {
			var children []Path
			if r.dist == rootDistance {
				traversed++
				if traversed > nodesLimit {
					hit("nodes")
					break
				}
			} else {
				children = build(r.node, depth+1)
				if len(children) == 0 {
					continue
				}
			}
			ei := s.retEdge[r.ri]
			forest = append(forest, Path{
				EdgeIndex: int(ei) * len(s.h.edgeFields),
				EdgeName:  s.edgeName(ei),
				EdgeType:  s.edgeTypeName(ei),
				NodeID:    s.nID[r.node],
				NodeIndex: int(r.node) * s.nodeFieldCount,
				NodeName:  s.nodeName(r.node),
				Distance:  r.dist,
				Children:  children,
			})
		}
		delete(visiting, cur)
		visited[cur] = depth
		return forest
	}
	return build(o, 0), limits, nil
}

// StringGroup is a string value held by several string objects.
type StringGroup struct {
	Value             string
	Count             int
	TotalSelfSize     float64
	TotalRetainedSize float64
	Truncated         bool
	IDs               []uint32 // the string objects' ids, in node order
	ords              []uint32
}

// DuplicateStrings returns the string values held by more than one string
// object, by total retained size (largest first). The list is computed
// once per snapshot; the caller must not change it.
func (s *Snapshot) DuplicateStrings(ctx context.Context) (_ []StringGroup, err error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end(&err)
	if s.dupGroups == nil {
		s.dupGroups = stringDups{s}.duplicateGroups()
	}
	return s.dupGroups, nil
}

func (s stringDups) duplicateGroups() []StringGroup {
	dup := s.duplicates()
	var groups []*StringGroup
	byIndex := map[uint32]*StringGroup{}
	byText := map[string]*StringGroup{}
	type truncEntry struct {
		length, hash intOrNone
		group        *StringGroup
	}
	truncated := map[string][]*truncEntry{}
	var truncOrder []string
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		s.tick()
		if !dup.bits.get(o) {
			continue
		}
		var g *StringGroup
		if s.isTruncatedString(o) {
			name := s.nodeName(o)
			length, hash := s.stringLength(o), s.stringHash(o)
			entries, ok := truncated[name]
			if !ok {
				truncOrder = append(truncOrder, name)
			}
			for _, e := range entries {
				if e.length == length && e.hash == hash {
					g = e.group
					break
				}
			}
			if g == nil {
				g = &StringGroup{Value: name, Truncated: true}
				truncated[name] = append(entries, &truncEntry{length, hash, g})
			}
		} else if idx, ok := dup.index(s.Snapshot, o); ok {
			if g = byIndex[idx]; g == nil {
				g = &StringGroup{Value: s.nodeName(o)}
				byIndex[idx] = g
				groups = append(groups, g)
			}
		} else {
			name := s.nodeName(o)
			if g = byText[name]; g == nil {
				g = &StringGroup{Value: name}
				byText[name] = g
				groups = append(groups, g)
			}
		}
		g.Count++
		g.TotalSelfSize += float64(s.nSelf[o])
		g.TotalRetainedSize += s.retained[o]
		g.IDs = append(g.IDs, s.nID[o])
		g.ords = append(g.ords, o)
	}
	for _, name := range truncOrder {
		for _, e := range truncated[name] {
			groups = append(groups, e.group)
		}
	}
	out := make([]StringGroup, len(groups))
	for i, g := range groups {
		out[i] = *g
	}
	slices.SortStableFunc(out, func(a, b StringGroup) int { return cmpDesc(a.TotalRetainedSize, b.TotalRetainedSize) })
	return out
}

// intOrNone is an integer a string node may report (its length or hash),
// or none.
type intOrNone struct {
	v  float64
	ok bool
}

// dupStrings is which string nodes hold a value another string node holds:
// DevTools' duplicatedStrings filter.
type dupStrings struct {
	bits bitset
	// consIndex maps the text of a concatenated string to the string
	// table index of the same text, when a flat string holds it too.
	consIndex map[string]uint32
}

// index returns the string table index a string node's value is grouped
// by: its name for a flat string; for a concatenated one, the index of a
// flat string with the same text, if any.
func (d *dupStrings) index(s *Snapshot, o uint32) (uint32, bool) {
	if int(s.nType[o]) == s.tString {
		return s.nName[o], true
	}
	i, ok := d.consIndex[s.nodeName(o)]
	return i, ok
}

// duplicatedStrings returns the duplicated string nodes, computing them
// once. the query lock is held (see begin).
func (s *Snapshot) duplicatedStrings() bitset { return stringDups{s}.duplicates().bits }

// stringDups finds the strings held by more than one string object: the
// work behind DuplicateStrings and the duplicated-strings filter, under
// the query's lock.
type stringDups struct{ *Snapshot }

func (s stringDups) duplicates() *dupStrings {
	if s.dups != nil {
		return s.dups
	}
	// Flat strings are told apart by their name's index: V8 writes each
	// text once in the string table. Concatenated strings have their text
	// computed, and join the flat strings of the same text.
	n := s.nodeCount
	count := make([]uint32, len(s.offs)-1)
	var cons []uint32
	type truncEntry struct {
		node         uint32
		length, hash intOrNone
	}
	bits := newBitset(n)
	truncated := map[string][]truncEntry{}
	for o := uint32(0); o < uint32(n); o++ {
		s.tick()
		t := int(s.nType[o])
		if t != s.tString && t != s.tConsString || s.nSelf[o] == 0 || s.isFlatConsString(o) {
			continue
		}
		if s.isTruncatedString(o) {
			name := s.nodeName(o)
			length, hash := s.stringLength(o), s.stringHash(o)
			entries := truncated[name]
			found := false
			for _, e := range entries {
				if e.length == length && e.hash == hash {
					bits.set(e.node)
					bits.set(o)
					found = true
					break
				}
			}
			if !found {
				truncated[name] = append(entries, truncEntry{o, length, hash})
			}
			continue
		}
		if t == s.tString {
			if idx := s.nName[o]; int(idx) < len(count) {
				count[idx]++
			}
			continue
		}
		cons = append(cons, o)
	}
	d := &dupStrings{consIndex: map[string]uint32{}}
	if len(cons) > 0 {
		// A page may hold a million concatenated strings: each text is
		// made once, and the map sized up front.
		names := make([]string, len(cons))
		texts := make(map[string]int32, len(cons)) // a concatenated string's text → how many hold it
		for i, o := range cons {
			names[i] = s.nodeName(o)
			texts[names[i]]++
		}
		for i, c := range count {
			if c == 0 {
				continue
			}
			if _, ok := texts[s.str(uint32(i))]; ok {
				d.consIndex[s.str(uint32(i))] = uint32(i)
			}
		}
		for i, o := range cons {
			if idx, ok := d.consIndex[names[i]]; ok {
				count[idx]++
			} else if texts[names[i]] > 1 {
				bits.set(o)
			}
		}
		if len(d.consIndex) > 0 {
			for i, o := range cons {
				if idx, ok := d.consIndex[names[i]]; ok && count[idx] > 1 {
					bits.set(o)
				}
			}
		}
	}
	for o := uint32(0); o < uint32(n); o++ {
		if int(s.nType[o]) != s.tString || s.nSelf[o] == 0 {
			continue
		}
		if idx := s.nName[o]; int(idx) < len(count) && count[idx] > 1 && !s.isTruncatedString(o) {
			bits.set(o)
		}
	}
	d.bits = bits
	s.dups = d
	return d
}

// isFlatConsString reports whether a concatenated string has an empty
// part (V8 flattened it: the whole text is in the other part).
func (s stringDups) isFlatConsString(o uint32) bool {
	if int(s.nType[o]) != s.tConsString {
		return false
	}
	for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
		if int(s.eType[ei]) != s.eInternal {
			continue
		}
		if n := s.edgeName(ei); (n == "first" || n == "second") && s.nodeName(s.eTo[ei]) == "" {
			return true
		}
	}
	return false
}

// internalTarget returns the target of a node's first internal edge
// named name.
func (s *model) internalTarget(o uint32, name string) (uint32, bool) {
	for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
		if int(s.eType[ei]) == s.eInternal && s.edgeName(ei) == name {
			return s.eTo[ei], true
		}
	}
	return 0, false
}

// intValue reads a number node named "int" with a "value" edge, as V8
// describes a small integer.
func (s *model) intValue(o uint32) intOrNone {
	if int(s.nType[o]) != s.tNumber || s.name(o) != "int" {
		return intOrNone{}
	}
	v, ok := s.internalTarget(o, "value")
	if !ok {
		return intOrNone{}
	}
	n, ok := jsParseInt(s.name(v))
	return intOrNone{n, ok}
}

func (s stringDups) stringLength(o uint32) intOrNone {
	if t, ok := s.internalTarget(o, "length"); ok {
		return s.intValue(t)
	}
	return intOrNone{}
}

func (s stringDups) stringHash(o uint32) intOrNone {
	if t, ok := s.internalTarget(o, "hash"); ok {
		return s.intValue(t)
	}
	return intOrNone{}
}

// isTruncatedString reports whether V8 cut the string's text in the
// snapshot (an internal "truncated" edge to a true boolean).
func (s stringDups) isTruncatedString(o uint32) bool {
	t, ok := s.internalTarget(o, "truncated")
	if !ok || int(s.nType[t]) != s.tNumber || s.name(t) != "bool" {
		return false
	}
	v, ok := s.internalTarget(t, "value")
	return ok && s.name(v) == "true"
}

// Query selects objects for QueryObjects. Nil and empty fields select
// everything.
type Query struct {
	ClassName    string // a regular expression, case-insensitive
	PropertyName string // a regular expression, case-insensitive, on edge names
	NodeType     string
	MinRetained  *float64
	MaxRetained  *float64
	MinSelf      *float64
	MaxSelf      *float64
	IsDetached   *bool
	SortBy       string // retainedSize (default), selfSize or id
}

// PatternError is returned for a className or propertyName that is not a
// regular expression.
type PatternError struct {
	Field, Pattern string
	Err            error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("%s %q is not a regular expression: %v", e.Field, e.Pattern, e.Err)
}

// compilePattern compiles a case-insensitive pattern, as JavaScript's
// new RegExp(p, 'i') would.
func compilePattern(field, p string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?i)" + p)
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "error parsing regexp") {
			msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		}
		return nil, &PatternError{Field: field, Pattern: p, Err: fmt.Errorf("%s", msg)}
	}
	return re, nil
}

// QueryObjects returns the objects matching q, by retained size (largest
// first) and, among equal sizes, in the order q.SortBy gives.
func (s *Snapshot) QueryObjects(ctx context.Context, q Query) (_ Nodes, err error) {
	var classRE, propRE *regexp.Regexp
	if q.ClassName != "" {
		if classRE, err = compilePattern("className", q.ClassName); err != nil {
			return Nodes{}, err
		}
	}
	if q.PropertyName != "" {
		if propRE, err = compilePattern("propertyName", q.PropertyName); err != nil {
			return Nodes{}, err
		}
	}
	nodeType := -1
	if q.NodeType != "" {
		nodeType = len(s.h.nodeTypes) // matches no node
		for i, t := range s.h.nodeTypes {
			if strings.ToLower(t) == strings.ToLower(q.NodeType) {
				nodeType = i
				break
			}
		}
	}
	// Most names are strings of the table: a pattern is tried once per
	// string, not once per node. Plain objects' and concatenated strings'
	// names are made up, and tried once per name.
	classMatch := newMatchCache(classRE, len(s.offs)-1)
	propMatch := newMatchCache(propRE, len(s.offs)-1)
	if err := s.begin(ctx); err != nil {
		return Nodes{}, err
	}
	defer s.end(&err)
	var match []uint32
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		s.tick()
		self, ret := float64(s.nSelf[o]), s.retained[o]
		if q.MinSelf != nil && self < *q.MinSelf || q.MaxSelf != nil && self > *q.MaxSelf {
			continue
		}
		if q.MinRetained != nil && ret < *q.MinRetained || q.MaxRetained != nil && ret > *q.MaxRetained {
			continue
		}
		if q.IsDetached != nil && (s.state(o) == stateDetached) != *q.IsDetached {
			continue
		}
		if nodeType >= 0 && int(s.nType[o]) != nodeType {
			continue
		}
		if classRE != nil {
			var ok bool
			if t := int(s.nType[o]); t == s.tConsString || t == s.tObject && s.name(o) == "Object" {
				ok = classMatch.text(s.nodeName(o))
			} else {
				ok = classMatch.index(s.nName[o], s.name(o))
			}
			if !ok {
				continue
			}
		}
		if propRE != nil {
			found := false
			for ei := s.firstEdge[o]; ei < s.firstEdge[o+1] && !found; ei++ {
				if s.edgeHasStringName(ei) && int(s.eType[ei]) != s.eShortcut {
					found = propMatch.index(s.eName[ei], s.edgeName(ei))
				} else {
					found = propMatch.text(s.edgeName(ei))
				}
			}
			if !found {
				continue
			}
		}
		match = append(match, o)
	}
	switch q.SortBy {
	case "selfSize":
		slices.SortStableFunc(match, func(a, b uint32) int { return cmpDesc(float64(s.nSelf[a]), float64(s.nSelf[b])) })
	case "id":
		slices.SortStableFunc(match, func(a, b uint32) int { return cmpAsc(float64(s.nID[a]), float64(s.nID[b])) })
	}
	// chrome-devtools-mcp lists them by retained size whatever the order
	// asked for, which orders only the equals.
	return s.byRetained(match), nil
}

// matchCache remembers a pattern's answer for each string of the table,
// and for made-up names.
type matchCache struct {
	re    *regexp.Regexp
	byIdx []uint8 // 0: not tried, 1: matches, 2: does not
	byTxt map[string]bool
}

func newMatchCache(re *regexp.Regexp, strings int) *matchCache {
	if re == nil {
		return nil
	}
	return &matchCache{re: re, byIdx: make([]uint8, strings), byTxt: map[string]bool{}}
}

func (m *matchCache) index(i uint32, text string) bool {
	if int(i) >= len(m.byIdx) {
		return m.text(text)
	}
	switch m.byIdx[i] {
	case 1:
		return true
	case 2:
		return false
	}
	ok := m.re.MatchString(text)
	m.byIdx[i] = 2
	if ok {
		m.byIdx[i] = 1
	}
	return ok
}

func (m *matchCache) text(text string) bool {
	if ok, seen := m.byTxt[text]; seen {
		return ok
	}
	ok := m.re.MatchString(text)
	if len(m.byTxt) < 1<<16 {
		m.byTxt[text] = ok
	}
	return ok
}
