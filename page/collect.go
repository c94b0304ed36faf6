package page

import "github.com/tabhive/tabhive/browser/cdpconn"

// collected are the events the page's collectors (console, network,
// issues) consume, beyond those the actor itself needs.
var collected = map[string]bool{}

// collect feeds one event to the page's collectors, on the actor goroutine.
func (a *Actor) collect(ev cdpconn.Event) {}
