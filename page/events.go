package page

// The page's CDP events, applied on the actor goroutine: frames, URL and
// execution contexts, the open dialog, a crashed renderer, and what the
// action in progress waits for (its waiter). Events the
// capabilities registered for are handed on to their slices (slice.go).

import (
	"encoding/json"

	"github.com/mafredri/cdp/protocol/page"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/waiter"
)

// events are the CDP events the actor applies; others are dropped at the
// socket.
var events = map[string]bool{
	"Page.javascriptDialogOpening":      true,
	"Page.javascriptDialogClosed":       true,
	"Page.frameNavigated":               true,
	"Page.navigatedWithinDocument":      true,
	"Page.frameStartedNavigating":       true,
	"Page.loadEventFired":               true,
	"Page.frameStoppedLoading":          true,
	"Page.frameAttached":                true,
	"Page.frameDetached":                true,
	"Runtime.executionContextCreated":   true,
	"Runtime.executionContextDestroyed": true,
	"Runtime.executionContextsCleared":  true,
	"Network.requestWillBeSent":         true,
	"Network.loadingFinished":           true,
	"Network.loadingFailed":             true,
	"Inspector.targetCrashed":           true,
	"Target.attachedToTarget":           true,
	"Target.detachedFromTarget":         true,
}

// keepEvent says which events the page's sessions queue.
func keepEvent(method string) bool {
	return events[method] || sliceEvents[method] != nil
}

// eventSource lets the actor runtime drain the page's CDP events. It is only
// used after init has set conn.
type eventSource Actor

func (s *eventSource) Ready() <-chan struct{} { return s.ready }

// Apply applies the events queued so far (drainEvents).
func (s *eventSource) Apply() { (*Actor)(s).drainEvents() }

// drainEvents applies the events of the page's own session, then those of
// each out-of-process iframe's, then the work posted by the goroutines
// that set child sessions up (after their session's events, which came
// first).
func (a *Actor) drainEvents() {
	from := func(s *Session) {
		for _, ev := range s.conn.Take() {
			if err := a.apply(s, ev); err != nil {
				a.log.Debug().Err(err).Str("method", ev.Method).Msg("undecodable event")
			}
		}
	}
	from(a.top)
	for _, c := range a.children.byID {
		if a.children.byID[c.id] == c { // not dropped by an event of this batch
			from(c)
		}
	}
	for _, fn := range a.posted.Take() {
		fn()
	}
}

// frameStartedNavigating is Page.frameStartedNavigating, which cdp v0.35.0
// does not generate.
type frameStartedNavigating struct {
	FrameID        string `json:"frameId"`
	URL            string `json:"url"`
	LoaderID       string `json:"loaderId"`
	NavigationType string `json:"navigationType"`
}

// apply updates the actor's state from one event of session s, on the
// actor goroutine: the child sessions, the dialog, the frame tree, the
// action in progress, then the slices.
func (a *Actor) apply(s *Session, ev cdpconn.Event) error {
	var err error
	switch ev.Method {
	case "Target.attachedToTarget":
		return a.children.adopt(a.act.Context(), s, ev.Params, a.slices.childSetUps)
	case "Target.detachedFromTarget":
		gone, err := a.children.detached(ev.Params)
		for _, g := range gone {
			a.dialogs.closedOn(g) // its renderer is gone, and the dialog with it
		}
		return err
	case "Page.javascriptDialogOpening":
		var d Dialog
		if d, err = a.dialogs.opening(s, ev.Params); err == nil {
			if a.hooks.DialogOpened != nil {
				a.hooks.DialogOpened()
			}
			a.log.Debug().Str("type", d.Type).Msg("dialog opened")
			if a.waiter != nil {
				a.waiter.DialogOpened(d.Type)
			}
		}
	case "Page.javascriptDialogClosed":
		a.dialogs.closedOn(s)
	case "Inspector.targetCrashed":
		if s == a.top { // only the page's session listens to Inspector
			a.crashed = true
			a.log.Warn().Msg("renderer crashed")
		}
	default:
		err = a.frames.apply(s, ev)
		if err == nil && a.waiter != nil {
			err = tellWaiter(a.waiter, s == a.top, a.frames.main, ev)
		}
	}
	if err != nil {
		return err
	}
	return a.slices.apply(s, ev)
}

// tellWaiter tells w, the post-action waiter of the action in progress,
// of an event that concerns it: the main frame's navigations and loads,
// the page's requests. top says whether the event came on the page's own
// session, mainFrame is the main frame's id.
func tellWaiter(w *waiter.Waiter, top bool, mainFrame string, ev cdpconn.Event) error {
	switch ev.Method {
	case "Page.frameStartedNavigating":
		var e frameStartedNavigating
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if top && e.FrameID == mainFrame {
			switch e.NavigationType {
			case "sameDocument", "historySameDocument":
			default:
				w.NavigationStarted()
			}
		}
	case "Page.loadEventFired":
		if top {
			w.NavigationFinished()
		}
	case "Page.frameStoppedLoading":
		var e page.FrameStoppedLoadingReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if top && string(e.FrameID) == mainFrame {
			w.NavigationFinished()
		}
	case "Network.requestWillBeSent":
		var e struct {
			RequestID        string          `json:"requestId"`
			Type             string          `json:"type"`
			RedirectResponse json.RawMessage `json:"redirectResponse"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		switch e.Type {
		case "Fetch", "XHR", "Document":
			if e.RedirectResponse == nil {
				w.RequestStarted(e.RequestID)
			}
		case "Script":
			if e.RedirectResponse == nil && top {
				w.ScriptStarted(e.RequestID)
			}
		}
	case "Network.loadingFinished", "Network.loadingFailed":
		var e struct {
			RequestID string `json:"requestId"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		w.RequestFinished(e.RequestID)
	}
	return nil
}
