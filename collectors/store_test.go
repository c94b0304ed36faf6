package collectors

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStoreIDsStartAtOneAndIncrease(t *testing.T) {
	var s Store[string] // the zero Store is usable
	for i, item := range []string{"a", "b", "c"} {
		if got, want := s.Add(item), i+1; got != want {
			t.Errorf("Add(%q) = %d, want %d", item, got, want)
		}
	}
	for id, want := range map[int]string{1: "a", 2: "b", 3: "c"} {
		if got, ok := s.Get(id); !ok || got != want {
			t.Errorf("Get(%d) = %q, %v, want %q, true", id, got, ok, want)
		}
	}
	for _, id := range []int{0, 4, -1} {
		if got, ok := s.Get(id); ok {
			t.Errorf("Get(%d) = %q, true, want false", id, got)
		}
	}
}

func TestStoreKeepsThreeSegments(t *testing.T) {
	var dropped []string
	s := NewStore(0, func(item string) { dropped = append(dropped, item) })
	s.Add("a1")
	s.Add("a2")
	s.Split()
	s.Add("b1")
	s.Split()
	s.Add("c1")
	if got, want := s.List(true), []string{"a1", "a2", "b1", "c1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("List(true) after 2 splits = %q, want %q", got, want)
	}

	s.Split() // the fourth navigation drops the oldest segment
	d1 := s.Add("d1")
	if got, want := s.List(true), []string{"b1", "c1", "d1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List(true) after 3 splits = %q, want %q", got, want)
	}
	if got, want := s.List(false), []string{"d1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List(false) = %q, want %q", got, want)
	}
	if got, want := dropped, []string{"a1", "a2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("dropped = %q, want %q", got, want)
	}
	if got, ok := s.Get(1); ok {
		t.Errorf("Get(1) of a discarded segment = %q, true, want false", got)
	}
	if got, ok := s.Get(3); !ok || got != "b1" {
		t.Errorf("Get(3) = %q, %v, want %q, true", got, ok, "b1")
	}
	if got, want := d1, 5; got != want {
		t.Errorf("id of d1 = %d, want %d (ids do not restart on split)", got, want)
	}
	if got, want := s.Len(), 3; got != want {
		t.Errorf("Len() = %d, want %d", got, want)
	}
}

func TestStoreLimitDropsOldestFirst(t *testing.T) {
	var dropped []int
	s := NewStore(3, func(item int) { dropped = append(dropped, item) })
	for i := 1; i <= 5; i++ {
		if got := s.Add(i * 10); got != i {
			t.Fatalf("Add(%d) = %d, want %d", i*10, got, i)
		}
	}
	if got, want := s.List(false), []int{30, 40, 50}; !reflect.DeepEqual(got, want) {
		t.Errorf("List(false) = %v, want %v", got, want)
	}
	if got, want := dropped, []int{10, 20}; !reflect.DeepEqual(got, want) {
		t.Errorf("dropped = %v, want %v", got, want)
	}
	for _, id := range []int{1, 2} {
		if _, ok := s.Get(id); ok {
			t.Errorf("Get(%d) of a dropped item succeeded, want false", id)
		}
	}
	if got, ok := s.Get(4); !ok || got != 40 {
		t.Errorf("Get(4) = %d, %v, want 40, true (ids do not shift)", got, ok)
	}

	// The limit is per segment: the previous segment keeps its items.
	s.Split()
	s.Add(60)
	if got, want := s.List(true), []int{30, 40, 50, 60}; !reflect.DeepEqual(got, want) {
		t.Errorf("List(true) = %v, want %v", got, want)
	}
}

