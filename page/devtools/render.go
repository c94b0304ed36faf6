package devtools

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/jsfmt"
	"github.com/tabhive/tabhive/transport/tool"
)

// The console and network texts follow chrome-devtools-mcp 1.11
// (formatters/ConsoleFormatter.js, IssueFormatter.js, NetworkFormatter.js and
// McpResponse.js), checked against live replies.

// Limits of the reply text, as upstream has them.
const (
	bodyLimit      = 10000 // characters of a body shown inline
	urlLimit       = 255   // characters of a URL in a request list
	stackLineLimit = 50    // lines of a stack trace, causes included
)

// consoleSection renders the "## Console messages" listing: grouped, then
// paginated, with stack traces if asked.
func consoleSection(msgs []collectors.Message, opts collectors.PageOptions, stacks bool) string {
	out := []string{"## Console messages"}
	if len(msgs) == 0 {
		return strings.Join(append(out, "<no console messages found>"), "\n")
	}
	p := collectors.Paginate(collectors.Group(msgs), opts)
	out = append(out, tool.Pagination(p)...)
	note := false
	for _, g := range p.Items {
		out = append(out, consoleLine(g))
		if stacks && g.Type != collectors.TypeIssue && len(g.Stack) > 0 {
			note = true
			for _, l := range stackLines(g.Stack, g.MoreFrames, g.Causes) {
				out = append(out, "  "+l)
			}
		}
	}
	if note {
		out = append(out, "Note: stack trace line and column numbers use 1-based indexing")
	}
	return strings.Join(out, "\n")
}

// consoleLine is one entry of a console listing.
func consoleLine(g collectors.Grouped) string {
	if g.Type == collectors.TypeIssue {
		return fmt.Sprintf("msgid=%d [issue] %s (count: %d)", g.ID, g.Text, g.Count)
	}
	s := fmt.Sprintf("msgid=%d [%s] %s (%d args)", g.ID, g.Type, g.Text, g.ArgCount)
	if g.Times > 1 {
		s += fmt.Sprintf(" [%d times]", g.Times)
	}
	return s
}

// consoleDetail renders get_console_message's reply.
func consoleDetail(d ConsoleDetail) string {
	out := []string{fmt.Sprintf("ID: %d", d.ID)}
	if d.Type == collectors.TypeIssue {
		body := []string{d.Text}
		if len(d.IssueDetails) > 0 {
			body = append(body, "### Affected resources")
			body = append(body, d.IssueDetails...)
		}
		out = append(out, "Message: issue> "+strings.Join(body, "\n"))
		return strings.Join(out, "\n")
	}
	args := make([]string, len(d.Args))
	for i, a := range d.Args {
		args[i] = consoleArg(i, a)
	}
	// A message without text (console.log(null)) is shown by its first
	// argument, as upstream does.
	text := d.Text
	if text == "" && len(args) > 0 {
		text, args = args[0], args[1:]
	}
	out = append(out, fmt.Sprintf("Message: %s> %s", d.Type, text))
	if len(args) > 0 {
		out = append(out, "### Arguments")
		for i, a := range args {
			out = append(out, fmt.Sprintf("Arg #%d: %s", i, a))
		}
	}
	if len(d.Stack) > 0 {
		out = append(out, "### Stack trace")
		out = append(out, stackLines(d.Stack, d.MoreFrames, d.Causes)...)
		out = append(out, "Note: line and column numbers use 1-based indexing")
	}
	return strings.Join(out, "\n")
}

// consoleArg renders one argument of get_console_message.
func consoleArg(i int, a ConsoleArg) string {
	switch {
	case a.Gone:
		return fmt.Sprintf("<error: Argument %d is no longer available>", i)
	case a.Error && len(a.Stack) > 0:
		lines := append([]string{a.Text}, stackLines(a.Stack, a.MoreFrames, a.Causes)...)
		lines = append(lines, "Note: line and column numbers use 1-based indexing")
		return strings.Join(lines, "\n")
	}
	return a.Text
}

