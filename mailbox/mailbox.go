// Package mailbox provides tabhive's inboxes: [Queue], the FIFO that any
// number of goroutines fill and one goroutine drains, woken by a channel
// (bounded or not: a CDP session's events, a waiter's feed, a page actor's
// posted work), and [Mailbox], the bounded one an actor (package actor)
// takes its messages from.
//
// It knows nothing about browsers or MCP, holds no state of its own beyond
// each queue's, and starts no goroutines. A mailbox's full policy is:
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
)

// ErrFull is returned by [Mailbox.Send] when the mailbox already holds its
// capacity of items, and by [Queue.Push] when the queue holds its limit.
// The item is not queued.
var ErrFull = errors.New("mailbox full")

// ErrClosed is returned by [Mailbox.Send] after [Mailbox.Close], and by
// [Queue.Push] after [Queue.Close]. The item is not queued.
var ErrClosed = errors.New("mailbox closed")

// Mailbox is a bounded FIFO queue. Send may be called from any goroutine;
// Ready, Receive and Close are meant for the single goroutine that owns the
// mailbox, though they are safe to call concurrently.
//
// The zero value is not usable; use [New].
type Mailbox[T any] struct {
	q *Queue[T] // bounded by the capacity
}

// New returns an empty mailbox that holds at most capacity items.
// It panics if capacity is less than 1.
func New[T any](capacity int) *Mailbox[T] {
	if capacity < 1 {
		panic("mailbox: capacity must be at least 1")
	}
	return &Mailbox[T]{q: NewQueue[T](capacity, nil)}
}

// Send queues v. It never blocks: it returns ctx's error if ctx is already
// done, [ErrClosed] after Close, and [ErrFull] when the mailbox is at
// capacity. In each of those cases v is not queued.
func (m *Mailbox[T]) Send(ctx context.Context, v T) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	return m.q.Push(v)
}

// Ready returns a channel that receives a value when items may be queued.
// After a receive from it, call [Mailbox.Receive] until it reports false, or
// take one item: Receive re-arms the channel while items remain.
func (m *Mailbox[T]) Ready() <-chan struct{} { return m.q.Ready() }

// Receive removes and returns the oldest item. It reports false when the
// mailbox is empty. It never blocks.
func (m *Mailbox[T]) Receive() (T, bool) { return m.q.Pop() }

// Len reports how many items are queued.
func (m *Mailbox[T]) Len() int { return m.q.Len() }

// Close refuses all further sends and returns the items that were still
// queued, oldest first. Calling Close again returns nil.
func (m *Mailbox[T]) Close() []T { return m.q.Close() }
