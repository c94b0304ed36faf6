package transport

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxReplyBytes is the most text one tool reply carries when
// [Config.MaxReplyBytes] is zero: 4 MiB. That is more than any agent's
// context holds (about a million tokens), so no reply an agent can use is
// cut, and it is the size of the largest request the HTTP endpoint accepts
// (mcp.DefaultMaxRequestBodyBytes). What it prevents is one call making a
// reply of hundreds of MB: the reply is held in memory several times over
// while it is encoded and sent, and a session may make many at once.
// Larger outputs belong in files: take_snapshot, evaluate_script and
// take_screenshot take a filePath.
const DefaultMaxReplyBytes = 4 << 20

// MinReplyBytes is the least [Config.MaxReplyBytes] is taken to be: room
// for the sentence that ends a cut reply, and some of the reply before it.
const MinReplyBytes = 1 << 10

// replyLimit is the bound on a reply's text, in bytes.
func (s *Server) replyLimit() int {
	switch n := s.cfg.MaxReplyBytes; {
	case n <= 0:
		return DefaultMaxReplyBytes
	case n < MinReplyBytes:
		return MinReplyBytes
	default:
		return n
	}
}

// capReply bounds the text of a tool's reply to [Server.replyLimit] bytes,
// counted over all its text blocks; images are left alone (take_screenshot
// bounds them). Text past the limit is cut at a UTF-8 boundary and
// replaced by one sentence that says how many bytes were cut and how to get
// them. args are the call's arguments, as the client sent them.
func (s *Server) capReply(t *tool, res *mcp.CallToolResult, args json.RawMessage) {
	limit := s.replyLimit()
	total := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			total += len(tc.Text)
		}
	}
	if total <= limit {
		return
	}
	left := limit // of text still allowed
	cut := false
	out := make([]mcp.Content, 0, len(res.Content))
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		switch {
		case !ok:
			out = append(out, c)
		case cut:
			// Dropped whole: part of what the notice counts as cut.
		case len(tc.Text) <= left:
			left -= len(tc.Text)
			out = append(out, c)
		default:
			// The notice takes the end of the room left, so that the whole
			// text stays within limit; its length with total in it bounds
			// its length with the real count.
			keep := max(left-len(cutNotice(t, args, total, limit))-1, 0)
			for keep > 0 && !utf8.RuneStart(tc.Text[keep]) {
				keep--
			}
			text := tc.Text[:keep] + "\n" + cutNotice(t, args, total-(limit-left)-keep, limit)
			out = append(out, &mcp.TextContent{Text: text, Meta: tc.Meta, Annotations: tc.Annotations})
			cut = true
		}
	}
	res.Content = out
}

// cutNotice is the sentence that ends a reply cut at limit bytes, cut bytes
// short, with the way to the rest that the tool offers.
func cutNotice(t *tool, args json.RawMessage, cut, limit int) string {
	return fmt.Sprintf("[The reply was cut here: %d bytes past the %d-byte limit were left out. %s]", cut, limit, restHint(t, args))
}

// restHint says how to get what a cut reply left out, from the tool's own
// arguments. Advice to drop an argument is given only when the call
// passed it.
func restHint(t *tool, args json.RawMessage) string {
	has := func(name string) bool {
		return slices.ContainsFunc(params(t.argType), func(p param) bool { return p.name == name })
	}
	var passed map[string]json.RawMessage
	json.Unmarshal(args, &passed)
	set := func(name string) bool {
		v, ok := passed[name]
		return ok && string(v) != "false" && string(v) != "null"
	}
	switch {
	case has("filePath"):
		return fmt.Sprintf("Call %s again with filePath to save all of it to a file.", t.name)
	case has("responseFilePath"):
		return fmt.Sprintf("Call %s again with responseFilePath or requestFilePath to save the bodies to files.", t.name)
	case has("pageSize"):
		return fmt.Sprintf("Call %s again with a smaller pageSize, and pageIdx to page through the rest.", t.name)
	case set("includeSnapshot") || set("includeDiff"):
		return fmt.Sprintf("Call %s without includeSnapshot or includeDiff, then take_snapshot with filePath to save the snapshot to a file.", t.name)
	}
	return "Narrow the call's arguments to get less, or use take_snapshot with filePath to save a long snapshot to a file."
}
