package mailbox_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/tabhive/tabhive/mailbox"
)

// tokens returns how many tokens ready holds, taking them.
func tokens(ready <-chan struct{}) int {
	n := 0
	for {
		select {
		case <-ready:
			n++
		default:
			return n
		}
	}
}

func TestQueuePushTakeInOrder(t *testing.T) {
	q := mailbox.NewQueue[int](0, nil)
	for i := 1; i <= 3; i++ {
		if err := q.Push(i); err != nil {
			t.Fatalf("Push(%d) = %v, want nil", i, err)
		}
	}
	if n := tokens(q.Ready()); n != 1 {
		t.Errorf("a burst of 3 pushes left %d tokens, want 1", n)
	}
	if got, want := q.Take(), []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("Take = %v, want %v", got, want)
	}
	if got := q.Take(); got != nil {
		t.Errorf("Take of an empty queue = %v, want nil", got)
	}
}

func TestQueuePopSignalsWhileItemsRemain(t *testing.T) {
	q := mailbox.NewQueue[string](0, nil)
	q.Push("a")
	q.Push("b")
	tokens(q.Ready())
	if v, ok := q.Pop(); v != "a" || !ok {
		t.Fatalf("Pop = %q, %v, want a, true", v, ok)
	}
	if n := tokens(q.Ready()); n != 1 {
		t.Errorf("Pop with an item left left %d tokens, want 1", n)
	}
	if v, ok := q.Pop(); v != "b" || !ok {
		t.Fatalf("Pop = %q, %v, want b, true", v, ok)
	}
	if n := tokens(q.Ready()); n != 0 {
		t.Errorf("Pop of the last item left %d tokens, want 0", n)
	}
	if v, ok := q.Pop(); v != "" || ok {
		t.Errorf("Pop of an empty queue = %q, %v, want \"\", false", v, ok)
	}
}

func TestQueueLimit(t *testing.T) {
	q := mailbox.NewQueue[int](2, nil)
	q.Push(1)
	q.Push(2)
	if err := q.Push(3); !errors.Is(err, mailbox.ErrFull) {
		t.Fatalf("Push past the limit = %v, want ErrFull", err)
	}
	if q.Len() != 2 {
		t.Errorf("Len = %d after a refused push, want 2", q.Len())
	}
	q.Pop()
	if err := q.Push(3); err != nil {
		t.Errorf("Push after a Pop = %v, want nil", err)
	}
	// Items put back were in the queue already: the limit does not apply.
	q.PushFront([]int{0})
	if got, want := q.Take(), []int{0, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("Take = %v, want %v", got, want)
	}
}

func TestQueuePushFront(t *testing.T) {
	q := mailbox.NewQueue[int](0, nil)
	q.Push(3)
	tokens(q.Ready())
	q.PushFront([]int{1, 2})
	if n := tokens(q.Ready()); n != 1 {
		t.Errorf("PushFront left %d tokens, want 1", n)
	}
	if got, want := q.Take(), []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("Take = %v, want %v", got, want)
	}
	q.PushFront(nil)
	if n := tokens(q.Ready()); n != 0 {
		t.Errorf("PushFront(nil) left %d tokens, want 0", n)
	}
}

func TestQueueClose(t *testing.T) {
	q := mailbox.NewQueue[int](0, nil)
	q.Push(1)
	q.Push(2)
	if got, want := q.Close(), []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("Close = %v, want %v", got, want)
	}
	if err := q.Push(3); !errors.Is(err, mailbox.ErrClosed) {
		t.Errorf("Push after Close = %v, want ErrClosed", err)
	}
	q.PushFront([]int{4})
	if q.Len() != 0 {
		t.Errorf("Len after Close and PushFront = %d, want 0", q.Len())
	}
	if got := q.Close(); got != nil {
		t.Errorf("second Close = %v, want nil", got)
	}
}

// TestQueueSharedReady: queues made with one channel all wake its owner.
func TestQueueSharedReady(t *testing.T) {
	ready := make(chan struct{}, 1)
	a, b := mailbox.NewQueue[int](0, ready), mailbox.NewQueue[int](0, ready)
	if a.Ready() != (<-chan struct{})(ready) || b.Ready() != (<-chan struct{})(ready) {
		t.Fatal("Ready is not the channel given to NewQueue")
	}
	b.Push(1)
	if n := tokens(ready); n != 1 {
		t.Errorf("a push to the second queue left %d tokens, want 1", n)
	}
}

// TestQueueConcurrentPushers: every item pushed from many goroutines comes out
// once, each goroutine's in its order, for a drainer woken by Ready.
func TestQueueConcurrentPushers(t *testing.T) {
	const pushers, each = 8, 1000
	q := mailbox.NewQueue[[2]int](0, nil)
	var wg sync.WaitGroup
	for p := range pushers {
		wg.Go(func() {
			for i := range each {
				q.Push([2]int{p, i})
			}
		})
	}
	next := make([]int, pushers)
	for got := 0; got < pushers*each; {
		<-q.Ready()
		for _, v := range q.Take() {
			if v[1] != next[v[0]] {
				t.Fatalf("pusher %d: got item %d, want %d", v[0], v[1], next[v[0]])
			}
			next[v[0]]++
			got++
		}
	}
	wg.Wait()
	if q.Len() != 0 {
		t.Errorf("Len = %d after draining, want 0", q.Len())
	}
}

func TestQueueNewPanicsOnNegativeLimit(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewQueue(-1) did not panic")
		}
	}()
	mailbox.NewQueue[int](-1, nil)
}
