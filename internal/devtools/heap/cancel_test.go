package heap

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// endsAfter is a context that ends (its deadline passes) after Err has
// been asked left times: a query's deadline passing at a known point of
// its run, whatever the machine's speed. If reached is not nil, the ask
// that finds it ended first closes reached and waits for hold.
type endsAfter struct {
	context.Context
	left    atomic.Int32
	asked   atomic.Int32
	reached chan struct{}
	hold    chan struct{}
}

func newEndsAfter(left int32) *endsAfter {
	c := &endsAfter{Context: context.Background()}
	c.left.Store(left)
	return c
}

func (c *endsAfter) Err() error {
	c.asked.Add(1)
	if c.left.Add(-1) >= 0 {
		return nil
	}
	if c.reached != nil {
		close(c.reached)
		c.reached = nil
		<-c.hold
	}
	return context.DeadlineExceeded
}

func loadFresh(t *testing.T) *Snapshot {
	t.Helper()
	data := fixtureData(t)
	s, err := Load(context.Background(), bytes.NewReader(data), int64(len(data)), 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A query whose deadline passes while it runs stops at the next look at
// its context (every tickEvery steps), returns the context's error, and
// leaves the snapshot as it was: the lock free, nothing half-made cached,
// so that the same query then answers in full, as on a fresh snapshot.
func TestQueryStopsAtItsDeadline(t *testing.T) {
	s := loadFresh(t)
	if s.NodeCount() < 4*tickEvery {
		t.Fatalf("the fixture has %d nodes, too few for a query to look at its context", s.NodeCount())
	}
	queries := []struct {
		name string
		run  func(ctx context.Context, s *Snapshot) (any, error)
	}{
		{"QueryObjects", func(ctx context.Context, s *Snapshot) (any, error) {
			n, err := s.QueryObjects(ctx, Query{})
			return n.Len(), err
		}},
		{"Aggregates " + FilterDetachedDOM, func(ctx context.Context, s *Snapshot) (any, error) {
			return s.Aggregates(ctx, FilterDetachedDOM, nil)
		}},
		{"DuplicateStrings", func(ctx context.Context, s *Snapshot) (any, error) {
			return s.DuplicateStrings(ctx)
		}},
		{"RetainedByContextSummary", func(ctx context.Context, s *Snapshot) (any, error) {
			return s.RetainedByContextSummary(ctx)
		}},
		{"AnalyzeContexts", func(ctx context.Context, s *Snapshot) (any, error) {
			return s.AnalyzeContexts(ctx)
		}},
	}
	fresh := loadFresh(t)
	for _, q := range queries {
		// Two asks pass (begin's, before and after taking the lock); the
		// deadline has passed at the query's first look.
		ctx := newEndsAfter(2)
		if _, err := q.run(ctx, s); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s past its deadline = %v, want context.DeadlineExceeded", q.name, err)
			continue
		}
		if n := ctx.asked.Load(); n != 3 {
			t.Errorf("%s looked at its context %d times, want it to stop at the first look past begin's two", q.name, n)
		}
		got, err := q.run(context.Background(), s)
		if err != nil {
			t.Fatalf("%s after one that stopped: %v", q.name, err)
		}
		want, err := q.run(context.Background(), fresh)
		if err != nil {
			t.Fatalf("%s on a fresh snapshot: %v", q.name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s after one that stopped answers otherwise than on a fresh snapshot", q.name)
		}
	}
}

// A query waiting for the snapshot's lock, held by another that runs
// long, gives up at its own deadline instead of waiting for the other.
func TestQueryWaitingForTheLockStopsAtItsDeadline(t *testing.T) {
	s := loadFresh(t)
	long := newEndsAfter(2)
	long.reached, long.hold = make(chan struct{}), make(chan struct{})
	reached := long.reached
	longDone := make(chan error, 1)
	go func() {
		_, err := s.QueryObjects(long, Query{})
		longDone <- err
	}()
	select {
	case <-reached: // the long query holds the lock, in its loop
	case err := <-longDone:
		t.Fatalf("the long query ended (%v) before its deadline passed", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	waited := make(chan error, 1)
	go func() {
		_, err := s.Aggregates(ctx, "", nil)
		waited <- err
	}()
	select {
	case err := <-waited:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a query waiting for the lock past its deadline = %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("a query waiting for the lock outlived its deadline by 20 s")
	}
	close(long.hold)
	if err := <-longDone; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the long query = %v, want context.DeadlineExceeded", err)
	}
	if _, err := s.Aggregates(context.Background(), "", nil); err != nil {
		t.Errorf("a query after both: %v", err)
	}
}
