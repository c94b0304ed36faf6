package jsfmt

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Stringify writes the JSON value raw as JavaScript's JSON.stringify writes
// the value it parses to: compact, object members in order, strings as
// [Quote] writes them, numbers as [Number] does. skip, if not nil, is asked
// for each object member by its path of keys (array indexes are not part
// of it) and drops those it reports. Text that is not valid JSON is
// returned as it is.
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
				writeQuoted(b, key)
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
		writeQuoted(b, v)
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
