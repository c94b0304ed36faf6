package heap

import (
	"context"
)

// calculateDominators computes the dominator tree from the root over the
// essential edges with the Lengauer–Tarjan algorithm (simple version: path
// compression without balancing), then each node's retained size: its
// shallow size plus the retained sizes of the nodes it dominates.
//
// Nodes the essential edges do not reach are handled as DevTools handles
// them, so that every node has a dominator: first each such node whose
// retainers are all inessential (weak) edges is made a child of the root
// and searched from, in node order; then any node still unreached is made
// a child of the root on its own. Vertices are numbered from 1 in
// depth-first order, with edges taken in file order; 0 means none.
func (s builder) calculateDominators(ctx context.Context, essential bitset) error {
	n := s.nodeCount
	size := n + 1
	parent := make([]uint32, size)
	ancestor := make([]uint32, size)
	vertex := make([]uint32, size)
	label := make([]uint32, size)
	semi := make([]uint32, size)
	nextEdge := make([]uint32, size)
	count := uint32(0)

	// dfs numbers the vertices reachable from root (a vertex number, not
	// an ordinal) that are not numbered yet; parent[root] is set by the
	// caller.
	dfs := func(root uint32) {
		nextEdge[root-1] = s.firstEdge[root-1]
		for v := root; v != 0; {
			if semi[v] == 0 {
				count++
				semi[v] = count
				vertex[count] = v
				label[v] = v
			}
			next := parent[v]
			o := v - 1
			for end := s.firstEdge[o+1]; nextEdge[o] < end; nextEdge[o]++ {
				ei := nextEdge[o]
				if !essential.get(ei) {
					continue
				}
				w := s.eTo[ei] + 1
				if semi[w] == 0 {
					parent[w] = v
					nextEdge[w-1] = s.firstEdge[w-1]
					next = w
					break
				}
			}
			v = next
		}
	}
	r := s.root + 1
	dfs(r)
	if count < uint32(n) {
		for v := uint32(1); v <= uint32(n); v++ {
			if semi[v] == 0 && s.onlyInessentialRetainers(v-1, essential) {
				parent[v] = r
				dfs(v)
			}
		}
	}
	if count < uint32(n) {
		for v := uint32(1); v <= uint32(n); v++ {
			if semi[v] == 0 {
				parent[v] = r
				count++
				semi[v] = count
				vertex[count] = v
				label[v] = v
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Path compression, iterative: the stack reuses nextEdge, which the
	// search no longer needs.
	stack := nextEdge
	compress := func(v uint32) {
		sp := 0
		for ancestor[ancestor[v]] != 0 {
			sp++
			stack[sp] = v
			v = ancestor[v]
		}
		for ; sp > 0; sp-- {
			w := stack[sp]
			if semi[label[ancestor[w]]] < semi[label[w]] {
				label[w] = label[ancestor[w]]
			}
			ancestor[w] = ancestor[ancestor[w]]
		}
	}
	eval := func(v uint32) uint32 {
		if ancestor[v] == 0 {
			return v
		}
		compress(v)
		return label[v]
	}
	// Buckets as linked lists: bucketHead[v] is the first vertex whose
	// semi-dominator is v, bucketNext the next one (0 ends a list).
	bucketHead := make([]uint32, size)
	bucketNext := make([]uint32, size)
	dom := make([]uint32, size)
	for i := count; i >= 2; i-- {
		w := vertex[i]
		o := w - 1
		orphan := true
		for ri := s.firstRetainer[o]; ri < s.firstRetainer[o+1]; ri++ {
			if !essential.get(s.retEdge[ri]) {
				continue
			}
			orphan = false
			u := eval(s.retNode[ri] + 1)
			if semi[u] < semi[w] {
				semi[w] = semi[u]
			}
		}
		if orphan {
			semi[w] = semi[r]
		}
		b := vertex[semi[w]]
		bucketNext[w] = bucketHead[b]
		bucketHead[b] = w
		p := parent[w]
		ancestor[w] = p
		for v := bucketHead[p]; v != 0; v = bucketNext[v] {
			u := eval(v)
			if semi[u] < semi[v] {
				dom[v] = u
			} else {
				dom[v] = p
			}
		}
		bucketHead[p] = 0
		if i&0xfffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	dom[0], dom[r] = r, r
	for i := uint32(2); i <= count; i++ {
		w := vertex[i]
		if dom[w] != vertex[semi[w]] {
			dom[w] = dom[dom[w]]
		}
	}
	// Free the work arrays before allocating the results.
	parent, ancestor, label, semi, nextEdge, stack, bucketHead, bucketNext = nil, nil, nil, nil, nil, nil, nil, nil
	s.storeDominators(dom, vertex[:count+1])
	return nil
}

// storeDominators keeps each node's immediate dominator, from dom (by
// vertex number: ordinal+1), and sums retained sizes up the dominator
// tree, children before their dominators: vertex lists the vertices in
// the depth-first order of the search (vertex[1] the root).
func (s builder) storeDominators(dom, vertex []uint32) {
	n := s.nodeCount
	s.dominator = make([]uint32, n)
	s.retained = make([]float64, n)
	for o := 0; o < n; o++ {
		s.dominator[o] = dom[o+1] - 1
		s.retained[o] = float64(s.nSelf[o])
	}
	for i := len(vertex) - 1; i > 1; i-- {
		o := vertex[i] - 1
		s.retained[s.dominator[o]] += s.retained[o]
	}
}

// onlyInessentialRetainers reports whether none of the edges into node o
// is essential.
func (s builder) onlyInessentialRetainers(o uint32, essential bitset) bool {
	for ri := s.firstRetainer[o]; ri < s.firstRetainer[o+1]; ri++ {
		if essential.get(s.retEdge[ri]) {
			return false
		}
	}
	return true
}

// buildDominatedNodes indexes the dominator tree by parent.
func (s builder) buildDominatedNodes() {
	n := s.nodeCount
	first := make([]uint32, n+1)
	from, to := 0, n
	// The root is first or last (parse checks it), and dominates itself.
	if s.root == 0 {
		from = 1
	} else {
		to = n - 1
	}
	for o := from; o < to; o++ {
		first[s.dominator[o]]++
	}
	dominated := make([]uint32, n-1)
	slot := uint32(0)
	for i := 0; i < n; i++ {
		c := first[i]
		first[i] = slot
		slot += c
	}
	first[n] = uint32(len(dominated))
	fill := make([]uint32, n)
	copy(fill, first[:n])
	for o := from; o < to; o++ {
		d := s.dominator[o]
		dominated[fill[d]] = uint32(o)
		fill[d]++
	}
	s.firstDominated, s.dominated = first, dominated
}
