package format

import (
	"bytes"
	"encoding/json"
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
