package heaptext

import "testing"

// TestFormatKB pins DevTools' kilobytes: one decimal under 100 kB, whole
// kilobytes with separators from 100 kB, half rounded up, the sign of a
// negative zero kept, a no-break space before the unit.
func TestFormatKB(t *testing.T) {
	cases := []struct {
		bytes float64
		want  string
	}{
		{0, "0.0\u00a0kB"},
		{1234, "1.2\u00a0kB"},
		{1250, "1.3\u00a0kB"},
		{-20, "-0.0\u00a0kB"},
		{99_949, "99.9\u00a0kB"},
		{123_456, "123\u00a0kB"},
		{1_234_500, "1,235\u00a0kB"},
		{-2_500_000, "-2,500.0\u00a0kB"}, // DevTools tests kilobytes < 100, so a negative size keeps its decimal
	}
	for _, c := range cases {
		if got := formatKB(c.bytes); got != c.want {
			t.Errorf("formatKB(%v) = %q, want %q", c.bytes, got, c.want)
		}
	}
}

// TestParseByteRange: sizes and ranges as upstream reads them, and its
// sentence for each kind of bad input.
func TestParseByteRange(t *testing.T) {
	cases := []struct {
		in       string
		min, max float64 // max -1: no upper bound
		err      string
	}{
		{in: "1024", min: 1024, max: -1},
		{in: "1.5MB", min: 1.5e6, max: -1},
		{in: "1KiB-2KiB", min: 1024, max: 2048},
		{in: "-1MB", min: 0, max: 1e6},
		{in: "1MB-", min: 1e6, max: -1},
		{in: "2MB-1MB", err: `Invalid byte size range: "2MB-1MB". The lower bound must not exceed the upper bound.`},
		{in: "-", err: `Invalid byte size range: "-". At least one bound is required.`},
		{in: "1-2-3", err: `Invalid byte size range: "1-2-3". Expected a size or range like "1MB", "1MB-2MB", "-1MB", or "1MB-".`},
		{in: "5 parsecs", err: `Unknown unit "parsecs" in "5 parsecs". Supported units: B, KB, KiB, MB, MiB, GB, GiB, TB, TiB.`},
	}
	for _, c := range cases {
		r, err := ParseByteRange(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseByteRange(%q) error = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseByteRange(%q): %v", c.in, err)
			continue
		}
		max := -1.0
		if r.Max != nil {
			max = *r.Max
		}
		if r.Min != c.min || max != c.max {
			t.Errorf("ParseByteRange(%q) = [%v, %v], want [%v, %v]", c.in, r.Min, max, c.min, c.max)
		}
	}
}
