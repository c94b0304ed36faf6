package transport

import (
	"context"
	"errors"
	"time"

	"github.com/tabhive/tabhive/page"
)

// slimTools is --slim's navigate, of chrome-devtools-mcp's "slim" set
// (navigate, evaluate and screenshot, each replying with one bare line: a
// URL, a JSON value, a file path, and nothing about the page besides).
// They act on the session's selected page, or on pageId, which tabhive
// adds. Each lives beside its full tool: navigate here, beside
// navigate_page; evaluate in page/script; screenshot in page/screenshot.
func (s *Server) slimTools() []*tool {
	return []*tool{
		define(tool{name: "navigate", description: "Loads a URL", page: true, action: true},
			fixed[slimNavigateArgs](slimNavigateBudget), runSlimNavigate),
	}
}

// slimNavigateBudget is the slim navigate's budget: chrome-devtools-mcp
// waits 30 s for the load.
const slimNavigateBudget = 30*time.Second + overhead

type slimNavigateArgs struct {
	URL string `json:"url" required:"true" desc:"URL to navigate to"`
}

// slimError is the slim navigate's failure, which reads "Error: <what
// Chrome said>" as chrome-devtools-mcp's slim replies do.
func slimError(err error) error {
	if ne := (*page.NavigationError)(nil); errors.As(err, &ne) {
		return &argError{Msg: "Error: " + ne.Reason}
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
