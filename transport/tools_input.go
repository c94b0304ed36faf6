package transport

import (
	"context"

	"github.com/tabhive/tabhive/page"
)

// inputTools are the tools that act on a page as a user would.
func (s *Server) inputTools() []*tool {
	return []*tool{
		define(tool{name: "click", description: "Clicks on the provided element", page: true, action: true},
			fixed[clickArgs](inputBudget), runClick),
		define(tool{name: "fill", description: "Type text into an input or text area, replacing its content.", page: true, action: true},
			fixed[fillArgs](inputBudget), runFill),
		define(tool{name: "hover", description: "Hover over the provided element", page: true, action: true},
			fixed[hoverArgs](inputBudget), runHover),
		define(tool{name: "press_key", description: "Press a key or key combination. Use this when other input methods like fill() cannot be used (e.g., keyboard shortcuts, navigation keys, or special key combinations).", page: true, action: true},
			fixed[pressKeyArgs](inputBudget), runPressKey),
	}
}

type clickArgs struct {
	UID             string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	DblClick        bool   `json:"dblClick" desc:"Set to true for double clicks. Default is false."`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
}

func runClick(ctx context.Context, c *call, a *clickArgs) error {
	res, err := c.page.Click(ctx, a.UID, a.DblClick, page.InputOptions{IncludeSnapshot: a.IncludeSnapshot})
	if err != nil {
		return err
	}
	switch {
	case res.Dialog && a.DblClick:
		c.r.line("The element was double clicked and it opened a dialog.")
	case res.Dialog:
		c.r.line("The element was clicked and it opened a dialog.")
	case a.DblClick:
		c.r.line("Successfully double clicked on the element")
	default:
		c.r.line("Successfully clicked on the element")
	}
	c.input(res)
	return nil
}

// input records what every input tool reports after its own line.
func (c *call) input(res page.InputResult) {
	c.r.navigatedTo = res.NavigatedTo
	c.r.state(res.State)
	if res.Snapshot != "" {
		c.r.snapshot = &res.Snapshot
	}
}

type hoverArgs struct {
	UID             string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
}

func runHover(ctx context.Context, c *call, a *hoverArgs) error {
	res, err := c.page.Hover(ctx, a.UID, page.InputOptions{IncludeSnapshot: a.IncludeSnapshot})
	if err != nil {
		return err
	}
	c.r.line("Successfully hovered over the element")
	c.input(res)
	return nil
}

type fillArgs struct {
	UID             string `json:"uid" required:"true" desc:"The uid of an element on the page from the page content snapshot"`
	Value           string `json:"value" required:"true" desc:"The value to fill in."`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
}

func runFill(ctx context.Context, c *call, a *fillArgs) error {
	res, err := c.page.Fill(ctx, a.UID, a.Value, page.InputOptions{IncludeSnapshot: a.IncludeSnapshot})
	if err != nil {
		return err
	}
	c.r.line("Successfully filled out the element")
	c.input(res)
	return nil
}

type pressKeyArgs struct {
	Key             string `json:"key" required:"true" desc:"A key or a combination (e.g., \"Enter\", \"Control+A\", \"Control++\", \"Control+Shift+R\"). Modifiers: Control, Shift, Alt, Meta"`
	IncludeSnapshot bool   `json:"includeSnapshot" desc:"Whether to include a snapshot in the response. Default is false."`
}

func runPressKey(ctx context.Context, c *call, a *pressKeyArgs) error {
	res, err := c.page.PressKey(ctx, a.Key, page.InputOptions{IncludeSnapshot: a.IncludeSnapshot})
	if err != nil {
		return err
	}
	c.r.line("Successfully pressed key: %s", a.Key)
	c.input(res)
	return nil
}
