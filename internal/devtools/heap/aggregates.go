package heap

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Filter names for class aggregates and class instances, as
// chrome-devtools-mcp's filterName takes them.
const (
	FilterDetachedDOM      = "objectsRetainedByDetachedDomNodes"
	FilterConsole          = "objectsRetainedByConsole"
	FilterEventHandlers    = "objectsRetainedByEventHandlers"
	FilterContexts         = "objectsRetainedByContexts"
	FilterSharedContext    = "sharedNativeContext"
	FilterNoContext        = "noNativeContext"
	FilterSpecificContext  = "attributedToSpecificNativeContext"
	filterDuplicateStrings = "duplicatedStrings"
)

// Filters lists the filter names in chrome-devtools-mcp's order.
var Filters = []string{FilterDetachedDOM, FilterConsole, FilterEventHandlers, FilterContexts, FilterSharedContext, FilterNoContext, FilterSpecificContext}

// classes groups a snapshot's objects by class, under a filter: the work
// behind Aggregates, ClassNodes and Compare, run under the query's lock.
type classes struct{ *Snapshot }

// classKey is DevTools' class key of a node: its class string, and for an
// object with a location, that location too.
type classKey struct {
	class              uint32
	located            bool
	script, line, coll uint32
}

func (s classes) classKeyOf(o uint32) classKey {
	k := classKey{class: s.classIdx(o)}
	if int(s.nType[o]) == s.tObject {
		if i := s.location(o); i >= 0 {
			k.located, k.script, k.line, k.coll = true, s.locScript[i], s.locLine[i], s.locCol[i]
		}
	}
	return k
}

// keyString is the class key as DevTools names it in its aggregates
// object: ",<class>" or "<script>,<line>,<column>,<class>".
func (s classes) keyString(k classKey) string {
	if !k.located {
		return "," + s.str(k.class)
	}
	return strconv.FormatUint(uint64(k.script), 10) + "," + strconv.FormatUint(uint64(k.line), 10) + "," +
		strconv.FormatUint(uint64(k.coll), 10) + "," + s.str(k.class)
}

// aggregate is one class's instances.
type aggregate struct {
	key      string
	name     string // the class name of the first instance
	count    int
	self     float64
	maxRet   float64
	distance int32
	nodes    []uint32 // ordinals, in node order (or by id once sorted)
}

// aggregateSet is the aggregates under one filter, in DevTools' key order.
type aggregateSet struct {
	list  []*aggregate
	byKey map[string]*aggregate
}

// nodeFilter is a predicate on node ordinals; nil accepts all.
type nodeFilter func(o uint32) bool

// buildAggregates groups the nodes filter accepts (with a shallow size) by
// class, then adds to each class the retained size of its instances that
// no other instance of it dominates.
func (s classes) buildAggregates(filter nodeFilter) *aggregateSet {
	// Classes without a location are found by class string, the others by
	// key; order is the order of first instances. of[o] is the index of
	// node o's aggregate, -1 for a node left out.
	type entry struct {
		key classKey
		agg *aggregate
	}
	var order []entry
	dense := make([]int32, s.stringCount())
	for i := range dense {
		dense[i] = -1
	}
	located := map[classKey]int32{}
	of := make([]int32, s.nodeCount)
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		s.tick()
		of[o] = -1
		self := s.nSelf[o]
		if self == 0 || filter != nil && !filter(o) {
			continue
		}
		k := s.classKeyOf(o)
		var idx int32
		var ok bool
		if k.located {
			idx, ok = located[k]
		} else {
			idx = dense[k.class]
			ok = idx >= 0
		}
		if !ok {
			idx = int32(len(order))
			if k.located {
				located[k] = idx
			} else {
				dense[k.class] = idx
			}
			order = append(order, entry{k, &aggregate{name: s.str(s.classIdx(o)), distance: s.distance[o]}})
		}
		a := order[idx].agg
		if d := s.distance[o]; d < a.distance {
			a.distance = d
		}
		a.count++
		a.self += float64(self)
		a.nodes = append(a.nodes, o)
		of[o] = idx
	}
	dense = nil
	aggs := make([]*aggregate, len(order))
	for i, e := range order {
		aggs[i] = e.agg
	}
	s.classesRetainedSize(of, aggs)
	// Two keys may name the same class string (a class string the model
	// added equal to a name in the file): the later one replaces the
	// earlier, keeping its place, as in DevTools' aggregates object.
	set := &aggregateSet{byKey: make(map[string]*aggregate, len(order))}
	pos := map[string]int{}
	for _, e := range order {
		key := s.keyString(e.key)
		e.agg.key = key
		e.agg.nodes = slices.Clip(e.agg.nodes)
		if i, ok := pos[key]; ok {
			set.list[i] = e.agg
		} else {
			pos[key] = len(set.list)
			set.list = append(set.list, e.agg)
		}
		set.byKey[key] = e.agg
	}
	return set
}

