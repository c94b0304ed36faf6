// Package heapcache holds the heap snapshots the memory tools have loaded,
// as chrome-devtools-mcp caches them, so that an agent's many questions
// about one snapshot load it once. One [Cache] serves a server: one memory
// budget for all its owners (--heap-snapshot-memory-bytes), least recently
// used snapshots dropped first to make room for a new one; a snapshot in
// use by a call is never dropped. Each owner (the transport's session)
// sees only what it loaded, by the canonical path of the file, and its
// snapshots go when it ends; close_heapsnapshot drops one at once.
//
// Goroutines: a load runs on a goroutine of the cache, not the caller's:
// calls of the same owner for the same file share it, and a call that
// gives up (its client cancelled, its budget ran out) leaves the load to
// finish for the next. Each load is bounded by loadTimeout, and
// [Cache.Close] ends them all and waits for them.
//
// Failures a caller can act on are [*heaptext.Error]s: their text is the
// sentence the agent reads.
package heapcache

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tabhive/tabhive/internal/devtools/heap"
	"github.com/tabhive/tabhive/internal/devtools/heap/heaptext"
)

// DefaultBudget is the memory budget for loaded heap snapshots when
// [New] is given none: room for a snapshot of a page holding a few million
// objects (a 380 MB file of 6 million nodes takes 0.6 GB loaded).
const DefaultBudget = 2 << 30

// loadTimeout bounds one load: parsing and building the model of a
// snapshot of a few hundred megabytes takes seconds; a loaded machine
// stretches that, never to ten minutes.
const loadTimeout = 10 * time.Minute

// loadFactor is the memory a load reserves per byte of file before it
// knows: the model takes 1.6 to 1.8 bytes per byte of snapshot measured on
// pages of 3 MB to 380 MB, and the dominator tree's work arrays a little
// more while it is built.
const loadFactor = 2

// Files is where a cache opens the files it loads: the transport's
// sandbox, which refuses paths outside the session's roots. Open returns
// the file and its canonical path, the name the cache keeps it by.
type Files interface {
	Open(path string) (f *os.File, canonical string, err error)
}

// key names a loaded snapshot: who loaded it and the file's canonical
// path. The owner is any comparable value (the transport's *session).
type key struct {
	owner any
	path  string
}

// entry is a snapshot loaded or loading.
type entry struct {
	key   key
	ready chan struct{} // closed when the load ends
	// Written before ready is closed, read-only after.
	snap *heap.Snapshot
	err  error

	// Guarded by Cache.mu.
	bytes    int64 // reserved while loading, then what the model holds
	lastUsed int64 // the cache's clock at the last use
	users    int   // calls using the snapshot now
	gone     bool  // dropped from the cache; its memory is counted until its users are done
}

// Cache holds the loaded heap snapshots of a server's sessions. It is
// safe for concurrent use; its zero value is not: make one with [New].
type Cache struct {
	budget int64 // fixed at creation

	mu      sync.Mutex // guards the fields below
	used    int64      // bytes reserved or held, entries in use included
	clock   int64
	entries map[key]*entry
	closed  bool

	ctx    context.Context // ends the loads on close
	cancel context.CancelFunc
	loads  sync.WaitGroup
}

// New returns a cache that holds at most budget bytes of loaded
// snapshots, [DefaultBudget] if budget is not positive.
func New(budget int64) *Cache {
	if budget <= 0 {
		budget = DefaultBudget
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Cache{budget: budget, entries: map[key]*entry{}, ctx: ctx, cancel: cancel}
}

// Close ends the loads under way, waits for them and drops every
// snapshot; a later [Cache.Use] fails.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.entries = map[key]*entry{}
	c.mu.Unlock()
	c.cancel()
	c.loads.Wait()
}

// Use returns owner's snapshot of the file at path, opened through files
// and loaded if need be, and a function the caller must call when done
// with it. It waits for a load under way until ctx ends, and then leaves
// the load to go on for the next call.
func (c *Cache) Use(ctx context.Context, owner any, files Files, path string) (*heap.Snapshot, func(), error) {
	if !strings.HasSuffix(path, ".heapsnapshot") && !strings.HasSuffix(path, ".heaptimeline") {
		return nil, nil, &heaptext.Error{Sentence: fmt.Sprintf("File %s must have a .heapsnapshot or .heaptimeline extension.", path)}
	}
	f, canonical, err := files.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &heaptext.Error{Sentence: fmt.Sprintf("There is no file %s: give the path take_heapsnapshot saved the snapshot to.", path)}
	}
	if err != nil {
		return nil, nil, err
	}
	k := key{owner, canonical}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		f.Close()
		return nil, nil, errors.New("the server is shutting down")
	}
	e := c.entries[k]
	if e == nil {
		e, err = c.startLoad(k, f)
		if err != nil {
			c.mu.Unlock()
			f.Close()
			return nil, nil, err
		}
	} else {
		f.Close()
	}
	e.users++
	c.clock++
	e.lastUsed = c.clock
	c.mu.Unlock()

	release := func() { c.release(e) }
	select {
	case <-e.ready:
	case <-ctx.Done():
		release()
		return nil, nil, &heaptext.Error{Sentence: fmt.Sprintf("The heap snapshot %s is still loading; the call gave up before it was done. Call again: the load goes on and the next call finds it.", path)}
	}
	if e.err != nil {
		release()
		return nil, nil, c.loadError(path, e.err)
	}
	return e.snap, release, nil
}

