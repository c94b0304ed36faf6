package transport

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
	"github.com/tabhive/tabhive/transport/sandbox"
)

// Loaded heap snapshots are cached, as chrome-devtools-mcp caches them, so
// that an agent's many questions about one snapshot load it once. The cache
// is the server's: one memory budget for all sessions (--heap-snapshot-
// memory-bytes), least recently used snapshots dropped first to make room
// for a new one; a snapshot in use by a call is never dropped. Each
// session sees only what it loaded, by the canonical path of the file,
// and its snapshots go when it ends; close_heapsnapshot drops one at once.
//
// A load runs on a goroutine of the cache, not the caller's: calls of the
// same session for the same file share it, and a call that gives up (its
// client cancelled, its budget ran out) leaves the load to finish for the
// next. Each load is bounded by loadTimeout, and Close ends them all.

// DefaultHeapSnapshotMemory is the memory budget for loaded heap
// snapshots when [Config.HeapSnapshotMemory] is zero: room for a snapshot
// of a page holding a few million objects (a 380 MB file of 6 million
// nodes takes 0.6 GB loaded).
const DefaultHeapSnapshotMemory = 2 << 30

// loadTimeout bounds one load: parsing and building the model of a
// snapshot of a few hundred megabytes takes seconds; a loaded machine
// stretches that, never to ten minutes.
const loadTimeout = 10 * time.Minute

// loadFactor is the memory a load reserves per byte of file before it
// knows: the model takes 1.6 to 1.8 bytes per byte of snapshot measured on
// pages of 3 MB to 380 MB, and the dominator tree's work arrays a little
// more while it is built.
const loadFactor = 2

type heapKey struct {
	sess *session
	path string // canonical
}

// heapEntry is a snapshot loaded or loading.
type heapEntry struct {
	key   heapKey
	ready chan struct{} // closed when the load ends
	// Written before ready is closed, read-only after.
	snap *heap.Snapshot
	err  error

	// Guarded by heapCache.mu.
	bytes    int64 // reserved while loading, then what the model holds
	lastUsed int64 // the cache's clock at the last use
	users    int   // calls using the snapshot now
	gone     bool  // dropped from the cache; its memory is counted until its users are done
}

// heapCache holds the sessions' loaded heap snapshots.
type heapCache struct {
	budget int64 // fixed at creation

	mu      sync.Mutex // guards the fields below
	used    int64      // bytes reserved or held, entries in use included
	clock   int64
	entries map[heapKey]*heapEntry
	closed  bool

	ctx    context.Context // ends the loads on close
	cancel context.CancelFunc
	loads  sync.WaitGroup
}

func newHeapCache(budget int64) *heapCache {
	if budget <= 0 {
		budget = DefaultHeapSnapshotMemory
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &heapCache{budget: budget, entries: map[heapKey]*heapEntry{}, ctx: ctx, cancel: cancel}
}

// close ends the loads under way and waits for them.
func (c *heapCache) close() {
	c.mu.Lock()
	c.closed = true
	c.entries = map[heapKey]*heapEntry{}
	c.mu.Unlock()
	c.cancel()
	c.loads.Wait()
}

// heapSnapshotError is what the memory tools say when a file cannot be
// loaded; its text is the whole sentence.
type heapSnapshotError struct{ msg string }

func (e *heapSnapshotError) Error() string         { return e.msg }
func (e *heapSnapshotError) AgentSentence() string { return e.msg } // upstream's words, verbatim

// use returns the snapshot at path for sess, loading it if needed, and a
// function the caller must call when done with it. Canonical is the
// file's canonical path.
func (c *heapCache) use(ctx context.Context, sess *session, sb *sandbox.Sandbox, path string) (*heap.Snapshot, func(), error) {
	if !strings.HasSuffix(path, ".heapsnapshot") && !strings.HasSuffix(path, ".heaptimeline") {
		return nil, nil, &heapSnapshotError{fmt.Sprintf("File %s must have a .heapsnapshot or .heaptimeline extension.", path)}
	}
	f, canonical, err := sb.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &heapSnapshotError{fmt.Sprintf("There is no file %s: give the path take_heapsnapshot saved the snapshot to.", path)}
	}
	if err != nil {
		return nil, nil, err
	}
	key := heapKey{sess, canonical}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		f.Close()
		return nil, nil, errors.New("the server is shutting down")
	}
	e := c.entries[key]
	if e == nil {
		e, err = c.startLoad(key, f)
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
		return nil, nil, &heapSnapshotError{fmt.Sprintf("The heap snapshot %s is still loading; the call gave up before it was done. Call again: the load goes on and the next call finds it.", path)}
	}
	if e.err != nil {
		release()
		return nil, nil, c.loadError(path, e.err)
	}
	return e.snap, release, nil
}