func TestStoreSplitFrom(t *testing.T) {
	tests := []struct {
		name        string
		id          int
		wantCurrent []string
	}{
		{name: "middle of current segment", id: 4, wantCurrent: []string{"c2", "c3"}},
		{name: "first of current segment", id: 3, wantCurrent: []string{"c1", "c2", "c3"}},
		{name: "last of current segment", id: 5, wantCurrent: []string{"c3"}},
		{name: "in previous segment is a plain split", id: 1, wantCurrent: []string{}},
		{name: "unknown id is a plain split", id: 99, wantCurrent: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Store[string]
			s.Add("p1")
			s.Add("p2")
			s.Split()
			s.Add("c1")
			s.Add("c2")
			s.Add("c3")
			s.SplitFrom(tt.id)
			if got := s.List(false); !reflect.DeepEqual(got, tt.wantCurrent) {
				t.Errorf("List(false) = %q, want %q", got, tt.wantCurrent)
			}
			if got, want := s.List(true), []string{"p1", "p2", "c1", "c2", "c3"}; !reflect.DeepEqual(got, want) {
				t.Errorf("List(true) = %q, want %q (order and items kept)", got, want)
			}
			for id, want := range map[int]string{1: "p1", 3: "c1", 5: "c3"} {
				if got, ok := s.Get(id); !ok || got != want {
					t.Errorf("Get(%d) = %q, %v, want %q, true", id, got, ok, want)
				}
			}
			if got, want := s.Add("n1"), 6; got != want {
				t.Errorf("Add after SplitFrom = %d, want %d", got, want)
			}
		})
	}
}

func TestStoreSizeStaysFlat(t *testing.T) {
	const limit = 10
	s := NewStore[int](limit, nil)
	for i := range 100_000 {
		s.Add(i)
		if i%997 == 0 {
			s.Split()
		}
	}
	if got, max := s.Len(), keptSegments*limit; got > max {
		t.Errorf("Len() = %d, want <= %d", got, max)
	}
	if got := len(s.segs); got > keptSegments {
		t.Errorf("len(segs) = %d, want <= %d", got, keptSegments)
	}
	for i, seg := range s.segs {
		// The backing array may hold spare room, but not a growing history.
		if got, max := cap(seg), 4*limit; got > max {
			t.Errorf("cap(segs[%d]) = %d, want <= %d", i, got, max)
		}
	}
}

func TestSizedStoreDropsOldestOverBudget(t *testing.T) {
	var dropped []string
	s := NewSizedStore(100, 10, func(v string) int { return len(v) }, func(v string) { dropped = append(dropped, v) })
	for _, v := range []string{"aaaa", "bbbb", "cc"} { // 10 bytes: fits
		s.Add(v)
	}
	if len(dropped) != 0 {
		t.Fatalf("dropped %q at the budget, want none", dropped)
	}
	s.Add("d") // 11 bytes: the oldest goes
	if got, want := s.List(false), []string{"bbbb", "cc", "d"}; !slices.Equal(got, want) {
		t.Errorf("List() = %q, want %q", got, want)
	}
	s.Add("0123456789abc") // bigger than the budget alone: kept, everything else goes
	if got, want := s.List(false), []string{"0123456789abc"}; !slices.Equal(got, want) {
		t.Errorf("List() = %q, want %q (the newest item is always kept)", got, want)
	}
	if want := []string{"aaaa", "bbbb", "cc", "d"}; !slices.Equal(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}

	// A new segment starts with an empty budget; a split moves the bytes of
	// the items it moves.
	s.Split()
	s.Add("eeeeeeeeee")
	if got, want := s.List(true), []string{"0123456789abc", "eeeeeeeeee"}; !slices.Equal(got, want) {
		t.Errorf("after a split: List(true) = %q, want %q", got, want)
	}
	id := s.Add("f") // over budget in the current segment: drops "eeeeeeeeee"
	s.SplitFrom(id)
	s.Add("ggggggggg") // "f" + 9 = 10: fits
	if got, want := s.List(false), []string{"f", "ggggggggg"}; !slices.Equal(got, want) {
		t.Errorf("after SplitFrom: List() = %q, want %q", got, want)
	}
}

func TestClip(t *testing.T) {
	if got := clip("short"); got != "short" {
		t.Errorf("clip(short) = %q", got)
	}
	long := strings.Repeat("é", maxField) // 2 bytes each
	got := clip(long)
	if !strings.HasSuffix(got, truncated) || len(got) > maxField+len(truncated) || !utf8.ValidString(got) {
		t.Errorf("clip(long) = %d bytes, valid %v, want <= %d valid bytes ending %q", len(got), utf8.ValidString(got), maxField+len(truncated), truncated)
	}
}
