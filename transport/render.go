package transport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mafredri/cdp/rpcc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// reply collects what a tool call reports, and renders it as one text
// block in chrome-devtools-mcp's order and wording (ARCHITECTURE.md §11):
// the tool's lines, "Page navigated to", the open-dialog notice, the page
// list, the snapshot, then the error.
type reply struct {
	notice      string // the reconnect notice, first of all
	lines       []string
	navigatedTo string
	// pending is work the action caused that was not waited for, one
	// entry per kind.
	pending   []string
	emulation []string     // the page's emulated conditions, for page-scoped tools
	dialog    *page.Dialog // the page's open dialog, for page-scoped tools
	pages     bool         // append the page list
	snapshot  *string      // "## Latest page snapshot" section
	// snapshotTitle, when set, heads the snapshot section instead (a diff).
	snapshotTitle string
	savedTo       string // snapshot written to this file instead
	// sections are blocks that follow the snapshot, such as a console or
	// network listing, each already rendered.
	sections []string
	images   []*mcp.ImageContent // content blocks after the text
	// rendered is the page list render printed, for structuredContent.
	rendered []pageLine
	// workers are the extensions' service workers listed after the pages
	// (with --category-extensions).
	workers []browser.WorkerInfo

	// unfollowed says why the action's work could not be followed in the
	// page, if it could not.
	unfollowed string
	// data are a tool's own structuredContent fields, by name (such as
	// lighthouse_audit's "lighthouseResult").
	data map[string]any
}

func (r *reply) line(format string, a ...any) { r.lines = append(r.lines, fmt.Sprintf(format, a...)) }

// state records the page state a page-scoped result carries.
func (r *reply) state(s page.State) {
	r.dialog = s.Dialog
	r.emulation = emulationLines(s.Emulation)
}

// pageLine is one line of the page list.
type pageLine struct {
	info     browser.PageInfo
	selected bool
}

// render builds the tool result. err, if non-nil, becomes the final
// "Error: ..." line and marks the result as an error.
func (r *reply) render(pages []pageLine, note string, err error) *mcp.CallToolResult {
	var out []string
	if r.notice != "" {
		out = append(out, r.notice)
	}
	out = append(out, r.lines...)
	if r.navigatedTo != "" {
		out = append(out, fmt.Sprintf("Page navigated to %s.", r.navigatedTo))
	}
	if len(r.pending) > 0 {
		out = append(out, fmt.Sprintf("Still pending, not waited for: %s (set by the action, and too far ahead or running on without changing the page).", strings.Join(r.pending, "; ")))
	}
	if r.unfollowed != "" {
		out = append(out, fmt.Sprintf("The page could not be followed after the action (%s), so only a short window was waited for its effects: take a snapshot to check them.", strings.TrimSuffix(r.unfollowed, ".")))
	}
	out = append(out, r.emulation...)
	if d := r.dialog; d != nil {
		def := ""
		if d.Type == "prompt" {
			def = fmt.Sprintf(" (default value: %q)", d.DefaultPrompt)
		}
		out = append(out, "# Open dialog", fmt.Sprintf("%s: %s%s.", d.Type, d.Message, def),
			"Call handle_dialog to handle it before continuing.")
	}
	if r.pages {
		if note != "" {
			out = append(out, note)
		}
		r.rendered = pages
		if len(pages) > 0 {
			out = append(out, "## Pages")
			for _, p := range pages {
				out = append(out, formatPage(p))
			}
		}
		if len(r.workers) > 0 {
			out = append(out, "## Extension Service Workers")
			for _, w := range r.workers {
				out = append(out, w.ID+": "+w.URL)
			}
		}
	}
	if r.savedTo != "" {
		out = append(out, fmt.Sprintf("Saved snapshot to %s.", r.savedTo))
	} else if r.snapshot != nil {
		title := "## Latest page snapshot"
		if r.snapshotTitle != "" {
			title = r.snapshotTitle
		}
		out = append(out, title, *r.snapshot)
	}
	out = append(out, r.sections...)
	res := &mcp.CallToolResult{}
	if err != nil {
		res.IsError = true
		msg := sentence(err)
		if _, bare := errorsAs[*argError](err); !bare {
			msg = "Error: " + msg
		}
		out = append(out, msg)
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: strings.Join(out, "\n")}}
	for _, img := range r.images {
		res.Content = append(res.Content, img)
	}
	return res
}

