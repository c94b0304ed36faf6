package httpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC batches over streamable HTTP. MCP 2025-03-26 added them and
// 2025-06-18 removed them; the SDK refuses one only when the request's
// MCP-Protocol-Version header names a later revision, and takes a request
// without the header as 2025-03-26, so a client could send hundreds of
// tool calls in one POST by leaving the header out. Here the revision in
// use is the one the session negotiated, whatever the header says: a
// batch is refused unless the session speaks 2025-03-26, and even then it
// holds at most maxBatch messages. A batch never starts a session
// (2025-03-26 forbids initialize in one).

// batchRevision is the one MCP revision whose clients may send batches.
const batchRevision = "2025-03-26"

// maxBatch bounds the messages of one batch where batches are allowed:
// more than a client sends at once in practice, and few enough that one
// request cannot start calls past what a handful of connections could.
const maxBatch = 32

// refuseBatch answers a POST to the MCP endpoint whose body is a batch the
// session's revision does not allow, and reports whether it did. The body
// is left for the SDK to read as it came, bounded as the SDK bounds it.
func (s *Server) refuseBatch(w http.ResponseWriter, r *http.Request) bool {
	body := http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes)
	br := bufio.NewReaderSize(body, 16) // a peek at the first byte; big reads pass through
	r.Body = readCloser{br, body}
	first, err := firstByte(br)
	if err != nil || first != '[' {
		return false // the SDK reads it and answers
	}
	id := r.Header.Get(sessionIDHeader)
	if id == "" {
		http.Error(w, "Bad Request: a JSON-RPC batch cannot start a session (initialize must be sent alone), and only a session on MCP 2025-03-26 may send one: send one message per request.", http.StatusBadRequest)
		return true
	}
	revision := s.revision(id)
	if revision != batchRevision {
		if revision == "" {
			return false // no such session: the SDK says so
		}
		http.Error(w, fmt.Sprintf("Bad Request: JSON-RPC batches are not part of MCP %s, the revision this session speaks: send one message per request.", revision), http.StatusBadRequest)
		return true
	}
	raw, err := io.ReadAll(br)
	if err != nil {
		http.Error(w, fmt.Sprintf("Request Entity Too Large: a request body may be at most %d bytes.", mcp.DefaultMaxRequestBodyBytes), http.StatusRequestEntityTooLarge)
		return true
	}
	var msgs []json.RawMessage
	if json.Unmarshal(raw, &msgs) == nil && len(msgs) > maxBatch {
		http.Error(w, fmt.Sprintf("Bad Request: this batch holds %d messages, more than the %d tabhive takes in one request: send fewer at a time.", len(msgs), maxBatch), http.StatusBadRequest)
		return true
	}
	r.Body = readCloser{bytes.NewReader(raw), body}
	return false
}

// firstByte returns the first byte of br that is not JSON whitespace,
// leaving it unread; the whitespace before it is consumed, which changes
// nothing a JSON reader sees.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.Discard(1)
		default:
			return b[0], nil
		}
	}
}

// revision returns the MCP revision the session with Mcp-Session-Id id
// negotiated, "" if there is no such session.
func (s *Server) revision(id string) string {
	for ss := range s.core.MCP().Sessions() {
		if ss.ID() != id {
			continue
		}
		asked := ""
		if p := ss.InitializeParams(); p != nil {
			asked = p.ProtocolVersion
		}
		// As the SDK negotiates: the client's revision when it knows it
		// (2026-07-28 and later have no initialize), else its latest one
		// before that.
		latest := ""
		for _, v := range mcp.SupportedProtocolVersions() { // newest first
			if v < initializeLess {
				if latest == "" {
					latest = v
				}
				if v == asked {
					return v
				}
			}
		}
		return latest
	}
	return ""
}

// initializeLess is the first MCP revision without initialize.
const initializeLess = "2026-07-28"

// readCloser reads from one reader and closes another: a request body
// whose start was peeked at.
type readCloser struct {
	io.Reader
	io.Closer
}
