package transport

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestReplyLimit(t *testing.T) {
	for _, tt := range []struct{ cfg, want int }{
		{0, DefaultMaxReplyBytes},
		{-1, DefaultMaxReplyBytes},
		{1, MinReplyBytes},
		{MinReplyBytes, MinReplyBytes},
		{64 << 20, 64 << 20},
	} {
		s := &Server{cfg: Config{MaxReplyBytes: tt.cfg}}
		if got := s.replyLimit(); got != tt.want {
			t.Errorf("MaxReplyBytes %d: limit %d, want %d", tt.cfg, got, tt.want)
		}
	}
}

// capReply counts every text block against one limit, keeps images, and
// drops text blocks past the cut; the notice counts what they held.
func TestCapReplyBlocks(t *testing.T) {
	type snapArgs struct {
		FilePath string `json:"filePath"`
	}
	tl := &tool{name: "t", argType: reflect.TypeFor[snapArgs]()}
	s := &Server{cfg: Config{MaxReplyBytes: MinReplyBytes}}
	img := &mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 10<<10)}
	first, second, third := strings.Repeat("a", 600), strings.Repeat("€", 300), strings.Repeat("c", 500)
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: first}, img, &mcp.TextContent{Text: second}, &mcp.TextContent{Text: third},
	}}
	s.capReply(tl, res, nil)
	if len(res.Content) != 3 || res.Content[0].(*mcp.TextContent).Text != first || res.Content[1] != img {
		t.Fatalf("content after the cut = %v, want the first block, the image and the cut second block", res.Content)
	}
	cut := res.Content[2].(*mcp.TextContent).Text
	kept, notice, ok := strings.Cut(cut, "\n[")
	total := len(first) + len(cut)
	if !ok || total > MinReplyBytes || total < MinReplyBytes-3 || !utf8.ValidString(cut) || !strings.HasPrefix(second, kept) {
		t.Fatalf("cut block = %q (reply text %d bytes)", cut, total)
	}
	wantCut := len(second) - len(kept) + len(third)
	if want := "The reply was cut here: " + strconv.Itoa(wantCut) + " bytes past the 1024-byte limit were left out. Call t again with filePath to save all of it to a file.]"; notice != want {
		t.Errorf("notice = %q, want %q", notice, want)
	}

	// Within the limit, nothing changes.
	small := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}, img}}
	s.capReply(tl, small, nil)
	if len(small.Content) != 2 || small.Content[0].(*mcp.TextContent).Text != "ok" {
		t.Errorf("a short reply changed: %v", small.Content)
	}
}

// TestCutAdviceNamesOnlyPassedArguments: the advice that ends a cut reply
// tells the agent to drop includeSnapshot only when its call passed it. A
// click whose reply a page's own text made too long used to be told to
// call click "without includeSnapshot", which it had never passed.
func TestCutAdviceNamesOnlyPassedArguments(t *testing.T) {
	type clickArgs struct {
		UID             string `json:"uid"`
		IncludeSnapshot bool   `json:"includeSnapshot"`
		IncludeDiff     bool   `json:"includeDiff"`
	}
	tl := &tool{name: "click", argType: reflect.TypeFor[clickArgs]()}
	for _, tt := range []struct {
		args, want string
	}{
		{`{"uid": "1_2"}`, "Narrow the call's arguments"},
		{`{"uid": "1_2", "includeSnapshot": false}`, "Narrow the call's arguments"},
		{`{"uid": "1_2", "includeSnapshot": true}`, "Call click without includeSnapshot or includeDiff"},
		{`{"uid": "1_2", "includeDiff": true}`, "Call click without includeSnapshot or includeDiff"},
	} {
		if got := restHint(tl, json.RawMessage(tt.args)); !strings.HasPrefix(got, tt.want) {
			t.Errorf("restHint(%s) = %q, want %q…", tt.args, got, tt.want)
		}
	}
}
