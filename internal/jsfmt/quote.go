package jsfmt

import (
	"bytes"
	"strconv"
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
		case len(inner) < 2:
			return "", false
		}
		e := inner[1]
		inner = inner[2:]
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(inner)
			if !ok {
				return "", false
			}
			inner = inner[4:]
			if utf16.IsSurrogate(r) {
				lo, ok := rune(0), false
				if len(inner) >= 6 && inner[0] == '\\' && inner[1] == 'u' {
					lo, ok = hex4(inner[2:])
				}
				if d := utf16.DecodeRune(r, lo); ok && d != utf8.RuneError {
					r = d
					inner = inner[6:]
				} else {
					r = utf8.RuneError // a lone half; what follows is read on its own
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return string(out), true
}

// hex4 reads the four hex digits a \u escape starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}
