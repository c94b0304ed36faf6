package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabhive/tabhive/page"
)

// inputTools are the tools that act on a page as a user would.
func (s *Server) inputTools() []*tool {
	tools := []*tool{
		define(tool{name: "click", description: "Clicks on the provided element", page: true, action: true},
			fixed[clickArgs](inputBudget), runClick),
		define(tool{name: "drag", description: "Drag an element onto another element", page: true, action: true},
			fixed[dragArgs](inputBudget), runDrag),
		define(tool{name: "fill", description: "Type text into an input, text area or select an option from a <select> element.", page: true, action: true},
			fixed[fillArgs](inputBudget), runFill),
		define(tool{name: "fill_form", description: "Fill out multiple form elements (inputs, selects, checkboxes, radios) at once. Prefer this tool over several fill or click calls when filling a form: one call instead of many round trips.", page: true, action: true},
			func(a *fillFormArgs) time.Duration { return inputBudget * time.Duration(max(1, len(a.Elements))) }, runFillForm),
		define(tool{name: "hover", description: "Hover over the provided element", page: true, action: true},
			fixed[hoverArgs](inputBudget), runHover),
		define(tool{name: "press_key", description: "Press a key or key combination. Use this when other input methods like fill() cannot be used (e.g., keyboard shortcuts, navigation keys, or special key combinations).", page: true, action: true},
			fixed[pressKeyArgs](inputBudget), runPressKey),
		define(tool{name: "type_text", description: "Type text using keyboard into a previously focused input", page: true, action: true},
			func(a *typeTextArgs) time.Duration {
				// 10 ms a character, as upstream's fill; no more than a
				// timeout argument may ask for (maxTimeout), whatever the
				// text's length.
				return inputBudget + min(time.Duration(len(a.Text))*10*time.Millisecond, maxTimeout)
			}, runTypeText),
	}
	if s.cfg.ExperimentalVision {
		tools = append(tools, define(tool{name: "click_at", description: "Clicks at the provided coordinates", page: true, action: true},
			fixed[clickAtArgs](inputBudget), runClickAt))
	}
	return tools
}

