package page

// Dialogs: what capabilities read of the page's JavaScript dialogs. A
// page's WebMCP tool may open one while an invocation waits for its
// outcome (page/webmcp); a heap snapshot's wait ends at one (page/memory).

// Dialogs is the handle on the page's dialog state: [Host.Dialogs].
type Dialogs struct{ a *Actor }

// Dialogs returns the handle on the page's dialogs.
func (h *Host) Dialogs() Dialogs { return Dialogs{h.a} }

// Open returns the JavaScript dialog open on the page, or nil. Run
// goroutine only.
func (d Dialogs) Open() *Dialog { return d.a.dialogs.open }

// Mark counts the dialogs opened on the page so far: a wait compares it
// with the count it began with to tell whether one opened meanwhile
// ([Dialogs.Interrupted]). Run goroutine only.
func (d Dialogs) Mark() int { return d.a.dialogs.seq }

// Interrupted returns a [*DialogError] if a dialog opened since mark is
// still open, or [ErrCrashed] once the renderer crashed: an interrupt for
// [Host.Await] that ends a wait as [Host.Call] does.
func (d Dialogs) Interrupted(mark int) error {
	if err := d.a.dialogs.openedSince(mark); err != nil {
		return err
	}
	return d.a.crashCheck()
}
