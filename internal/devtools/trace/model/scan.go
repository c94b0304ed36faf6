package model

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// ErrNotTrace is returned by [Analyze] for input that is not a trace: not
// JSON, or JSON without a list of trace events.
var ErrNotTrace = errors.New("not a trace-event file")

// maxEventBytes bounds one trace event. Chrome splits script sources and
// profiles into chunks far below it; an event this large is a broken file,
// and the bound keeps a hostile one from taking the server's memory.
const maxEventBytes = 64 << 20

// maxMetadataBytes bounds the file's metadata object. DevTools stores
// source maps there, which can be large; the rest is a few kilobytes.
const maxMetadataBytes = 128 << 20

// reader is a buffered reader that lets the scanner work on its buffer
// directly: trace files are hundreds of megabytes, and a call per byte
// would dominate the analysis.
type reader struct {
	r   io.Reader
	buf []byte
	pos int // next unread byte
	end int // end of valid data
	err error
	n   int64 // bytes consumed before buf[0]
}

func newReader(r io.Reader) *reader {
	return &reader{r: r, buf: make([]byte, 256<<10)}
}

// fill reads more data, keeping buf[pos:end]. It returns false at the end
// of input or on an error (kept in rd.err).
func (rd *reader) fill() bool {
	if rd.err != nil {
		return false
	}
	if rd.pos > 0 {
		rd.n += int64(rd.pos)
		copy(rd.buf, rd.buf[rd.pos:rd.end])
		rd.end -= rd.pos
		rd.pos = 0
	}
	for {
		n, err := rd.r.Read(rd.buf[rd.end:])
		rd.end += n
		if err != nil {
			rd.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// offset is the position in the input of the next unread byte.
func (rd *reader) offset() int64 { return rd.n + int64(rd.pos) }

// peek returns the next byte that is not JSON whitespace, without
// consuming it; ok is false at the end of input.
func (rd *reader) peek() (c byte, ok bool) {
	for {
		for rd.pos < rd.end {
			c := rd.buf[rd.pos]
			if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				return c, true
			}
			rd.pos++
		}
		if !rd.fill() {
			return 0, false
		}
	}
}

// expect consumes the next non-whitespace byte, which must be c.
func (rd *reader) expect(c byte) error {
	got, ok := rd.peek()
	if !ok {
		return rd.eof()
	}
	if got != c {
		return fmt.Errorf("%w: expected %q at byte %d, found %q", ErrNotTrace, c, rd.offset(), got)
	}
	rd.pos++
	return nil
}

func (rd *reader) eof() error {
	if rd.err != nil && rd.err != io.EOF {
		return rd.err
	}
	return fmt.Errorf("%w: unexpected end of input at byte %d", ErrNotTrace, rd.offset())
}

// value appends the next JSON value (an object, array, string or literal)
// to dst, and returns it. It checks nesting and strings, not the grammar
// inside: the value is decoded later, and only if it is wanted. A value
// longer than limit fails.
func (rd *reader) value(dst []byte, limit int) ([]byte, error) {
	c, ok := rd.peek()
	if !ok {
		return dst, rd.eof()
	}
	start := len(dst)
	depth := 0
	inString := false
	escaped := false
	if c != '{' && c != '[' && c != '"' {
		// A literal: a number, true, false or null.
		for {
			for rd.pos < rd.end {
				c := rd.buf[rd.pos]
				if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' {
					if len(dst) == start {
						return dst, fmt.Errorf("%w: unexpected %q at byte %d", ErrNotTrace, c, rd.offset())
					}
					return dst, nil
				}
				dst = append(dst, c)
				rd.pos++
			}
			if !rd.fill() {
				if len(dst) > start {
					return dst, nil
				}
				return dst, rd.eof()
			}
		}
	}
	for {
		i := rd.pos
		for ; i < rd.end; i++ {
			c := rd.buf[i]
			if inString {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
					if depth == 0 {
						dst = append(dst, rd.buf[rd.pos:i+1]...)
						rd.pos = i + 1
						return dst, nil
					}
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					dst = append(dst, rd.buf[rd.pos:i+1]...)
					rd.pos = i + 1
					return dst, nil
				}
				if depth < 0 {
					return dst, fmt.Errorf("%w: unbalanced %q at byte %d", ErrNotTrace, c, rd.n+int64(i))
				}
			}
		}
		dst = append(dst, rd.buf[rd.pos:i]...)
		rd.pos = i
		if len(dst)-start > limit {
			return dst, fmt.Errorf("%w: a value at byte %d is larger than %d bytes", ErrNotTrace, rd.offset(), limit)
		}
		if !rd.fill() {
			return dst, rd.eof()
		}
	}
}