// classesRetainedSize walks the dominator tree from the root and adds to
// each class the retained size of each of its instances (of[o] >= 0) with
// no instance of the same class above it.
func (s classes) classesRetainedSize(of []int32, aggs []*aggregate) {
	type frame struct {
		next, end uint32 // the dominated children still to visit
		marked    int32  // the aggregate this node marked as seen, or -1
	}
	seen := make([]bool, len(aggs))
	visit := func(o uint32) frame {
		f := frame{next: s.firstDominated[o], end: s.firstDominated[o+1], marked: -1}
		if i := of[o]; i >= 0 && !seen[i] {
			aggs[i].maxRet += s.retained[o]
			if f.next != f.end {
				seen[i] = true
				f.marked = i
			}
		}
		return f
	}
	stack := []frame{visit(s.root)}
	for len(stack) > 0 {
		s.tick()
		top := &stack[len(stack)-1]
		if top.next == top.end {
			if top.marked >= 0 {
				seen[top.marked] = false
			}
			stack = stack[:len(stack)-1]
			continue
		}
		child := s.dominated[top.next]
		top.next++
		stack = append(stack, visit(child))
	}
}

// aggregatesFor returns the aggregates under a named filter ("" for none),
// computing them once. the query lock is held (see begin).
func (s classes) aggregatesFor(filterName string, contextID float64) (*aggregateSet, error) {
	key, target, err := s.filterKey(filterName, contextID)
	if err != nil {
		return nil, err
	}
	if a := s.aggregates[key]; a != nil {
		return a, nil
	}
	a := s.buildAggregates(s.filter(filterName, target))
	if s.aggregates == nil {
		s.aggregates = map[string]*aggregateSet{}
	}
	s.aggregates[key] = a
	return a, nil
}

// allObjects returns the unfiltered aggregates and records the class ids:
// a class's id is its position plus one among them, as chrome-devtools-mcp
// numbers them when it loads a snapshot. the query lock is held (see begin).
func (s classes) allObjects() *aggregateSet {
	a, _ := s.aggregatesFor("", 0)
	if s.classKeys == nil {
		s.classIndex = make(map[string]int, len(a.list))
		for _, ag := range a.list {
			s.classIndex[ag.key] = len(s.classKeys) + 1
			s.classKeys = append(s.classKeys, ag.key)
		}
	}
	return a
}

// FilterError is returned for a filter that cannot be applied.
type FilterError struct{ Msg string }

func (e *FilterError) Error() string { return e.Msg }

