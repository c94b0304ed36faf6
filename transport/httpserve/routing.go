package httpserve

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
)

// Sessions are routable. A session lives in one instance (its pages, its
// selection), and its id is chosen by the server in the reply to
// initialize, so a balancer in front of several instances must send every
// later request carrying the id to the instance that made it. Each id
// starts with the instance's id and a dot, "web-1.K3JX...", so that a
// stateless router picks the instance from the Mcp-Session-Id header
// alone (an nginx map, an Envoy header match); a stateful one (HAProxy
// learning the id from the response) needs nothing. A request naming a
// session this instance does not hold gets 404 with a JSON-RPC error that
// says so, and the client starts a new session.

// sessionNotFoundCode is the JSON-RPC error code of a request for a
// session this instance does not hold, as the MCP TypeScript SDK's server
// answers it.
const sessionNotFoundCode = -32001

// instanceIDPattern is what an instance id may be: a DNS label's
// characters, so that it fits a header, a host name and a config file
// unquoted.
var instanceIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$`)

// CheckInstanceID returns an error, in a sentence for the operator, if id
// cannot be an instance id.
func CheckInstanceID(id string) error {
	if !instanceIDPattern.MatchString(id) {
		return fmt.Errorf("--instance-id %q: use 1 to 63 letters, digits, '-' or '_', starting with a letter or digit", id)
	}
	return nil
}

// DefaultInstanceID returns the instance id derived from the host name:
// its first label, with characters an id cannot hold replaced by '-' (a
// pod's or container's host name is unique among its replicas); "tabhive"
// when there is no usable host name.
func DefaultInstanceID() string {
	host, err := os.Hostname()
	if err != nil {
		return "tabhive"
	}
	host, _, _ = strings.Cut(host, ".")
	id := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, host)
	id = strings.TrimLeft(id, "-_")
	if len(id) > 63 {
		id = id[:63]
	}
	if CheckInstanceID(id) != nil {
		return "tabhive"
	}
	return id
}

// SessionIDs returns the generator of session ids for an instance: its id,
// a dot, and 26 random base32 characters (128 bits). The MCP server makes
// the ids (transport.Config.SessionID); [Server] reads the instance back
// from them.
func SessionIDs(instance string) func() string {
	if instance == "" {
		return rand.Text
	}
	return func() string { return instance + "." + rand.Text() }
}

// instanceOf returns the instance a session id names, "" if none.
func instanceOf(id string) string {
	inst, _, ok := strings.Cut(id, ".")
	if !ok {
		return ""
	}
	return inst
}

// knownSession reports whether this instance holds the session id.
func (s *Server) knownSession(id string) bool {
	_, ok := s.known.Load(id)
	return ok
}

// sessionGone answers a request for a session this instance does not hold
// with 404 and a JSON-RPC error saying where it belongs and what to do.
func (s *Server) sessionGone(w http.ResponseWriter, r *http.Request, id string) {
	here := s.cfg.InstanceID
	var msg string
	switch inst := instanceOf(id); {
	case here != "" && inst != "" && inst != here:
		msg = fmt.Sprintf("Session %s is not on this tabhive instance (%s): it belongs to instance %s, which the balancer did not reach or which has stopped; start a new session (initialize without Mcp-Session-Id).", id, here, inst)
	case here != "":
		msg = fmt.Sprintf("Session %s has ended on this tabhive instance (%s): it was closed, timed out, or the instance restarted; start a new session (initialize without Mcp-Session-Id).", id, here)
	default:
		msg = fmt.Sprintf("Session %s is not open on this tabhive server: it has ended, or belongs to another instance; start a new session (initialize without Mcp-Session-Id).", id)
	}
	writeRPCError(w, r, http.StatusNotFound, msg)
}

// writeRPCError answers r with status and a JSON-RPC error response whose
// id is the request's, when its body is a single request, else null.
func writeRPCError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	id := json.RawMessage("null")
	if r.Method == http.MethodPost && r.Body != nil {
		if m, err := peekMessage(r); err == nil && len(m.ID) > 0 {
			id = m.ID
		}
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{sessionNotFoundCode, msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// rpcMessage is what the HTTP layer reads of a JSON-RPC message: enough to
// tell a request (method and id) from a notification (no id) and a
// response (no method).
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// maxPeekBytes bounds the body read to tell what a message is; a bigger
// body is left to the SDK, which bounds requests at 4 MiB.
const maxPeekBytes = 4 << 20

// errNotSingle is peekMessage's error for a body that is not one JSON
// object (a batch, or too large to look at).
var errNotSingle = errors.New("not a single JSON-RPC message")

// peekMessage reads r's body, puts it back for the next handler, and
// decodes the message in it.
func peekMessage(r *http.Request) (rpcMessage, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), r.Body))
	if err != nil {
		return rpcMessage{}, err
	}
	if len(data) > maxPeekBytes {
		return rpcMessage{}, errNotSingle
	}
	var m rpcMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return rpcMessage{}, errNotSingle
	}
	if string(m.ID) == "null" {
		m.ID = nil
	}
	return m, nil
}
