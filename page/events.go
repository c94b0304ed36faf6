package page

// The page's CDP events, applied on the actor goroutine: frames, URL and
// execution contexts, the open dialog, a crashed renderer, and what the
// action in progress waits for (its waiter). Events the
// capabilities registered for are handed on to their slices (slice.go).

import (
	"encoding/json"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/internal/cdpconn"
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

// addFrames records a frame tree, as Page.getFrameTree on session s returns
// it. A parent's tree also lists the frames of its out-of-process iframes;
// those stay with the child session that reaches them.
func (a *Actor) addFrames(s *Session, t page.FrameTree) {
	f := a.frameOf(string(t.Frame.ID))
	if f.sess == nil || !below(f.sess, s) {
		f.sess = s
	}
	if t.Frame.ParentID != nil {
		f.parent = string(*t.Frame.ParentID)
	}
	// A child session's tree is read before its renderer runs, and applied
	// after the events that session sent meanwhile: a navigation it
	// reported is newer than the tree.
	if f.navigatedOn != s {
		f.loaderID = string(t.Frame.LoaderID)
		f.url = t.Frame.URL
		if t.Frame.URLFragment != nil {
			f.url += *t.Frame.URLFragment
		}
	}
	if f.id == a.mainFrame {
		a.url = f.url
	}
	for _, c := range t.ChildFrames {
		a.addFrames(s, c)
	}
}

// below reports whether session c is attached under s, at any depth.
func below(c, s *Session) bool {
	for p := c.parent; p != nil; p = p.parent {
		if p == s {
			return true
		}
	}
	return false
}

func (a *Actor) frameOf(id string) *frame {
	f := a.frames[id]
	if f == nil {
		f = &frame{id: id}
		a.frames[id] = f
	}
	return f
}

// eventSource lets the actor runtime drain the page's CDP events. It is only
// used after init has set conn.
type eventSource Actor

func (s *eventSource) Ready() <-chan struct{} { return s.ready }

// Apply applies the events of the page's own session, then those of each
// out-of-process iframe's, then the work posted by the goroutines that set
// child sessions up (after their session's events, which came first).
func (s *eventSource) Apply() {
	a := (*Actor)(s)
	a.applyFrom(a.top)
	for _, c := range a.children {
		if a.children[c.id] == c { // not dropped by an event of this batch
			a.applyFrom(c)
		}
	}
	for _, fn := range a.posted.Take() {
		fn()
	}
}

// drainEvents applies the events queued so far.
func (a *Actor) drainEvents() { (*eventSource)(a).Apply() }

func (a *Actor) applyFrom(s *Session) {
	for _, ev := range s.conn.Take() {
		if err := a.apply(s, ev); err != nil {
			a.log.Debug().Err(err).Str("method", ev.Method).Msg("undecodable event")
		}
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
// actor goroutine.
func (a *Actor) apply(s *Session, ev cdpconn.Event) error {
	var err error
	switch ev.Method {
	case "Target.attachedToTarget":
		return a.attached(s, ev.Params)
	case "Target.detachedFromTarget":
		return a.detached(ev.Params)
	case "Page.javascriptDialogOpening":
		err = a.dialogOpening(s, ev.Params)
	case "Page.javascriptDialogClosed":
		if a.dialogSess == s {
			a.dialog, a.dialogSess = nil, nil
		}
	case "Page.frameStartedNavigating":
		err = a.frameStartedNavigating(s, ev.Params)
	case "Page.frameNavigated":
		err = a.frameNavigated(s, ev.Params)
	case "Page.navigatedWithinDocument":
		err = a.navigatedWithinDocument(s, ev.Params)
	case "Page.loadEventFired":
		if s == a.top && a.waiter != nil {
			a.waiter.NavigationFinished()
		}
	case "Page.frameStoppedLoading":
		err = a.frameStoppedLoading(s, ev.Params)
	case "Page.frameAttached":
		err = a.frameAttached(s, ev.Params)
	case "Page.frameDetached":
		err = a.frameDetached(s, ev.Params)
	case "Runtime.executionContextCreated":
		err = a.contextCreated(s, ev.Params)
	case "Runtime.executionContextDestroyed":
		err = a.contextDestroyed(s, ev.Params)
	case "Runtime.executionContextsCleared":
		for _, f := range a.frames {
			if a.sessionOf(f.id) == s {
				f.context = 0
			}
		}
	case "Network.requestWillBeSent":
		err = a.requestWillBeSent(s, ev.Params)
	case "Network.loadingFinished", "Network.loadingFailed":
		err = a.loadingEnded(s, ev.Params)
	case "Inspector.targetCrashed":
		if s != a.top {
			break // only the page's session listens to Inspector
		}
		a.crashed = true
		a.log.Warn().Msg("renderer crashed")
	}
	if err != nil {
		return err
	}
	return a.applySlices(s, ev)
}

// dialogOpening records the dialog that opened on session s and tells those waiting for one.
func (a *Actor) dialogOpening(s *Session, params json.RawMessage) error {
	var e page.JavascriptDialogOpeningReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	d := &Dialog{Type: string(e.Type), Message: e.Message}
	if e.DefaultPrompt != nil {
		d.DefaultPrompt = *e.DefaultPrompt
	}
	a.dialog, a.dialogSess = d, s
	a.dialogSeq++
	a.answered = nil // handle_dialog is for this one now
	if a.dialogOpened != nil {
		select {
		case a.dialogOpened <- openedDialog{c: s.c, d: *d}:
		default:
		}
	}
	if a.hooks.DialogOpened != nil {
		a.hooks.DialogOpened()
	}
	a.log.Debug().Str("type", d.Type).Msg("dialog opened")
	if a.waiter != nil {
		a.waiter.DialogOpened(d.Type)
	}
	return nil
}

// frameStartedNavigating tells the waiter that the main frame started a navigation to another document.
func (a *Actor) frameStartedNavigating(s *Session, params json.RawMessage) error {
	var e frameStartedNavigating
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	if s == a.top && e.FrameID == a.mainFrame && a.waiter != nil {
		switch e.NavigationType {
		case "sameDocument", "historySameDocument":
		default:
			a.waiter.NavigationStarted()
		}
	}
	return nil
}

// frameNavigated records a frame's new document, as session s reports it.
func (a *Actor) frameNavigated(s *Session, params json.RawMessage) error {
	var e page.FrameNavigatedReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	f := a.frameOf(string(e.Frame.ID))
	// Whichever session reports a frame's navigation reaches it now: an
	// iframe that came back into its parent's process is the
	// parent's again.
	f.sess, f.navigatedOn = s, s
	if e.Frame.ParentID != nil {
		f.parent = string(*e.Frame.ParentID)
	} else if s == a.top {
		a.mainFrame = f.id
	}
	f.loaderID = string(e.Frame.LoaderID)
	f.url = e.Frame.URL
	if e.Frame.URLFragment != nil {
		f.url += *e.Frame.URLFragment
	}
	if f.id == a.mainFrame {
		a.url = f.url
	}
	return nil
}

// navigatedWithinDocument records a frame's new URL within its document.
func (a *Actor) navigatedWithinDocument(s *Session, params json.RawMessage) error {
	var e page.NavigatedWithinDocumentReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	f := a.frameOf(string(e.FrameID))
	f.url = e.URL
	if f.id == a.mainFrame {
		a.url = e.URL
	}
	return nil
}

// frameStoppedLoading tells the waiter that the main frame stopped loading.
func (a *Actor) frameStoppedLoading(s *Session, params json.RawMessage) error {
	var e page.FrameStoppedLoadingReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	if s == a.top && string(e.FrameID) == a.mainFrame && a.waiter != nil {
		a.waiter.NavigationFinished()
	}
	return nil
}

// frameAttached records a new frame's parent.
func (a *Actor) frameAttached(s *Session, params json.RawMessage) error {
	var e page.FrameAttachedReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	a.frameOf(string(e.FrameID)).parent = string(e.ParentFrameID)
	return nil
}

// frameDetached forgets a frame that went away.
func (a *Actor) frameDetached(s *Session, params json.RawMessage) error {
	var e page.FrameDetachedReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	// A frame swapped into another process (reason "swap") lives on
	// under the session that attaches to it.
	if e.Reason != "swap" {
		delete(a.frames, string(e.FrameID))
	}
	return nil
}

// contextCreated records the default execution context of a frame on session s.
func (a *Actor) contextCreated(s *Session, params json.RawMessage) error {
	var e runtime.ExecutionContextCreatedReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	var aux struct {
		IsDefault bool   `json:"isDefault"`
		FrameID   string `json:"frameId"`
	}
	json.Unmarshal(e.Context.AuxData, &aux)
	if aux.IsDefault && aux.FrameID != "" {
		f := a.frameOf(aux.FrameID)
		f.context, f.sess = e.Context.ID, s
	}
	return nil
}

// contextDestroyed forgets an execution context of session s.
func (a *Actor) contextDestroyed(s *Session, params json.RawMessage) error {
	var e runtime.ExecutionContextDestroyedReply
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	// Context ids are per renderer: only s's frames can hold this one.
	for _, f := range a.frames {
		if f.context == e.ExecutionContextID && a.sessionOf(f.id) == s {
			f.context = 0
		}
	}
	return nil
}

// requestWillBeSent tells the waiter of a request the page sent.
func (a *Actor) requestWillBeSent(s *Session, params json.RawMessage) error {
	if a.waiter == nil {
		return nil // the collectors still apply it (page/devtools)
	}
	var e struct {
		RequestID        string          `json:"requestId"`
		Type             string          `json:"type"`
		RedirectResponse json.RawMessage `json:"redirectResponse"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	switch e.Type {
	case "Fetch", "XHR", "Document":
		if e.RedirectResponse == nil {
			a.waiter.RequestStarted(e.RequestID)
		}
	case "Script":
		if e.RedirectResponse == nil && s == a.top {
			a.waiter.ScriptStarted(e.RequestID)
		}
	}
	return nil
}

// loadingEnded tells the waiter that a request ended.
func (a *Actor) loadingEnded(s *Session, params json.RawMessage) error {
	if a.waiter == nil {
		return nil // the collectors still apply it (page/devtools)
	}
	var e struct {
		RequestID string `json:"requestId"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	a.waiter.RequestFinished(e.RequestID)
	return nil
}
