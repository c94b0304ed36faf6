package heap

import (
	"regexp"
	"strconv"
	"strings"
)

// weakMapEdge is what the name of an ephemeron edge says: V8 names the
// internal edges of a WeakMap entry "<index> / part of key (<k> @<id>) ->
// value (<v> @<id>) pair in WeakMap (table @<id>)", one from the key and
// one from the table to the value, sharing everything after the index.
type weakMapEdge struct {
	pair    string // the shared part, from " / part of key" on
	tableID uint64
}

var weakMapEdgeRE = regexp.MustCompile(`^\d+( / part of key \(.*? @\d+\) -> value \(.*? @\d+\) pair in WeakMap \(table @(\d+)\))$`)

// weakMapEdge parses an internal edge's name as an ephemeron edge, or
// returns nil. Each name is parsed once; only the build uses this.
func (s builder) weakMapEdge(name uint32) *weakMapEdge {
	if s.weakMapChecked == nil {
		s.weakMapChecked = newBitset(s.stringCount())
		s.weakMapEdges = map[uint32]*weakMapEdge{}
	}
	if int(name) >= len(s.weakMapChecked)*64 {
		return nil // a string the model added: never an edge name
	}
	if s.weakMapChecked.get(name) {
		return s.weakMapEdges[name]
	}
	s.weakMapChecked.set(name)
	str := s.str(name)
	if len(str) == 0 || str[0] < '0' || str[0] > '9' || !strings.Contains(str, " / part of key (") {
		return nil
	}
	sub := weakMapEdgeRE.FindStringSubmatch(str)
	if sub == nil {
		return nil
	}
	id, err := strconv.ParseUint(sub[2], 10, 64)
	if err != nil {
		id = 1<<64 - 1 // too long for an integer: never a node's id
	}
	m := &weakMapEdge{pair: sub[1], tableID: id}
	s.weakMapEdges[name] = m
	return m
}

// edgeFilter decides whether a search follows an edge from node src.
type edgeFilter func(src, ei uint32) bool

// bfs extends distances breadth first from the queued nodes, following
// every edge but weak ones that filter (if not nil) allows, to nodes
// without a distance yet. queue holds the starting nodes; its capacity
// must be the node count.
func (s *Snapshot) bfs(queue []uint32, dist []int32, filter edgeFilter) {
	for i := 0; i < len(queue); i++ {
		s.tick()
		o := queue[i]
		d := dist[o] + 1
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			if int(s.eType[ei]) == s.eWeak {
				continue
			}
			to := s.eTo[ei]
			if dist[to] != noDistance {
				continue
			}
			if filter != nil && !filter(o, ei) {
				continue
			}
			dist[to] = d
			queue = append(queue, to)
		}
	}
}

// calculateDistances computes each node's distance from the user roots
// (the root's children that are not synthetic, and the document DOM
// trees), then, for the nodes those do not reach, from the root, counted
// from baseSystemDistance. Like DevTools it does not follow a native
// context's sloppy_function_map, the value slots of map descriptor
// arrays, nor the first of the two edges of a WeakMap entry it meets, so
// that a value is reached through its key.
func (s builder) calculateDistances() {
	n := s.nodeCount
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = noDistance
	}
	pending := map[string]bool{}
	filter := func(src, ei uint32) bool {
		switch int(s.nType[src]) {
		case s.tHidden:
			if s.name(src) == "system / NativeContext" && s.edgeName(ei) == "sloppy_function_map" {
				return false
			}
		case s.tArray:
			if s.name(src) == "(map descriptors)" {
				// parseInt's NaN compares false either way: followed.
				idx, ok := jsParseInt(s.edgeName(ei))
				return !ok || idx < 2 || mod3(idx) != 1
			}
		}
		if int(s.eType[ei]) == s.eInternal {
			if m := s.weakMapEdge(s.eName[ei]); m != nil {
				if pending[m.pair] {
					delete(pending, m.pair)
				} else {
					pending[m.pair] = true
					return false
				}
			}
		}
		return true
	}
	queue := make([]uint32, 0, n)
	for ei := s.firstEdge[s.root]; ei < s.firstEdge[s.root+1]; ei++ {
		to := s.eTo[ei]
		if s.isUserRoot(to) {
			dist[to] = 1
			queue = append(queue, to)
		}
	}
	roots := len(queue)
	s.bfs(queue, dist, filter)
	if roots > 0 {
		dist[s.root] = baseSystemDistance
	} else {
		dist[s.root] = 0
	}
	s.bfs(append(queue[:0], s.root), dist, filter)
	s.distance = dist
}

// mod3 is JavaScript's index % 3 for an integer index.
func mod3(v float64) float64 { return float64(int64(v) % 3) }

// jsParseInt is JavaScript's parseInt(s, 10): the integer at the start of
// s after white space, with an optional sign; ok is false where parseInt
// gives NaN.
func jsParseInt(s string) (float64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r\u00a0\ufeff\u2028\u2029")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	i := 0
	var v float64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + float64(s[i]-'0')
		i++
	}
	if i == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
