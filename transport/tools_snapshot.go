package transport

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tabhive/tabhive/page"
)

// snapshotTools are the tools that read a page as text.
func (s *Server) snapshotTools() []*tool {
	return []*tool{
		define(tool{name: "take_snapshot", description: "Take a text snapshot of the target page based on the a11y tree. The snapshot lists page elements along with a unique identifier (uid). Always use the latest snapshot. Prefer taking a snapshot over taking a screenshot.", page: true},
			fixed[snapshotArgs](snapshotBudget), runSnapshot),
		define(tool{name: "wait_for", description: "Wait for the specified text to appear on the selected page.", page: true, readOnly: true},
			func(a *waitForArgs) time.Duration { return millis(a.Timeout, page.DefaultWaitForTimeout) + overhead }, runWaitFor),
	}
}

type snapshotArgs struct {
	Verbose  bool   `json:"verbose" desc:"Whether to include all possible information available in the full a11y tree. Default is false."`
	FilePath string `json:"filePath" desc:"The absolute path, or a path relative to the current working directory, to save the snapshot to instead of attaching it to the response."`
}

func runSnapshot(ctx context.Context, c *call, a *snapshotArgs) error {
	snap, err := c.page.Snapshot(ctx, a.Verbose)
	if err != nil {
		return err
	}
	c.r.state(snap.State)
	if a.FilePath != "" {
		path, err := c.sandbox(ctx).WriteFile(a.FilePath, []byte(snap.Text), ".txt")
		if err != nil {
			return err
		}
		c.r.savedTo = path
		return nil
	}
	c.r.snapshot = &snap.Text
	return nil
}

type waitForArgs struct {
	Text    []string `json:"text" required:"true" minItems:"1" desc:"Non-empty list of texts. Resolves when any value appears on the page."`
	Timeout *int     `json:"timeout" min:"0" max:"3600000" desc:"Maximum wait time in milliseconds. If set to 0, the default timeout will be used. At most 300000 (5 minutes): a larger value is lowered to it."`
}

func runWaitFor(ctx context.Context, c *call, a *waitForArgs) error {
	res, err := c.page.WaitForText(ctx, a.Text, millis(a.Timeout, 0))
	if err != nil {
		return err
	}
	texts, _ := json.Marshal(a.Text)
	c.r.line("Element matching one of %s found.", texts)
	c.r.state(res.State)
	c.r.snapshot = &res.Snapshot
	return nil
}
