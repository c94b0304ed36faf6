package mailbox

// The queue behind every inbox of tabhive: a FIFO that any goroutine fills
// and one goroutine drains, with a channel that wakes the drainer. An
// actor's mailbox ([Mailbox]), a CDP session's event queue (package
// cdpconn) and a waiter's event feed (package waiter) are each one of
// these.
//
// Filling never blocks: [Queue.Push] refuses instead when the queue is at
// its limit or closed. Waking is by token: the ready channel holds at most
// one, left by every push that finds it empty, so a burst of pushes wakes
// the drainer once, and the drainer, once woken, takes what is there
// ([Queue.Take] for all of it, [Queue.Pop] for the oldest item, which leaves
// a new token while items remain).

import "sync"

// Queue is a FIFO of T, bounded or not, that can be closed. Its methods are
// safe for concurrent use. The zero value is not usable; use [NewQueue].
type Queue[T any] struct {
	// Fixed at creation.
	limit int           // most items held; 0 for no limit
	ready chan struct{} // holds a token while items may be queued

	mu     sync.Mutex // guards items and closed
	items  []T        // items[0] is the oldest
	closed bool
}

// NewQueue returns an empty queue that holds at most limit items, or any number
// if limit is 0. Pushes leave a token in ready; if ready is nil the queue
// makes its own. An owner that outlives its queues (a supervisor that
// reconnects) passes one channel to each of them. ready must have a buffer
// of at least one. NewQueue panics if limit is negative.
func NewQueue[T any](limit int, ready chan struct{}) *Queue[T] {
	if limit < 0 {
		panic("mailbox: negative queue limit")
	}
	if ready == nil {
		ready = make(chan struct{}, 1)
	}
	return &Queue[T]{limit: limit, ready: ready}
}

// Ready returns a channel that receives a value when items may be queued. A
// receive from it may find the queue empty: an item may have been taken
// after its token was left.
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// Push appends v. It never blocks: it returns [ErrClosed] after Close and
// [ErrFull] when the queue holds its limit, and v is then not queued.
func (q *Queue[T]) Push(v T) error {
	q.mu.Lock()
	switch {
	case q.closed:
		q.mu.Unlock()
		return ErrClosed
	case q.limit > 0 && len(q.items) >= q.limit:
		q.mu.Unlock()
		return ErrFull
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
	return nil
}

// PushFront puts items back at the head of the queue, in their order, ahead
// of what was pushed since: for a drainer that took items it could not
// handle yet. The queue takes ownership of items. The limit does not apply,
// as they were in the queue already; after Close they are dropped.
func (q *Queue[T]) PushFront(items []T) {
	if len(items) == 0 {
		return
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(items, q.items...)
	q.mu.Unlock()
	q.signal()
}

// Take removes and returns every queued item, oldest first, or nil.
func (q *Queue[T]) Take() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// Pop removes and returns the oldest item, and reports false when the queue
// is empty. It leaves a token in the ready channel while items remain, so a
// drainer that takes one item per wake-up sees them all.
func (q *Queue[T]) Pop() (T, bool) {
	var zero T
	q.mu.Lock()
	if len(q.items) == 0 {
		q.mu.Unlock()
		return zero, false
	}
	v := q.items[0]
	q.items[0] = zero // let the item be collected
	q.items = q.items[1:]
	more := len(q.items) > 0
	if !more {
		q.items = nil // release the backing array once drained
	}
	q.mu.Unlock()
	if more {
		q.signal()
	}
	return v, true
}

// Len returns the number of queued items.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Close refuses every later push and returns the items still queued,
// oldest first. Calling Close again returns nil.
func (q *Queue[T]) Close() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil
	}
	q.closed = true
	rest := q.items
	q.items = nil
	return rest
}

// signal leaves one token in ready without blocking; a token already there
// is enough to wake the drainer.
func (q *Queue[T]) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}
