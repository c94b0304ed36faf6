package cdpconn

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/mafredri/cdp/rpcc"
)

// Streamed replies. Some replies carry one large base64 string, such as
// Page.captureScreenshot's data: held whole, an 80 MB image is 107 MB of
// text, then 80 MB decoded, then copied on its way to a file. A call made
// with [Conn.CallStream] has that string decoded as it is read from the
// channel and written to the caller's writer a chunk at a time; the reply
// the caller gets has the string emptied. Nothing of it is held, whatever
// its size, and the channel's read limit does not apply to it.
//
// The channel's reader recognises the reply by its id, which Chrome writes
// first ({"id":N,"result":{"data":"..."}}), and the string by its field
// name right after: a reply laid out otherwise (an error reply, say) is
// read as any other.

// maxStreamHead bounds how far into a streamed call's reply the field is
// looked for; a reply without it that far is read as any other.
const maxStreamHead = 4 << 10

// stream is a pending [Conn.CallStream] call.
type stream struct {
	marker []byte // `"field":"`
	done   chan rpcc.Response

	mu        sync.Mutex // guards the fields below
	w         io.Writer  // nil once abandoned: nothing more is written
	n         int64      // bytes written
	err       error      // the first error writing or decoding
	carry     []byte     // base64 characters not yet decoded (fewer than 4)
	escape    bool       // the last byte was a backslash
	scratch   []byte
	delivered bool
}

// CallStream calls method with params on the session and writes the
// base64 string of its reply's result field, decoded, to w as it is read
// from the browser, never holding it whole; it returns the reply's
// result with that string emptied and the number of bytes written. w is
// written from the channel's reader, which reads every session's
// messages: it must not block for long (a file is fine). Once CallStream
// has returned, w is not written again. An error of w, or a string that
// is not base64, fails the call after the reply has been read.
func (c *Conn) CallStream(ctx context.Context, method string, params any, field string, w io.Writer) (json.RawMessage, int64, error) {
	st := &stream{marker: []byte(strconv.Quote(field) + `:"`), done: make(chan rpcc.Response, 1), w: w}
	ch := c.ch
	ch.mu.Lock()
	if ch.err != nil {
		err := ch.err
		ch.mu.Unlock()
		return nil, 0, &closedError{err}
	}
	id := ch.register(call{s: c.sess, st: st})
	ch.streaming.Add(1)
	ch.mu.Unlock()
	defer ch.streaming.Add(-1)
	forget := func() {
		ch.mu.Lock()
		ch.takeCall(id)
		ch.mu.Unlock()
		st.abandon()
	}
	if err := ch.write(ctx, &request{ID: id, Method: method, Params: params, SessionID: c.sess.id}); err != nil {
		forget()
		return nil, 0, err
	}
	select {
	case r := <-st.done:
		n, err := st.finish()
		if r.Error != nil {
			return nil, n, r.Error
		}
		if err != nil {
			return nil, n, err // the writer's own, as it said it
		}
		if n == 0 {
			// A reply not laid out as expected was read whole: take the
			// string from it.
			return unstreamed(r.Result, field, w)
		}
		return r.Result, n, nil
	case <-ctx.Done():
		forget()
		return nil, 0, ctx.Err()
	case <-c.Done():
		forget()
		return nil, 0, &closedError{errors.New("the session closed while its call was in flight")}
	}
}

// deliver hands the call's reply to its caller.
func (st *stream) deliver(r rpcc.Response) {
	st.mu.Lock()
	first := !st.delivered
	st.delivered = true
	st.mu.Unlock()
	if first {
		st.done <- r // buffered: never blocks
	}
}

// abandon stops writing to the caller's writer.
func (st *stream) abandon() {
	st.mu.Lock()
	st.w = nil
	st.mu.Unlock()
}

// finish decodes what is left and returns the bytes written and the first
// error; the writer is not written again.
func (st *stream) finish() (int64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.carry) > 0 && st.err == nil {
		st.err = errors.New("the browser's base64 data ended mid-character")
	}
	st.w = nil
	return st.n, st.err
}

