package heap

import (
	"strings"
)

// buildRetainers indexes the edges by target. Within a target's slots the
// retainers are filled from the last slot down, so they list the retaining
// edges in reverse file order, as DevTools lists them (the order
// get_heapsnapshot_retainers shows, and the tie order of retaining paths).
func (s builder) buildRetainers() {
	n, e := s.nodeCount, s.edgeCount
	first := make([]uint32, n+1)
	retNode := make([]uint32, e)
	retEdge := make([]uint32, e)
	for _, to := range s.eTo {
		first[to]++
	}
	// Turn counts into start slots, keeping each count in the node's first
	// slot of retNode until the second pass uses it up.
	slot := uint32(0)
	for i := 0; i < n; i++ {
		c := first[i]
		first[i] = slot
		if c > 0 {
			retNode[slot] = c
		}
		slot += c
	}
	first[n] = uint32(e)
	for src := 0; src < n; src++ {
		for ei := s.firstEdge[src]; ei < s.firstEdge[src+1]; ei++ {
			to := s.eTo[ei]
			f := first[to]
			retNode[f]--
			at := f + retNode[f]
			retNode[at] = uint32(src)
			retEdge[at] = ei
		}
	}
	s.firstRetainer, s.retNode, s.retEdge = first, retNode, retEdge
}

// state returns a node's DOM link state.
func (s *model) state(n uint32) uint32 { return s.classAndState[n] & 3 }

func (s builder) setState(n uint32, st uint32) {
	s.classAndState[n] = s.classAndState[n]&^3 | st
}

// classIdx returns a node's class string index.
func (s *model) classIdx(n uint32) uint32 { return s.classAndState[n] >> 2 }

func (s *model) setClassIdx(n uint32, c uint32) {
	s.classAndState[n] = c<<2 | s.classAndState[n]&3
}

// initDOMState reads each node's DOM link state and spreads it, as
// DevTools does: from each attached node to the native nodes it reaches
// through strong visible edges, then likewise from each detached node to
// those not attached; a native node found detached is renamed "Detached
// <name>". A snapshot without the detachedness field only marks native
// nodes already named "Detached ...".
func (s builder) initDOMState() {
	n := s.nodeCount
	s.classAndState = make([]uint32, n)
	if !s.hasDetachedness {
		for i := 0; i < n; i++ {
			if int(s.nType[i]) == s.tNative && strings.HasPrefix(s.name(uint32(i)), "Detached ") {
				s.setState(uint32(i), stateDetached)
			}
		}
		return
	}
	for i, v := range s.detachedInput {
		s.classAndState[i] = uint32(v)
	}
	visited := make([]bool, n)
	var attached, detached []uint32
	renamed := map[uint32]uint32{}
	process := func(o uint32, st uint32) {
		if visited[o] {
			return
		}
		visited[o] = true
		if int(s.nType[o]) != s.tNative {
			return
		}
		s.setState(o, st)
		switch st {
		case stateAttached:
			attached = append(attached, o)
		case stateDetached:
			old := s.nName[o]
			nn, ok := renamed[old]
			if !ok {
				nn = s.addString("Detached " + s.str(old))
				renamed[old] = nn
			}
			s.nName[o] = nn
			detached = append(detached, o)
		}
	}
	spread := func(parent uint32, st uint32) {
		for ei := s.firstEdge[parent]; ei < s.firstEdge[parent+1]; ei++ {
			switch t := int(s.eType[ei]); t {
			case s.eHidden, s.eInvisible, s.eWeak:
				continue
			}
			process(s.eTo[ei], st)
		}
	}
	for i := 0; i < n; i++ {
		if st := s.state(uint32(i)); st != stateUnknown {
			process(uint32(i), st)
		}
	}
	for len(attached) > 0 {
		o := attached[len(attached)-1]
		attached = attached[:len(attached)-1]
		spread(o, stateAttached)
	}
	for len(detached) > 0 {
		o := detached[len(detached)-1]
		detached = detached[:len(detached)-1]
		if s.state(o) == stateAttached {
			continue
		}
		spread(o, stateDetached)
	}
}

// isUserRoot reports whether a child of the root is a user root: any but a
// synthetic node, and the synthetic "(Document DOM trees)".
func (s builder) isUserRoot(n uint32) bool {
	return int(s.nType[n]) != s.tSynthetic || s.isDocumentDOMTreesRoot(n)
}

func (s builder) isDocumentDOMTreesRoot(n uint32) bool {
	return int(s.nType[n]) == s.tSynthetic && s.name(n) == "(Document DOM trees)"
}

