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
func (h *Host) Mocked(requestID, url, how string) { h.a.mocked(requestID, url, how) }

// An Explainer is a [Slice] that may know better why a call to the page
// failed (a route redirected one of its requests to a URL the policy
// blocks). CallStarts runs on the run goroutine as each call starts; the
// function it returns, if not nil, runs there when the call failed (not
// by its connection closing) and returns the call's error, or one that
// explains it and wraps it.
type Explainer interface {
	CallStarts() func(err error) error
}

// callStarts collects what the slices that explain errors need to know of
// a call that starts.
func (a *Actor) callStarts() []func(error) error {
	var fns []func(error) error
	for _, sl := range a.slices {
		if ex, ok := sl.(Explainer); ok {
			if fn := ex.CallStarts(); fn != nil {
				fns = append(fns, fn)
			}
		}
	}
	return fns
}

// explain passes a failed call's error through the slices' explanations.
func explain(err error, fns []func(error) error) error {
	for _, fn := range fns {
		err = fn(err)
	}
	return err
}
