// Package mailbox provides a bounded, closable queue that one goroutine
// drains and any number of goroutines fill.
//
// It knows nothing about browsers or MCP: it is the inbox of an actor
// (package actor). Its full policy is:
//
//   - Send never blocks. A full mailbox refuses with [ErrFull], a closed one
//     with [ErrClosed], and a sender whose context is already done gets the
//     context's error, so a caller can never be stuck past its deadline here.
//   - Items come out in the order they were accepted.
//   - Close refuses further sends and hands back every item still queued, so
//     the owner can answer each one with a clear error instead of dropping it.
package mailbox

import (
	"context"
	"errors"
	"sync"
)

// ErrFull is returned by [Mailbox.Send] when the mailbox already holds its
// capacity of items. The item is not queued.
var ErrFull = errors.New("mailbox full")

// ErrClosed is returned by [Mailbox.Send] after [Mailbox.Close]. The item is
// not queued.
var ErrClosed = errors.New("mailbox closed")

// Mailbox is a bounded FIFO queue. Send may be called from any goroutine;
// Ready, Receive and Close are meant for the single goroutine that owns the
// mailbox, though they are safe to call concurrently.
//
// The zero value is not usable; use [New].
type Mailbox[T any] struct {
	capacity int
	ready    chan struct{} // holds one token while items are queued

	mu     sync.Mutex // guards the fields below
	items  []T        // queue; items[0] is the oldest
	closed bool
}

// New returns an empty mailbox that holds at most capacity items.
// It panics if capacity is less than 1.
func New[T any](capacity int) *Mailbox[T] {
	if capacity < 1 {
		panic("mailbox: capacity must be at least 1")
	}
	return &Mailbox[T]{capacity: capacity, ready: make(chan struct{}, 1)}
}

// Send queues v. It never blocks: it returns ctx's error if ctx is already
// done, [ErrClosed] after Close, and [ErrFull] when the mailbox is at
// capacity. In each of those cases v is not queued.
func (m *Mailbox[T]) Send(ctx context.Context, v T) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	m.mu.Lock()
	switch {
	case m.closed:
		m.mu.Unlock()
		return ErrClosed
	case len(m.items) >= m.capacity:
		m.mu.Unlock()
		return ErrFull
	}
	m.items = append(m.items, v)
	m.mu.Unlock()
	m.signal()
	return nil
}

// Ready returns a channel that receives a value when items may be queued.
// After a receive from it, call [Mailbox.Receive] until it reports false, or
// take one item: Receive re-arms the channel while items remain.
func (m *Mailbox[T]) Ready() <-chan struct{} { return m.ready }

// Receive removes and returns the oldest item. It reports false when the
// mailbox is empty. It never blocks.
func (m *Mailbox[T]) Receive() (T, bool) {
	var zero T
	m.mu.Lock()
	if len(m.items) == 0 {
		m.mu.Unlock()
		return zero, false
	}
	v := m.items[0]
	m.items[0] = zero // let the item be collected
	m.items = m.items[1:]
	more := len(m.items) > 0
	if !more {
		m.items = nil // release the backing array once drained
	}
	m.mu.Unlock()
	if more {
		m.signal()
	}
	return v, true
}

// Len reports how many items are queued.
func (m *Mailbox[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}

// Close refuses all further sends and returns the items that were still
// queued, oldest first. Calling Close again returns nil.
func (m *Mailbox[T]) Close() []T {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	rest := m.items
	m.items = nil
	return rest
}

// signal leaves one token in ready without blocking; a token already there
// is enough to wake the receiver.
func (m *Mailbox[T]) signal() {
	select {
	case m.ready <- struct{}{}:
	default:
	}
}
