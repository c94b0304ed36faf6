package heap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// DOM link states, as the detachedness field and DevTools number them.
const (
	stateUnknown  = 0
	stateAttached = 1
	stateDetached = 2
)

// Node flags (DevTools' JSHeapSnapshot.nodeFlags).
const (
	flagCanBeQueried = 1
	flagDetachedDOM  = 2
	flagPageObject   = 4
)

// Distances: DevTools' noDistance, and the base of distances of nodes
// reached only through system roots.
const (
	noDistance          = -5
	baseSystemDistance  = 100000000
	baseUnreachableDist = 2 * baseSystemDistance
)

// Snapshot is a loaded heap snapshot: the [model] DevTools computes on
// load, and the queries over it, each under its caller's context.
//
// Its methods are safe for concurrent use: the model is read-only after
// [Load], and a query holds the snapshot's lock (see begin), which also
// guards the few answers computed on demand and kept (aggregates by
// filter, class ids, duplicated strings, the context summary).
type Snapshot struct {
	*model

	// lock is held by the query that runs (see begin): a channel, not a
	// mutex, so that a query waiting for it gives up when its context
	// ends. It guards the fields below.
	lock chan struct{}
	// qctx is the context of the query holding lock, which its loops look
	// at (see tick); nil outside a query. qn counts their steps.
	qctx context.Context
	qn   uint32
	// The answers computed on demand:
	//
	// aggregates caches class aggregates by filter key ("" for all
	// objects).
	aggregates map[string]*aggregateSet
	// allSortedByID is set when the all-objects aggregates' instances were
	// sorted by id for a diff in which this snapshot was the current one
	// (DevTools sorts its cached list in place; later class listings keep
	// that order for equal retained sizes).
	allSortedByID bool
	// classKeys are the class keys of all objects, in DevTools' order; a
	// class's id is its position plus one.
	classKeys  []string
	classIndex map[string]int
	// dups and dupGroups are the duplicated strings, once computed.
	dups      *dupStrings
	dupGroups []StringGroup
	// contextSummary is the retained-by-context summary, once computed.
	contextSummary *RetainedByContextSummary
	// bytes is the memory the model holds, computed once loaded.
	bytes int64
}

// model is what DevTools computes from a snapshot's graph on load:
// retainers, DOM state, the dominator tree, retained sizes, distances,
// class names and native context attribution. It is written while
// [Load] builds it and read-only after, so its methods (names, node
// views, the load's figures) need no lock and no query context.
type model struct {
	*graph

	// Node type indexes (-1, as an int, when the snapshot lacks the type).
	tHidden, tArray, tString, tObject, tCode, tClosure, tRegExp, tNumber,
	tNative, tSynthetic, tConsString, tSlicedString int
	// Edge type indexes; invisible is one past the file's types, as
	// DevTools adds it.
	eElement, eHidden, eInternal, eShortcut, eWeak, eInvisible, eProperty, eContext int

	// classAndState is DevTools' detachednessAndClassIndex: a node's class
	// string index shifted left by 2, and its DOM link state in the low 2
	// bits.
	classAndState []uint32
	flags         []uint8

	// Retainers: the edges into node i are retEdge[firstRetainer[i]:
	// firstRetainer[i+1]] (edge ordinals), from the nodes in retNode, in
	// DevTools' order (the last retaining edge of the file first).
	firstRetainer []uint32
	retNode       []uint32
	retEdge       []uint32

	dominator []uint32  // immediate dominator's ordinal; the root's is itself
	retained  []float64 // retained size
	// The dominator tree's children of node i are
	// dominated[firstDominated[i]:firstDominated[i+1]].
	firstDominated []uint32
	dominated      []uint32
	distance       []int32

	// nativeCtx is the native context each node is attributed to: an
	// ordinal, or noNativeContext or sharedNativeContext.
	nativeCtx      []int32
	nativeContexts []uint32 // ordinals of native contexts, in node order
	nativeSizes    NativeContextSizes
	stats          Statistics
	static         StaticData

	// interfaceDefs are the inferred plain-object interfaces, by which
	// plain objects are classed; interfaceNames maps each name to its
	// string index.
	interfaceDefs  []interfaceDef
	interfaceNames map[string]uint32

	// weakMapChecked marks the edge names parsed as ephemeron edge names
	// so far, and weakMapEdges holds those that are; both only while
	// building.
	weakMapChecked bitset
	weakMapEdges   map[uint32]*weakMapEdge
}

