package heaptext

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// DefaultMaxNameLength is where names are cut when the call gives no
// maxNameLength.
const DefaultMaxNameLength = 100

// MaxNameLength is the call's maxNameLength, or the default when it gave
// none.
func MaxNameLength(n *int) int {
	if n == nil {
		return DefaultMaxNameLength
	}
	return *n
}

// formatKB prints bytes in kilobytes as DevTools' formatBytesToKb does
// (en-US): one decimal under 100 kB, whole kilobytes with thousands
// separators from 100 kB, rounded half away from zero, a no-break space
// before the unit.
func formatKB(bytes float64) string {
	if math.IsNaN(bytes) {
		return "NaN\u00a0kB"
	}
	// ICU shows the sign of any negative number, even one that rounds to
	// zero ("-0.0 kB").
	neg := math.Signbit(bytes)
	abs := math.Abs(bytes)
	var s string
	if bytes/1000 < 100 {
		// Tenths of a kilobyte: bytes/100, rounded half up on the decimal
		// value (ICU rounds the decimal, not the binary float).
		tenths := roundHalfUp(abs, 100)
		s = groupThousands(strconv.FormatInt(tenths/10, 10)) + "." + strconv.FormatInt(tenths%10, 10)
	} else {
		s = groupThousands(strconv.FormatInt(roundHalfUp(abs, 1000), 10))
	}
	if neg {
		s = "-" + s
	}
	return s + "\u00a0kB"
}

// roundHalfUp returns v/unit rounded half up, for a non-negative integer
// v.
func roundHalfUp(v, unit float64) int64 {
	whole := int64(v)
	q, r := whole/int64(unit), whole%int64(unit)
	if frac := v - float64(whole); float64(r)+frac >= unit/2 {
		q++
	}
	return q
}

func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// signedKB prints a size with a "+" when positive (diff totals).
func signedKB(bytes float64) string {
	if bytes > 0 {
		return "+" + formatKB(bytes)
	}
	return formatKB(bytes)
}

func signedCount(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// truncateName cuts a name to max UTF-16 code units, as JavaScript counts,
// with "..." after a cut.
func truncateName(name string, max int) string {
	if jsfmt.Length(name) <= max {
		return name
	}
	return jsfmt.Slice(name, max) + "..."
}

// formatName is a name for a one-line listing: cut, line breaks escaped.
func formatName(name string, max int) string {
	s := truncateName(name, max)
	s = strings.ReplaceAll(s, "\r", `\r`)
	return strings.ReplaceAll(s, "\n", `\n`)
}

// listPage is the part of a list a paged reply shows, and the lines that say
// which.
type listPage struct {
	start, end int
	info       []string
}

// paginate pages a list of n items as chrome-devtools-mcp does: everything
// when neither pageIdx nor pageSize is given; else pages of pageSize (20 by
// default), an out-of-range pageIdx showing the first page with a note.
func paginate(n int, pageIdx, pageSize *int) listPage {
	var p listPage
	given := pageIdx != nil || pageSize != nil
	size, idx, total := n, 0, 1
	if given {
		size = 20
		if pageSize != nil {
			size = *pageSize
		}
		total = max(1, (n+size-1)/size)
		if pageIdx != nil {
			if *pageIdx < 0 || *pageIdx >= total {
				p.info = append(p.info, "Invalid page number provided. Showing first page.")
			} else {
				idx = *pageIdx
			}
		}
	}
	p.start = min(idx*size, n)
	p.end = min(p.start+size, n)
	if !given {
		p.start, p.end = 0, n
	}
	shown := p.start + 1
	if n == 0 {
		shown = 0
	}
	p.info = append(p.info, fmt.Sprintf("Showing %d-%d of %d (Page %d of %d).", shown, p.end, n, idx+1, total))
	if given {
		if idx < total-1 {
			p.info = append(p.info, fmt.Sprintf("Next page: %d", idx+1))
		}
		if idx > 0 {
			p.info = append(p.info, fmt.Sprintf("Previous page: %d", idx-1))
		}
	}
	return p
}

// jsonIndent is JSON.stringify(v, null, 2).
func jsonIndent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// sortStable is an insertion sort, stable, for the short lists replies
// sort (native contexts).
func sortStable(n int, less func(i, j int) bool, swap func(i, j int)) {
	for i := 1; i < n; i++ {
		for j := i; j > 0 && less(j, j-1); j-- {
			swap(j, j-1)
		}
	}
}

func countOf(n int, singular string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%d %ss", n, singular)
}
