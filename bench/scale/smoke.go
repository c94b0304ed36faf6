package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runSmoke drives one session against a running tabhive (deploy/test/
// image.sh starts it as the image would): it waits for /readyz, opens a
// page, snapshots, clicks, runs a script, saves a screenshot and reads it
// back as a resource.
func runSmoke(args []string) error {
	fs := flag.NewFlagSet("smoke", flag.ExitOnError)
	url := fs.String("url", "", "the MCP endpoint, http://HOST:PORT/mcp")
	timeout := fs.Duration("timeout", 3*time.Minute, "bound on the whole smoke test")
	fs.Parse(args)
	if *url == "" {
		return fmt.Errorf("smoke: give --url")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	base := strings.TrimSuffix(*url, "/mcp")
	for {
		status, body := get(ctx, base+"/readyz")
		if status == http.StatusOK {
			fmt.Fprintf(os.Stderr, "smoke: /readyz: %s", body)
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("smoke: /readyz never answered 200 (last: %d %s)", status, body)
		case <-time.After(200 * time.Millisecond):
		}
	}
	s, err := startSite()
	if err != nil {
		return err
	}
	defer s.close()
	a, err := connect(ctx, *url, "smoke", s)
	if err != nil {
		return err
	}
	defer a.cs.Close()
	for range 5 {
		if err := a.step(ctx); err != nil {
			return err
		}
	}
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "take_screenshot", Arguments: map[string]any{"filePath": "smoke.png"}})
	if err != nil || res.IsError {
		return fmt.Errorf("smoke: take_screenshot: %v %+v", err, res)
	}
	var link *mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			link = l
		}
	}
	if link == nil {
		return fmt.Errorf("smoke: take_screenshot with filePath linked no resource")
	}
	rr, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
	if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(string(rr.Contents[0].Blob), "\x89PNG") {
		return fmt.Errorf("smoke: resources/read %s: %v", link.URI, err)
	}
	fmt.Fprintf(os.Stderr, "smoke: ok: %d calls in session %s, screenshot read back (%d bytes)\n", a.steps+3, a.cs.ID(), len(rr.Contents[0].Blob))
	return nil
}
