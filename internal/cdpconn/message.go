package cdpconn

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/mafredri/cdp/rpcc"
)

// The reader routes a message by its top level alone: its id, method and
// sessionId. A message's result or params can be megabytes (a heap
// snapshot's chunks, a page's resources), and every session's messages
// come through the one reader, so decoding them there would keep every
// other session's replies waiting behind them. parseMessage walks the top
// level instead, skipping over each value, and leaves result and params as
// they are, undecoded, in the frame's own buffer: their owner decodes
// them, on its own goroutine.

// parseMessage reads the top level of the JSON object b into m. Its
// result and params are slices of b; its error is decoded (it is small).
// It reports false for anything that is not a JSON object.
func parseMessage(b []byte, m *message) bool {
	s := scanner{b: b}
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return s.end()
	}
	for {
		if s.ws(); s.i >= len(b) || b[s.i] != '"' {
			return false
		}
		ks := s.i
		if !s.str() {
			return false
		}
		key := b[ks+1 : s.i-1]
		if !s.next(':') {
			return false
		}
		s.ws()
		vs := s.i
		if !s.value() {
			return false
		}
		v := b[vs:s.i]
		switch string(key) { // no allocation: the compiler compares bytes
		case "id":
			id, err := strconv.ParseUint(string(v), 10, 64)
			if err != nil {
				return false
			}
			m.ID = id
		case "method":
			if !unquote(v, &m.Method) {
				return false
			}
		case "sessionId":
			if !unquote(v, &m.SessionID) {
				return false
			}
		case "result":
			m.Result = v
		case "params":
			m.Params = v
		case "error":
			m.Error = new(rpcc.ResponseError)
			if json.Unmarshal(v, m.Error) != nil {
				return false
			}
		}
		if s.next(',') {
			continue
		}
		return s.next('}') && s.end()
	}
}

// unquote sets *dst to the JSON string v.
func unquote(v []byte, dst *string) bool {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 {
		*dst = string(v[1 : len(v)-1])
		return true
	}
	return json.Unmarshal(v, dst) == nil
}

// scanner walks JSON text without decoding it. It finds where each value
// ends; what lies inside a value is checked by whoever decodes it.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next consumes c, after any white space, if it comes next.
func (s *scanner) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// str consumes the string at s.i, its opening quote. Its closing quote is
// the first one after an even run of backslashes (none, or escaped
// backslashes): every escape is a backslash and one character, or
// \uXXXX, whose digits are no backslash.
func (s *scanner) str() bool {
	j := s.i + 1
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			return false
		}
		q := j + k
		n := 0
		for q-n-1 > s.i && s.b[q-n-1] == '\\' {
			n++
		}
		j = q + 1
		if n%2 == 0 {
			s.i = j
			return true
		}
	}
}

// value consumes the value at s.i: a string, an object or array (to its
// matching bracket, strings inside skipped whole), or a number or literal
// (to the next delimiter).
func (s *scanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		return s.str()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if !s.str() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return false
	}
}