// formatPage renders "<id>: <title> (<url>) [selected]", or "<id>: <url>"
// when the page has no title of its own, then the page's isolated context
// if it has one.
func formatPage(p pageLine) string {
	title := p.info.Title
	if placeholderTitle(title, p.info.URL) {
		title = ""
	}
	label := p.info.URL
	if title != "" {
		label = fmt.Sprintf("%s (%s)", truncateTitle(title, 50), p.info.URL)
	}
	s := fmt.Sprintf("%d: %s", p.info.ID, label)
	if p.selected {
		s += " [selected]"
	}
	if p.info.Context != "" {
		s += " isolatedContext=" + p.info.Context
	}
	if p.info.Crashed {
		s += " [crashed]"
	}
	return s
}

// placeholderTitle reports whether Chrome made the title up from the URL,
// as it does for pages without a <title>.
func placeholderTitle(title, url string) bool {
	if title == url {
		return true
	}
	bare := strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	return title == bare || title == strings.TrimSuffix(bare, "/")
}

func truncateTitle(t string, max int) string {
	if utf8.RuneCountInString(t) <= max {
		return t
	}
	r := []rune(t)
	return string(r[:max-3]) + "..."
}

// noPageError reports a page id that names no open page.
type noPageError struct{ id int }

func (e *noPageError) Error() string {
	return fmt.Sprintf("No page found with id %d. Call list_pages to see open pages.", e.id)
}

// budgetError is the cause of a call's context when its budget runs out.
type budgetError struct {
	tool   string
	budget time.Duration
	action bool // the tool changes the page
}

func (e *budgetError) Error() string {
	return fmt.Sprintf("%s ran out of its %v budget", e.tool, e.budget)
}

func (e *budgetError) Unwrap() error { return context.DeadlineExceeded }

// stepTimeoutError is a call that failed because a step inside it with a
// bound of its own ran out, well before the call's budget.
type stepTimeoutError struct {
	tool   string
	after  time.Duration
	budget time.Duration
	action bool
}

func (e *stepTimeoutError) Error() string {
	return fmt.Sprintf("%s: a step ran out of its own time after %v", e.tool, e.after)
}

func (e *stepTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// nearDeadline reports whether ctx's deadline is at most the tools'
// headroom away: an inner wait bounded by the call's budget less that
// headroom has run out, not a step with a bound of its own.
func nearDeadline(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) <= overhead+2*time.Second
}

// sentence turns an error into the one sentence the agent reads, in
// chrome-devtools-mcp's wording where it has one. It never includes a Go
// stack trace, nor an error chain (see internal).
func sentence(err error) string {
	s, _ := words(err)
	return s
}

// words is sentence, and whether err was an internal error (see
// internal), which the reply names without showing it.
func words(err error) (sentence string, isInternal bool) {
	if _, ok := errorsAs[*actor.PanicError](err); ok {
		return internalSentence(err), true
	}
	if s, ok := known(err); ok {
		return s, false
	}
	if internal(err) {
		return internalSentence(err), true
	}
	return ownSentence(err), false
}

