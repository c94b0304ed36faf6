package page

import (
	"context"

	"github.com/mafredri/cdp/protocol/page"
)

func handleArgs(ans dialogAnswer) *page.HandleJavaScriptDialogArgs {
	args := page.NewHandleJavaScriptDialogArgs(ans.accept)
	if ans.accept && ans.promptText != "" {
		args.SetPromptText(ans.promptText)
	}
	return args
}

// HandleDialog accepts or dismisses the open dialog; promptText answers a
// prompt when accepting. It returns [ErrNoDialog] if no dialog is open.
func (a *Actor) HandleDialog(ctx context.Context, accept bool, promptText string) (State, error) {
	return ask(ctx, a, func(ctx context.Context) (State, error) {
		if a.dialog == nil {
			return a.state(), ErrNoDialog
		}
		args := handleArgs(dialogAnswer{accept: accept, promptText: promptText})
		// The frame that opened the dialog answers it: an out-of-process
		// iframe's session, or the page's.
		c := a.c
		if a.dialogSess != nil {
			c = a.dialogSess.c
		}
		err := a.act.Await(ctx, func(ctx context.Context) error {
			return c.Page.HandleJavaScriptDialog(ctx, args)
		}, nil)
		if err != nil && ctx.Err() != nil {
			return a.state(), err
		}
		// Any other error means the dialog was already closed: the goal is
		// met either way (upstream swallows it too).
		a.dialog, a.dialogSess = nil, nil
		a.stopLeftTrackers(ctx)
		return a.state(), nil
	})
}
