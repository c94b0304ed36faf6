package tool

// Argument values that several capabilities' tools parse the same way.

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ParseHeaders parses a JSON object of header names to string values, the
// value of argument arg; "" means no headers (an empty, non-nil map). Its
// errors are [ArgError]s.
func ParseHeaders(arg, s string) (map[string]string, error) {
	if s == "" {
		return map[string]string{}, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil || raw == nil {
		why := "Headers must be a JSON object"
		if _, isSyntax := err.(*json.SyntaxError); isSyntax {
			why = err.Error()
		}
		return nil, BadArgs("Invalid JSON for headers: %s. Pass an object such as {\"X-Custom\": \"value\"}.", why)
	}
	h := make(map[string]string, len(raw))
	for name, v := range raw {
		if !ValidHeaderName(name) {
			return nil, BadArgs("Invalid header name %q in %s.", name, arg)
		}
		var value string
		if err := json.Unmarshal(v, &value); err != nil {
			return nil, BadArgs("Invalid value for header %q in %s: expected a string, got %s.", name, arg, Abbreviate(v))
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, BadArgs("Invalid value for header %q in %s: it must not contain line breaks.", name, arg)
		}
		h[name] = value
	}
	return h, nil
}

// ValidHeaderName reports whether name is an HTTP field name (RFC 9110
// token).
func ValidHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`"(),/:;<=>?@[\]{}`), c) >= 0 {
			return false
		}
	}
	return true
}

// Abbreviate shortens a JSON value to at most 40 bytes, for a sentence
// that quotes what an agent sent.
func Abbreviate(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}