// known is the sentence of an error of a type or value it knows, or of an
// argument error; ok is false for any other error.
func known(err error) (msg string, ok bool) {
	if ce, ok := errorsAs[*browser.ConnectError](err); ok {
		return ownSentence(ce), true // why, and when tabhive tries again
	}
	if rb, ok := errorsAs[*page.RedirectBlockedError](err); ok {
		why := fmt.Sprintf("route %d answered %s with a %d redirect to %s, a URL the URL policy blocks, so the request failed as blocked (net::ERR_BLOCKED_BY_CLIENT)", rb.Route, rb.URL, rb.Status, rb.Location)
		if rb.InErrorPage {
			return fmt.Sprintf("The page shows Chrome's error page, as its navigation was redirected to a URL the policy blocks: %s. Navigate it to a URL the policy allows, then retry.", why), true
		}
		cause, isInternal := words(rb.Cause)
		if isInternal {
			return fmt.Sprintf("The call failed as a request was redirected to a URL the policy blocks: %s. Change the route's Location, or remove the route with unroute_requests.", why), true
		}
		if !strings.HasSuffix(cause, ".") {
			cause += "."
		}
		return fmt.Sprintf("%s The request was redirected to a URL the policy blocks: %s. Change the route's Location, or remove the route with unroute_requests.", cause, why), true
	}
	if be, ok := errorsAs[*budgetError](err); ok {
		s := fmt.Sprintf("%s did not finish within its %v budget: the page did not answer in time.", be.tool, be.budget)
		if be.action {
			s += " The action may still take effect when the page recovers."
		}
		return s, true
	}
	if se, ok := errorsAs[*stepTimeoutError](err); ok {
		s := fmt.Sprintf("%s stopped after %v, well within its %v budget: the browser or the page did not answer one of its steps in time (a busy machine does this).", se.tool, se.after, se.budget)
		if se.action {
			s += " The action may still take effect; take a snapshot to see."
		}
		return s + " Retry the call.", true
	}
	if de, ok := errorsAs[*page.DialogError](err); ok {
		open := fmt.Sprintf("A dialog is open (%s: %s)", de.Dialog.Type, de.Dialog.Message)
		switch de.Cut {
		case "":
			return open + ".", true
		case "navigation":
			return open + ": the page being left opened it before the navigation finished, so the navigation has not happened yet and may complete once the dialog is handled. Handle it with handle_dialog, then take a snapshot to see which page is loaded.", true
		}
		return fmt.Sprintf("%s: it opened before the %s took effect, so the %s did not happen, or only in part. Handle it with handle_dialog, then check the page and retry.", open, de.Cut, de.Cut), true
	}
	if ue, ok := errorsAs[*page.UIDError](err); ok {
		// chrome-devtools-mcp's sentences, then what to do.
		if ue.Gone {
			return fmt.Sprintf("Element with uid %s no longer exists on the page. Take a new snapshot (take_snapshot) and use the uids it gives.", ue.UID), true
		}
		return fmt.Sprintf("Element uid %q not found on page %d. Take a new snapshot (take_snapshot) and use a uid from it.", ue.UID, ue.PageID), true
	}
	if na, ok := errorsAs[*page.NoAreaError](err); ok {
		what := "the element"
		if ie, ok := errorsAs[*page.InteractError](err); ok {
			what = "the element with uid " + ie.UID
		}
		return fmt.Sprintf("%s has no area (%g×%g px), and cannot take focus or be reached by the mouse. Act on a visible element near it, such as its container, or use evaluate_script.", capitalize(what), na.Width, na.Height), true
	}
	if ie, ok := errorsAs[*page.InteractError](err); ok {
		// The cause's innermost message only: what went wrong, not the
		// chain of calls it came through (logInternal logs that).
		return fmt.Sprintf("Failed to interact with the element with uid %s. The element did not become interactive within the configured timeout.\nCause: %s", ie.UID, rootCause(ie.Cause)), true
	}
	if ne, ok := errorsAs[*page.NavigationError](err); ok {
		switch ne.Kind {
		case page.NavigateBack, page.NavigateForward:
			return fmt.Sprintf("Unable to navigate %s in the selected page: %s.", ne.Kind, ne.Reason), true
		case page.NavigateReload:
			return fmt.Sprintf("Unable to reload the selected page: %s.", ne.Reason), true
		}
		return fmt.Sprintf("Unable to navigate in the selected page: %s.", ne.Reason), true
	}
	if ie, ok := errorsAs[*page.InvalidURLError](err); ok {
		return fmt.Sprintf("Invalid URL: %q. URLs must be valid according to the URL standard.", ie.URL), true
	}
	if te, ok := errorsAs[*page.TimeoutError](err); ok {
		return fmt.Sprintf("Timed out after waiting %s", te.Budget), true
	}
	if fe, ok := errorsAs[*page.FillValueError](err); ok {
		return fe.Msg, true
	}
	switch {
	case errors.Is(err, page.ErrNoFileChooser):
		return "Failed to upload file. The element could not accept the file directly, and clicking it did not trigger a file chooser.", true
	case errors.Is(err, page.ErrMultipleFiles):
		return "Multiple file uploads only work with <input type=file multiple>: give one file, or use an input that takes several.", true
	}
	if fe, ok := errorsAs[*page.UnsupportedFillError](err); ok {
		return fmt.Sprintf("fill cannot set a %s; use click, press_key or type the value into a text field.", fe.Kind), true
	}
	if se, ok := errorsAs[*page.ScriptError](err); ok {
		// chrome-devtools-mcp's "Error: boom" for an Error; another
		// class keeps its name ("Error: TypeError: x"), which upstream
		// drops.
		if msg, ok := strings.CutPrefix(se.Msg, "Error: "); ok {
			return msg, true
		}
		return se.Msg, true
	}
	if ae, ok := errorsAs[*page.AnsweredError](err); ok {
		how, other := "accepted", "dismiss"
		if !ae.Accepted {
			how, other = "dismissed", "accept"
		}
		return fmt.Sprintf("The dialog (%s: %s) was already %s by evaluate_script, as its dialogAction said, and cannot be answered again. To %s the dialogs a script opens, pass dialogAction %q to evaluate_script.", ae.Type, ae.Message, how, other, other), true
	}
	if errors.Is(err, page.ErrFramesMixed) {
		return "Elements from different frames can't be evaluated together.", true
	}
	if ke, ok := errorsAs[*page.KeyError](err); ok {
		return capitalize(ke.Error()) + ".", true
	}
	if de, ok := errorsAs[*sandbox.DeniedError](err); ok {
		return de.Error(), true
	}
	if fe, ok := errorsAs[*sandbox.DiskFullError](err); ok {
		return fe.Error(), true
	}
	if ne, ok := errorsAs[*sandbox.NotRegularError](err); ok {
		return ne.Error(), true
	}
	if he, ok := errorsAs[*heapSnapshotError](err); ok {
		return he.msg, true // upstream's words, verbatim
	}
	if se, ok := errorsAs[*page.ScreenshotError](err); ok {
		return se.Error(), true
	}
	switch {
	case errors.Is(err, page.ErrNoDialog):
		return "No open dialog found", true
	case errors.Is(err, page.ErrCrashed):
		return "The page's renderer crashed; other pages are unaffected. Navigate it (navigate_page) to load it again, or close it with close_page.", true
	case errors.Is(err, browser.ErrBrowserNotFound):
		return capitalize(browser.ErrBrowserNotFound.Error()) + ".", true
	case errors.Is(err, browser.ErrBrowserLost):
		return "The browser connection was lost. The next call starts a new browser, or reconnects to it; call list_pages to see its pages.", true
	case errors.Is(err, page.ErrClosed):
		return "The page was closed while the call ran. Call list_pages to see open pages.", true
	case errors.Is(err, page.ErrDisconnected):
		return "The page went away while the call ran (" + page.ErrDisconnected.Error() + "). Call list_pages to see open pages.", true
	case errors.Is(err, page.ErrStopped):
		return "The page went away while the call ran (" + rootCause(err) + "). Call list_pages to see open pages.", true
	case errors.Is(err, page.ErrBusy):
		return "The page has too many calls queued; wait for some to finish and retry.", true
	case errors.Is(err, context.Canceled):
		return "The call was cancelled.", true
	case errors.Is(err, context.DeadlineExceeded):
		return "The call ran out of time.", true
	}
	var ae *argError
	if errors.As(err, &ae) {
		return ae.Msg, true
	}
	return "", false
}

