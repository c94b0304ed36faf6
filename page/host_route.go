package page

// What the request routes (page/route) need of the page's core.

// Blocked returns why the URL policy refuses url, or nil if it allows it
// (or the page has no policy). Safe from any goroutine.
func (h *Host) Blocked(url string) error {
	if h.a.blocked == nil {
		return nil
	}
	return h.a.blocked(url)
}

// MainLoader returns the loader id of the main frame's document: it
// changes when the page navigates.
func (h *Host) MainLoader() string { return h.a.frames.mainLoader() }

// Mocked tells the network collector (a [MockRecorder]) that a route
// answered request requestID (its Network id) itself, in the words how.
func (h *Host) Mocked(requestID, url, how string) { h.a.slices.mocked(requestID, url, how) }
