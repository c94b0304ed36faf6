package jsfmt

import (
	"unicode/utf8"
)

// Length returns the length of s as JavaScript's s.length counts it, in
// UTF-16 code units: two for a character above U+FFFF, one for any other
// (and for each byte that is not UTF-8).
func Length(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n := i
			for _, r := range s[i:] {
				n += unitsOf(r)
			}
			return n
		}
	}
	return len(s)
}

// unitsOf is how many UTF-16 code units r takes.
func unitsOf(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// Slice returns the first n UTF-16 code units of s, as s.slice(0, n) does
// for n >= 0. A character above U+FFFF cut in half leaves U+FFFD, as its
// lone high surrogate reads once in Go.
func Slice(s string, n int) string {
	units := 0
	for i, r := range s {
		w := unitsOf(r)
		if units+w > n {
			if units < n {
				return s[:i] + string(utf8.RuneError)
			}
			return s[:i]
		}
		units += w
	}
	return s
}

// Prefix returns the longest prefix of s of at most n UTF-16 code units
// that does not cut a character in half: unlike [Slice], a character
// above U+FFFF that does not fit is left out whole.
func Prefix(s string, n int) string {
	units := 0
	for i, r := range s {
		w := unitsOf(r)
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// Less reports whether a sorts before b in JavaScript's order (a < b), by
// UTF-16 code units.
func Less(a, b string) bool { return Compare(a, b) < 0 }

// Compare compares a and b as JavaScript's < and > do, by UTF-16 code
// units, and returns -1, 0 or +1. This is Go's order (by code points)
// except that a character above U+FFFF, a surrogate pair starting
// 0xD800-0xDBFF, sorts before U+E000..U+FFFF.
func Compare(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
				return sign(int(a[i]) - int(b[i]))
			}
			// Compare whole characters: back up to the start of the one
			// the first difference is in (the bytes before it are equal).
			for i > 0 && !utf8.RuneStart(a[i]) {
				i--
			}
			return compareUTF16(a[i:], b[i:])
		}
	}
	return sign(len(a) - len(b))
}

// compareUTF16 compares two strings by their UTF-16 code units, a
// character at a time.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if ka, kb := firstUnit(ra), firstUnit(rb); ka != kb {
				return sign(int(ka) - int(kb))
			}
			// Two characters above U+FFFF with the same high surrogate:
			// their low surrogates are in code point order.
			return sign(int(ra) - int(rb))
		}
		a, b = a[na:], b[nb:]
	}
	return sign(len(a) - len(b))
}

// firstUnit is r's first UTF-16 code unit: r itself, or the high surrogate
// of a character above U+FFFF.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xd800 + (r-0x10000)>>10
	}
	return r
}

func sign(d int) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}
