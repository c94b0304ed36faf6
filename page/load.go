package page

import (
	"context"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/page/js"
)

// WaitLoaded waits, under ctx, until the main frame's document has
// finished loading, as a page another program opened (a launched web
// app's window) is reported once it has. It asks in an isolated world,
// which the page's scripts cannot answer for. A document replaced
// meanwhile ends the wait with an error.
func (a *Actor) WaitLoaded(ctx context.Context) error {
	_, err := ask(ctx, a, func(ctx context.Context) (struct{}, error) {
		if err := a.needRenderer(); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, a.call(ctx, func(ctx context.Context) error {
			w, err := a.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(a.frames.main)).SetWorldName("tabhive-load"))
			if err != nil {
				return err
			}
			_, err = a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.Loaded).SetContextID(w.ExecutionContextID).SetAwaitPromise(true).SetReturnByValue(true))
			return err
		})
	})
	return err
}