// Load reads a heap snapshot from r and builds its model. size is r's
// length in bytes if known (0 otherwise), and budget the most memory the
// model may take (0: no bound); a snapshot that needs more fails with a
// *[TooLargeError] before its arrays are allocated, or as soon as its
// strings exceed it. ctx ends the load early.
//
// A file that is not a heap snapshot fails with an error wrapping
// [ErrNotSnapshot]; one that ends too early, with [ErrTruncated].
func Load(ctx context.Context, r io.Reader, size, budget int64) (*Snapshot, error) {
	sc := newScanner(bufio.NewReaderSize(r, 64<<10))
	g, err := parse(ctx, sc, size, budget)
	var se *syntaxError
	if errors.As(err, &se) && !errors.Is(err, ErrNotSnapshot) {
		err = notSnapshot(err)
	}
	if err != nil {
		return nil, err
	}
	s := &Snapshot{model: &model{graph: g}, lock: make(chan struct{}, 1)}
	if err := (builder{s}).build(ctx); err != nil {
		return nil, err
	}
	if budget > 0 && s.bytes > budget {
		return nil, &TooLargeError{Need: s.bytes, Budget: budget}
	}
	return s, nil
}

// build computes the model in DevTools' order: each step may read what an
// earlier one changed (the DOM state renames nodes that the native
// context rules read; shallow sizes change before retained sizes are
// summed). Steps that share nothing run two at a time, on two goroutines
// that build waits for: the retainers beside the DOM state, flags and
// shallow sizes; the dominator tree beside distances, classes and native
// contexts.
func (s builder) build(ctx context.Context) error {
	s.typeIndexes()
	var essential bitset
	err := both(ctx, func() { s.buildRetainers() },
		inOrder(s.initDOMState, s.calculateFlags, func() { essential = s.essentialEdges() }, s.calculateShallowSizes))
	if err != nil {
		return err
	}
	err = both(ctx, func() {}, func(ctx context.Context) error {
		if err := s.calculateDominators(ctx, essential); err != nil {
			return err
		}
		s.buildDominatedNodes()
		return nil
	}, inOrder(s.calculateDistances, s.calculateObjectNames, s.applyInterfaceDefinitionsInferred, s.buildLocations, s.calculateNativeContextAttribution))
	if err != nil {
		return err
	}
	essential = nil
	// The dominator tree's work arrays are garbage now, a third of what
	// the load allocated: collect them so that what follows reuses their
	// memory instead of touching fresh pages (fewer page faults, lower
	// peak RSS).
	runtime.GC()
	s.calculateNativeContextSizes()
	s.calculateStatistics()
	s.detachedInput = nil
	s.weakMapChecked, s.weakMapEdges = nil, nil
	// Class ids are the classes' positions among all objects' aggregates,
	// fixed at load as chrome-devtools-mcp fixes them.
	classes{s.Snapshot}.allObjects()
	s.bytes = s.memory()
	return ctx.Err()
}

// both runs first, then each of fns, the fns on goroutines of their own,
// and waits for all; it returns the first error of fns.
func both(ctx context.Context, first func(), fns ...func(context.Context) error) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, fn := range fns {
		g.Go(func() error { return fn(gctx) })
	}
	first()
	return g.Wait()
}

// inOrder returns a task for both that runs steps one after the other,
// and stops with the context's error if it ends between two.
func inOrder(steps ...func()) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, step := range steps {
			if err := ctx.Err(); err != nil {
				return err
			}
			step()
		}
		return nil
	}
}

// builder builds a snapshot's model as it loads (see build): the steps
// that compute it, which no query calls once it is built.
type builder struct{ *Snapshot }

// typeIndexes finds the node and edge type numbers by name.
func (s builder) typeIndexes() {
	nt := func(name string) int { return slices.Index(s.h.nodeTypes, name) }
	s.tHidden, s.tArray, s.tString, s.tObject = nt("hidden"), nt("array"), nt("string"), nt("object")
	s.tCode, s.tClosure, s.tRegExp, s.tNumber = nt("code"), nt("closure"), nt("regexp"), nt("number")
	s.tNative, s.tSynthetic = nt("native"), nt("synthetic")
	s.tConsString, s.tSlicedString = nt("concatenated string"), nt("sliced string")
	et := func(name string) int { return slices.Index(s.h.edgeTypes, name) }
	s.eElement, s.eHidden, s.eInternal, s.eShortcut = et("element"), et("hidden"), et("internal"), et("shortcut")
	s.eWeak, s.eProperty, s.eContext = et("weak"), et("property"), et("context")
	s.eInvisible = len(s.h.edgeTypes)
}

