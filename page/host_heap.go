package page

import "context"

// Life returns the page's lifetime context, which ends when its actor
// stops: a bound for work that must outlive the call that started it (the
// renderer goes on writing a heap snapshot whose call gave up). Safe from
// any goroutine.
func (h *Host) Life() context.Context { return h.a.act.Context() }

// Post runs fn on the run goroutine, among the events it applies next.
// Safe from any goroutine: it is how an Await goroutine hands back a
// change to the slice's state.
func (h *Host) Post(fn func()) { h.a.posted.Push(fn) }

// DialogMark returns a mark of the dialogs opened so far, for
// [Host.Interrupted].
func (h *Host) DialogMark() int { return h.a.dialogs.seq }

// Interrupted returns a [*DialogError] if a dialog opened since mark is
// still open, or [ErrCrashed] once the renderer crashed: an interrupt for
// [Host.Await] that ends a wait as [Host.Call] does.
func (h *Host) Interrupted(mark int) error {
	if err := h.a.dialogs.openedSince(mark); err != nil {
		return err
	}
	return h.a.crashCheck()
}
