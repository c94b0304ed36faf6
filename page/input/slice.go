// Package input is a page's input capability: uploading files to an
// element (upload_file), through a file input or the file chooser a click
// opens, and the tools that do it.
//
// The cut: the post-action waiter (page/wait.go, page/tracker.go) stays
// in the page's core, as a service of [page.Host] (Host.ActOn,
// Host.FinishInput, Host.Watch), because navigation and evaluate_script
// wait after their actions too; what an input action does (which events
// it dispatches, which element it resolves, what it answers) moves here.
// Upload is the first action moved; click, hover, keys, fill and drag are
// still methods of [page.Actor] and follow.
//
// The capability has no per-page state of its own: its [Slice] only holds
// the page's Host. It starts no goroutine; its actions run on the page's
// run goroutine (through [page.Do]) and on the waiter's.
package input

import (
	"github.com/tabhive/tabhive/page"
)

// Slice is the input capability on one page: the page's Host, through
// which its actions run.
type Slice struct{ h *page.Host }

var key = page.Register(page.Capability[*Slice]{
	Name: "input",
	New:  func(h *page.Host) *Slice { return &Slice{h: h} },
})