// startLoad reserves room for a snapshot of f and loads it on a goroutine
// of the cache. c.mu is held.
func (c *heapCache) startLoad(key heapKey, f *os.File) (*heapEntry, error) {
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	need := size * loadFactor
	if need > c.budget {
		return nil, &heapSnapshotError{tooLargeSentence(key.path, need, c.budget)}
	}
	if !c.makeRoom(need) {
		return nil, &heapSnapshotError{fmt.Sprintf("The heap snapshot %s needs about %s to load, and the snapshots other calls are using hold the rest of the server's %s for loaded snapshots; close some with close_heapsnapshot, or retry when those calls are done.", key.path, sizeText(need), sizeText(c.budget))}
	}
	e := &heapEntry{key: key, ready: make(chan struct{}), bytes: need}
	c.used += need
	c.entries[key] = e
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
			if c.entries[key] == e {
				delete(c.entries, key)
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
func (c *heapCache) makeRoom(need int64) bool {
	for c.used+need > c.budget {
		var victim *heapEntry
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
func (c *heapCache) drop(e *heapEntry) {
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

func (c *heapCache) release(e *heapEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.users--
	if e.gone && e.users == 0 && e.bytes > 0 {
		c.used -= e.bytes
		e.bytes = 0
	}
}

// closeFile drops a session's snapshot of path and reports whether it was
// loaded (or loading).
func (c *heapCache) closeFile(sess *session, canonical string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[heapKey{sess, canonical}]
	if e == nil {
		return false
	}
	c.drop(e)
	return true
}

// dropSession drops every snapshot of an ended session.
func (c *heapCache) dropSession(sess *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if k.sess == sess {
			c.drop(e)
		}
	}
}

// loaded reports the bytes held and the number of snapshots, for tests and
// metrics.
func (c *heapCache) loaded() (bytes int64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, len(c.entries)
}

// loadError turns a load's error into the sentence the agent reads.
func (c *heapCache) loadError(path string, err error) error {
	var tl *heap.TooLargeError
	switch {
	case errors.As(err, &tl):
		return &heapSnapshotError{tooLargeSentence(path, tl.Need, c.budget)}
	case errors.Is(err, heap.ErrTruncated):
		return &heapSnapshotError{fmt.Sprintf("%s is not a whole heap snapshot: the file ends before the snapshot does (it may still be being written, or was cut short); take the snapshot again.", path)}
	case errors.Is(err, heap.ErrNotSnapshot):
		return &heapSnapshotError{fmt.Sprintf("%s is not a heap snapshot (%s); give the path of a .heapsnapshot file written by take_heapsnapshot or DevTools.", path, strings.TrimPrefix(err.Error(), heap.ErrNotSnapshot.Error()+": "))}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return &heapSnapshotError{fmt.Sprintf("Loading the heap snapshot %s was stopped (the server is shutting down, or it took longer than %v); retry.", path, loadTimeout)}
	}
	return &heapSnapshotError{fmt.Sprintf("Could not read the heap snapshot %s: %v.", path, err)}
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
