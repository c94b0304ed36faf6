package mailbox_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tabhive/tabhive/mailbox"
)

func TestSendReceiveOrder(t *testing.T) {
	m := mailbox.New[int](3)
	for i := 1; i <= 3; i++ {
		if err := m.Send(context.Background(), i); err != nil {
			t.Fatalf("Send(%d) = %v, want nil", i, err)
		}
	}
	for want := 1; want <= 3; want++ {
		got, ok := m.Receive()
		if !ok || got != want {
			t.Fatalf("Receive() = %d, %v, want %d, true", got, ok, want)
		}
	}
	if _, ok := m.Receive(); ok {
		t.Fatal("Receive() on empty mailbox reported an item")
	}
}

func TestSendRefusals(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		setup func(*mailbox.Mailbox[int])
		ctx   context.Context
		want  error
	}{
		{"full", func(m *mailbox.Mailbox[int]) { m.Send(context.Background(), 0) }, context.Background(), mailbox.ErrFull},
		{"closed", func(m *mailbox.Mailbox[int]) { m.Close() }, context.Background(), mailbox.ErrClosed},
		{"context done", func(*mailbox.Mailbox[int]) {}, canceled, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mailbox.New[int](1)
			tt.setup(m)
			before := m.Len()
			if err := m.Send(tt.ctx, 42); !errors.Is(err, tt.want) {
				t.Fatalf("Send = %v, want %v", err, tt.want)
			}
			if got := m.Len(); got != before {
				t.Fatalf("Len after refused Send = %d, want %d", got, before)
			}
		})
	}
}

func TestCloseReturnsQueued(t *testing.T) {
	m := mailbox.New[string](4)
	m.Send(context.Background(), "a")
	m.Send(context.Background(), "b")
	rest := m.Close()
	if len(rest) != 2 || rest[0] != "a" || rest[1] != "b" {
		t.Fatalf("Close() = %q, want [a b]", rest)
	}
	if again := m.Close(); again != nil {
		t.Fatalf("second Close() = %q, want nil", again)
	}
	if _, ok := m.Receive(); ok {
		t.Fatal("Receive after Close reported an item")
	}
}

// TestReadyRearms checks that one token on Ready is enough to drain several
// items taken one at a time, the way an actor interleaves messages with events.
func TestReadyRearms(t *testing.T) {
	m := mailbox.New[int](8)
	for i := 0; i < 3; i++ {
		m.Send(context.Background(), i)
	}
	for i := 0; i < 3; i++ {
		select {
		case <-m.Ready():
		default:
			t.Fatalf("Ready not signalled with %d items queued", m.Len())
		}
		if _, ok := m.Receive(); !ok {
			t.Fatalf("Receive %d found nothing", i)
		}
	}
	select {
	case <-m.Ready():
		t.Fatal("Ready signalled on an empty mailbox")
	default:
	}
}

func TestConcurrentSenders(t *testing.T) {
	const senders, each = 8, 100
	m := mailbox.New[int](senders * each)
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := m.Send(context.Background(), i); err != nil {
					t.Errorf("Send = %v", err)
					return
				}
			}
		}()
	}
	got := 0
	for got < senders*each {
		<-m.Ready()
		for {
			if _, ok := m.Receive(); !ok {
				break
			}
			got++
		}
	}
	wg.Wait()
	if got != senders*each {
		t.Fatalf("received %d items, want %d", got, senders*each)
	}
}

func Example() {
	m := mailbox.New[string](2)
	fmt.Println(m.Send(context.Background(), "click"))
	fmt.Println(m.Send(context.Background(), "snapshot"))
	fmt.Println(m.Send(context.Background(), "hover"))
	<-m.Ready()
	v, _ := m.Receive()
	fmt.Println(v)
	fmt.Println(m.Close())
	// Output:
	// <nil>
	// <nil>
	// mailbox full
	// click
	// [snapshot]
}
