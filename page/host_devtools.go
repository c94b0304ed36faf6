package page

// What the console, network and issues collectors (package page/devtools)
// need of the page's core beyond [Host]'s common methods: the sessions of
// out-of-process iframes that hold a logged object. The start-up hook
// that turns their domains on ([Enabler]) and the route's word that it
// answered a request itself ([MockRecorder]) are in slice.go.

// Child returns the session of the out-of-process iframe whose CDP session
// id is id, or nil once it is gone.
func (h *Host) Child(id string) *Session { return h.a.children.byID[id] }
