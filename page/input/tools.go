package input

// The capability's MCP tools, with chrome-devtools-mcp's names, arguments
// and reply text.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// Config sets which input tools the server offers.
type Config struct {
	// ExperimentalVision adds the coordinate tools (click_at), as
	// chrome-devtools-mcp's --experimentalVision does.
	ExperimentalVision bool
}

// Tools are the input capability's tools: those that act on a page as a
// user would, and upload_file.
func Tools(cfg Config) []*tool.Tool {
	tools := []*tool.Tool{
		tool.Define(tool.Tool{Name: "click", Description: "Clicks on the provided element", Page: true, Action: true},
			tool.Fixed[clickArgs](tool.InputBudget), runClick),
		tool.Define(tool.Tool{Name: "drag", Description: "Drag an element onto another element", Page: true, Action: true},
			tool.Fixed[dragArgs](tool.InputBudget), runDrag),
		tool.Define(tool.Tool{Name: "fill", Description: "Type text into an input, text area or select an option from a <select> element.", Page: true, Action: true},
			tool.Fixed[fillArgs](tool.InputBudget), runFill),
		tool.Define(tool.Tool{Name: "fill_form", Description: "Fill out multiple form elements (inputs, selects, checkboxes, radios) at once. Prefer this tool over several fill or click calls when filling a form: one call instead of many round trips.", Page: true, Action: true},
			func(a *fillFormArgs) time.Duration { return tool.InputBudget * time.Duration(max(1, len(a.Elements))) }, runFillForm),
		tool.Define(tool.Tool{Name: "hover", Description: "Hover over the provided element", Page: true, Action: true},
			tool.Fixed[hoverArgs](tool.InputBudget), runHover),
		tool.Define(tool.Tool{Name: "press_key", Description: "Press a key or key combination. Use this when other input methods like fill() cannot be used (e.g., keyboard shortcuts, navigation keys, or special key combinations).", Page: true, Action: true},
			tool.Fixed[pressKeyArgs](tool.InputBudget), runPressKey),
		tool.Define(tool.Tool{Name: "type_text", Description: "Type text using keyboard into a previously focused input", Page: true, Action: true},
			func(a *typeTextArgs) time.Duration {
				// 10 ms a character, as upstream's fill; no more than a
				// timeout argument may ask for (tool.MaxTimeout), whatever
				// the text's length.
				return tool.InputBudget + min(time.Duration(len(a.Text))*10*time.Millisecond, tool.MaxTimeout)
			}, runTypeText),
		tool.Define(tool.Tool{Name: "upload_file", Description: "Upload a file through a provided element.", Page: true, Action: true},
			tool.Fixed[uploadArgs](tool.InputBudget), runUpload),
	}
	if cfg.ExperimentalVision {
		tools = append(tools, tool.Define(tool.Tool{Name: "click_at", Description: "Clicks at the provided coordinates", Page: true, Action: true},
			tool.Fixed[clickAtArgs](tool.InputBudget), runClickAt))
	}
	return tools
}

