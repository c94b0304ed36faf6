package page

// What the console, network and issues collectors (package page/devtools)
// need of the page's core beyond [Host]'s common methods: the sessions of
// out-of-process iframes that hold a logged object, a start-up hook to
// turn their domains on, and the route's word that it answered a request
// itself.

import "context"

// Child returns the session of the out-of-process iframe whose CDP session
// id is id, or nil once it is gone.
func (h *Host) Child(id string) *Session { return h.a.children.byID[id] }

// An Enabler is a [Slice] that turns on CDP domains of its own as its
// page starts: after the page's own (Page, Runtime, Network, ...), before
// its frame tree is read, so that what they report is complete from the
// first event. Enable runs while the page keeps applying events, on a
// goroutine of its own: it may call the browser through [Host.Client] and
// [Host.Top], and must touch no slice state. It is best effort: an error
// is logged and the page starts all the same.
type Enabler interface {
	Enable(ctx context.Context) error
}

// enableSlices runs the slices' Enable, one after the other, during init.
func (a *Actor) enableSlices(ctx context.Context) {
	for i, sl := range a.slices {
		if en, ok := sl.(Enabler); ok {
			if err := a.act.Await(ctx, en.Enable, nil); err != nil {
				a.log.Debug().Err(err).Msg("enable " + registry[i].name)
			}
		}
	}
}

// A MockRecorder is a [Slice] told of each request a route answered
// itself rather than letting it reach the network,
// so that its listing can say so. requestID is the request's CDP Network
// id, how the words the listing shows ("fulfilled by route 2").
type MockRecorder interface {
	Mocked(requestID, url, how string)
}

// mocked tells the slices that a route answered a request itself
// ([Host.Mocked]).
func (a *Actor) mocked(requestID, url, how string) {
	for _, sl := range a.slices {
		if m, ok := sl.(MockRecorder); ok {
			m.Mocked(requestID, url, how)
		}
	}
}