// internal reports whether err is an error of tabhive's machinery or the
// browser's, which no rule of sentence words and which is no sentence of
// its own: a handler that panicked, a command Chrome refused, or a chain
// of errors wrapped on their way up (a script of tabhive's that threw in
// the page, a reply that did not decode). The agent reads
// internalSentence; the chain goes to the log (see logInternal).
func internal(err error) bool {
	if _, ok := errorsAs[*actor.PanicError](err); ok {
		return true
	}
	if _, ok := errorsAs[*rpcc.ResponseError](err); ok {
		return true
	}
	if errors.Is(err, urlpolicy.ErrBlocked) {
		return false // the URL policy's sentence
	}
	if _, ok := errorsAs[*fs.PathError](err); ok {
		return false // a file the agent named: ownSentence words it
	}
	switch err.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		return true
	}
	return false
}

// internalSentence says in one sentence what an internal error did to the
// call, without the error itself.
func internalSentence(err error) string {
	if pe, ok := errorsAs[*actor.PanicError](err); ok && strings.HasPrefix(pe.Actor, "page ") {
		// The supervisor starts a fresh actor for the tab on its next
		// call; the tab itself is left as it was.
		return fmt.Sprintf("Internal error on %s (tabhive's log has the details): its actor was restarted without its snapshot, so take a new snapshot, then retry.", pe.Actor)
	}
	return "Internal error (tabhive's log has the details): the call did not complete; retry, and report it with the log if it happens again."
}

// ownSentence is the text of an error made as a sentence for the agent:
// by tabhive's own code, or the URL policy's. A file error keeps its
// outer sentence and the system's reason, not the call that failed
// ("could not write /x: permission denied").
func ownSentence(err error) string {
	msg := err.Error()
	if pe, ok := errorsAs[*fs.PathError](err); ok && strings.HasSuffix(msg, pe.Error()) {
		msg = strings.TrimSuffix(msg, pe.Error()) + pe.Err.Error()
	}
	return period(capitalize(msg))
}

// logInternal logs an internal error (see internal) of a call with its
// whole chain, and the stack of a handler that panicked.
func (s *Server) logInternal(tool string, pageID int, err error) {
	if err == nil {
		return
	}
	if _, isInternal := words(err); !isInternal {
		return
	}
	ev := s.log.Error().Err(err).Str("tool", tool).Int("page", pageID)
	if pe, ok := errorsAs[*actor.PanicError](err); ok {
		ev = ev.Bytes("stack", pe.Stack)
	}
	ev.Msg("internal error; the agent was told so in one sentence")
}

// period ends a sentence with a full stop if it has no final punctuation.
func period(s string) string {
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// rootCause is the innermost error's message.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
