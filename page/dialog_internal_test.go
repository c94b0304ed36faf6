package page

import (
	"errors"
	"testing"
)

// The dialog state, from events alone: no browser.
func TestDialogs(t *testing.T) {
	var d dialogs
	top, child := &Session{id: "top"}, &Session{id: "child"}
	mark := d.seq
	opened := make(chan openedDialog, 1)
	d.opened = opened
	d.answered = &AnsweredDialog{Dialog: Dialog{Type: "alert"}}
	got, err := d.opening(child, []byte(`{"url":"","frameId":"x","message":"Sure?","type":"confirm","hasBrowserHandler":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if got != (Dialog{Type: "confirm", Message: "Sure?"}) {
		t.Errorf("opening = %+v", got)
	}
	if d.answered != nil {
		t.Error("a new dialog left the one evaluate_script answered in place for handle_dialog")
	}
	if od := <-opened; od.d != got {
		t.Errorf("the waiting action got %+v, want %+v", od.d, got)
	}
	var de *DialogError
	if err := d.blocking(); !errors.As(err, &de) || de.Dialog != got {
		t.Errorf("blocking = %v, want the dialog's DialogError", err)
	}
	if err := d.openedSince(mark); err == nil {
		t.Error("openedSince(before) = nil with the dialog open")
	}
	if err := d.openedSince(d.seq); err != nil {
		t.Errorf("openedSince(now) = %v, want nil: none opened since", err)
	}
	d.closedOn(top)
	if d.current() == nil {
		t.Error("another session's close cleared the dialog")
	}
	d.closedOn(child)
	if d.current() != nil || d.blocking() != nil || d.openedSince(mark) != nil {
		t.Error("the dialog is still open after its session closed it")
	}
}
