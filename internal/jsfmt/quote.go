package jsfmt

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Quote returns s as JavaScript's JSON.stringify quotes a string: in double
// quotes, with a backslash before '"' and '\\', the short escapes \b \f \n
// \r \t, \u00XX for the other control characters, and everything else as
// it is (unlike Go's encoding/json, which also escapes <, >, &, U+2028 and
// U+2029).
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	writeQuoted(&b, s)
	return b.String()
}

func writeQuoted(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&15])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// Unquote decodes the JSON string literal b, quotes included, as JSON.parse
// would, except that an escaped half of a surrogate pair with no other half
// becomes U+FFFD. It reports false if b is not in quotes or holds an escape
// JSON does not have. It is lenient where a JSON parser is strict but
// meaning is clear: a control character left unescaped is kept as it is.
//
// Text without escapes is taken as it is, each run of bytes that are not
// UTF-8 becoming one U+FFFD; with escapes, each such byte becomes one.
func Unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		if bytes.IndexByte(inner, '"') >= 0 {
			return "", false
		}
		if utf8.Valid(inner) {
			return string(inner), true
		}
		return string(bytes.ToValidUTF8(inner, []byte("\uFFFD"))), true
	}
	out := make([]byte, 0, len(inner))
	for len(inner) > 0 {
		c := inner[0]
		switch {
		case c == '"':
			return "", false
		case c != '\\':
			r, n := utf8.DecodeRune(inner)
			if r == utf8.RuneError && n == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, inner[:n]...)
			}
			inner = inner[n:]
			continue
		}
		var n int
		if out, n = AppendEscape(out, inner); n == 0 {
			return "", false
		}
		inner = inner[n:]
	}
	return string(out), true
}

// AppendEscape decodes the escape b starts with (a backslash and what
// follows) as JSON.parse does, appends the character to dst, and returns
// how many bytes of b it read: 0, and dst as it was, if b does not start
// with a whole escape JSON has. The \u escapes of the two halves of a
// surrogate pair are read together, as one character; an escaped half
// with no other half becomes U+FFFD, and what follows it is left to the
// next call. Callers decoding text in bulk copy the bytes between escapes
// themselves and call it at each backslash.
func AppendEscape(dst, b []byte) ([]byte, int) {
	if len(b) < 2 || b[0] != '\\' {
		return dst, 0
	}
	switch e := b[1]; e {
	case '"', '\\', '/':
		return append(dst, e), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return dst, 0
		}
		n := 6
		if utf16.IsSurrogate(r) {
			rest := b[n:]
			lo, ok := rune(0), false
			if len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
				lo, ok = hex4(rest[2:])
			}
			if d := utf16.DecodeRune(r, lo); ok && d != utf8.RuneError {
				r, n = d, n+6
			} else {
				r = utf8.RuneError // a lone half; what follows is read on its own
			}
		}
		return utf8.AppendRune(dst, r), n
	}
	return dst, 0
}

// hex4 reads the four hex digits a \u escape starts with.
// It allocates nothing: the heap snapshot's reader calls it for every
// escaped character of a file of hundreds of megabytes.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
