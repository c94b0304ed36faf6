package heap

import (
	"errors"
	"fmt"
	"io"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// scanner reads JSON from a stream through a fixed buffer, so that a file
// of hundreds of megabytes is never held whole: numbers go straight into the
// caller's columns and strings into one arena.
type scanner struct {
	r   io.Reader
	buf []byte
	pos int // next unread byte in buf
	end int // bytes of buf filled
	// off is the offset in the stream of buf[0], for error messages.
	off int64
	eof bool
	err error // the read error that ended the stream, if not io.EOF
}

const scanBufSize = 1 << 20

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufSize)}
}

// fill moves the unread bytes to the front of the buffer and reads more.
// It reports whether any unread byte is available.
func (s *scanner) fill() bool {
	if s.pos < s.end {
		if s.pos > 0 {
			n := copy(s.buf, s.buf[s.pos:s.end])
			s.off += int64(s.pos)
			s.pos, s.end = 0, n
		}
	} else {
		s.off += int64(s.end)
		s.pos, s.end = 0, 0
	}
	for !s.eof && s.end < len(s.buf) {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			break
		}
		if n > 0 {
			break
		}
	}
	return s.pos < s.end
}

// errTruncated is returned when the stream ends inside the JSON value.
var errTruncated = errors.New("the file ends before the snapshot does")

// ended returns the error for a stream that ended too early.
func (s *scanner) ended() error {
	if s.err != nil {
		return s.err
	}
	return errTruncated
}

// offset is the stream offset of the next unread byte.
func (s *scanner) offset() int64 { return s.off + int64(s.pos) }

func (s *scanner) syntax(format string, a ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, a...), offset: s.offset()}
}

// syntaxError is malformed JSON, or JSON that is not a heap snapshot.
type syntaxError struct {
	msg    string
	offset int64
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.offset) }

// peek skips white space and returns the next byte without consuming it.
func (s *scanner) peek() (byte, error) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if !s.fill() {
			return 0, s.ended()
		}
	}
}

// expect consumes c, after white space.
func (s *scanner) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.syntax("expected %q, found %q", c, got)
	}
	s.pos++
	return nil
}

// more reports whether a list goes on after an element: it consumes a
// comma (true) or the closing byte (false).
func (s *scanner) more(closing byte) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	switch c {
	case ',':
		s.pos++
		return true, nil
	case closing:
		s.pos++
		return false, nil
	}
	return false, s.syntax("expected ',' or %q, found %q", closing, c)
}

// empty consumes the closing byte of a list if it comes next, after the
// opening one was consumed.
func (s *scanner) empty(closing byte) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	if c == closing {
		s.pos++
		return true, nil
	}
	return false, nil
}

// maxUint32 is the largest value the model's columns hold; DevTools keeps
// the same arrays as 32-bit unsigned integers.
const maxUint32 = 1<<32 - 1

// uints reads a JSON array of non-negative integers, each at most
// maxUint32, into batches: it calls put with up to len(batch) numbers at a
// time, in order. It starts at '['.
func (s *scanner) uints(batch []uint32, put func(vs []uint32) error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if done, err := s.empty(']'); done || err != nil {
		return err
	}
	n := 0
	for {
		// The fast path: numbers and their separators wholly in the
		// buffer, read in a tight loop while at least fastMargin bytes
		// remain (a number of up to 11 digits and its separators).
		const fastMargin = 32
		buf, p, limit := s.buf, s.pos, s.end-fastMargin
	fast:
		for n < len(batch) && p < limit {
			c := buf[p]
			for c == ' ' || c == '\n' || c == '\r' || c == '\t' {
				p++
				if p >= limit {
					break fast
				}
				c = buf[p]
			}
			d := c - '0'
			if d > 9 {
				break // not a number: the slow path says why
			}
			v := uint64(d)
			p++
			for k := 0; k < 10; k++ {
				d = buf[p] - '0'
				if d > 9 {
					break
				}
				v = v*10 + uint64(d)
				p++
			}
			if v > maxUint32 || buf[p]-'0' <= 9 {
				s.pos = p
				return s.syntax("number too large for a heap snapshot")
			}
			c = buf[p]
			for c == ' ' || c == '\n' || c == '\r' || c == '\t' {
				p++
				if p >= s.end {
					break fast // the number is read; the slow path needs it again
				}
				c = buf[p]
			}
			batch[n] = uint32(v)
			n++
			switch c {
			case ',':
				p++
				s.pos = p
				continue
			case ']':
				s.pos = p + 1
				return put(batch[:n])
			}
			s.pos = p
			return s.syntax("expected ',' or ']', found %q", c)
		}
		if n == len(batch) {
			if err := put(batch); err != nil {
				return err
			}
			n = 0
			continue
		}
		// The slow path: one number across a buffer refill.
		if _, err := s.peek(); err != nil {
			return err
		}
		var v uint64
		digits := 0
	number:
		for {
			for s.pos < s.end {
				c := s.buf[s.pos]
				if c < '0' || c > '9' {
					break number
				}
				v = v*10 + uint64(c-'0')
				if v > maxUint32 {
					return s.syntax("number too large for a heap snapshot")
				}
				digits++
				s.pos++
			}
			if !s.fill() {
				return s.ended()
			}
		}
		if digits == 0 {
			return s.syntax("expected a non-negative integer, found %q", s.buf[s.pos])
		}
		batch[n] = uint32(v)
		n++
		more, err := s.more(']')
		if err != nil {
			return err
		}
		if !more {
			return put(batch[:n])
		}
	}
}

