package page

import (
	"context"
	"fmt"

	"github.com/mafredri/cdp/protocol/page"
)

func handleArgs(ans dialogAnswer) *page.HandleJavaScriptDialogArgs {
	args := page.NewHandleJavaScriptDialogArgs(ans.accept)
	if ans.accept && ans.promptText != "" {
		args.SetPromptText(ans.promptText)
	}
	return args
}

// AnsweredError is returned by [Actor.HandleDialog] when no dialog is open
// and the last one evaluate_script answered was answered the other way: it
// is closed, and cannot be answered again.
type AnsweredError struct{ AnsweredDialog }

func (e *AnsweredError) Error() string {
	how := "dismissed"
	if e.Accepted {
		how = "accepted"
	}
	return fmt.Sprintf("the %s dialog was already %s by the script that opened it", e.Type, how)
}

// AgentSentence says the dialog cannot be answered again, and how to
// answer the next one the other way.
func (e *AnsweredError) AgentSentence() string {
	how, other := "accepted", "dismiss"
	if !e.Accepted {
		how, other = "dismissed", "accept"
	}
	return fmt.Sprintf("The dialog (%s: %s) was already %s by evaluate_script, as its dialogAction said, and cannot be answered again. To %s the dialogs a script opens, pass dialogAction %q to evaluate_script.", e.Type, e.Message, how, other, other)
}

// HandleDialog accepts or dismisses the open dialog; promptText answers a
// prompt when accepting. It returns [ErrNoDialog] if no dialog is open.
//
// When none is open but evaluate_script answered one since the last
// handle_dialog, as its dialogAction said, that one stands for it, as in
// chrome-devtools-mcp (which reports it as open until then): answered the
// same way, the call succeeds and changes nothing; answered the other way,
// it fails with an [*AnsweredError].
func (a *Actor) HandleDialog(ctx context.Context, accept bool, promptText string) (State, error) {
	return ask(ctx, a, func(ctx context.Context) (State, error) {
		if a.dialog == nil && a.answered != nil {
			ans := *a.answered
			if ans.Accepted != accept {
				return a.state(), &AnsweredError{ans}
			}
			a.answered = nil
			return a.state(), nil
		}
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
