package input

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// Tools are the input capability's tools.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "upload_file", Description: "Upload a file through a provided element.", Page: true, Action: true},
			tool.Fixed[uploadArgs](tool.InputBudget), runUpload),
	}
}

type uploadArgs struct {
	UID             string   `json:"uid" required:"true" desc:"The uid of the file input element or an element that will open file chooser on the page from the page content snapshot"`
	FilePaths       []string `json:"filePaths" required:"true" minItems:"1" desc:"One or more files paths to upload. File paths have to be local to the browser instance (not the MCP)."`
	IncludeSnapshot bool     `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool     `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

// WithSnapshot makes the call's budget take a snapshot's.
func (a *uploadArgs) WithSnapshot() bool { return a.IncludeSnapshot || a.IncludeDiff }

func runUpload(ctx context.Context, c tool.Call, a *uploadArgs) error {
	paths := a.FilePaths
	if c.Browser().Local() {
		// The browser reads the files from this machine: they go through the
		// same sandbox as the files tools write (upstream validates them
		// for local browsers only).
		sb := c.Sandbox(ctx)
		paths = make([]string, len(a.FilePaths))
		for i, p := range a.FilePaths {
			// Readable resolves every symlink, refuses the browser's
			// profile and accepts regular files only.
			canonical, err := sb.Readable(p)
			var denied *sandbox.DeniedError
			if errors.As(err, &denied) {
				return err
			}
			if err != nil {
				return agenterr.Unreadable(err, "cannot upload %s: %s", p)
			}
			paths[i] = canonical
		}
	}
	res, err := UploadFile(ctx, c.Page(), a.UID, paths, page.InputOptions{IncludeSnapshot: a.IncludeSnapshot || a.IncludeDiff})
	if err != nil {
		return err
	}
	c.Acted(ctx, res, a.IncludeDiff, fmt.Sprintf("File uploaded from %s.", strings.Join(a.FilePaths, ", ")))
	return nil
}
