package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// batchOf returns a JSON-RPC batch of n list_pages calls.
func batchOf(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_pages","arguments":{}}}`, i+10)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestBatchesThroughBinary: a JSON-RPC batch is refused, with a sentence
// and no call run, unless the session speaks the one MCP revision that has
// batches (2025-03-26), whatever MCP-Protocol-Version header the request
// carries or leaves out; such a batch is bounded. A batch cannot start a
// session.
func TestBatchesThroughBinary(t *testing.T) {
	t.Parallel()
	in := startHTTP(t)
	refused := func(what, body string, header http.Header, want string) {
		t.Helper()
		status, _, answer := in.Post(body, header)
		if status != http.StatusBadRequest || !strings.Contains(answer, want) || strings.Contains(answer, "## Pages") {
			t.Errorf("%s: %d %.300q, want 400 saying %q", what, status, answer, want)
		}
	}
	modern := in.Session("2025-11-25")
	for _, h := range []http.Header{
		{"Mcp-Session-Id": {modern}},
		{"Mcp-Session-Id": {modern}, "Mcp-Protocol-Version": {"2025-03-26"}},
		{"Mcp-Session-Id": {modern}, "Mcp-Protocol-Version": {"2025-11-25"}},
	} {
		refused(fmt.Sprintf("500 calls in a batch, session on 2025-11-25, header %q", h.Get("Mcp-Protocol-Version")), batchOf(500), h,
			"JSON-RPC batches are not part of MCP 2025-11-25, the revision this session speaks: send one message per request.")
	}
	refused("a batch without a session", "  ["+initializeBody+"]", nil,
		"a JSON-RPC batch cannot start a session (initialize must be sent alone)")

	old := in.Session("2025-03-26")
	h := http.Header{"Mcp-Session-Id": {old}, "Mcp-Protocol-Version": {"2025-03-26"}}
	if status, _, answer := in.Post(batchOf(2), h); status != http.StatusOK || strings.Count(answer, "## Pages") != 2 {
		t.Errorf("a batch of 2 on 2025-03-26: %d %.300q, want both answered", status, answer)
	}
	refused("500 calls in a batch on 2025-03-26", batchOf(500), h, "this batch holds 500 messages, more than the 32 tabhive takes in one request")
}
