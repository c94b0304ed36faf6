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

// BenchmarkAsk is an actor's inbox as package actor uses it: callers on
// every CPU each send a message and wait for its reply; one receiver, woken
// by Ready, answers them one at a time.
func BenchmarkAsk(b *testing.B) {
	m := mailbox.New[chan struct{}](1024)
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-m.Ready():
				if reply, ok := m.Receive(); ok {
					reply <- struct{}{}
				}
			}
		}
	}()
	b.RunParallel(func(pb *testing.PB) {
		reply := make(chan struct{}, 1)
		for pb.Next() {
			if err := m.Send(ctx, reply); err != nil {
				b.Error(err)
				return
			}
			<-reply
		}
	})
	close(stop)
	<-done
}