// calculateFlags marks detached DOM nodes, the objects reachable from user
// roots through strong visible edges (queriable), and the page's own
// objects (reachable from the root's shortcut edges and the document DOM
// trees through any edge but weak ones).
func (s builder) calculateFlags() {
	n := s.nodeCount
	s.flags = make([]uint8, n)
	for i := 0; i < n; i++ {
		if int(s.nType[i]) == s.tNative && s.state(uint32(i)) == stateDetached {
			s.flags[i] |= flagDetachedDOM
		}
	}
	// Queriable.
	var list []uint32
	for ei := s.firstEdge[s.root]; ei < s.firstEdge[s.root+1]; ei++ {
		if to := s.eTo[ei]; int(s.nType[to]) != s.tSynthetic {
			list = append(list, to)
		}
	}
	for len(list) > 0 {
		o := list[len(list)-1]
		list = list[:len(list)-1]
		if s.flags[o]&flagCanBeQueried != 0 {
			continue
		}
		s.flags[o] |= flagCanBeQueried
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			to := s.eTo[ei]
			if s.flags[to]&flagCanBeQueried != 0 {
				continue
			}
			switch int(s.eType[ei]) {
			case s.eHidden, s.eInvisible, s.eInternal, s.eWeak:
				continue
			}
			list = append(list, to)
		}
	}
	// Page objects.
	stack := make([]uint32, 0, 1024)
	for ei := s.firstEdge[s.root]; ei < s.firstEdge[s.root+1]; ei++ {
		to := s.eTo[ei]
		switch int(s.eType[ei]) {
		case s.eElement:
			if !s.isDocumentDOMTreesRoot(to) {
				continue
			}
		case s.eShortcut:
		default:
			continue
		}
		stack = append(stack, to)
		s.flags[to] |= flagPageObject
	}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			to := s.eTo[ei]
			if s.flags[to]&flagPageObject != 0 || int(s.eType[ei]) == s.eWeak {
				continue
			}
			stack = append(stack, to)
			s.flags[to] |= flagPageObject
		}
	}
}

// bitset is a fixed-size set of small integers.
type bitset []uint64

func newBitset(n int) bitset       { return make(bitset, (n+63)/64) }
func (b bitset) get(i uint32) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) set(i uint32)      { b[i>>6] |= 1 << (i & 63) }

// essentialEdges returns the edges the dominator tree follows: not weak,
// not a node's edge to itself, not an ephemeron edge from its own
// WeakMap's table, and, from any node but the root, not a shortcut and
// not from an object of the browser into one of the page.
func (s builder) essentialEdges() bitset {
	ess := newBitset(s.edgeCount)
	for src := uint32(0); src < uint32(s.nodeCount); src++ {
		for ei := s.firstEdge[src]; ei < s.firstEdge[src+1]; ei++ {
			if s.isEssential(src, ei) {
				ess.set(ei)
			}
		}
	}
	return ess
}

func (s builder) isEssential(src, ei uint32) bool {
	t := int(s.eType[ei])
	if t == s.eInternal {
		if m := s.weakMapEdge(s.eName[ei]); m != nil && m.tableID == uint64(s.nID[src]) {
			return false
		}
	}
	if t == s.eWeak {
		return false
	}
	to := s.eTo[ei]
	if to == src {
		return false
	}
	if src != s.root {
		if t == s.eShortcut {
			return false
		}
		if s.flags[to]&flagPageObject != 0 && s.flags[src]&flagPageObject == 0 {
			return false
		}
	}
	return true
}

// calculateShallowSizes gives each hidden or array node (and external
// string data) that only one object reaches, through any path of such
// nodes, to that object: its size moves into the owner's. DevTools does
// this so that an object's internal arrays count as its own size.
func (s builder) calculateShallowSizes() {
	hasUserRoots := false
	for ei := s.firstEdge[s.root]; ei < s.firstEdge[s.root+1]; ei++ {
		if s.isUserRoot(s.eTo[ei]) {
			hasUserRoots = true
			break
		}
	}
	if !hasUserRoots {
		return
	}
	const (
		unvisited = 0xffffffff
		multiple  = 0xfffffffe
	)
	n := s.nodeCount
	owners := make([]uint32, n)
	work := make([]uint32, 0, n)
	for i := 0; i < n; i++ {
		t := int(s.nType[i])
		if t == s.tHidden || t == s.tArray || t == s.tNative && s.name(uint32(i)) == "system / ExternalStringData" {
			owners[i] = unvisited
		} else {
			owners[i] = uint32(i)
			work = append(work, uint32(i))
		}
	}
	for len(work) > 0 {
		id := work[len(work)-1]
		work = work[:len(work)-1]
		owner := owners[id]
		for ei := s.firstEdge[id]; ei < s.firstEdge[id+1]; ei++ {
			if int(s.eType[ei]) == s.eWeak {
				continue
			}
			to := s.eTo[ei]
			switch owners[to] {
			case unvisited:
				owners[to] = owner
				work = append(work, to)
			case to, owner, multiple:
			default:
				owners[to] = multiple
				work = append(work, to)
			}
		}
	}
	for i := 0; i < n; i++ {
		o := owners[i]
		if o == unvisited || o == multiple || o == uint32(i) {
			continue
		}
		if int(s.nType[o]) == s.tSynthetic || o == s.root {
			continue
		}
		s.nSelf[o] += s.nSelf[i]
		s.nSelf[i] = 0
	}
}