// value takes the bytes of the streamed string from the start of p, up to
// its closing quote, and returns how many it took and whether the string
// ended (the quote is taken too).
func (st *stream) value(p []byte) (int, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	i := 0
	for i < len(p) {
		if st.escape {
			st.escape = false
			st.decode(p[i : i+1]) // "\/" is "/"; nothing else occurs in base64
			i++
			continue
		}
		j := bytes.IndexAny(p[i:], `"\`)
		if j < 0 {
			st.decode(p[i:])
			return len(p), false
		}
		st.decode(p[i : i+j])
		i += j
		if p[i] == '"' {
			return i + 1, true
		}
		st.escape = true
		i++
	}
	return i, false
}

// decode decodes base64 text, carrying a partial group to the next call,
// and writes the bytes. st.mu is held.
func (st *stream) decode(text []byte) {
	if st.err != nil || len(text) == 0 {
		return
	}
	if len(st.carry) > 0 {
		need := 4 - len(st.carry)
		if len(text) < need {
			st.carry = append(st.carry, text...)
			return
		}
		st.carry = append(st.carry, text[:need]...)
		text = text[need:]
		st.write(st.carry)
		st.carry = st.carry[:0]
	}
	whole := len(text) / 4 * 4
	for len(text[:whole]) > 0 && st.err == nil {
		n := min(whole, 64<<10)
		st.write(text[:n])
		text, whole = text[n:], whole-n
	}
	st.carry = append(st.carry, text...)
}

// write decodes whole base64 groups and writes them. st.mu is held.
func (st *stream) write(groups []byte) {
	if cap(st.scratch) < base64.StdEncoding.DecodedLen(len(groups)) {
		st.scratch = make([]byte, base64.StdEncoding.DecodedLen(max(len(groups), 64<<10)))
	}
	n, err := base64.StdEncoding.Decode(st.scratch[:cap(st.scratch)], groups)
	if err != nil {
		st.err = errors.New("the browser's data is not base64")
		return
	}
	if st.w == nil {
		return // abandoned: read and dropped
	}
	m, err := st.w.Write(st.scratch[:n])
	st.n += int64(m)
	if err != nil {
		st.err = err
	}
}

// Frame phases for streamed replies.
const (
	phaseUnknown = iota // no byte read yet
	phaseNormal         // not a streamed reply: buffered as usual
	phaseHead           // reading the id
	phaseMarker         // looking for the streamed field
	phaseValue          // in the streamed string
	phaseTail           // after it
)

// stream handles p for a frame that may be a streamed reply: the bytes
// before the string and after it are kept in f.buf, the string's go to
// its stream. It returns what is left for the usual buffering once the
// frame turns out not to be streamed.
func (f *frame) stream(p []byte) []byte {
	for len(p) > 0 {
		switch f.phase {
		case phaseHead, phaseMarker:
			start := len(f.buf)
			f.buf = append(f.buf, p...)
			p = nil
			if f.phase == phaseHead {
				id, ok, done := idPrefix(f.buf)
				if !done {
					if len(f.buf) > maxStreamHead {
						f.phase = phaseNormal
					}
					continue
				}
				if f.st = nil; ok {
					f.st = f.lookup(id)
				}
				if f.st == nil {
					f.phase = phaseNormal
					return nil
				}
				f.phase, start = phaseMarker, 0
			}
			i := bytes.Index(f.buf[max(0, start-len(f.st.marker)):], f.st.marker)
			if i < 0 {
				if len(f.buf) > maxStreamHead {
					f.phase = phaseNormal
				}
				continue
			}
			end := max(0, start-len(f.st.marker)) + i + len(f.st.marker)
			p = append([]byte(nil), f.buf[end:]...) // the string's first bytes
			f.buf = f.buf[:end]
			f.phase = phaseValue
		case phaseValue:
			n, ended := f.st.value(p)
			p = p[n:]
			if ended {
				f.buf = append(f.buf, '"')
				f.phase = phaseTail
			}
		case phaseTail:
			f.buf = append(f.buf, p...)
			return nil
		default:
			return p
		}
	}
	return nil
}

// idPrefix reads the id at the start of a message, {"id":123,...}: ok is
// false if the message does not start so, done false if more bytes are
// needed to tell.
func idPrefix(b []byte) (id uint64, ok, done bool) {
	const prefix = `{"id":`
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) < len(prefix) {
		return 0, false, !bytes.HasPrefix([]byte(prefix), t)
	}
	if !bytes.HasPrefix(t, []byte(prefix)) {
		return 0, false, true
	}
	digits := t[len(prefix):]
	i := 0
	for i < len(digits) && digits[i] >= '0' && digits[i] <= '9' {
		i++
	}
	if i == len(digits) {
		return 0, false, len(digits) > 20
	}
	id, err := strconv.ParseUint(string(digits[:i]), 10, 64)
	return id, err == nil, true
}

// unstreamed writes the base64 string of result's field, decoded, to w and
// returns result with the string emptied: for a reply that was read whole.
func unstreamed(result json.RawMessage, field string, w io.Writer) (json.RawMessage, int64, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil {
		return result, 0, nil
	}
	var text []byte
	if json.Unmarshal(m[field], &text) != nil || len(text) == 0 {
		return result, 0, nil // absent, empty or not base64: as it came
	}
	n, err := w.Write(text)
	if err != nil {
		return nil, int64(n), err
	}
	m[field] = json.RawMessage(`""`)
	out, err := json.Marshal(m)
	return out, int64(n), err
}