type clickArgs struct {
	UID             string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	DblClick        bool   `json:"dblClick" desc:"Set to true for double clicks. Default is false."`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool   `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runClick(ctx context.Context, c *call, a *clickArgs) error {
	res, err := c.page.Click(ctx, a.UID, a.DblClick, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
	if errors.Is(err, page.ErrClosed) {
		// A click on a close button closes the page: the click worked.
		c.r.line("%s", clickLine(a.DblClick, false, "on the element"))
		c.r.line("The page closed.")
		c.r.pages = true
		return nil
	}
	if err != nil {
		return err
	}
	c.acted(ctx, res, a.IncludeDiff, clickLine(a.DblClick, res.Dialog, "on the element"))
	return nil
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
	X               float64 `json:"x" required:"true" desc:"The x coordinate"`
	Y               float64 `json:"y" required:"true" desc:"The y coordinate"`
	DblClick        bool    `json:"dblClick" desc:"Set to true for double clicks. Default is false."`
	IncludeSnapshot bool    `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool    `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runClickAt(ctx context.Context, c *call, a *clickAtArgs) error {
	res, err := c.page.ClickAt(ctx, a.X, a.Y, a.DblClick, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
	if err != nil {
		return err
	}
	line := clickLine(a.DblClick, false, "at the coordinates")
	if res.Dialog {
		line = "The click at the coordinates opened a dialog."
	}
	c.acted(ctx, res, a.IncludeDiff, line)
	return nil
}

// inputOptions asks the page for a snapshot after the action when the
// agent wants one, or the diff made from one.
func inputOptions(snapshot, diff bool) page.InputOptions {
	return page.InputOptions{IncludeSnapshot: snapshot || diff}
}

// acted records what every input tool reports: its own line, then the
// navigation, the page state and the snapshot, or what changed, when asked
// for.
func (c *call) acted(ctx context.Context, res page.InputResult, diff bool, line string) {
	c.r.line("%s", line)
	c.r.navigatedTo = res.NavigatedTo
	c.r.pending, c.r.unfollowed = res.Pending, res.Unfollowed
	c.r.state(res.State)
	if res.Snapshot == "" {
		return
	}
	if diff {
		c.showDiff(ctx, res.Snapshot)
	} else {
		c.showSnapshot(ctx, "", res.Snapshot)
	}
	c.sess.sawSnapshot(c.pageID, res.SnapshotSeq, res.Snapshot)
}

type hoverArgs struct {
	UID             string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool   `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runHover(ctx context.Context, c *call, a *hoverArgs) error {
	res, err := c.page.Hover(ctx, a.UID, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
	if err != nil {
		return err
	}
	line := "Successfully hovered over the element"
	if res.Dialog {
		line = "The element was hovered and it opened a dialog."
	}
	c.acted(ctx, res, a.IncludeDiff, line)
	return nil
}

type fillArgs struct {
	UID             string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	Value           string `json:"value" required:"true" desc:"The value to fill in. \"true\" or \"false\" for checkboxes and toggles, \"true\" for radio buttons."`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool   `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runFill(ctx context.Context, c *call, a *fillArgs) error {
	res, err := c.page.Fill(ctx, a.UID, a.Value, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
	if err != nil {
		return err
	}
	line := "Successfully filled out the element"
	if res.Dialog {
		line = "The element was filled out and it opened a dialog."
	}
	c.acted(ctx, res, a.IncludeDiff, line)
	return nil
}

type formElement struct {
	UID   string `json:"uid" required:"true" desc:"The uid of the element to fill out"`
	Value string `json:"value" required:"true" desc:"Value for the element. \"true\" or \"false\" for checkboxes and toggles, \"true\" for radio buttons."`
}

type fillFormArgs struct {
	Elements        []formElement `json:"elements" required:"true" minItems:"1" desc:"Elements from snapshot to fill out."`
	IncludeSnapshot bool          `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool          `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runFillForm(ctx context.Context, c *call, a *fillFormArgs) error {
	fields := make([]page.FormField, len(a.Elements))
	for i, e := range a.Elements {
		if e.UID == "" {
			return badArgs("Invalid argument \"elements\" for tool \"fill_form\": element %d has no uid.", i+1)
		}
		fields[i] = page.FormField{UID: e.UID, Value: e.Value}
	}
	res, err := c.page.FillForm(ctx, fields, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
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
	c.acted(ctx, res.InputResult, a.IncludeDiff, line)
	return nil
}

type pressKeyArgs struct {
	Key             string `json:"key" required:"true" desc:"A key or a combination (e.g., \"Enter\", \"Control+A\", \"Control++\", \"Control+Shift+R\"). Modifiers: Control, Shift, Alt, Meta"`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool   `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runPressKey(ctx context.Context, c *call, a *pressKeyArgs) error {
	res, err := c.page.PressKey(ctx, a.Key, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
	if err != nil {
		return err
	}
	c.acted(ctx, res, a.IncludeDiff, "Successfully pressed key: "+a.Key)
	return nil
}

type typeTextArgs struct {
	Text            string `json:"text" required:"true" desc:"The text to type"`
	SubmitKey       string `json:"submitKey" desc:"Optional key to press after typing. E.g., \"Enter\", \"Tab\", \"Escape\""`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool   `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runTypeText(ctx context.Context, c *call, a *typeTextArgs) error {
	res, err := c.page.TypeText(ctx, a.Text, a.SubmitKey, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
	if err != nil {
		return err
	}
	line := fmt.Sprintf(`Typed text "%s"`, a.Text)
	if a.SubmitKey != "" {
		line = fmt.Sprintf(`Typed text "%s + %s"`, a.Text, a.SubmitKey)
	}
	c.acted(ctx, res, a.IncludeDiff, line)
	return nil
}

type dragArgs struct {
	FromUID         string `json:"from_uid" required:"true" desc:"The uid of the element to drag"`
	ToUID           string `json:"to_uid" required:"true" desc:"The uid of the element to drop into"`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
	IncludeDiff     bool   `json:"includeDiff" desc:"Whether to include, instead of a whole snapshot, only what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the action has settled. Much smaller than includeSnapshot on a large page. Default is false."`
}

func runDrag(ctx context.Context, c *call, a *dragArgs) error {
	res, err := c.page.Drag(ctx, a.FromUID, a.ToUID, inputOptions(a.IncludeSnapshot, a.IncludeDiff))
	if err != nil {
		return err
	}
	c.acted(ctx, res, a.IncludeDiff, "Successfully dragged an element")
	return nil
}

func (a *clickArgs) WithSnapshot() bool    { return a.IncludeSnapshot || a.IncludeDiff }
func (a *clickAtArgs) WithSnapshot() bool  { return a.IncludeSnapshot || a.IncludeDiff }
func (a *dragArgs) WithSnapshot() bool     { return a.IncludeSnapshot || a.IncludeDiff }
func (a *fillArgs) WithSnapshot() bool     { return a.IncludeSnapshot || a.IncludeDiff }
func (a *fillFormArgs) WithSnapshot() bool { return a.IncludeSnapshot || a.IncludeDiff }
func (a *hoverArgs) WithSnapshot() bool    { return a.IncludeSnapshot || a.IncludeDiff }
func (a *pressKeyArgs) WithSnapshot() bool { return a.IncludeSnapshot || a.IncludeDiff }
func (a *typeTextArgs) WithSnapshot() bool { return a.IncludeSnapshot || a.IncludeDiff }
