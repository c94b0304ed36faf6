package collectors

// DefaultPageSize is the page size [Paginate] uses when only a page index is
// given.
const DefaultPageSize = 20

// PageOptions are the list tools' pageSize and pageIdx arguments; nil means
// the argument was not given.
type PageOptions struct {
	// PageSize is the number of items per page. A non-nil value <= 0 counts
	// as [DefaultPageSize] (the tool schemas reject it before it gets here).
	PageSize *int
	// PageIdx is the 0-based page to show.
	PageIdx *int
}

// A Page is one page of a list, with the numbers the reply text needs, in
// chrome-devtools-mcp's wording:
//
//	Invalid page number provided. Showing first page.   (if Invalid)
//	Showing <Start+1>-<End> of <Total> (Page <Current+1> of <TotalPages>).
//	Next page: <n>                                       (see [Page.Next])
//	Previous page: <n>                                   (see [Page.Previous])
//
// An empty list gives Total 0, Start 0, End 0, Current 0 and TotalPages 1;
// upstream prints its "nothing found" line instead of the Showing line then.
type Page[T any] struct {
	// Items are the items on this page: a subslice of the list given to
	// [Paginate], capped so that appending to it cannot write into the list.
	Items []T
	// Start is the index of the first item on the page in the list; End is
	// one past the last (End == Start for an empty page).
	Start, End int
	// Total is the length of the list.
	Total int
	// Current is the 0-based index of the page shown; TotalPages is at least 1.
	Current, TotalPages int
	// Invalid reports whether the requested page did not exist, so page 0 is
	// shown instead.
	Invalid bool
	// Paginated reports whether a page size or index was given; the
	// Next/Previous lines are printed only then.
	Paginated bool
}

// Next returns the index of the next page and whether a "Next page" line
// applies: pagination options were given and a later page exists.
func (p Page[T]) Next() (int, bool) {
	return p.Current + 1, p.Paginated && p.Current < p.TotalPages-1
}

// Previous returns the index of the previous page and whether a "Previous
// page" line applies: pagination options were given and an earlier page
// exists.
func (p Page[T]) Previous() (int, bool) {
	return p.Current - 1, p.Paginated && p.Current > 0
}

// Paginate cuts one page out of items with chrome-devtools-mcp's semantics
// (src/utils/pagination.ts): with neither a page size nor an index, all items
// are one page; with only an index, pages hold [DefaultPageSize] items; an
// index out of range (negative, or at or past the last page) sets Invalid and
// shows page 0.
func Paginate[T any](items []T, opts PageOptions) Page[T] {
	total := len(items)
	if opts.PageSize == nil && opts.PageIdx == nil {
		return Page[T]{Items: items[:total:total], End: total, Total: total, TotalPages: 1}
	}
	size := DefaultPageSize
	if opts.PageSize != nil && *opts.PageSize > 0 {
		size = *opts.PageSize
	}
	pages := total / size
	if total%size != 0 || pages == 0 {
		pages++
	}
	cur, invalid := 0, false
	if opts.PageIdx != nil {
		if idx := *opts.PageIdx; idx >= 0 && idx < pages {
			cur = idx
		} else {
			invalid = true
		}
	}
	start := min(cur*size, total)
	end := min(start+size, total)
	return Page[T]{
		Items:      items[start:end:end],
		Start:      start,
		End:        end,
		Total:      total,
		Current:    cur,
		TotalPages: pages,
		Invalid:    invalid,
		Paginated:  true,
	}
}
