package heap

import (
	"context"
	"fmt"
	"slices"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// RetainedByContextSummary says how much of the heap only closures'
// contexts keep alive.
type RetainedByContextSummary struct {
	ContextCount              int
	RetainedByContextSize     float64
	RetainedByContextCount    int
	NotRetainedByContextSize  float64
	NotRetainedByContextCount int
	TotalSize                 float64
}

// RetainedByContextSummary counts, among objects with a shallow size, those
// retained only through contexts and the others, and the contexts.
func (s *Snapshot) RetainedByContextSummary(ctx context.Context) (_ RetainedByContextSummary, err error) {
	if err := s.begin(ctx); err != nil {
		return RetainedByContextSummary{}, err
	}
	defer s.end(&err)
	if s.contextSummary != nil {
		return *s.contextSummary, nil
	}
	kept := classes{s}.retainedOnlyThrough(FilterContexts)
	var out RetainedByContextSummary
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		s.tick()
		self := float64(s.nSelf[o])
		if self == 0 {
			continue
		}
		if !kept.get(o) {
			out.RetainedByContextCount++
			out.RetainedByContextSize += self
		} else {
			out.NotRetainedByContextCount++
			out.NotRetainedByContextSize += self
		}
		if s.isContextObject(o) {
			out.ContextCount++
		}
	}
	out.TotalSize = out.RetainedByContextSize + out.NotRetainedByContextSize
	s.contextSummary = &out
	return out, nil
}

// forDiff is a class of the base snapshot of a diff: its instances' ids and
// sizes, sorted by id.
type forDiff struct {
	key       string
	name      string
	ids       []uint32
	selfSizes []float64
}

// aggregatesForDiff returns the base snapshot's classes, its plain objects
// classed by the other snapshot's interfaces, as DevTools compares them.
func (s *Snapshot) aggregatesForDiff(ctx context.Context, defs []interfaceDef) (_ []forDiff, err error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end(&err)
	own := s.interfaceDefs
	s.applyInterfaceDefinitions(defs)
	// Put back even when the query stops half-way (tick).
	defer s.applyInterfaceDefinitions(own)
	set := classes{s}.buildAggregates(nil)
	out := make([]forDiff, 0, len(set.list))
	for _, a := range set.list {
		nodes := slices.Clone(a.nodes)
		s.sortByID(nodes)
		d := forDiff{key: a.key, ids: make([]uint32, len(nodes)), selfSizes: make([]float64, len(nodes))}
		for i, o := range nodes {
			s.tick()
			d.ids[i] = s.nID[o]
			d.selfSizes[i] = float64(s.nSelf[o])
		}
		// DevTools names the class after its last instance by id.
		if len(nodes) > 0 {
			d.name = s.str(s.classIdx(nodes[len(nodes)-1]))
		}
		out = append(out, d)
	}
	return out, nil
}

// sortByID sorts ordinals by node id.
func (s *model) sortByID(nodes []uint32) {
	slices.SortStableFunc(nodes, func(a, b uint32) int { return cmpAsc(float64(s.nID[a]), float64(s.nID[b])) })
}

// ClassDiff is how one class changed between two snapshots: objects are
// matched by id.
type ClassDiff struct {
	Index        int // position in the list of changed classes
	ClassName    string
	AddedCount   int
	RemovedCount int
	CountDelta   int
	AddedSize    float64
	RemovedSize  float64
	SizeDelta    float64
	// The objects, for one class's details.
	AddedIDs         []uint32
	AddedSelfSizes   []float64
	DeletedIDs       []uint32
	DeletedSelfSizes []float64
}

// Compare returns the classes whose objects changed from base to cur, by
// size delta (largest growth first). Either may be the other. It stops
// with ctx's error when ctx ends.
func Compare(ctx context.Context, base, cur *Snapshot) (_ []ClassDiff, err error) {
	if err := cur.begin(ctx); err != nil {
		return nil, err
	}
	defs := cur.interfaceDefs
	cur.end(nil)
	baseAggs, err := base.aggregatesForDiff(ctx, defs)
	if err != nil {
		return nil, err
	}

	if err := cur.begin(ctx); err != nil {
		return nil, err
	}
	defer cur.end(&err)
	set := classes{cur}.allObjects()
	// DevTools sorts the current snapshot's cached instances by id in
	// place; class listings of it keep that order among equal sizes.
	if !cur.allSortedByID {
		for _, a := range set.list {
			cur.sortByID(a.nodes)
		}
		cur.allSortedByID = true
	}
	var diffs []ClassDiff
	inBase := map[string]bool{}
	for _, b := range baseAggs {
		inBase[b.key] = true
		if d, ok := cur.diffClass(b, set.byKey[b.key]); ok {
			diffs = append(diffs, d)
		}
	}
	for _, a := range set.list {
		if inBase[a.key] {
			continue
		}
		if d, ok := cur.diffClass(forDiff{}, a); ok {
			diffs = append(diffs, d)
		}
	}
	slices.SortStableFunc(diffs, func(a, b ClassDiff) int { return cmpDesc(a.SizeDelta, b.SizeDelta) })
	for i := range diffs {
		diffs[i].Index = i
	}
	return diffs, nil
}

// diffClass matches a base class's objects with cur's by id.
func (s *model) diffClass(base forDiff, a *aggregate) (ClassDiff, bool) {
	var nodes []uint32
	d := ClassDiff{ClassName: base.name}
	if a != nil {
		nodes = a.nodes
		d.ClassName = a.name
	}
	i, j := 0, 0
	for i < len(base.ids) && j < len(nodes) {
		id := s.nID[nodes[j]]
		switch {
		case base.ids[i] < id:
			d.deleted(base.ids[i], base.selfSizes[i])
			i++
		case base.ids[i] > id:
			d.added(id, float64(s.nSelf[nodes[j]]))
			j++
		default:
			i++
			j++
		}
	}
	for ; i < len(base.ids); i++ {
		d.deleted(base.ids[i], base.selfSizes[i])
	}
	for ; j < len(nodes); j++ {
		d.added(s.nID[nodes[j]], float64(s.nSelf[nodes[j]]))
	}
	d.CountDelta = d.AddedCount - d.RemovedCount
	d.SizeDelta = d.AddedSize - d.RemovedSize
	return d, d.AddedCount > 0 || d.RemovedCount > 0
}

func (d *ClassDiff) added(id uint32, size float64) {
	d.AddedIDs = append(d.AddedIDs, id)
	d.AddedSelfSizes = append(d.AddedSelfSizes, size)
	d.AddedCount++
	d.AddedSize += size
}

func (d *ClassDiff) deleted(id uint32, size float64) {
	d.DeletedIDs = append(d.DeletedIDs, id)
	d.DeletedSelfSizes = append(d.DeletedSelfSizes, size)
	d.RemovedCount++
	d.RemovedSize += size
}

// ClassIndexError is returned for a class index past the changed classes.
type ClassIndexError struct {
	Index float64
	Count int
}

func (e *ClassIndexError) Error() string {
	return fmt.Sprintf("Invalid classIndex: %s. Total classes with changes: %d", jsfmt.Number(e.Index), e.Count)
}
