package heaptext

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ByteRange is an inclusive range of sizes in bytes; Max nil is no bound.
type ByteRange struct {
	Min float64
	Max *float64
}

var byteUnits = map[string]float64{
	"b": 1, "byte": 1, "bytes": 1,
	"k": 1000, "kb": 1000, "kib": 1024,
	"m": 1e6, "mb": 1e6, "mib": 1 << 20,
	"g": 1e9, "gb": 1e9, "gib": 1 << 30,
	"t": 1e12, "tb": 1e12, "tib": 1 << 40,
}

var byteSizeRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*([a-zA-Z]+)?$`)

// parseByteSize reads "1024", "1.5MB", "500 KiB" as chrome-devtools-mcp
// does (decimal units, binary ones with "i").
func parseByteSize(v string) (float64, error) {
	t := strings.TrimSpace(v)
	if t == "" {
		return 0, fmt.Errorf("Invalid byte size: %q", v)
	}
	m := byteSizeRE.FindStringSubmatch(t)
	if m == nil {
		return 0, fmt.Errorf("Invalid byte size format: %q. Expected a number or format like \"1024\", \"1M\", \"1MB\", \"1G\", \"1GB\".", v)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(n, 0) {
		return 0, fmt.Errorf("Invalid byte size: %q", v)
	}
	if m[2] == "" {
		return math.Floor(n + 0.5), nil // Math.round
	}
	unit, ok := byteUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("Unknown unit %q in %q. Supported units: B, KB, KiB, MB, MiB, GB, GiB, TB, TiB.", m[2], v)
	}
	b := math.Floor(n*unit + 0.5) // Math.round
	if math.IsInf(b, 0) {
		return 0, fmt.Errorf("Invalid byte size: %q", v)
	}
	return b, nil
}

// ParseByteRange reads a size argument, "1MB", "1MB-2MB", "-1MB" or
// "1MB-", as chrome-devtools-mcp does; a single size is a lower bound. Its
// error's text is upstream's, for the caller to name the argument.
func ParseByteRange(v string) (ByteRange, error) {
	t := strings.TrimSpace(v)
	if !strings.Contains(t, "-") {
		n, err := parseByteSize(t)
		if err != nil {
			return ByteRange{}, err
		}
		return ByteRange{Min: n}, nil
	}
	parts := strings.Split(t, "-")
	if len(parts) != 2 {
		return ByteRange{}, fmt.Errorf("Invalid byte size range: %q. Expected a size or range like \"1MB\", \"1MB-2MB\", \"-1MB\", or \"1MB-\".", v)
	}
	lo, hi := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
	if lo == "" && hi == "" {
		return ByteRange{}, fmt.Errorf("Invalid byte size range: %q. At least one bound is required.", v)
	}
	var r ByteRange
	if lo != "" {
		n, err := parseByteSize(lo)
		if err != nil {
			return ByteRange{}, err
		}
		r.Min = n
	}
	if hi != "" {
		n, err := parseByteSize(hi)
		if err != nil {
			return ByteRange{}, err
		}
		r.Max = &n
		if r.Min > n {
			return ByteRange{}, fmt.Errorf("Invalid byte size range: %q. The lower bound must not exceed the upper bound.", v)
		}
	}
	return r, nil
}