// ints reads a JSON array of integers (negative allowed), such as the
// scope tables, into a slice.
func (s *scanner) ints() ([]int64, error) {
	var out []int64
	if err := s.expect('['); err != nil {
		return nil, err
	}
	if done, err := s.empty(']'); done || err != nil {
		return out, err
	}
	for {
		v, err := s.integer()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		more, err := s.more(']')
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
	}
}

// integer reads one JSON integer; a fraction or exponent is refused.
func (s *scanner) integer() (int64, error) {
	c, err := s.peek()
	if err != nil {
		return 0, err
	}
	neg := false
	if c == '-' {
		neg = true
		s.pos++
	}
	var v int64
	digits := 0
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c < '0' || c > '9' {
				if digits == 0 {
					return 0, s.syntax("expected an integer, found %q", c)
				}
				if c == '.' || c == 'e' || c == 'E' {
					return 0, s.syntax("expected an integer")
				}
				if neg {
					v = -v
				}
				return v, nil
			}
			if v > (1<<62)/10 {
				return 0, s.syntax("number too large")
			}
			v = v*10 + int64(c-'0')
			digits++
			s.pos++
		}
		if !s.fill() {
			return 0, s.ended()
		}
	}
}

// str reads a JSON string and appends its bytes, unescaped, to dst. A
// lone UTF-16 surrogate becomes U+FFFD, as it has no UTF-8 form.
func (s *scanner) str(dst []byte) ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return dst, err
	}
	for {
		start := s.pos
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			s.pos++
		}
		dst = append(dst, s.buf[start:s.pos]...)
		if s.pos == s.end {
			if !s.fill() {
				return dst, s.ended()
			}
			continue
		}
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			return dst, nil
		case c < 0x20:
			return dst, s.syntax("control character in a string")
		}
		// An escape: make sure it is whole in the buffer (at most 12 bytes
		// for a surrogate pair).
		if s.end-s.pos < 12 {
			s.fill()
		}
		if s.end-s.pos < 2 {
			return dst, s.ended()
		}
		out, n := jsfmt.AppendEscape(dst, s.buf[s.pos:s.end])
		if n == 0 {
			if e := s.buf[s.pos+1]; e != 'u' {
				return dst, s.syntax("bad escape \\%c", e)
			}
			return dst, s.syntax("bad \\u escape")
		}
		dst, s.pos = out, s.pos+n
	}
}

// maxDepth bounds the nesting of values that are skipped or decoded
// generically, so that a hostile file cannot exhaust the stack.
const maxDepth = 64

// value reads any JSON value into Go values (map[string]any, []any,
// string, float64, bool, nil). It is for the small "snapshot" header only:
// limit bounds the bytes it may read.
func (s *scanner) value(depth int, limit int64) (any, error) {
	if depth > maxDepth {
		return nil, s.syntax("nesting too deep")
	}
	if s.offset() > limit {
		return nil, s.syntax("snapshot header too large")
	}
	c, err := s.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case c == '{':
		s.pos++
		m := map[string]any{}
		if done, err := s.empty('}'); done || err != nil {
			return m, err
		}
		for {
			k, err := s.str(nil)
			if err != nil {
				return nil, err
			}
			if err := s.expect(':'); err != nil {
				return nil, err
			}
			v, err := s.value(depth+1, limit)
			if err != nil {
				return nil, err
			}
			m[string(k)] = v
			more, err := s.more('}')
			if err != nil {
				return nil, err
			}
			if !more {
				return m, nil
			}
		}
	case c == '[':
		s.pos++
		var l []any
		if done, err := s.empty(']'); done || err != nil {
			return l, err
		}
		for {
			v, err := s.value(depth+1, limit)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			more, err := s.more(']')
			if err != nil {
				return nil, err
			}
			if !more {
				return l, nil
			}
		}
	case c == '"':
		b, err := s.str(nil)
		return string(b), err
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	}
	return nil, s.syntax("unexpected %q", c)
}

// number reads a JSON number as a float64.
func (s *scanner) number() (float64, error) {
	var b []byte
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
				return parseFloat(s, b)
			}
			b = append(b, c)
			s.pos++
			if len(b) > 64 {
				return 0, s.syntax("number too long")
			}
		}
		if !s.fill() {
			if len(b) > 0 {
				return parseFloat(s, b)
			}
			return 0, s.ended()
		}
	}
}

func (s *scanner) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if s.pos == s.end && !s.fill() {
			return s.ended()
		}
		if s.buf[s.pos] != word[i] {
			return s.syntax("unexpected %q", s.buf[s.pos])
		}
		s.pos++
	}
	return nil
}

// skip reads past one JSON value of any size without keeping it.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.syntax("nesting too deep")
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '{', c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		s.pos++
		if done, err := s.empty(closing); done || err != nil {
			return err
		}
		for {
			if closing == '}' {
				if err := s.skipString(); err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			more, err := s.more(closing)
			if err != nil || !more {
				return err
			}
		}
	case c == '"':
		return s.skipString()
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.syntax("unexpected %q", c)
}

// skipString reads past a string without keeping it.
func (s *scanner) skipString() error {
	if err := s.expect('"'); err != nil {
		return err
	}
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case '"':
				s.pos++
				return nil
			case '\\':
				if s.end-s.pos < 2 {
					s.fill()
					if s.end-s.pos < 2 {
						return s.ended()
					}
				}
				s.pos += 2
				continue
			}
			s.pos++
		}
		if !s.fill() {
			return s.ended()
		}
	}
}
