package transport

import (
	"context"
	"errors"
	"time"

	"github.com/tabhive/tabhive/page"
)

// slimTools are --slim's tools still in the transport, of
// chrome-devtools-mcp's "slim" set (navigate, evaluate and screenshot,
// each replying with one bare line: a URL, a JSON value, a file path, and
// nothing about the page besides). They act on the session's selected
// page, or on pageId, which tabhive adds. The slim screenshot is
// page/screenshot's, beside take_screenshot.
func (s *Server) slimTools() []*tool {
	return []*tool{
		define(tool{name: "navigate", description: "Loads a URL", page: true, action: true},
			fixed[slimNavigateArgs](slimNavigateBudget), runSlimNavigate),
		define(tool{name: "evaluate", description: "Evaluates a JavaScript script", page: true, action: true},
			fixed[slimEvaluateArgs](scriptBudget), runSlimEvaluate),
	}
}

// slimNavigateBudget is the slim navigate's budget: chrome-devtools-mcp
// waits 30 s for the load.
const slimNavigateBudget = 30*time.Second + overhead

type slimNavigateArgs struct {
	URL string `json:"url" required:"true" desc:"URL to navigate to"`
}

type slimEvaluateArgs struct {
	Script string `json:"script" required:"true" desc:"JS script to run on the page"`
}

// slimError is a slim tool's failure, which reads "Error: <what Chrome or
// the script said>" as chrome-devtools-mcp's slim replies do.
func slimError(err error) error {
	var ne *page.NavigationError
	var se *page.ScriptError
	switch {
	case errors.As(err, &ne):
		return &argError{Msg: "Error: " + ne.Reason}
	case errors.As(err, &se):
		return &argError{Msg: "Error: " + se.Msg}
	}
	return err
}

func runSlimNavigate(ctx context.Context, c *call, a *slimNavigateArgs) error {
	if err := c.s.cfg.Policy.Navigation(a.URL); err != nil {
		return err
	}
	res, err := c.page.Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: a.URL, Timeout: slimNavigateBudget - overhead, HandleBeforeUnload: "accept"})
	if err != nil {
		return slimError(err)
	}
	if res.BeforeUnload == "accepted" {
		c.r.line("Accepted a beforeunload dialog.")
	}
	c.r.line("Navigated to %s.", res.URL)
	return nil
}

func runSlimEvaluate(ctx context.Context, c *call, a *slimEvaluateArgs) error {
	if err := c.s.cfg.Policy.Evaluation("evaluate"); err != nil {
		return err
	}
	res, err := c.page.Evaluate(ctx, page.Script{
		Source:        a.Script,
		Format:        "script",
		SkipStableDOM: true,
		MaxResult:     inlineResultLimit(c.s.replyLimit()),
	})
	if err != nil {
		var te *page.ScriptTimeoutError
		if errors.As(err, &te) {
			return &scriptTimeout{budget: c.budget}
		}
		return slimError(err)
	}
	// A value JSON cannot hold (undefined, a function) is an empty line,
	// as chrome-devtools-mcp prints it.
	if res.JSON != "undefined" {
		c.r.lines = append(c.r.lines, res.JSON)
	} else {
		c.r.lines = append(c.r.lines, "")
	}
	if res.Cut {
		c.r.line("The result is %d bytes of JSON; only the first %d are shown.", res.Size, len(res.JSON))
	}
	return nil
}
