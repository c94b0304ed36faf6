package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tabhive/tabhive/collectors"
)

// Headers decodes a CDP Network.Headers object keeping the order of its
// keys, which Go maps would lose and the replies show. A value that is not
// a JSON string is kept as its JSON text, without quotes. Anything but an
// object gives no headers.
func Headers(raw json.RawMessage) []collectors.Header {
	var out []collectors.Header
	eachMember(raw, func(key string, value json.RawMessage) {
		var s string
		if json.Unmarshal(value, &s) != nil {
			s = strings.Trim(string(value), `"`)
		}
		out = append(out, collectors.Header{Name: key, Value: s})
	})
	return out
}

// eachMember calls fn for each member of a JSON object, in order. It does
// nothing if raw is not an object, and stops at the first malformed member.
func eachMember(raw json.RawMessage, fn func(key string, value json.RawMessage)) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := t.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return
		}
		fn(key, value)
	}
}

// Stringify writes the JSON value raw as JavaScript's JSON.stringify writes
// the value it parses to: compact, object members in order, strings escaped
// only where JSON requires, numbers as JavaScript prints them. skip, if not
// nil, is asked for each object member by its path of keys (array indexes
// are not part of it) and drops those it reports. Text that is not valid
// JSON is returned as it is.
func Stringify(raw json.RawMessage, skip func(path []string) bool) string {
	var b strings.Builder
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if writeStringified(&b, dec, nil, skip) != nil {
		return string(raw)
	}
	return b.String()
}

func writeStringified(b *strings.Builder, dec *json.Decoder, path []string, skip func([]string) bool) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := t.(type) {
	case json.Delim:
		switch v {
		case '{':
			b.WriteByte('{')
			first := true
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := kt.(string)
				sub := append(slices.Clip(path), key)
				if skip != nil && skip(sub) {
					var discard json.RawMessage
					if err := dec.Decode(&discard); err != nil {
						return err
					}
					continue
				}
				if !first {
					b.WriteByte(',')
				}
				first = false
				quoteJS(b, key)
				b.WriteByte(':')
				if err := writeStringified(b, dec, sub, skip); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		case '[':
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := writeStringified(b, dec, path, skip); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		}
		_, err := dec.Token() // the closing delimiter
		return err
	case string:
		quoteJS(b, v)
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			b.WriteString(v.String())
		} else {
			b.WriteString(Number(f))
		}
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	}
	return nil
}

// quoteJS quotes s as JSON.stringify does.
func quoteJS(b *strings.Builder, s string) {
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
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
