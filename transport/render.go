package transport

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	kit "github.com/tabhive/tabhive/transport/tool"
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
	pending    []string
	stateLines []string     // the capabilities' parts of the page's state (what it emulates), for page-scoped tools
	dialog     *page.Dialog // the page's open dialog, for page-scoped tools
	pages      bool         // append the page list
	snapshot   *string      // "## Latest page snapshot" section
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
	r.stateLines = nil
	for _, p := range s.Parts {
		if rp, ok := p.(kit.Reported); ok {
			r.stateLines = append(r.stateLines, rp.ReplyLines()...)
		}
	}
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
	out = append(out, r.stateLines...)
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

// AgentSentence says the page did not answer within the budget, and that
// an action may still take effect.
func (e *budgetError) AgentSentence() string {
	s := fmt.Sprintf("%s did not finish within its %v budget: the page did not answer in time.", e.tool, e.budget)
	if e.action {
		s += " The action may still take effect when the page recovers."
	}
	return s
}

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

// AgentSentence says a step ran out well within the budget, and to retry.
func (e *stepTimeoutError) AgentSentence() string {
	s := fmt.Sprintf("%s stopped after %v, well within its %v budget: the browser or the page did not answer one of its steps in time (a busy machine does this).", e.tool, e.after, e.budget)
	if e.action {
		s += " The action may still take effect; take a snapshot to see."
	}
	return s + " Retry the call."
}

// nearDeadline reports whether ctx's deadline is at most the tools'
// headroom away: an inner wait bounded by the call's budget less that
// headroom has run out, not a step with a bound of its own.
func nearDeadline(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) <= overhead+2*time.Second
}

// sentence turns an error into the one sentence the agent reads (see
// [agenterr.Words]).
func sentence(err error) string {
	s, _ := agenterr.Words(err)
	return s
}

// logInternal logs an internal error (see internal) of a call with its
// whole chain, and the stack of a handler that panicked.
func (s *Server) logInternal(tool string, pageID int, err error) {
	if err == nil {
		return
	}
	if _, isInternal := agenterr.Words(err); !isInternal {
		return
	}
	ev := s.log.Error().Err(err).Str("tool", tool).Int("page", pageID)
	if pe, ok := errorsAs[*actor.PanicError](err); ok {
		ev = ev.Bytes("stack", pe.Stack)
	}
	ev.Msg("internal error; the agent was told so in one sentence")
}
