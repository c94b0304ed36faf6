package tracetest

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// bundle returns a script as a bundler would make it: a copy of a small
// library (node_modules/tinylib) followed by the bundle's own code, with
// an inline source map that attributes each line to its source. Every
// bundle carries the same library, which DevTools reports as duplicated
// JavaScript.
func bundle(name string) []byte {
	var lines []string
	var seg []string
	// The library: 80 lines of about 60 bytes, none alike, so that they
	// count for their size.
	for i := 0; i < 80; i++ {
		lines = append(lines, fmt.Sprintf("function tinylib_%03d(x){return (x*%d+%d)%%%d;} // %s", i, i*7+3, i*13+1, i+97, strings.Repeat("ab", i%7)))
	}
	libLines := len(lines)
	for i := 0; i < 10; i++ {
		lines = append(lines, fmt.Sprintf("window.app_%s_%d = tinylib_%03d(%d);", name, i, i, i))
	}
	// Mappings: one segment per line, at column 0, with source 0 for the
	// library and 1 for the bundle's own code.
	prevSrc, prevLine := 0, 0
	for i := range lines {
		src, line := 0, i
		if i >= libLines {
			src, line = 1, i-libLines
		}
		seg = append(seg, vlq(0)+vlq(src-prevSrc)+vlq(line-prevLine)+vlq(0))
		prevSrc, prevLine = src, line
	}
	sm := fmt.Sprintf(`{"version":3,"sources":["webpack:///node_modules/tinylib/index.js","webpack:///src/%s.js"],"names":[],"mappings":%q}`,
		name, strings.Join(seg, ";"))
	lines = append(lines, "//# sourceMappingURL=data:application/json;base64,"+base64.StdEncoding.EncodeToString([]byte(sm)))
	return []byte(strings.Join(lines, "\n") + "\n")
}

const vlqDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// vlq encodes v as a source map's base64 VLQ.
func vlq(v int) string {
	u := v << 1
	if v < 0 {
		u = (-v << 1) | 1
	}
	var b strings.Builder
	for {
		d := u & 31
		u >>= 5
		if u > 0 {
			d |= 32
		}
		b.WriteByte(vlqDigits[d])
		if u == 0 {
			return b.String()
		}
	}
}
