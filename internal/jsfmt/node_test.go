package jsfmt

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
	"unicode/utf16"
)

// nodeTable is testdata/node.json: JavaScript's own answers, written by
// testdata/gen.mjs (node internal/jsfmt/testdata/gen.mjs >
// internal/jsfmt/testdata/node.json).
type nodeTable struct {
	Number  [][2]string          `json:"number"`  // IEEE 754 bits in hex, String(x)
	ToFixed [][3]any             `json:"toFixed"` // bits, digits, x.toFixed(digits)
	String  []nodeString         `json:"string"`
	Compare [][3]json.RawMessage `json:"compare"` // units of a, units of b, sign of a vs b
}

type nodeString struct {
	Units     []uint16   `json:"units"`
	Stringify string     `json:"stringify"`
	Length    int        `json:"length"`
	Slice     [][]uint16 `json:"slice"`
}

func loadNode(t *testing.T) nodeTable {
	t.Helper()
	b, err := os.ReadFile("testdata/node.json")
	if err != nil {
		t.Fatal(err)
	}
	var tab nodeTable
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatalf("testdata/node.json: %v", err)
	}
	return tab
}

func fromBits(t *testing.T, hex string) float64 {
	t.Helper()
	u, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return math.Float64frombits(u)
}

// goString is the Go string of UTF-16 code units, and whether it is the
// same text: a lone surrogate, which Go cannot hold, becomes U+FFFD.
func goString(units []uint16) (string, bool) {
	s := string(utf16.Decode(units))
	return s, slicesEqual(utf16.Encode([]rune(s)), units)
}

func slicesEqual(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestNumberAsNode(t *testing.T) {
	tab := loadNode(t)
	if len(tab.Number) < 1000 {
		t.Fatalf("only %d numbers in the table", len(tab.Number))
	}
	for _, c := range tab.Number {
		f := fromBits(t, c[0])
		if got := Number(f); got != c[1] {
			t.Errorf("Number(%v) [bits %s] = %q, want %q", f, c[0], got, c[1])
		}
	}
}

func TestToFixedAsNode(t *testing.T) {
	tab := loadNode(t)
	for _, c := range tab.ToFixed {
		f := fromBits(t, c[0].(string))
		d := int(c[1].(float64))
		if got := ToFixed(f, d); got != c[2].(string) {
			t.Errorf("ToFixed(%v, %d) = %q, want %q", f, d, got, c[2])
		}
	}
}

func TestStringsAsNode(t *testing.T) {
	tab := loadNode(t)
	checked := 0
	for _, c := range tab.String {
		s, same := goString(c.Units)
		if !same {
			continue // a lone surrogate: no Go string holds it
		}
		checked++
		if got := Quote(s); got != c.Stringify {
			t.Errorf("Quote(%q) = %s, want %s", s, got, c.Stringify)
		}
		if got := Length(s); got != c.Length {
			t.Errorf("Length(%q) = %d, want %d", s, got, c.Length)
		}
		for n, units := range c.Slice {
			want, _ := goString(units)
			if got := Slice(s, n); got != want {
				t.Errorf("Slice(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d strings checked", checked)
	}
}

func TestCompareAsNode(t *testing.T) {
	tab := loadNode(t)
	checked := 0
	for _, c := range tab.Compare {
		var ua, ub []uint16
		var want int
		if json.Unmarshal(c[0], &ua) != nil || json.Unmarshal(c[1], &ub) != nil || json.Unmarshal(c[2], &want) != nil {
			t.Fatalf("bad compare row %s", c)
		}
		a, sameA := goString(ua)
		b, sameB := goString(ub)
		if !sameA || !sameB {
			continue
		}
		checked++
		if got := Compare(a, b); got != want {
			t.Errorf("Compare(%q, %q) = %d, want %d", a, b, got, want)
		}
		if got := Less(a, b); got != (want < 0) {
			t.Errorf("Less(%q, %q) = %v, want %v", a, b, got, want < 0)
		}
	}
	if checked < 200 {
		t.Fatalf("only %d pairs checked", checked)
	}
}