// memory returns the bytes the model holds.
func (s *Snapshot) memory() int64 {
	n := int64(0)
	add := func(l, size int) { n += int64(l) * int64(size) }
	add(cap(s.nType), 1)
	add(cap(s.nName), 4)
	add(cap(s.nID), 4)
	add(cap(s.nSelf), 4)
	add(cap(s.firstEdge), 4)
	add(cap(s.eType), 1)
	add(cap(s.eName), 4)
	add(cap(s.eTo), 4)
	add(cap(s.arena), 1)
	add(cap(s.offs), 4)
	for _, x := range s.extra {
		n += int64(len(x)) + 16
	}
	add(cap(s.classAndState), 4)
	add(cap(s.flags), 1)
	add(cap(s.firstRetainer), 4)
	add(cap(s.retNode), 4)
	add(cap(s.retEdge), 4)
	add(cap(s.dominator), 4)
	add(cap(s.retained), 8)
	add(cap(s.firstDominated), 4)
	add(cap(s.dominated), 4)
	add(cap(s.distance), 4)
	add(cap(s.nativeCtx), 4)
	add(cap(s.locNode)+cap(s.locScript)+cap(s.locLine)+cap(s.locCol), 4)
	add(len(s.rawScopes)+len(s.rawScopeVars)+len(s.rawScopeUses), 8)
	if a := s.aggregates[""]; a != nil {
		for _, ag := range a.list {
			add(cap(ag.nodes), 4)
			n += 64
		}
	}
	return n
}

// Bytes returns the memory the loaded snapshot holds, in bytes: what a
// cache of snapshots counts against its budget.
func (s *Snapshot) Bytes() int64 { return s.bytes }

// NodeCount returns the number of nodes.
func (s *model) NodeCount() int { return s.nodeCount }

// EdgeCount returns the number of edges.
func (s *model) EdgeCount() int { return s.edgeCount }

// NodeNotFoundError is returned for a node id the snapshot does not hold.
type NodeNotFoundError struct{ ID float64 }

func (e *NodeNotFoundError) Error() string {
	return fmt.Sprintf("Node with ID %s not found", jsfmt.Number(e.ID))
}

// ordinalForID returns the ordinal of the first node with id, as DevTools'
// nodeIndexForId scans for it.
func (s *model) ordinalForID(id float64) (uint32, error) {
	if id >= 0 && id <= maxUint32 && id == float64(uint32(id)) {
		want := uint32(id)
		for i, v := range s.nID {
			if v == want {
				return uint32(i), nil
			}
		}
	}
	return 0, &NodeNotFoundError{ID: id}
}

// tickEvery is how many steps of a query's loops go between two looks at
// its context: a few microseconds of work, so that a query stops within
// a millisecond of its deadline.
const tickEvery = 1 << 12

// stopped is the panic with which tick unwinds a query whose context
// ended; the query's end recovers it, within the package.
type stopped struct{ err error }

// begin takes the snapshot's lock for a query, giving up if ctx ends
// first, and makes ctx the one the query's loops look at. The query must
// defer end.
func (s *Snapshot) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		<-s.lock // a done context wins over the lock
		return err
	}
	s.qctx, s.qn = ctx, 0
	return nil
}

// beginAt begins a query about the node with the given id, as begin
// does, and returns its ordinal. An id that names no node fails with a
// [*NodeNotFoundError], the lock released again; otherwise the caller
// defers end, as after begin.
func (s *Snapshot) beginAt(ctx context.Context, id float64) (uint32, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	o, err := s.ordinalForID(id)
	if err != nil {
		s.end(nil)
		return 0, err
	}
	return o, nil
}

// end releases the lock a query took with begin. Deferred by the query,
// it turns the unwinding of a query stopped by tick into the context's
// error in *errp; any other panic goes on.
func (s *Snapshot) end(errp *error) {
	r := recover()
	s.qctx = nil
	<-s.lock
	if r == nil {
		return
	}
	st, ok := r.(stopped)
	if !ok {
		panic(r)
	}
	if errp != nil {
		*errp = st.err
	}
}

// tick is one step of a query's loop: every tickEvery steps it looks at
// the query's context, and unwinds the query (to its end) if it has
// ended. Outside a query (while loading) it does nothing. Nothing a query
// caches is half-made when it unwinds: each answer is stored whole once
// computed.
func (s *Snapshot) tick() {
	if s.qctx == nil {
		return
	}
	s.qn++
	if s.qn%tickEvery != 0 {
		return
	}
	if err := s.qctx.Err(); err != nil {
		panic(stopped{err})
	}
}