// skip consumes the next JSON value.
func (rd *reader) skip() error {
	var scratch []byte
	_, err := rd.value(scratch[:0], maxEventBytes)
	return err
}

// key reads an object key and the colon after it.
func (rd *reader) key(buf []byte) (string, error) {
	v, err := rd.value(buf[:0], 1<<16)
	if err != nil {
		return "", err
	}
	if len(v) < 2 || v[0] != '"' {
		return "", fmt.Errorf("%w: expected a key at byte %d", ErrNotTrace, rd.offset())
	}
	k, ok := jsfmt.Unquote(v)
	if !ok {
		return "", fmt.Errorf("%w: bad key at byte %d", ErrNotTrace, rd.offset())
	}
	if err := rd.expect(':'); err != nil {
		return "", err
	}
	return k, nil
}

// scanFile reads a trace file, plain or gzip-compressed: either a JSON array
// of events or an object with "traceEvents" (and usually "metadata"). It
// calls fn for each event, in file order, and returns the metadata object
// as found (nil if none). The event passed to fn, and the bytes it points
// into, are valid only during the call.
func scanFile(r io.Reader, fn func(ev *event) error) (metadata []byte, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotTrace, err)
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	rd := newReader(r)
	c, ok := rd.peek()
	if !ok {
		return nil, fmt.Errorf("%w: the file is empty", ErrNotTrace)
	}
	var ev event
	switch c {
	case '[':
		return nil, scanEvents(rd, &ev, fn)
	case '{':
		rd.pos++
		var kbuf []byte
		found := false
		for first := true; ; first = false {
			c, ok := rd.peek()
			if !ok {
				return nil, rd.eof()
			}
			if c == '}' {
				rd.pos++
				break
			}
			if !first {
				if err := rd.expect(','); err != nil {
					return nil, err
				}
			}
			k, err := rd.key(kbuf)
			if err != nil {
				return nil, err
			}
			switch k {
			case "traceEvents":
				if c, _ := rd.peek(); c != '[' {
					return nil, fmt.Errorf("%w: traceEvents is not a list", ErrNotTrace)
				}
				found = true
				if err := scanEvents(rd, &ev, fn); err != nil {
					return nil, err
				}
			case "metadata":
				if metadata, err = rd.value(nil, maxMetadataBytes); err != nil {
					return nil, err
				}
			default:
				if err := rd.skip(); err != nil {
					return nil, err
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: no traceEvents list", ErrNotTrace)
		}
		return metadata, nil
	}
	return nil, fmt.Errorf("%w: it starts with %q, not a JSON list or object", ErrNotTrace, c)
}

// scanEvents reads a JSON array of event objects.
func scanEvents(rd *reader, ev *event, fn func(ev *event) error) error {
	if err := rd.expect('['); err != nil {
		return err
	}
	var buf []byte
	in := interner{}
	index := 0
	for first := true; ; first = false {
		c, ok := rd.peek()
		if !ok {
			return rd.eof()
		}
		if c == ']' {
			rd.pos++
			return nil
		}
		if !first {
			if err := rd.expect(','); err != nil {
				return err
			}
			if c, _ = rd.peek(); c == ']' {
				return fmt.Errorf("%w: trailing comma at byte %d", ErrNotTrace, rd.offset())
			}
		}
		if c != '{' {
			return fmt.Errorf("%w: an event at byte %d is not an object", ErrNotTrace, rd.offset())
		}
		var err error
		if buf, err = rd.value(buf[:0], maxEventBytes); err != nil {
			return err
		}
		if err := ev.parse(buf, index, in); err != nil {
			return fmt.Errorf("%w: event %d: %v", ErrNotTrace, index, err)
		}
		ev.raw = buf
		if err := fn(ev); err != nil {
			return err
		}
		index++
	}
}

// skipValue returns the index just past the JSON value starting at b[i]
// (whitespace before it skipped), or -1 if b ends inside it.
func skipValue(b []byte, i int) int {
	i = skipSpace(b, i)
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := skipString(b, i)
				if j < 0 {
					return -1
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\n', '\r', '\t':
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}