// startLoad reserves room for a snapshot of f and loads it on a goroutine
// of the cache. c.mu is held.
func (c *Cache) startLoad(k key, f *os.File) (*entry, error) {
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	need := size * loadFactor
	if need > c.budget {
		return nil, &heaptext.Error{Sentence: tooLargeSentence(k.path, need, c.budget)}
	}
	if !c.makeRoom(need) {
		return nil, &heaptext.Error{Sentence: fmt.Sprintf("The heap snapshot %s needs about %s to load, and the snapshots other calls are using hold the rest of the server's %s for loaded snapshots; close some with close_heapsnapshot, or retry when those calls are done.", k.path, sizeText(need), sizeText(c.budget))}
	}
	e := &entry{key: k, ready: make(chan struct{}), bytes: need}
	c.used += need
	c.entries[k] = e
	// The load may use what is left of the budget once this reservation
	// is made, and its own reservation.
	limit := c.budget - c.used + need
	c.loads.Add(1)
	go func() { // owned by the cache: close cancels it and waits
		defer c.loads.Done()
		defer f.Close()
		ctx, cancel := context.WithTimeout(c.ctx, loadTimeout)
		defer cancel()
		snap, err := heap.Load(ctx, f, size, limit)
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			e.err = err
			c.used -= e.bytes
			e.bytes = 0
			if c.entries[k] == e {
				delete(c.entries, k)
			}
			e.gone = true
		} else {
			e.snap = snap
			// An entry dropped while it loaded, with no call waiting, has
			// given its reservation back already: the snapshot is
			// garbage. Otherwise it counts what it holds.
			if !e.gone || e.users > 0 {
				c.used += snap.Bytes() - e.bytes
				e.bytes = snap.Bytes()
				c.makeRoom(0)
			}
		}
		close(e.ready)
	}()
	return e, nil
}

// makeRoom drops idle snapshots, least recently used first, until need
// more bytes fit the budget, and reports whether they do. c.mu is held.
func (c *Cache) makeRoom(need int64) bool {
	for c.used+need > c.budget {
		var victim *entry
		for _, e := range c.entries {
			if e.users > 0 || e.snap == nil {
				continue
			}
			if victim == nil || e.lastUsed < victim.lastUsed {
				victim = e
			}
		}
		if victim == nil {
			return false
		}
		c.drop(victim)
	}
	return true
}

// drop removes an entry; its memory is given back now if no call uses
// it, else when the last one is done. c.mu is held.
func (c *Cache) drop(e *entry) {
	if c.entries[e.key] == e {
		delete(c.entries, e.key)
	}
	if e.gone {
		return
	}
	e.gone = true
	if e.users == 0 {
		c.used -= e.bytes
		e.bytes = 0
	}
}

func (c *Cache) release(e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.users--
	if e.gone && e.users == 0 && e.bytes > 0 {
		c.used -= e.bytes
		e.bytes = 0
	}
}

// CloseFile drops owner's snapshot of the file whose canonical path is
// canonical, and reports whether it was loaded (or loading).
func (c *Cache) CloseFile(owner any, canonical string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key{owner, canonical}]
	if e == nil {
		return false
	}
	c.drop(e)
	return true
}

// DropOwner drops every snapshot of an owner that has ended.
func (c *Cache) DropOwner(owner any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if k.owner == owner {
			c.drop(e)
		}
	}
}

// Loaded reports the bytes held and the number of snapshots, for tests and
// metrics.
func (c *Cache) Loaded() (bytes int64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, len(c.entries)
}

// loadError turns a load's error into the sentence the agent reads.
func (c *Cache) loadError(path string, err error) error {
	var tl *heap.TooLargeError
	switch {
	case errors.As(err, &tl):
		return &heaptext.Error{Sentence: tooLargeSentence(path, tl.Need, c.budget)}
	case errors.Is(err, heap.ErrTruncated):
		return &heaptext.Error{Sentence: fmt.Sprintf("%s is not a whole heap snapshot: the file ends before the snapshot does (it may still be being written, or was cut short); take the snapshot again.", path)}
	case errors.Is(err, heap.ErrNotSnapshot):
		return &heaptext.Error{Sentence: fmt.Sprintf("%s is not a heap snapshot (%s); give the path of a .heapsnapshot file written by take_heapsnapshot or DevTools.", path, strings.TrimPrefix(err.Error(), heap.ErrNotSnapshot.Error()+": "))}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return &heaptext.Error{Sentence: fmt.Sprintf("Loading the heap snapshot %s was stopped (the server is shutting down, or it took longer than %v); retry.", path, loadTimeout)}
	}
	return &heaptext.Error{Sentence: fmt.Sprintf("Could not read the heap snapshot %s: %v.", path, err)}
}

func tooLargeSentence(path string, need, budget int64) string {
	return fmt.Sprintf("The heap snapshot %s needs about %s to load, more than the %s this server allows for loaded snapshots (--heap-snapshot-memory-bytes); start the server with a larger budget, or snapshot a smaller heap.", path, sizeText(need), sizeText(budget))
}

// sizeText is a byte count in whole MB (rounded), or in bytes below one MB:
// a budget of 1000000 bytes is not "0 MB".
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MB", (n+1<<19)>>20)
}
