package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
)

// MaxLineBytes bounds one line of the stdio transport, the newline aside:
// 4 MiB, the same as the HTTP endpoint's request body cap
// (mcp.DefaultMaxRequestBodyBytes). A longer line is answered with an
// error and discarded as it is read, never buffered whole.
const MaxLineBytes = mcp.DefaultMaxRequestBodyBytes

// ServeStdio serves one session over in and out (the process's stdin and
// stdout) until the client disconnects or ctx ends.
//
// The SDK's stdio transport ends the session on the first line that is
// not a JSON-RPC message, which ends the server. Here such a line is
// answered with a JSON-RPC error instead and skipped: -32700
// for a line that is not JSON, -32600 for JSON that is not one JSON-RPC
// message (a batch included, as over HTTP) or a line longer than
// [MaxLineBytes]. The session goes on.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	w := &lineWriter{w: out}
	r := &lineFilter{in: in, br: bufio.NewReaderSize(in, 64<<10), out: w, max: MaxLineBytes, log: s.log}
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
}

// lineWriter serialises the writes of the SDK and of the lineFilter's error
// replies. Both write one whole line per Write, so lines never interleave.
type lineWriter struct {
	mu sync.Mutex // guards w
	w  io.WriteCloser
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}

func (lw *lineWriter) Close() error { return lw.w.Close() }

// lineFilter is the stdio transport's reader: it reads newline-delimited
// messages from in and passes on only lines that are one JSON-RPC message,
// each ending in a newline. Other lines are answered on out with a
// JSON-RPC error and dropped. It is read by the SDK's one reading
// goroutine; its fields are that goroutine's.
type lineFilter struct {
	in  io.ReadCloser
	br  *bufio.Reader // reads in
	out io.Writer     // shared with the SDK's writes
	max int           // bytes of one line, the newline aside
	log zerolog.Logger

	line    []byte // the line being read; its capacity is at most max+1
	pending []byte // what is left of the current good line
	err     error  // from in, returned once pending is drained
}

// Read implements [io.Reader].
func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		var line []byte
		line, f.err = f.readLine()
		f.pending = f.check(line)
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// Close implements [io.Closer].
func (f *lineFilter) Close() error { return f.in.Close() }

// readLine reads the next line, without its line ending. A line longer
// than max is answered with an error and discarded as it arrives; readLine
// then returns nil. At the end of in, the last line may lack its newline;
// the error is returned with it.
func (f *lineFilter) readLine() ([]byte, error) {
	if cap(f.line) > 64<<10 {
		f.line = nil // do not keep a long line's buffer for the short ones
	}
	f.line = f.line[:0]
	long, n := false, 0
	for {
		chunk, err := f.br.ReadSlice('\n')
		n += len(chunk)
		if !long && len(f.line)+len(chunk) > f.max+2 { // room for "\r\n"
			long = true
			f.line = f.line[:0]
		}
		if !long {
			f.line = append(f.line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !long {
			line := bytes.TrimSuffix(bytes.TrimSuffix(f.line, []byte("\n")), []byte("\r"))
			if len(line) <= f.max {
				return line, err
			}
		}
		f.log.Warn().Int("bytes", n).Msg("stdio: a line over the size limit was discarded")
		f.reply(jsonrpc.CodeInvalidRequest, nil,
			fmt.Sprintf("Invalid Request: the line is longer than %d bytes, the most one message may take; it was discarded.", f.max))
		return nil, err
	}
}

// check returns line followed by a newline if it is one JSON-RPC message,
// as the SDK decodes one. Otherwise it answers the line with an error and
// returns nil; a blank line is skipped silently, as the SDK would.
func (f *lineFilter) check(line []byte) []byte {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil
	}
	if !json.Valid(trimmed) {
		f.log.Warn().Int("bytes", len(line)).Msg("stdio: a line that is not JSON was answered with a parse error")
		f.reply(jsonrpc.CodeParseError, nil, "Parse error: the line is not valid JSON; send one JSON-RPC message per line.")
		return nil
	}
	if trimmed[0] == '[' {
		f.reply(jsonrpc.CodeInvalidRequest, nil, "Invalid Request: batches are not supported; send one JSON-RPC message per line.")
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
		f.log.Warn().Err(err).Msg("stdio: a line that is not a JSON-RPC message was answered with an error")
		f.reply(jsonrpc.CodeInvalidRequest, idOf(trimmed), "Invalid Request: the line is not a JSON-RPC 2.0 message.")
		return nil
	}
	return append(trimmed, '\n')
}

// idOf returns the id of a JSON-RPC message that is otherwise invalid, if
// it has a usable one (a string or a number), else nil.
func idOf(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// reply writes a JSON-RPC error response with id (nil: null).
func (f *lineFilter) reply(code int64, id json.RawMessage, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		f.log.Error().Err(err).Msg("stdio: encode an error reply")
		return
	}
	if _, err := f.out.Write(append(b, '\n')); err != nil {
		f.log.Debug().Err(err).Msg("stdio: write an error reply")
	}
}
