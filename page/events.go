package page

// The page's CDP events, applied on the actor goroutine: frames, URL and
// execution contexts, the open dialog, a crashed renderer, and what the
// action in progress waits for (its waiter, its watch channel). Events the
// collectors consume are handed on to them (collect.go).

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
	"Input.dragIntercepted":             true,
	"Page.fileChooserOpened":            true,
}

// addFrames records a frame tree, as Page.getFrameTree returns it.
func (a *Actor) addFrames(t page.FrameTree) {
	f := a.frameOf(string(t.Frame.ID))
	if t.Frame.ParentID != nil {
		f.parent = string(*t.Frame.ParentID)
	}
	f.loaderID = string(t.Frame.LoaderID)
	f.url = t.Frame.URL
	if t.Frame.URLFragment != nil {
		f.url += *t.Frame.URLFragment
	}
	if f.id == a.mainFrame {
		a.url = f.url
	}
	for _, c := range t.ChildFrames {
		a.addFrames(c)
	}
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

func (s *eventSource) Ready() <-chan struct{} { return s.conn.Ready() }
func (s *eventSource) Apply() {
	a := (*Actor)(s)
	for _, ev := range a.conn.Take() {
		if err := a.apply(ev); err != nil {
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

// apply updates the actor's state from one event, on the actor goroutine.
func (a *Actor) apply(ev cdpconn.Event) error {
	switch ev.Method {
	case "Page.javascriptDialogOpening":
		var e page.JavascriptDialogOpeningReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		d := &Dialog{Type: string(e.Type), Message: e.Message}
		if e.DefaultPrompt != nil {
			d.DefaultPrompt = *e.DefaultPrompt
		}
		a.dialog = d
		a.dialogSeq++
		if a.hooks.DialogOpened != nil {
			a.hooks.DialogOpened()
		}
		a.log.Debug().Str("type", d.Type).Msg("dialog opened")
		if a.waiter != nil {
			a.waiter.DialogOpened(d.Type)
		}
	case "Page.javascriptDialogClosed":
		a.dialog = nil
	case "Page.frameStartedNavigating":
		var e frameStartedNavigating
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if e.FrameID == a.mainFrame && a.waiter != nil {
			switch e.NavigationType {
			case "sameDocument", "historySameDocument":
			default:
				a.waiter.NavigationStarted()
			}
		}
	case "Page.frameNavigated":
		var e page.FrameNavigatedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		f := a.frameOf(string(e.Frame.ID))
		if e.Frame.ParentID != nil {
			f.parent = string(*e.Frame.ParentID)
		} else {
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
	case "Page.navigatedWithinDocument":
		var e page.NavigatedWithinDocumentReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		f := a.frameOf(string(e.FrameID))
		f.url = e.URL
		if f.id == a.mainFrame {
			a.url = e.URL
		}
	case "Page.loadEventFired":
		if a.waiter != nil {
			a.waiter.NavigationFinished()
		}
	case "Page.frameStoppedLoading":
		var e page.FrameStoppedLoadingReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if string(e.FrameID) == a.mainFrame && a.waiter != nil {
			a.waiter.NavigationFinished()
		}
	case "Page.frameAttached":
		var e page.FrameAttachedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		a.frameOf(string(e.FrameID)).parent = string(e.ParentFrameID)
	case "Page.frameDetached":
		var e page.FrameDetachedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		delete(a.frames, string(e.FrameID))
	case "Runtime.executionContextCreated":
		var e runtime.ExecutionContextCreatedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		var aux struct {
			IsDefault bool   `json:"isDefault"`
			FrameID   string `json:"frameId"`
		}
		json.Unmarshal(e.Context.AuxData, &aux)
		if aux.IsDefault && aux.FrameID != "" {
			a.frameOf(aux.FrameID).context = e.Context.ID
		}
	case "Runtime.executionContextDestroyed":
		var e runtime.ExecutionContextDestroyedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		for _, f := range a.frames {
			if f.context == e.ExecutionContextID {
				f.context = 0
			}
		}
	case "Runtime.executionContextsCleared":
		for _, f := range a.frames {
			f.context = 0
		}
	case "Network.requestWillBeSent":
		if a.waiter == nil {
			break // still collected below
		}
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
				a.waiter.RequestStarted(e.RequestID)
			}
		}
	case "Network.loadingFinished", "Network.loadingFailed":
		if a.waiter == nil {
			break // still collected below
		}
		var e struct {
			RequestID string `json:"requestId"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		a.waiter.RequestFinished(e.RequestID)
	case "Inspector.targetCrashed":
		a.crashed = true
		a.log.Warn().Msg("renderer crashed")
	case "Input.dragIntercepted", "Page.fileChooserOpened":
		if a.watch != nil {
			select {
			case a.watch <- ev:
			default:
			}
		}
	}
	if collected[ev.Method] {
		a.collect(ev)
	}
	return nil
}