// stackLines renders a stack trace followed by its cause chain, at most 50
// lines and a count of the rest.
func stackLines(stack []collectors.CallFrame, more int, causes []collectors.Cause) []string {
	var out []string
	total := len(stack) + more
	add := func(frames []collectors.CallFrame) {
		for _, f := range frames {
			if len(out) < stackLineLimit {
				out = append(out, frameLine(f))
			}
		}
	}
	add(stack)
	for _, c := range causes {
		total += 1 + len(c.Stack) + c.MoreFrames
		if len(out) < stackLineLimit {
			out = append(out, "Caused by: "+c.Text)
		}
		add(c.Stack)
	}
	if rest := total - len(out); rest > 0 {
		out = append(out, fmt.Sprintf("... and %d more frames", rest))
	}
	return out
}

// frameLine renders one stack line as DevTools links it:
// "at fn (app.js:10:5)", 1-based; an asynchronous boundary as
// "--- setTimeout ---...".
func frameLine(f collectors.CallFrame) string {
	if f.Async != "" {
		prefix := "--- " + f.Async + " "
		return prefix + strings.Repeat("-", max(0, 40-jsfmt.Length(prefix)))
	}
	return fmt.Sprintf("at %s (%s:%d:%d)", f.Function, scriptName(f), f.Line+1, f.Column+1)
}

// scriptName is the name DevTools shows for a script in a stack line
// (UISourceCode.displayName): the URL's last path component, with its
// query if any, "(index)" for a directory; "VM<script id>" for code
// without a URL.
func scriptName(f collectors.CallFrame) string {
	if f.URL == "" {
		return "VM" + f.ScriptID
	}
	u := f.URL
	if strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") || u == "about:blank" {
		return trimEnd(u, 100)
	}
	path := u
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		path = "/"
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			path = rest[j:]
		}
	}
	path, _, _ = strings.Cut(path, "#")
	path, query, _ := strings.Cut(path, "?")
	if path == "" {
		path = "/"
	}
	// The last component, a trailing slash included ("/a/b/" is "b/").
	last := path
	if i := strings.LastIndex(path[:max(len(path)-1, 1)], "/"); i >= 0 {
		last = path[i+1:]
	}
	name := last
	if query != "" {
		name += "?" + query
	} else if dec, err := url.PathUnescape(last); err == nil {
		name = dec
	}
	if name == "" {
		return "(index)"
	}
	return trimEnd(name, 100)
}

// networkSection renders the "## Network requests" listing.
func networkSection(reqs []collectors.Request, opts collectors.PageOptions) string {
	out := []string{"## Network requests"}
	if len(reqs) == 0 {
		return strings.Join(append(out, "No requests found."), "\n")
	}
	p := collectors.Paginate(reqs, opts)
	out = append(out, tool.Pagination(p)...)
	for _, r := range p.Items {
		out = append(out, requestLine(r))
	}
	return strings.Join(out, "\n")
}

// requestLine is one request of a listing or a redirect chain; a request
// a route answered says so after it, a line upstream never has.
func requestLine(r collectors.Request) string {
	line := fmt.Sprintf("reqid=%d %s %s [%s]", r.ID, r.Method, truncate(r.URL, urlLimit), r.Status())
	if r.Mocked != "" {
		line += " (" + r.Mocked + ")"
	}
	return line
}

// requestBodies are get_network_request's bodies as rendered: inline text,
// a notice, or "Saved to <path>.".
type requestBodies struct {
	request, response string
}

// networkDetail renders get_network_request's reply.
func networkDetail(r collectors.Request, bodies requestBodies, redact bool) string {
	out := []string{
		"## Request " + r.URL,
		"Status: " + r.Status(),
		"### Request Headers",
	}
	out = append(out, headerLines(r.Headers, redact)...)
	if bodies.request != "" {
		out = append(out, "### Request Body", bodies.request)
	}
	if r.Response != nil {
		out = append(out, "### Response Headers")
		out = append(out, headerLines(r.Response.Headers, redact)...)
	}
	if bodies.response != "" {
		out = append(out, "### Response Body", bodies.response)
	}
	if r.Failed && r.Failure != "" {
		out = append(out, "### Request failed with", r.Failure)
	}
	if len(r.RedirectChain) > 0 {
		out = append(out, "### Redirect chain")
		// Newest hop first, each indented one step more, as upstream does.
		for i, hop := range slices.Backward(r.RedirectChain) {
			indent := len(r.RedirectChain) - 1 - i
			out = append(out, strings.Repeat("  ", indent)+requestLine(hop))
		}
	}
	return strings.Join(out, "\n")
}

