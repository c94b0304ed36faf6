package heap

import (
	"errors"
	"fmt"
	"unsafe"
)

// graph is a parsed snapshot as flat columns, one entry per node or edge,
// indexed by ordinal (a node's position in the "nodes" array, not its
// index in it). Nothing here is an object per node: a snapshot of a big
// page has millions of them.
type graph struct {
	h              *header
	nodeCount      int
	edgeCount      int
	nodeFieldCount int    // integers per node in the file, for node indexes
	root           uint32 // the root's ordinal

	// Node columns.
	nType []uint8  // index into h.nodeTypes
	nName []uint32 // string index; detached DOM nodes are renamed "Detached ..."
	nID   []uint32 // V8's object id, what agents see as @id
	nSelf []uint32 // shallow size, after owned hidden and array nodes moved theirs to their owner
	// firstEdge[i] is the ordinal of node i's first edge; firstEdge[n] is
	// the edge count.
	firstEdge []uint32
	// detachedInput is the file's detachedness field, if it has one; read
	// once into classAndState, then dropped.
	detachedInput   []uint8
	hasDetachedness bool

	// Edge columns.
	eType []uint8  // index into h.edgeTypes
	eName []uint32 // string index, or the element/hidden index
	eTo   []uint32 // target node ordinal

	// Strings: string i is arena[offs[i]:offs[i+1]], followed by the
	// strings the model adds (class names, "Detached " names) in extra.
	arena []byte
	offs  []uint32
	extra []string
	// added caches the index of each string the model added by value.
	added map[string]uint32

	// Locations of objects (where their constructor is defined), by node
	// ordinal, sorted once loaded (see buildLocations).
	locNode   []uint32
	locScript []uint32
	locLine   []uint32
	locCol    []uint32

	// Tables the context analysis reads.
	rawScopes    []int64
	rawScopeVars []int64
	rawScopeUses []int64

	nodesRead, edgesRead bool
}

// str returns string i without copying: the arena is never written after
// parsing, so the string stays valid as long as the graph.
func (g *graph) str(i uint32) string {
	n := uint32(len(g.offs) - 1)
	if i >= n {
		return g.extra[i-n]
	}
	a, b := g.offs[i], g.offs[i+1]
	if a == b {
		return ""
	}
	return unsafe.String(&g.arena[a], b-a)
}

// stringCount is the number of strings, added ones included.
func (g *graph) stringCount() int { return len(g.offs) - 1 + len(g.extra) }

// addString appends s to the string table and returns its index, as
// DevTools' addString does: a string added twice gets two indexes.
func (g *graph) addString(s string) uint32 {
	g.extra = append(g.extra, s)
	return uint32(g.stringCount() - 1)
}

// indexForString returns the index of s among the added strings, adding it
// once (DevTools' getIndexForString of calculateObjectNames).
func (g *graph) indexForString(s string) uint32 {
	if i, ok := g.added[s]; ok {
		return i
	}
	if g.added == nil {
		g.added = map[string]uint32{}
	}
	i := g.addString(s)
	g.added[s] = i
	return i
}

// name returns a node's raw name.
func (g *graph) name(n uint32) string { return g.str(g.nName[n]) }

// Errors the loader returns.

// ErrNotSnapshot is wrapped by the error of a file that is not a V8 heap
// snapshot (not JSON, or JSON of another shape, or inconsistent arrays).
var ErrNotSnapshot = errors.New("not a heap snapshot")

// ErrTruncated is wrapped by the error of a file that ends before the
// snapshot does.
var ErrTruncated = errTruncated

func notSnapshot(err error) error {
	if errors.Is(err, errTruncated) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrNotSnapshot, err)
}

// TooLargeError is returned when the arrays a snapshot needs would take
// more memory than the loader was allowed.
type TooLargeError struct {
	Need, Budget int64 // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the snapshot needs about %d MB, more than the %d MB allowed", e.Need>>20, e.Budget>>20)
}

// Bytes per node and per edge the model keeps, and what building it needs
// on top for a while (the dominator tree's work arrays), counted by hand
// from the columns: see graph and model.
const (
	bytesPerNode     = 1 + 4 + 4 + 4 + 4 + 4 + 1 + 4 + 8 + 4 + 4 + 4 + 4 + 4 // columns, class, flags, dominator, retained, retainers, dominated, distance, native context
	bytesPerEdge     = 1 + 4 + 4 + 4 + 4                                     // columns, retainers
	peakBytesPerNode = 9*4 + 2*4                                             // the dominator algorithm's arrays and buckets
)

// EstimateBytes returns the memory, in bytes, that a snapshot of nodes
// nodes and edges edges takes to load, not counting its strings.
func EstimateBytes(nodes, edges int64) int64 {
	return nodes*(bytesPerNode+peakBytesPerNode) + edges*bytesPerEdge + edges/8
}
