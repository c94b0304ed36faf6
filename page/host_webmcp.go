package page

// What the WebMCP capability (page/webmcp) reads of the page's dialogs: a
// page's tool may open one while an invocation waits for its outcome.

// Dialog returns the JavaScript dialog open on the page, or nil. Run
// goroutine only.
func (h *Host) Dialog() *Dialog { return h.a.dialogs.open }

// DialogSeq counts the dialogs opened on the page so far: a wait compares
// it with the count it began with to tell whether one opened meanwhile.
// Run goroutine only.
func (h *Host) DialogSeq() int { return h.a.dialogs.seq }
