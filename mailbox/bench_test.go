package mailbox_test

import (
	"context"
	"testing"

	"github.com/tabhive/tabhive/mailbox"
)

// BenchmarkSendReceive is one item in and out on one goroutine: the cost of
// the queue itself.
func BenchmarkSendReceive(b *testing.B) {
	m := mailbox.New[int](64)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if err := m.Send(ctx, i); err != nil {
			b.Fatal(err)
		}
		<-m.Ready()
		if _, ok := m.Receive(); !ok {
			b.Fatal("Receive found nothing")
		}
	}
}

// BenchmarkSendersOneReceiver is an actor's inbox under load: senders on
// every CPU, one receiver woken by Ready taking one item at a time.
func BenchmarkSendersOneReceiver(b *testing.B) {
	m := mailbox.New[int](1024)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; n < b.N; {
			<-m.Ready()
			if _, ok := m.Receive(); ok {
				n++
			}
		}
	}()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for m.Send(ctx, 1) != nil { // full: the receiver is behind
			}
		}
	})
	<-done
}
