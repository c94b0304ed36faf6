package page

import (
	"errors"
	"fmt"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/internal/agenterr"
)

// ErrNoSnapshot is returned when a tool needs a uid but the page has no
// snapshot yet.
var ErrNoSnapshot = errors.New("no snapshot taken on this page")

// ErrNoDialog is returned by [Actor.HandleDialog] when no dialog is open.
var ErrNoDialog = agenterr.New("no open dialog", "No open dialog found")

// ErrCrashed is returned for calls to a page whose renderer crashed.
var ErrCrashed = agenterr.New("page crashed",
	"The page's renderer crashed; other pages are unaffected. Navigate it (navigate_page) to load it again, or close it with close_page.")

// ErrClosed is the cause given to a page actor whose target went away.
var ErrClosed = agenterr.New("page closed", "The page was closed while the call ran. Call list_pages to see open pages.")

// ErrDisconnected is why a call failed when the page's DevTools connection
// closed under it, or could not be opened, and nobody said why within
// [goneWait]: rpcc's wording names sockets, not what happened.
var ErrDisconnected = agenterr.New(disconnected, "The page went away while the call ran ("+disconnected+"). Call list_pages to see open pages.")

const disconnected = "its DevTools connection was lost: the tab was closed or the browser exited"

// ErrStopped is returned, wrapped with the reason the page's actor stopped
// (such as [ErrClosed]), for a call made to a page whose actor has stopped,
// or that was still queued when it stopped. It is [actor.ErrStopped]
// itself, so it matches the error of any stopped actor.
var ErrStopped = actor.ErrStopped

// ErrBusy is returned when the page has too many calls queued. The call was
// not queued; it may be retried once some have finished. It is
// [actor.ErrBusy] itself, so it matches the error of any full actor.
var ErrBusy = actor.ErrBusy

// UIDError reports a uid that does not resolve on the page.
type UIDError struct {
	UID    string
	PageID int
	// Gone distinguishes a uid whose node was in the latest snapshot but has
	// since left the page (true) from a uid the latest snapshot never had.
	Gone  bool
	Cause error
}

func (e *UIDError) Error() string {
	if e.Gone {
		return fmt.Sprintf("element %s no longer exists on page %d: %v", e.UID, e.PageID, e.Cause)
	}
	return fmt.Sprintf("uid %q not in the latest snapshot of page %d", e.UID, e.PageID)
}

func (e *UIDError) Unwrap() error { return e.Cause }

// AgentSentence is chrome-devtools-mcp's sentence, then what to do; a
// dialog that kept the uid from resolving speaks instead.
func (e *UIDError) AgentSentence() string {
	var de *DialogError
	if errors.As(e.Cause, &de) {
		return de.AgentSentence()
	}
	if e.Gone {
		return fmt.Sprintf("Element with uid %s no longer exists on the page. Take a new snapshot (take_snapshot) and use the uids it gives.", e.UID)
	}
	return fmt.Sprintf("Element uid %q not found on page %d. Take a new snapshot (take_snapshot) and use a uid from it.", e.UID, e.PageID)
}

// DialogError is returned by tools that need the renderer while a
// JavaScript dialog blocks it, and by actions a dialog cut short.
type DialogError struct {
	Dialog Dialog
	// Cut names the action (click, fill, navigation, ...) when the dialog
	// opened before it took effect: it did not happen, or only in part.
	Cut string
}

func (e *DialogError) Error() string {
	if e.Cut != "" {
		return fmt.Sprintf("a dialog opened before the %s took effect (%s: %s)", e.Cut, e.Dialog.Type, e.Dialog.Message)
	}
	return fmt.Sprintf("a dialog is open (%s: %s)", e.Dialog.Type, e.Dialog.Message)
}

// AgentSentence names the dialog, and what it did to the action it cut
// short.
func (e *DialogError) AgentSentence() string {
	open := fmt.Sprintf("A dialog is open (%s: %s)", e.Dialog.Type, e.Dialog.Message)
	switch e.Cut {
	case "":
		return open + "."
	case "navigation":
		return open + ": the page being left opened it before the navigation finished, so the navigation has not happened yet and may complete once the dialog is handled. Handle it with handle_dialog, then take a snapshot to see which page is loaded."
	}
	return fmt.Sprintf("%s: it opened before the %s took effect, so the %s did not happen, or only in part. Handle it with handle_dialog, then check the page and retry.", open, e.Cut, e.Cut)
}

