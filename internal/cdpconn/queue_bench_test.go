package cdpconn

import "testing"

// BenchmarkQueuePushTake is one event queued by the channel's reader and
// taken by its owner: the cost of a session's event queue.
func BenchmarkQueuePushTake(b *testing.B) {
	q := &queue{ready: make(chan struct{}, 1)}
	for b.Loop() {
		q.push(Event{Method: "Page.loadEventFired"})
		<-q.ready
		if len(q.take()) != 1 {
			b.Fatal("take found nothing")
		}
	}
}

// BenchmarkQueueBurst is the reader queueing events from its goroutine
// while the owner takes what is there at each wake-up.
func BenchmarkQueueBurst(b *testing.B) {
	q := &queue{ready: make(chan struct{}, 1)}
	go func() {
		for range b.N {
			q.push(Event{Method: "Network.requestWillBeSent"})
		}
	}()
	for n := 0; n < b.N; {
		<-q.ready
		n += len(q.take())
	}
}
