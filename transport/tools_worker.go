package transport

import (
	"context"
	"errors"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/extensions"
	"github.com/tabhive/tabhive/page"
)

// Service workers as evaluate_script and list_console_messages reach them
// with serviceWorkerId: the extensions' workers the page list names under
// "## Extension Service Workers" (with --category-extensions).

// checkWorkerTarget refuses an evaluate_script that names both a page and a
// service worker, element arguments for a worker, and, where pages are
// routed and workers offered, a call that names neither.
func (c *call) checkWorkerTarget(a *evaluateArgs) error {
	surface := c.s.cfg.Surface
	switch {
	case a.ServiceWorkerID != "" && c.pageGiven:
		return errors.New("specify either a pageId or a serviceWorkerId.")
	case a.ServiceWorkerID != "" && len(a.Args) > 0:
		return errors.New("args (element uids) cannot be used when evaluating in a service worker.")
	case a.ServiceWorkerID == "" && !c.pageGiven && surface.PageIDRouting && surface.Category("extensions"):
		return errors.New("specify either a pageId or a serviceWorkerId.")
	}
	return nil
}

// worker returns the actor of service worker id, or the sentence that
// says it is not there.
func (c *call) worker(ctx context.Context, id string) (*page.Worker, error) {
	if err := extensions.Allowed(c); err != nil {
		return nil, err
	}
	w, err := c.s.sup.Worker(ctx, id)
	if errors.Is(err, browser.ErrNoWorker) {
		return nil, errors.New("Service worker not found. Call list_pages (with --category-extensions) to see the extensions' service workers.")
	}
	return w, err
}

func runWorkerEvaluate(ctx context.Context, c *call, a *evaluateArgs, source string) error {
	w, err := c.worker(ctx, a.ServiceWorkerID)
	if err != nil {
		return err
	}
	limit := inlineResultLimit(c.s.replyLimit())
	if a.FilePath != "" {
		limit = maxResultFile
	}
	res, err := w.Evaluate(ctx, source, a.Format, limit)
	if err != nil {
		var te *page.ScriptTimeoutError
		if errors.As(err, &te) {
			return &scriptTimeout{budget: c.budget}
		}
		return err
	}
	if a.FilePath != "" {
		path, err := c.sandbox(ctx).WriteFile(a.FilePath, []byte(res.JSON), ".json")
		if err != nil {
			return err
		}
		c.r.line("Script ran on page. Output saved to %s.", path)
		return nil
	}
	c.r.lines = append(c.r.lines, "Script ran on page and returned:", "```json", res.JSON, "```")
	if res.Cut {
		c.r.line("The result is %d bytes of JSON; only the first %d are shown. Pass filePath to save all of it to a file.", res.Size, len(res.JSON))
	}
	return nil
}
