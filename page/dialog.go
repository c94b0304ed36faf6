package page

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mafredri/cdp/protocol/page"
)

// dialogs is what the page knows of its JavaScript dialogs. The run
// goroutine owns it. A renderer that shows a dialog is paused until it is
// answered: while one is open, a call that needs the page's JavaScript or
// layout fails at once (blocking), and one in flight ends (openedSince).
type dialogs struct {
	// open is non-nil while a dialog is open; sess is the session of the
	// frame that opened it, which must answer it. Both are set together
	// and cleared together: on Page.javascriptDialogClosed, after
	// handle_dialog, and when sess goes away.
	open *Dialog
	sess *Session
	// seq counts the dialogs opened, so that a wait can tell whether one
	// opened while it ran.
	seq int
	// opened, if non-nil, receives each dialog that opens and the client
	// of its session, for the waiter of an action that answers dialogs
	// itself (perform). Set and cleared around the action; sends never
	// block.
	opened chan openedDialog
	// answered is the last dialog evaluate_script answered as its
	// dialogAction said, kept for handle_dialog, which then succeeds as
	// chrome-devtools-mcp's does. Lifecycle: set by Evaluate; cleared by
	// handle_dialog and when another dialog opens.
	answered *AnsweredDialog
}

// opening records the dialog that opened on session s
// (Page.javascriptDialogOpening), and hands it to the action waiting for
// one, if any.
func (d *dialogs) opening(s *Session, params json.RawMessage) (Dialog, error) {
	var e page.JavascriptDialogOpeningReply
	if err := json.Unmarshal(params, &e); err != nil {
		return Dialog{}, err
	}
	dlg := Dialog{Type: string(e.Type), Message: e.Message}
	if e.DefaultPrompt != nil {
		dlg.DefaultPrompt = *e.DefaultPrompt
	}
	d.open, d.sess = &dlg, s
	d.seq++
	d.answered = nil // handle_dialog is for this one now
	if d.opened != nil {
		select {
		case d.opened <- openedDialog{c: s.c, d: dlg}:
		default:
		}
	}
	return dlg, nil
}

// closedOn forgets the open dialog if session s opened it: s reported it
// closed, or s went away, and its renderer with the dialog.
func (d *dialogs) closedOn(s *Session) {
	if d.open != nil && d.sess == s {
		d.open, d.sess = nil, nil
	}
}

// current returns a copy of the open dialog, or nil.
func (d *dialogs) current() *Dialog {
	if d.open == nil {
		return nil
	}
	dlg := *d.open
	return &dlg
}

// blocking returns a [*DialogError] while a dialog is open.
func (d *dialogs) blocking() error {
	if d.open != nil {
		return &DialogError{Dialog: *d.open}
	}
	return nil
}

// openedSince returns a [*DialogError] if a dialog opened since mark, a
// value of seq, is still open.
func (d *dialogs) openedSince(mark int) error {
	if d.seq != mark && d.open != nil {
		return &DialogError{Dialog: *d.open}
	}
	return nil
}

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
		d := &a.dialogs
		if d.open == nil && d.answered != nil {
			ans := *d.answered
			if ans.Accepted != accept {
				return a.state(), &AnsweredError{ans}
			}
			d.answered = nil
			return a.state(), nil
		}
		if d.open == nil {
			return a.state(), ErrNoDialog
		}
		args := handleArgs(dialogAnswer{accept: accept, promptText: promptText})
		// The frame that opened the dialog answers it: an out-of-process
		// iframe's session, or the page's.
		c := a.c
		if d.sess != nil {
			c = d.sess.c
		}
		err := a.act.Await(ctx, func(ctx context.Context) error {
			return c.Page.HandleJavaScriptDialog(ctx, args)
		}, nil)
		if err != nil && ctx.Err() != nil {
			return a.state(), err
		}
		// Any other error means the dialog was already closed: the goal is
		// met either way (upstream swallows it too).
		d.open, d.sess = nil, nil
		a.stopLeftTrackers(ctx)
		return a.state(), nil
	})
}
