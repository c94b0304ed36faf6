package page

// What the request routes (page/route) need of the page's core beyond
// the URL policy ([Owner.Blocked]).

// MainLoader returns the loader id of the main frame's document: it
// changes when the page navigates.
func (h *Host) MainLoader() string { return h.a.frames.mainLoader() }

// Mocked tells the network collector (a [MockRecorder]) that a route
// answered request requestID (its Network id) itself, in the words how.
func (h *Host) Mocked(requestID, url, how string) { h.a.slices.mocked(requestID, url, how) }
