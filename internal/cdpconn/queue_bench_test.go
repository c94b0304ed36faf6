package cdpconn

import (
	"testing"

	"github.com/tabhive/tabhive/mailbox"
)

// BenchmarkQueuePushTake is one event queued by the channel's reader and
// taken by its owner: the cost of a session's event queue.
func BenchmarkQueuePushTake(b *testing.B) {
	q := mailbox.NewQueue[Event](0, nil)
	for b.Loop() {
		q.Push(Event{Method: "Page.loadEventFired"})
		<-q.Ready()
		if len(q.Take()) != 1 {
			b.Fatal("take found nothing")
		}
	}
}

// BenchmarkQueueBurst is the reader queueing events from its goroutine
// while the owner takes what is there at each wake-up.
func BenchmarkQueueBurst(b *testing.B) {
	q := mailbox.NewQueue[Event](0, nil)
	go func() {
		for range b.N {
			q.Push(Event{Method: "Network.requestWillBeSent"})
		}
	}()
	for n := 0; n < b.N; {
		<-q.Ready()
		n += len(q.Take())
	}
}
