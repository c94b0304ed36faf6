package mailbox_test

import (
	"testing"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/mailbox"
)

// BenchmarkQueuePushPop is one item in and out on one goroutine.
func BenchmarkQueuePushPop(b *testing.B) {
	q := mailbox.NewQueue[int](0, nil)
	for i := 0; b.Loop(); i++ {
		q.Push(i)
		<-q.Ready()
		if _, ok := q.Pop(); !ok {
			b.Fatal("Pop found nothing")
		}
	}
}

// BenchmarkQueuePushTake is one item in and taken with Take.
func BenchmarkQueuePushTake(b *testing.B) {
	benchPushTake(b, func(i int) int { return i })
}

// BenchmarkQueueBurst is one goroutine pushing while another takes what is
// there at each wake-up.
func BenchmarkQueueBurst(b *testing.B) {
	benchBurst(b, func(i int) int { return i })
}

// BenchmarkEventQueuePushTake is one event queued by a CDP channel's
// reader and taken by its owner: the cost of a session's event queue
// (internal/cdpconn).
func BenchmarkEventQueuePushTake(b *testing.B) {
	benchPushTake(b, func(int) cdpconn.Event { return cdpconn.Event{Method: "Page.loadEventFired"} })
}

// BenchmarkEventQueueBurst is a CDP channel's reader queueing events from
// its goroutine while the owner takes what is there at each wake-up.
func BenchmarkEventQueueBurst(b *testing.B) {
	benchBurst(b, func(int) cdpconn.Event { return cdpconn.Event{Method: "Network.requestWillBeSent"} })
}

// benchPushTake pushes item(i) and takes it, on one goroutine.
func benchPushTake[T any](b *testing.B, item func(i int) T) {
	q := mailbox.NewQueue[T](0, nil)
	for i := 0; b.Loop(); i++ {
		q.Push(item(i))
		<-q.Ready()
		if len(q.Take()) != 1 {
			b.Fatal("Take found nothing")
		}
	}
}

// benchBurst pushes b.N items from one goroutine while another takes what
// is there at each wake-up.
func benchBurst[T any](b *testing.B, item func(i int) T) {
	q := mailbox.NewQueue[T](0, nil)
	go func() {
		for i := range b.N {
			q.Push(item(i))
		}
	}()
	for n := 0; n < b.N; {
		<-q.Ready()
		n += len(q.Take())
	}
}
