package waiter

import "testing"

// BenchmarkFeedTake is the page actor feeding a waiter one event and the
// waiter taking it: the cost of the waiter's queue.
func BenchmarkFeedTake(b *testing.B) {
	w := New(Config{})
	for b.Loop() {
		w.RequestStarted("1")
		<-w.events.Ready()
		if len(w.events.Take()) != 1 {
			b.Fatal("take found nothing")
		}
	}
}

// BenchmarkFeedBurst is a burst of events fed from another goroutine while
// the waiter takes what is there at each wake-up.
func BenchmarkFeedBurst(b *testing.B) {
	w := New(Config{})
	go func() {
		for range b.N {
			w.RequestFinished("1")
		}
	}()
	for n := 0; n < b.N; {
		<-w.events.Ready()
		n += len(w.events.Take())
	}
}
