package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
)

// pageTools are the tools that list, open, select, close and navigate pages and answer dialogs.
func (s *Server) pageTools() []*tool {
	return []*tool{
		define(tool{name: "close_page", description: "Closes the page by its index. The last open page cannot be closed."},
			fixed[closePageArgs](listBudget), runClosePage),
		define(tool{name: "handle_dialog", description: "If a browser dialog was opened, use this command to handle it", page: true},
			func(a *handleDialogArgs) time.Duration {
				if a.IncludeDiff {
					return listBudget + snapshotBudget
				}
				return listBudget
			}, runHandleDialog),
		define(tool{name: "list_pages", description: "Get a list of pages open in the browser.", readOnly: true},
			fixed[noArgs](listBudget), runListPages),
		define(tool{name: "navigate_page", description: "Go to a URL, or back, forward, or reload. Use project URL if not specified otherwise.", page: true, action: true},
			func(a *navigateArgs) time.Duration {
				return millis(a.Timeout, page.DefaultNavigationTimeout) + overhead
			}, runNavigate),
		define(tool{name: "new_page", description: "Open a new tab and load a URL. Use project URL if not specified otherwise.", action: true},
			func(a *newPageArgs) time.Duration { return millis(a.Timeout, page.DefaultNavigationTimeout) + overhead }, runNewPage),
		define(tool{name: "select_page", description: "Select a page as a context for future tool calls.", readOnly: true},
			fixed[selectPageArgs](listBudget), runSelectPage),
	}
}

type noArgs struct{}

func runListPages(ctx context.Context, c *call, _ *noArgs) error {
	c.r.pages = true
	return nil
}

type selectPageArgs struct {
	PageID       int  `json:"pageId" required:"true" jsonType:"number" desc:"The ID of the page to select. Call list_pages to get available pages."`
	BringToFront bool `json:"bringToFront" desc:"Whether to focus the page and bring it to the top."`
}

func runSelectPage(ctx context.Context, c *call, a *selectPageArgs) error {
	p, err := c.pageActor(ctx, a.PageID)
	if err != nil {
		return err
	}
	if a.BringToFront {
		if err := p.BringToFront(ctx); err != nil {
			return err
		}
	}
	c.sess.selectPage(a.PageID)
	c.r.pages = true
	return nil
}

type closePageArgs struct {
	PageID int `json:"pageId" required:"true" jsonType:"number" desc:"The ID of the page to close. Call list_pages to list pages."`
}

func runClosePage(ctx context.Context, c *call, a *closePageArgs) error {
	c.r.pages = true
	// The supervisor checks, as one decision with the close, that the page
	// is the session's and is not its last one (an isolated session keeps
	// a page, as a browser keeps a window), nor the browser's.
	var mine func(browser.PageInfo) bool
	if c.sess.isolated != "" {
		mine = c.sess.owns
	}
	err := c.s.sup.ClosePageOf(ctx, a.PageID, mine)
	if errors.Is(err, browser.ErrLastPage) {
		c.r.line("The last open page cannot be closed. It is fine to keep it open.")
		return nil
	}
	return noPage(err, a.PageID)
}

// noPage words a missing page the way chrome-devtools-mcp does, with what
// to do next.
func noPage(err error, id int) error {
	if errors.Is(err, browser.ErrNoPage) {
		return &noPageError{id}
	}
	return err
}

type newPageArgs struct {
	URL             string `json:"url" required:"true" desc:"URL to load in a new page."`
	Background      bool   `json:"background" desc:"Whether to open the page in the background without bringing it to the front. Default is false (foreground)."`
	IsolatedContext string `json:"isolatedContext" desc:"If specified, the page is created in an isolated browser context with the given name. Pages in the same browser context share cookies and storage. Pages in different browser contexts are fully isolated (useful for clean-slate testing of cookies and authentication)."`
	Timeout         *int   `json:"timeout" min:"0" max:"3600000" desc:"Maximum wait time in milliseconds. If set to 0, the default timeout will be used. At most 300000 (5 minutes): a larger value is lowered to it."`
}

