package main

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestViewportThroughBinary: --viewport 1024x700 gives the page 1024x700
// (innerWidth and innerHeight, and the screenshot of its viewport), the
// first page and one in a new browser context, whose window is a new one;
// it was the window's size, the page 87 pixels shorter. A size that is
// not one stops tabhive at start with one sentence.
func TestViewportThroughBinary(t *testing.T) {
	t.Parallel()
	t.Run("size", func(t *testing.T) {
		t.Parallel()
		cs := transporttest.Dial(t, &mcp.CommandTransport{Command: command(t, "--viewport", "1024x700"), TerminateDuration: exitWait})
		size := func(what string) {
			t.Helper()
			got := text(t, cs, "evaluate_script", map[string]any{"function": "() => innerWidth + 'x' + innerHeight"})
			if !strings.Contains(got, `"1024x700"`) {
				t.Errorf("%s: the page's size is %s, want 1024x700", what, got)
			}
			res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "take_screenshot", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("take_screenshot: %v %v", err, transporttest.Text(res))
			}
			for _, c := range res.Content {
				if img, ok := c.(*mcp.ImageContent); ok {
					cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
					if err != nil || cfg.Width != 1024 || cfg.Height != 700 {
						t.Errorf("%s: screenshot %dx%d (%v), want 1024x700", what, cfg.Width, cfg.Height, err)
					}
					return
				}
			}
			t.Errorf("%s: take_screenshot gave no image: %s", what, transporttest.Text(res))
		}
		size("first page")
		text(t, cs, "new_page", map[string]any{"url": "about:blank", "isolatedContext": "other"})
		size("page of a new browser context")
	})
	for _, bad := range []string{"12x", "100000x5", "0x700", "axb", "1024x700x2", "-5x5"} {
		t.Run(bad, func(t *testing.T) {
			t.Parallel()
			refused(t, `tabhive: --viewport "`+bad+`": give the page's size in pixels as WIDTHxHEIGHT, each from 1 to 10000, such as 1280x720`, "--viewport", bad)
		})
	}
}