func headerLines(hs []collectors.Header, redact bool) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		v := h.Value
		if redact && !allowedHeaders[strings.ToLower(strings.TrimSpace(h.Name))] {
			v = "<redacted>"
		}
		out[i] = "- " + h.Name + ":" + v
	}
	return out
}

// requestBodyText renders a request body inline.
func requestBodyText(body []byte, ok bool) string {
	if !ok || len(body) == 0 {
		return "<Request body not available anymore>"
	}
	return truncate(string(body), bodyLimit)
}

// responseBodyText renders a response body inline, as upstream does: text
// if it is UTF-8, else a notice.
func responseBodyText(body []byte, ok bool) string {
	switch {
	case !ok:
		return "<not available anymore>"
	case !utf8.Valid(body):
		return "<binary data>"
	case len(body) == 0:
		return "<empty response>"
	}
	return truncate(string(body), bodyLimit)
}

// truncate cuts s to limit UTF-16 code units (JavaScript's string length)
// followed by "... <truncated>".
func truncate(s string, limit int) string {
	if jsfmt.Length(s) <= limit {
		return s
	}
	return jsfmt.Prefix(s, limit) + "... <truncated>"
}

// trimEnd cuts s to max UTF-16 units, ending it with "…" if cut, as
// DevTools' trimEndWithMaxLength does.
func trimEnd(s string, max int) string {
	if jsfmt.Length(s) <= max {
		return s
	}
	return jsfmt.Prefix(s, max-1) + "…"
}

// allowedHeaders are the headers --redact-network-headers leaves alone:
// DevTools' list of headers that carry no credentials
// (NetworkRequestFormatter.allowHeader). Every other value, cookies and
// authorization included, is replaced with <redacted>.
var allowedHeaders = setOf(
	":authority", ":method", ":path", ":scheme", "a-im", "accept-ch", "accept-charset",
	"accept-datetime", "accept-encoding", "accept-language", "accept-patch", "accept-ranges",
	"accept", "access-control-allow-credentials", "access-control-allow-headers",
	"access-control-allow-methods", "access-control-allow-origin",
	"access-control-expose-headers", "access-control-max-age",
	"access-control-request-headers", "access-control-request-method", "age", "allow",
	"alt-svc", "cache-control", "connection", "content-disposition", "content-encoding",
	"content-language", "content-location", "content-range", "content-security-policy",
	"content-type", "correlation-id", "date", "delta-base", "dnt", "expect-ct", "expect",
	"expires", "forwarded", "front-end-https", "host", "http2-settings", "if-modified-since",
	"if-range", "if-unmodified-source", "im", "last-modified", "link", "location",
	"max-forwards", "nel", "origin", "permissions-policy", "pragma", "preference-applied",
	"proxy-connection", "public-key-pins", "range", "referer", "refresh", "report-to",
	"retry-after", "save-data", "sec-gpc", "server", "status", "strict-transport-security",
	"te", "timing-allow-origin", "tk", "trailer", "transfer-encoding",
	"upgrade-insecure-requests", "upgrade", "user-agent", "vary", "via", "warning",
	"www-authenticate", "x-att-deviceid", "x-content-duration", "x-content-security-policy",
	"x-content-type-options", "x-correlation-id", "x-forwarded-for", "x-forwarded-host",
	"x-forwarded-proto", "x-frame-options", "x-http-method-override", "x-powered-by",
	"x-redirected-by", "x-request-id", "x-requested-with", "x-ua-compatible",
	"x-wap-profile", "x-webkit-csp", "x-xss-protection",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