// InteractError reports an input action that failed on a resolved element:
// hidden, detached mid-action, or never given a box within the budget.
type InteractError struct {
	UID   string
	Cause error
}

func (e *InteractError) Error() string {
	return fmt.Sprintf("interact with %s: %v", e.UID, e.Cause)
}

func (e *InteractError) Unwrap() error { return e.Cause }

// AgentSentence says the element did not become interactive, and why:
// the cause's innermost message, what went wrong and not the chain of
// calls it came through, unless it is Chrome's or the channel's text
// (actOn logs that). A dialog, a uid that did not resolve or an element
// with no area speaks instead.
func (e *InteractError) AgentSentence() string {
	var de *DialogError
	var ue *UIDError
	var na *NoAreaError
	switch {
	case errors.As(e.Cause, &de):
		return de.AgentSentence()
	case errors.As(e.Cause, &ue):
		return ue.AgentSentence()
	case errors.As(e.Cause, &na):
		return na.sentence("the element with uid " + e.UID)
	}
	reason, ok := agenterr.Reason(e.Cause)
	if !ok {
		reason = "Chrome did not carry out the action's commands (tabhive's log has its answer); take a snapshot to see the page, then retry"
	}
	return fmt.Sprintf("Failed to interact with the element with uid %s. The element did not become interactive within the configured timeout.\nCause: %s", e.UID, reason)
}

// NoAreaError reports an element that is attached and has boxes, none of
// any area (a code editor's input 0 px wide), and that an action could not
// reach: it cannot take focus, or the action needs the mouse over it.
type NoAreaError struct {
	Width, Height float64 // of its first box, in CSS pixels
	x, y          float64 // its place, in its frame's viewport
}

func (e *NoAreaError) Error() string {
	return fmt.Sprintf("the element has no area (%g×%g px)", e.Width, e.Height)
}

// AgentSentence says the element cannot be reached, and what to act on
// instead.
func (e *NoAreaError) AgentSentence() string { return e.sentence("the element") }

// sentence is AgentSentence naming the element as what.
func (e *NoAreaError) sentence(what string) string {
	return fmt.Sprintf("%s has no area (%g×%g px), and cannot take focus or be reached by the mouse. Act on a visible element near it, such as its container, or use evaluate_script.", agenterr.Capitalize(what), e.Width, e.Height)
}

// NavigationError reports a navigation Chrome refused or could not complete.
// Kind is "url", "back", "forward" or "reload".
type NavigationError struct {
	Kind   string
	Reason string // as Chrome says it, e.g. "net::ERR_CONNECTION_REFUSED at http://…"
}

func (e *NavigationError) Error() string {
	return fmt.Sprintf("navigate (%s): %s", e.Kind, e.Reason)
}

// AgentSentence is chrome-devtools-mcp's sentence, with Chrome's reason.
func (e *NavigationError) AgentSentence() string {
	switch e.Kind {
	case NavigateBack, NavigateForward:
		return fmt.Sprintf("Unable to navigate %s in the selected page: %s.", e.Kind, e.Reason)
	case NavigateReload:
		return fmt.Sprintf("Unable to reload the selected page: %s.", e.Reason)
	}
	return fmt.Sprintf("Unable to navigate in the selected page: %s.", e.Reason)
}

// TimeoutError reports a page-level wait that ran out of its budget. It
// carries what was being waited for so the reply can say so.
type TimeoutError struct {
	What   string // e.g. "waiting for text"
	Budget string // e.g. "500ms"
}

func (e *TimeoutError) Error() string { return fmt.Sprintf("%s: timed out after %s", e.What, e.Budget) }

// AgentSentence is chrome-devtools-mcp's sentence.
func (e *TimeoutError) AgentSentence() string {
	return fmt.Sprintf("Timed out after waiting %s", e.Budget)
}
