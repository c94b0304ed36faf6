package transport

import (
	"slices"
	"strings"
	"testing"
)

// TestSessionSeenSnapshotsBounded: what a session keeps for diffs is
// bounded in pages and bytes, the oldest snapshot forgotten first, the one
// just received always kept unless larger than the whole budget; and an
// older snapshot never replaces a newer one.
func TestSessionSeenSnapshotsBounded(t *testing.T) {
	big := strings.Repeat("x", maxSeenBytes/3)
	tests := []struct {
		name string
		saw  []seenSnapshot // page id = index+1, unless seq says otherwise
		ids  []int
		want []int // pages kept
	}{
		{"under the bounds", []seenSnapshot{{seq: 1, text: "a"}, {seq: 2, text: "b"}}, []int{1, 2}, []int{1, 2}},
		{"too many pages", func() []seenSnapshot {
			var s []seenSnapshot
			for i := range maxSeenPages + 2 {
				s = append(s, seenSnapshot{seq: int64(i + 1), text: "t"})
			}
			return s
		}(), nil, func() []int {
			var p []int
			for i := 3; i <= maxSeenPages+2; i++ {
				p = append(p, i)
			}
			return p
		}()},
		{"too many bytes", []seenSnapshot{{seq: 1, text: big}, {seq: 2, text: big}, {seq: 3, text: big}, {seq: 4, text: big}}, []int{1, 2, 3, 4}, []int{2, 3, 4}},
		{"larger than the budget", []seenSnapshot{{seq: 1, text: "a"}, {seq: 2, text: strings.Repeat("y", maxSeenBytes+1)}}, []int{1, 2}, []int{1}},
		{"older after newer", []seenSnapshot{{seq: 5, text: "new"}, {seq: 3, text: "old"}}, []int{1, 1}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &session{}
			for i, seen := range tt.saw {
				id := i + 1
				if tt.ids != nil {
					id = tt.ids[i]
				}
				s.sawSnapshot(id, seen.seq, seen.text)
			}
			var kept []int
			for id := range s.snapshots {
				kept = append(kept, id)
			}
			slices.Sort(kept)
			if !slices.Equal(kept, tt.want) {
				t.Errorf("kept pages %v, want %v", kept, tt.want)
			}
		})
	}
	s := &session{}
	s.sawSnapshot(1, 5, "new")
	s.sawSnapshot(1, 3, "old")
	s.sawSnapshot(1, 0, "unknown order")
	if text, _ := s.lastSnapshot(1); text != "unknown order" {
		t.Errorf("lastSnapshot = %q, want the one of unknown order, taken as the latest", text)
	}
}