// filterKey checks a filter name and returns the key its aggregates are
// cached under, and for FilterSpecificContext the native context's
// ordinal. contextID is that context's node id: -1 when not given, -2 when
// negative.
func (s classes) filterKey(name string, contextID float64) (string, int32, error) {
	switch name {
	case "", FilterSharedContext, FilterNoContext, FilterContexts, FilterDetachedDOM, FilterConsole, FilterEventHandlers, filterDuplicateStrings:
		return name, 0, nil
	case FilterSpecificContext:
		if contextID == -1 {
			return "", 0, &FilterError{"objectId is required when filterName is attributedToSpecificNativeContext"}
		}
		o, err := s.ordinalForID(contextID)
		if err != nil {
			return "", 0, err
		}
		return fmt.Sprintf("nativeContext_%d", int(o)*s.nodeFieldCount), int32(o), nil
	}
	return "", 0, &FilterError{"Invalid filter name"}
}

// filter returns the node filter of a checked filter name (nil for none).
func (s classes) filter(name string, target int32) nodeFilter {
	switch name {
	case "":
		return nil
	case FilterSpecificContext:
		return func(n uint32) bool { return s.nativeCtx[n] == target }
	case FilterSharedContext:
		return func(n uint32) bool { return s.nativeCtx[n] == sharedNativeContext }
	case FilterNoContext:
		return func(n uint32) bool { return s.nativeCtx[n] == noNativeContext }
	case filterDuplicateStrings:
		return s.duplicatedStrings().get
	}
	kept := s.retainedOnlyThrough(name)
	return func(n uint32) bool { return !kept.get(n) }
}

// retainedOnlyThrough returns, for a "retained by" filter, the nodes that
// stay reachable from the root without passing through what the filter
// names, plus those unreachable anyway: the filter keeps the others.
func (s classes) retainedOnlyThrough(name string) bitset {
	n := s.nodeCount
	var block edgeFilter
	switch name {
	case FilterContexts:
		block = func(_, ei uint32) bool { return !s.isContextObject(s.eTo[ei]) }
	case FilterDetachedDOM:
		block = func(_, ei uint32) bool { return s.state(s.eTo[ei]) != stateDetached }
	case FilterConsole:
		block = func(src, ei uint32) bool {
			return !(int(s.nType[src]) == s.tSynthetic && s.edgeHasStringName(ei) && strings.HasSuffix(s.edgeName(ei), " / DevTools console"))
		}
	case FilterEventHandlers:
		handlers := s.eventHandlers()
		block = func(_, ei uint32) bool { return !handlers.get(s.eTo[ei]) }
	}
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = noDistance
	}
	dist[s.root] = 0
	queue := make([]uint32, 1, n)
	queue[0] = s.root
	s.bfs(queue, dist, block)
	bits := newBitset(n)
	for i := 0; i < n; i++ {
		if dist[i] != noDistance || s.distance[i] == noDistance {
			bits.set(uint32(i))
		}
	}
	return bits
}

// isContextObject reports whether a node is a JavaScript context (a
// closure's scope).
func (s *model) isContextObject(o uint32) bool {
	name := s.name(o)
	return name == "system / Context" || strings.HasPrefix(name, "system / Context / ")
}

// edgeTarget returns the target of a node's first edge named name.
func (s *model) edgeTarget(o uint32, name string) (uint32, bool) {
	for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
		if s.edgeName(ei) == name {
			return s.eTo[ei], true
		}
	}
	return 0, false
}

// eventHandlers marks the functions event listeners call: a
// V8EventListener's callback (its edge "1") if it has code, else the first
// of the callback's targets that has code, else the callback.
func (s classes) eventHandlers() bitset {
	bits := newBitset(s.nodeCount)
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		s.tick()
		if s.name(o) != "V8EventListener" {
			continue
		}
		cb, ok := s.edgeTarget(o, "1")
		if !ok {
			continue
		}
		if _, ok := s.edgeTarget(cb, "code"); ok {
			bits.set(cb)
			continue
		}
		found := false
		for ei := s.firstEdge[cb]; ei < s.firstEdge[cb+1]; ei++ {
			child := s.eTo[ei]
			if _, ok := s.edgeTarget(child, "code"); ok {
				bits.set(child)
				found = true
				break
			}
		}
		if !found {
			bits.set(cb)
		}
	}
	return bits
}
