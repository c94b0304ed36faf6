package tool

import (
	"fmt"

	"github.com/tabhive/tabhive/collectors"
)

// Pagination is the lines chrome-devtools-mcp prints before one page of a
// paginated list (console messages, requests, style rules): which items it
// shows of how many, and the neighbouring page numbers.
func Pagination[T any](p collectors.Page[T]) []string {
	var out []string
	if p.Invalid {
		out = append(out, "Invalid page number provided. Showing first page.")
	}
	start := p.Start + 1
	if p.Total == 0 {
		start = 0
	}
	out = append(out, fmt.Sprintf("Showing %d-%d of %d (Page %d of %d).", start, p.End, p.Total, p.Current+1, p.TotalPages))
	if n, ok := p.Next(); ok {
		out = append(out, fmt.Sprintf("Next page: %d", n))
	}
	if n, ok := p.Previous(); ok {
		out = append(out, fmt.Sprintf("Previous page: %d", n))
	}
	return out
}
