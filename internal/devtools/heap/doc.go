// Package heap reads V8 heap snapshots (.heapsnapshot files, as
// Chrome's HeapProfiler and DevTools write them) and answers what DevTools'
// Memory panel answers about them, with DevTools' own rules, in Go: a file
// in, answers out, nothing else.
//
//	s, err := heap.Load(ctx, f, size, budget)
//	aggs, err := s.Aggregates(ctx, "", nil)                 // classes: count, shallow and retained size
//	paths, limits, err := s.RetainingPaths(ctx, id, nil, nil, nil)
//	diffs, err := heap.Compare(ctx, before, after)
//
// # Reading
//
// [Load] parses the JSON as a stream through a fixed buffer into flat
// columns, one entry per node or edge (types, names, ids, sizes, targets as
// node ordinals) and one arena for the strings: no object per node, since a
// snapshot of a big page has millions. A file that is not a heap snapshot
// fails with [ErrNotSnapshot], one cut short with [ErrTruncated], one whose
// arrays would not fit the caller's memory budget with a [*TooLargeError]
// before they are allocated.
//
// # The model
//
// Load then builds what DevTools' HeapSnapshot model builds on load, in its
// order and by its rules, so that every figure is DevTools' figure: the
// retainers of each node; the DOM state (attached, detached) spread from
// the nodes V8 marks, detached DOM nodes renamed "Detached ..."; the flags
// (objects reachable by user code, the page's own objects); the shallow
// sizes of hidden and array nodes moved into the one object that owns them;
// the dominator tree from the root over the edges that retain (not weak
// edges, not a WeakMap table's own ephemeron edges, not shortcuts, not
// edges from the browser's objects into the page's), with the
// Lengauer–Tarjan algorithm and DevTools' handling of nodes those edges do
// not reach; retained sizes; distances from the user roots; class names
// (HTML tags cut to their name, plain objects classed by their common
// shapes); object locations; and which native context (realm) each node
// belongs to.
//
// The queries answer from the model: aggregates by class under the filters
// chrome-devtools-mcp names (retained only through detached DOM nodes,
// the console, event handlers, contexts; by native context), a class's
// instances, retainers, outgoing edges, retaining paths (shortest first,
// weak edges skipped, bounded by depth, nodes and siblings), dominator
// chains, duplicate strings, object queries, closure contexts holding dead
// variables, and the diff of two snapshots by class, objects matched by id.
//
// DevTools' model is the reference: tests hold every node's dominator,
// retained size, distance, class and name, the aggregates under every
// filter and the answers about sample objects to the values DevTools' own
// JSHeapSnapshot computes from the same files (testdata, recorded by
// bench/heap/oracle.mjs).
//
// # Concurrency
//
// A [Snapshot] is safe for concurrent use. The model is read-only once
// loaded; the answers kept for later calls (aggregates by filter) are
// guarded by the snapshot's lock, which each query holds while it runs.
// [Compare] locks its two snapshots one after the other, never both.
//
// Every query takes a context and stops with its error when it ends: a
// query waiting for the lock gives up at once, and a running one looks at
// its context every few thousand steps of its loops and unwinds (a panic
// of the package's own, recovered where the query releases the lock), so
// that a call's deadline ends it within a millisecond or so. An answer is
// cached only once whole, so a query stopped half-way leaves nothing
// behind.
// Load runs two of its steps at a time on goroutines it waits for.
package heap
