// Package mcptext reads the text of an MCP tool's reply, for the tests
// and the bench commands that drive a server as its client.
package mcptext

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Of returns the text of a tool's reply: its text contents, joined.
func Of(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