func runNewPage(ctx context.Context, c *call, a *newPageArgs) error {
	if err := page.CheckURL(a.URL); err != nil {
		return err
	}
	if err := c.s.cfg.Policy.Navigation(a.URL); err != nil {
		return err
	}
	opened, err := c.reservePage(ctx)
	if err != nil {
		return err
	}
	tab := 0 // the page opened for this call, 0 while none
	info, err := c.s.sup.OpenPage(ctx, a.URL, browser.OpenPageOptions{
		Background: a.Background,
		Context:    c.sess.contextName(a.IsolatedContext),
		Timeout:    millis(a.Timeout, 0),
		Opened:     func(id int) { tab = id; opened(id) },
	})
	if err != nil {
		if tab != 0 {
			c.r.pages = true // it was opened, then closed again
		}
		if ne, ok := errorsAs[*page.NavigationError](err); ok {
			return fmt.Errorf("could not load %s in a new page: %s; no page was opened", a.URL, ne.Reason)
		}
		return err
	}
	c.sess.selectPage(info.ID)
	c.r.pages = true
	return nil
}

type navigateArgs struct {
	Type               string `json:"type" enum:"url,back,forward,reload" desc:"Navigate the page by URL, back or forward in history, or reload."`
	URL                string `json:"url" desc:"Target URL (only type=url)"`
	IgnoreCache        bool   `json:"ignoreCache" desc:"Whether to ignore cache on reload."`
	HandleBeforeUnload string `json:"handleBeforeUnload" enum:"accept,dismiss" desc:"Whether to auto accept or dismiss beforeunload dialogs triggered by this navigation. Default is accept."`
	InitScript         string `json:"initScript" desc:"A JavaScript script to be executed on each new document before any other scripts for the next navigation."`
	Timeout            *int   `json:"timeout" min:"0" max:"3600000" desc:"Maximum wait time in milliseconds. If set to 0, the default timeout will be used. At most 300000 (5 minutes): a larger value is lowered to it."`
}

func runNavigate(ctx context.Context, c *call, a *navigateArgs) error {
	kind := a.Type
	if kind == "" {
		if a.URL == "" {
			return errors.New("Either URL or a type is required.")
		}
		kind = page.NavigateURL
	}
	if kind == page.NavigateURL && a.URL == "" {
		return errors.New("A URL is required for navigation of type=url.")
	}
	if kind == page.NavigateURL {
		if err := c.s.cfg.Policy.Navigation(a.URL); err != nil {
			return err
		}
	}
	if a.InitScript != "" {
		if err := c.s.cfg.Policy.Evaluation("initScript"); err != nil {
			return err
		}
	}
	res, err := c.page.Navigate(ctx, page.Navigation{
		Kind: kind, URL: a.URL, IgnoreCache: a.IgnoreCache, Timeout: millis(a.Timeout, 0),
		HandleBeforeUnload: a.HandleBeforeUnload, InitScript: a.InitScript,
	})
	c.r.pages = true
	if err != nil {
		return err
	}
	c.r.state(res.State)
	switch res.BeforeUnload {
	case "accepted":
		c.r.line("Accepted a beforeunload dialog.")
	case "dismissed":
		c.r.line("Dismissed a beforeunload dialog.")
	}
	switch kind {
	case page.NavigateURL:
		c.r.line("Successfully navigated to %s.", res.URL)
	case page.NavigateBack:
		c.r.line("Successfully navigated back to %s.", res.URL)
	case page.NavigateForward:
		c.r.line("Successfully navigated forward to %s.", res.URL)
	case page.NavigateReload:
		c.r.line("Successfully reloaded the page.")
	}
	return nil
}

type handleDialogArgs struct {
	Action      string `json:"action" required:"true" enum:"accept,dismiss" desc:"Whether to dismiss or accept the dialog"`
	PromptText  string `json:"promptText" desc:"Optional prompt text to enter into the dialog."`
	IncludeDiff bool   `json:"includeDiff" desc:"Whether to include what changed on the page since your previous snapshot of it (added, removed and changed lines with their uids), once the dialog is closed. Default is false."`
}

func runHandleDialog(ctx context.Context, c *call, a *handleDialogArgs) error {
	state, err := c.page.HandleDialog(ctx, a.Action == "accept", a.PromptText)
	if err != nil {
		return err
	}
	c.r.state(state)
	if a.Action == "accept" {
		c.r.line("Successfully accepted the dialog")
	} else {
		c.r.line("Successfully dismissed the dialog")
	}
	c.r.pages = true
	if a.IncludeDiff {
		// The snapshot runs once the renderer has resumed: what the page's
		// script does right after the dialog returns is in it.
		snap, err := axsnapshot.Take(ctx, c.page, false)
		if err != nil {
			return err
		}
		c.r.state(snap.State)
		c.showDiff(ctx, snap.Full)
		c.sess.sawSnapshot(c.pageID, snap.Seq, snap.Full)
	}
	return nil
}
