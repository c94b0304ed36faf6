// Package input is a page's input capability: what a user does with the
// mouse and the keyboard (click, click_at, hover, drag, press_key,
// type_text), setting form fields (fill, fill_form), uploading files to an
// element (upload_file), and the tools that do it.
//
// The cut: the post-action waiter (page/wait.go, page/tracker.go) and the
// resolution of a uid to an element (page/input.go) stay in the page's
// core, as services of [page.Elements] (Element, OnElement, ActOn, Act,
// FinishInput, reached through [page.Host.Elements]), because navigation,
// evaluate_script and screenshots wait or resolve elements too; what an
// input action does (which events it dispatches, which element it
// resolves, what it answers) is here.
//
// The capability's per-page state is the watch of the action in progress
// on the events it waits for (Input.dragIntercepted,
// Page.fileChooserOpened). It starts no goroutine; its actions run on the
// page's run goroutine (through [page.Do]) and on the waiter's.
package input

import (
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
)

// Slice is the input capability on one page: the page's Host, through
// which its actions run, and the watch of the action in progress.
type Slice struct {
	h *page.Host
	// watch, if non-nil, receives the events the action in progress waits
	// for. Set and cleared around the action; sends never block.
	watch chan cdpconn.Event
}

var key = page.Register(page.Capability[*Slice]{
	Name:   "input",
	Events: []string{"Input.dragIntercepted", "Page.fileChooserOpened"},
	New:    func(h *page.Host) *Slice { return &Slice{h: h} },
})

// Apply hands the event to the action in progress that waits for it, if
// any; an action that is not reading drops it.
func (s *Slice) Apply(_ *page.Session, ev cdpconn.Event) error {
	if s.watch != nil {
		select {
		case s.watch <- ev:
		default:
		}
	}
	return nil
}

// watching makes the action in progress receive the events the slice
// applies, until the returned stop. It runs on the run goroutine.
func (s *Slice) watching() (events <-chan cdpconn.Event, stop func()) {
	ch := make(chan cdpconn.Event, 4)
	s.watch = ch
	return ch, func() { s.watch = nil }
}
