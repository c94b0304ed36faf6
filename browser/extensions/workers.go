package extensions

import (
	"context"
	"errors"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/page/worker"
	"github.com/tabhive/tabhive/transport/tool"
)

// Worker returns the actor of the extension service worker id, as the
// page list names it under "## Extension Service Workers" (sw-1, ...), for
// a tool that takes a serviceWorkerId (evaluate_script,
// list_console_messages); or the sentence that says it is not there, or
// that the session may not reach it.
func Worker(ctx context.Context, c tool.Call, id string) (*worker.Worker, error) {
	if err := Allowed(c); err != nil {
		return nil, err
	}
	w, err := c.Browser().Workers().Get(ctx, id)
	if errors.Is(err, browser.ErrNoWorker) {
		return nil, errors.New("Service worker not found. Call list_pages (with --category-extensions) to see the extensions' service workers.")
	}
	return w, err
}