// after are the arguments every input tool takes on what its reply shows
// after the action.
type after struct {
	IncludeSnapshot bool `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

// WithSnapshot makes the call's budget take a snapshot's.
func (a *after) WithSnapshot() bool { return a.IncludeSnapshot || a.IncludeDiff }

// options asks the page for a snapshot after the action when the agent
// wants one, or the diff made from one.
func (a *after) options() page.InputOptions {
	return page.InputOptions{IncludeSnapshot: a.IncludeSnapshot || a.IncludeDiff}
}

// report reports an input action that succeeded with line, or with
// dialogLine, if not empty, when it opened a dialog; err, if not nil, is
// the call's.
func report(ctx context.Context, c tool.Call, res page.InputResult, err error, a *after, line, dialogLine string) error {
	if err != nil {
		return err
	}
	if res.Dialog && dialogLine != "" {
		line = dialogLine
	}
	c.Acted(ctx, res, a.IncludeDiff, line)
	return nil
}

type clickArgs struct {
	UID      string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	DblClick bool   `json:"dblClick" desc:"Set to true for double clicks. Default is false."`
	after
}

func runClick(ctx context.Context, c tool.Call, a *clickArgs) error {
	res, err := Click(ctx, c.Page(), a.UID, a.DblClick, a.options())
	if errors.Is(err, page.ErrClosed) {
		// A click on a close button closes the page: the click worked.
		c.Reply().Line("%s", clickLine(a.DblClick, false, "on the element"))
		c.Reply().Line("The page closed.")
		c.Reply().Pages()
		return nil
	}
	return report(ctx, c, res, err, &a.after, clickLine(a.DblClick, res.Dialog, "on the element"), "")
}

// clickLine words a click, or a click that opened a dialog, as upstream
// does.
func clickLine(double, dialog bool, where string) string {
	switch {
	case dialog && double:
		return "The element was double clicked and it opened a dialog."
	case dialog:
		return "The element was clicked and it opened a dialog."
	case double:
		return "Successfully double clicked " + where
	}
	return "Successfully clicked " + where
}

type clickAtArgs struct {
	X        float64 `json:"x" required:"true" desc:"The x coordinate"`
	Y        float64 `json:"y" required:"true" desc:"The y coordinate"`
	DblClick bool    `json:"dblClick" desc:"Set to true for double clicks. Default is false."`
	after
}

func runClickAt(ctx context.Context, c tool.Call, a *clickAtArgs) error {
	res, err := ClickAt(ctx, c.Page(), a.X, a.Y, a.DblClick, a.options())
	return report(ctx, c, res, err, &a.after, clickLine(a.DblClick, false, "at the coordinates"), "The click at the coordinates opened a dialog.")
}

type hoverArgs struct {
	UID string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	after
}

func runHover(ctx context.Context, c tool.Call, a *hoverArgs) error {
	res, err := Hover(ctx, c.Page(), a.UID, a.options())
	return report(ctx, c, res, err, &a.after, "Successfully hovered over the element", "The element was hovered and it opened a dialog.")
}

type fillArgs struct {
	UID   string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	Value string `json:"value" required:"true" desc:"The value to fill in. \"true\" or \"false\" for checkboxes and toggles, \"true\" for radio buttons."`
	after
}

func runFill(ctx context.Context, c tool.Call, a *fillArgs) error {
	res, err := Fill(ctx, c.Page(), a.UID, a.Value, a.options())
	return report(ctx, c, res, err, &a.after, "Successfully filled out the element", "The element was filled out and it opened a dialog.")
}

type formElement struct {
	UID   string `json:"uid" required:"true" desc:"The uid of the element to fill out"`
	Value string `json:"value" required:"true" desc:"Value for the element. \"true\" or \"false\" for checkboxes and toggles, \"true\" for radio buttons."`
}

type fillFormArgs struct {
	Elements []formElement `json:"elements" required:"true" minItems:"1" desc:"Elements from snapshot to fill out."`
	after
}

func runFillForm(ctx context.Context, c tool.Call, a *fillFormArgs) error {
	fields := make([]FormField, len(a.Elements))
	for i, e := range a.Elements {
		if e.UID == "" {
			return tool.BadArgs("Invalid argument \"elements\" for tool \"fill_form\": element %d has no uid.", i+1)
		}
		fields[i] = FormField{UID: e.UID, Value: e.Value}
	}
	res, err := FillForm(ctx, c.Page(), fields, a.options())
	if err != nil {
		return err
	}
	line := "Successfully filled out the form"
	if res.Interrupted != "" {
		line = fmt.Sprintf("Filling out the element with uid %s opened a dialog.", res.Interrupted)
		if res.Interrupted != a.Elements[len(a.Elements)-1].UID {
			line += " The remaining elements were not filled out."
		}
	}
	c.Acted(ctx, res.InputResult, a.IncludeDiff, line)
	return nil
}

type pressKeyArgs struct {
	Key string `json:"key" required:"true" desc:"A key or a combination (e.g., \"Enter\", \"Control+A\", \"Control++\", \"Control+Shift+R\"). Modifiers: Control, Shift, Alt, Meta"`
	after
}

func runPressKey(ctx context.Context, c tool.Call, a *pressKeyArgs) error {
	res, err := PressKey(ctx, c.Page(), a.Key, a.options())
	return report(ctx, c, res, err, &a.after, "Successfully pressed key: "+a.Key, "")
}

type typeTextArgs struct {
	Text      string `json:"text" required:"true" desc:"The text to type"`
	SubmitKey string `json:"submitKey" desc:"Optional key to press after typing. E.g., \"Enter\", \"Tab\", \"Escape\""`
	after
}

func runTypeText(ctx context.Context, c tool.Call, a *typeTextArgs) error {
	res, err := TypeText(ctx, c.Page(), a.Text, a.SubmitKey, a.options())
	line := fmt.Sprintf(`Typed text "%s"`, a.Text)
	if a.SubmitKey != "" {
		line = fmt.Sprintf(`Typed text "%s + %s"`, a.Text, a.SubmitKey)
	}
	return report(ctx, c, res, err, &a.after, line, "")
}

type dragArgs struct {
	FromUID string `json:"from_uid" required:"true" desc:"The uid of the element to drag"`
	ToUID   string `json:"to_uid" required:"true" desc:"The uid of the element to drop into"`
	after
}

func runDrag(ctx context.Context, c tool.Call, a *dragArgs) error {
	res, err := Drag(ctx, c.Page(), a.FromUID, a.ToUID, a.options())
	return report(ctx, c, res, err, &a.after, "Successfully dragged an element", "")
}

type uploadArgs struct {
	UID       string   `json:"uid" required:"true" desc:"The uid of the file input element or an element that will open file chooser on the page from the page content snapshot"`
	FilePaths []string `json:"filePaths" required:"true" minItems:"1" desc:"One or more files paths to upload. File paths have to be local to the browser instance (not the MCP)."`
	after
}

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
	res, err := UploadFile(ctx, c.Page(), a.UID, paths, a.options())
	return report(ctx, c, res, err, &a.after, fmt.Sprintf("File uploaded from %s.", strings.Join(a.FilePaths, ", ")), "")
}
