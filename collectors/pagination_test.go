package collectors

import (
	"reflect"
	"testing"
)

func TestPaginate(t *testing.T) {
	seq := func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return s
	}
	tests := []struct {
		name     string
		total    int
		opts     PageOptions
		want     Page[int] // Items is checked through wantFrom
		wantFrom int       // Items == seq(total)[wantFrom:want.End]
		wantNext int       // -1: no "Next page" line
		wantPrev int       // -1: no "Previous page" line
	}{
		{
			name:     "no options, empty",
			want:     Page[int]{TotalPages: 1},
			wantNext: -1, wantPrev: -1,
		},
		{
			name:     "no options: everything on one page",
			total:    45,
			want:     Page[int]{End: 45, Total: 45, TotalPages: 1},
			wantNext: -1, wantPrev: -1,
		},
		{
			name:     "page size, empty",
			opts:     PageOptions{PageSize: new(10)},
			want:     Page[int]{TotalPages: 1, Paginated: true},
			wantNext: -1, wantPrev: -1,
		},
		{
			name:     "page index 0, empty",
			opts:     PageOptions{PageIdx: new(0)},
			want:     Page[int]{TotalPages: 1, Paginated: true},
			wantNext: -1, wantPrev: -1,
		},
		{
			name:     "page index 1, empty, is invalid",
			opts:     PageOptions{PageIdx: new(1)},
			want:     Page[int]{TotalPages: 1, Invalid: true, Paginated: true},
			wantNext: -1, wantPrev: -1,
		},
		{
			name:     "exactly one page",
			total:    20,
			opts:     PageOptions{PageSize: new(20), PageIdx: new(0)},
			want:     Page[int]{End: 20, Total: 20, TotalPages: 1, Paginated: true},
			wantNext: -1, wantPrev: -1,
		},
		{
			name:     "first of two pages",
			total:    21,
			opts:     PageOptions{PageSize: new(20)},
			want:     Page[int]{End: 20, Total: 21, TotalPages: 2, Paginated: true},
			wantNext: 1, wantPrev: -1,
		},
		{
			name:     "middle page",
			total:    45,
			opts:     PageOptions{PageSize: new(20), PageIdx: new(1)},
			want:     Page[int]{Start: 20, End: 40, Total: 45, Current: 1, TotalPages: 3, Paginated: true},
			wantFrom: 20,
			wantNext: 2, wantPrev: 0,
		},
		{
			name:     "last page is short",
			total:    45,
			opts:     PageOptions{PageSize: new(20), PageIdx: new(2)},
			want:     Page[int]{Start: 40, End: 45, Total: 45, Current: 2, TotalPages: 3, Paginated: true},
			wantFrom: 40,
			wantNext: -1, wantPrev: 1,
		},
		{
			name:     "out of range shows the first page",
			total:    5,
			opts:     PageOptions{PageSize: new(2), PageIdx: new(10)},
			want:     Page[int]{End: 2, Total: 5, TotalPages: 3, Invalid: true, Paginated: true},
			wantNext: 1, wantPrev: -1,
		},
		{
			name:     "index equal to page count is out of range",
			total:    4,
			opts:     PageOptions{PageSize: new(2), PageIdx: new(2)},
			want:     Page[int]{End: 2, Total: 4, TotalPages: 2, Invalid: true, Paginated: true},
			wantNext: 1, wantPrev: -1,
		},
		{
			name:     "negative index is out of range",
			total:    5,
			opts:     PageOptions{PageSize: new(2), PageIdx: new(-1)},
			want:     Page[int]{End: 2, Total: 5, TotalPages: 3, Invalid: true, Paginated: true},
			wantNext: 1, wantPrev: -1,
		},
		{
			name:     "only page index: default size 20",
			total:    30,
			opts:     PageOptions{PageIdx: new(0)},
			want:     Page[int]{End: 20, Total: 30, TotalPages: 2, Paginated: true},
			wantNext: 1, wantPrev: -1,
		},
		{
			name:     "only page index, second page",
			total:    30,
			opts:     PageOptions{PageIdx: new(1)},
			want:     Page[int]{Start: 20, End: 30, Total: 30, Current: 1, TotalPages: 2, Paginated: true},
			wantFrom: 20,
			wantNext: -1, wantPrev: 0,
		},
		{
			name:     "non-positive page size counts as default",
			total:    30,
			opts:     PageOptions{PageSize: new(0)},
			want:     Page[int]{End: 20, Total: 30, TotalPages: 2, Paginated: true},
			wantNext: 1, wantPrev: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := seq(tt.total)
			got := Paginate(items, tt.opts)
			wantItems := items[tt.wantFrom:tt.want.End]
			if len(got.Items) != len(wantItems) || (len(wantItems) > 0 && !reflect.DeepEqual(got.Items, wantItems)) {
				t.Errorf("Items = %v, want %v", got.Items, wantItems)
			}
			got.Items = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Paginate(%d items) = %+v, want %+v", tt.total, got, tt.want)
			}
			if n, ok := got.Next(); ok != (tt.wantNext >= 0) || ok && n != tt.wantNext {
				t.Errorf("Next() = %d, %v, want %d (-1: none)", n, ok, tt.wantNext)
			}
			if n, ok := got.Previous(); ok != (tt.wantPrev >= 0) || ok && n != tt.wantPrev {
				t.Errorf("Previous() = %d, %v, want %d (-1: none)", n, ok, tt.wantPrev)
			}
		})
	}
}

func TestPaginateItemsDoNotAliasAppends(t *testing.T) {
	items := []int{1, 2, 3, 4}
	p := Paginate(items, PageOptions{PageSize: new(2)})
	_ = append(p.Items, 99)
	if got, want := items[2], 3; got != want {
		t.Errorf("items[2] = %d after appending to the page, want %d", got, want)
	}
}
