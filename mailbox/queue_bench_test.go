package mailbox_test

import (
	"testing"

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
	q := mailbox.NewQueue[int](0, nil)
	for i := 0; b.Loop(); i++ {
		q.Push(i)
		<-q.Ready()
		if len(q.Take()) != 1 {
			b.Fatal("Take found nothing")
		}
	}
}

// BenchmarkQueueBurst is one goroutine pushing while another takes what is
// there at each wake-up.
func BenchmarkQueueBurst(b *testing.B) {
	q := mailbox.NewQueue[int](0, nil)
	go func() {
		for i := range b.N {
			q.Push(i)
		}
	}()
	for n := 0; n < b.N; {
		<-q.Ready()
		n += len(q.Take())
	}
}
