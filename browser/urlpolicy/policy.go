package urlpolicy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrBlocked is wrapped by every error [Policy.Request], [Policy.Navigation]
// and [Policy.Evaluation] return: the server's policy refuses the URL or the
// action. The error is a [*RefusedError] whose text tells the agent why.
var ErrBlocked = errors.New("refused by the server's URL policy")

// Config is what the operator chose with tabhive's flags. The zero Config
// has no patterns and refuses file: URLs and the agent's own JavaScript;
// main sets each field from its flag and that flag's default.
type Config struct {
	// Allowed holds the --allowed-url-pattern values: if there are any,
	// only URLs that match one of them load.
	Allowed []string
	// Blocked holds the --blocked-url-pattern values: URLs that match one
	// of them do not load. Allowed and Blocked cannot both be given.
	Blocked []string
	// FileNavigations (--file-navigations) lets file: URLs load at all;
	// the patterns still apply to them.
	FileNavigations bool
	// JavaScript (--javascript-evaluation) lets agents run their own
	// JavaScript: evaluate_script, initScript, and javascript: and data:
	// URLs they ask to open.
	JavaScript bool
}

// Policy decides which URLs may load and whether agents may run their own
// JavaScript. It is immutable and safe for concurrent use. A nil *Policy
// allows everything.
type Policy struct {
	allowed         []*Pattern
	blocked         []*Pattern
	fileNavigations bool
	javaScript      bool
	// protected, if set, reports the local paths no file: URL may reach
	// (see [Policy.Protect]).
	protected func(path string) bool
	// endpoints, if set, lists the loopback ports no URL may reach (see
	// [Policy.Endpoints]).
	endpoints func() []int
}

// New compiles the patterns of cfg. It refuses a pattern [Compile] refuses,
// naming its flag, and refuses Allowed and Blocked together, as
// chrome-devtools-mcp makes the two flags conflict.
func New(cfg Config) (*Policy, error) {
	if len(cfg.Allowed) > 0 && len(cfg.Blocked) > 0 {
		return nil, errors.New("--allowed-url-pattern and --blocked-url-pattern cannot be used together (as in chrome-devtools-mcp): list what may load with --allowed-url-pattern alone, or what may not with --blocked-url-pattern alone")
	}
	p := &Policy{fileNavigations: cfg.FileNavigations, javaScript: cfg.JavaScript}
	var err error
	if p.allowed, err = compileAll("--allowed-url-pattern", cfg.Allowed); err != nil {
		return nil, err
	}
	if p.blocked, err = compileAll("--blocked-url-pattern", cfg.Blocked); err != nil {
		return nil, err
	}
	return p, nil
}

func compileAll(flag string, patterns []string) ([]*Pattern, error) {
	compiled := make([]*Pattern, 0, len(patterns))
	for _, s := range patterns {
		p, err := Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		compiled = append(compiled, p)
	}
	return compiled, nil
}

// Request decides one network request of any target, any hop of a
// redirect, as Chromium reports its URL (Fetch.requestPaused: canonical,
// without the fragment). It returns nil, or a [*RefusedError] wrapping
// [ErrBlocked].
//
// file: URLs need FileNavigations; the browser's own pages (chrome:,
// devtools:, chrome-extension: ...) and about: pages other than about:blank
// and about:srcdoc are refused; blob: URLs are decided as their origin
// (blob:https://a/uuid as https://a/) and view-source: and filesystem: URLs
// as the URL inside; data: and javascript: URLs, and blob: URLs of an opaque
// origin, are content a page already holds, so only the blocked patterns
// apply to them. Every other URL, any scheme, is decided by the patterns.
func (p *Policy) Request(rawURL string) error {
	return p.decide("Request", rawURL, rawURL, false, 0)
}

// Navigation decides a URL an agent asks a tool to open (navigate_page,
// new_page): the [Policy.Request] rules, and javascript: and data: URLs
// (and blob: URLs of an opaque origin, which hold the same kind of
// content) are refused unless JavaScript is allowed. about:blank is always
// allowed. It returns nil, or a [*RefusedError] wrapping [ErrBlocked].
//
// Navigation is a courtesy that refuses early with a clear reason: the
// patterns are enforced by Request on every request the navigation makes.
func (p *Policy) Navigation(rawURL string) error {
	return p.decide("Navigation", rawURL, rawURL, true, 0)
}

// Evaluation decides whether an agent may run its own JavaScript in a
// page; action names what asks (evaluate_script, initScript). It returns
// nil, or a [*RefusedError] wrapping [ErrBlocked] when JavaScript is not
// allowed.
func (p *Policy) Evaluation(action string) error {
	if p == nil || p.javaScript {
		return nil
	}
	return &RefusedError{Action: action, Reason: ReasonJavaScript}
}

// Intercept returns the URL globs (CDP Fetch's urlPattern syntax) of the
// requests the browser must ask [Policy.Request] about: every request when
// there are patterns; only file: requests when file: URLs are refused and
// there are none; nothing otherwise, so a policy that refuses nothing costs
// no request a round trip. The browser's own pages (chrome:, devtools:)
// and data: and blob: content are never intercepted: they load nothing
// from the network or the disk, and the tools refuse opening them.
func (p *Policy) Intercept() []string {
	switch {
	case p == nil:
		return nil
	case len(p.allowed) > 0 || len(p.blocked) > 0:
		return []string{"*"}
	case !p.fileNavigations, p.protected != nil:
		return []string{"file:*"}
	}
	return nil
}

// maxNesting bounds view-source:, blob: and filesystem: wrappers.
const maxNesting = 2

// decide applies the scheme rules to raw, then the patterns. shown is the
// URL as the caller gave it, for the error.
func (p *Policy) decide(action, shown, raw string, navigation bool, depth int) error {
	if p == nil {
		return nil
	}
	refuse := func(r Reason, scheme string) error {
		return &RefusedError{Action: action, URL: shown, Reason: r, scheme: scheme}
	}
	_, scheme, rest := cleanURL(raw)
	if scheme == "" {
		return &RefusedError{Action: action, URL: shown, Reason: ReasonInvalidURL, detail: errNoScheme.Error()}
	}
	switch scheme {
	case "view-source", "filesystem", "blob":
		if depth >= maxNesting || (scheme == "view-source" && depth > 0) {
			return &RefusedError{Action: action, URL: shown, Reason: ReasonInvalidURL, detail: scheme + ": cannot wrap another wrapped URL"}
		}
	}
	switch scheme {
	case "view-source", "filesystem":
		return p.decide(action, shown, rest, navigation, depth+1)
	case "blob":
		origin, err := blobOrigin(rest)
		switch {
		case errors.Is(err, errNonASCIIHost):
			// Its origin is a host the patterns cannot read: decide the
			// inner URL, which refuses it when there are patterns.
			return p.decide(action, shown, rest, navigation, depth+1)
		case err != nil:
			return p.decideContent(action, shown, raw, "blob", navigation)
		}
		return p.decide(action, shown, origin, navigation, depth+1)
	case "about":
		if path, _, _ := strings.Cut(strings.SplitN(rest, "#", 2)[0], "?"); path == "blank" || path == "srcdoc" {
			return nil
		}
		return refuse(ReasonAboutPage, scheme)
	case "data", "javascript":
		return p.decideContent(action, shown, raw, scheme, navigation)
	case "file":
		if !p.fileNavigations {
			return refuse(ReasonFile, scheme)
		}
		if p.protected != nil {
			u, err := parseURL(raw)
			if err != nil || p.protectedFile(&u) {
				return refuse(ReasonProtected, scheme)
			}
		}
	}
	if isInternalScheme(scheme) {
		return refuse(ReasonInternalPage, scheme)
	}
	if p.endpoint(raw) {
		return refuse(ReasonEndpoint, scheme)
	}
	return p.checkPatterns(action, shown, raw, true)
}

// decideContent decides a URL that carries its own content (data:,
// javascript:, blob: of an opaque origin): it loads nothing from anywhere,
// so the allow list does not apply, but it can run script.
func (p *Policy) decideContent(action, shown, raw, scheme string, navigation bool) error {
	if navigation && !p.javaScript {
		return &RefusedError{Action: action, URL: shown, Reason: ReasonJavaScript, scheme: scheme}
	}
	return p.checkPatterns(action, shown, raw, false)
}

// checkPatterns matches raw against the blocked patterns and, if
// useAllowList, the allowed ones.
func (p *Policy) checkPatterns(action, shown, raw string, useAllowList bool) error {
	if len(p.blocked) == 0 && (!useAllowList || len(p.allowed) == 0) {
		return nil
	}
	u, err := parseURL(raw)
	if err != nil {
		if errors.Is(err, errNonASCIIHost) {
			return &RefusedError{Action: action, URL: shown, Reason: ReasonHostNotASCII}
		}
		return &RefusedError{Action: action, URL: shown, Reason: ReasonInvalidURL, detail: err.Error()}
	}
	for _, b := range p.blocked {
		if b.matchBlocked(&u) {
			return &RefusedError{Action: action, URL: shown, Reason: ReasonBlocked, Pattern: b.String()}
		}
	}
	if !useAllowList || len(p.allowed) == 0 {
		return nil
	}
	for _, a := range p.allowed {
		if a.matchParts(&u) {
			return nil
		}
	}
	return &RefusedError{Action: action, URL: shown, Reason: ReasonNotAllowed, allowed: p.allowed}
}

// blobOrigin returns the origin of the URL inside a blob: URL as a URL
// ("https://a:8080/"), or an error if that origin is opaque (blob:null/...,
// a non-special or unparseable URL inside).
func blobOrigin(inner string) (string, error) {
	u, err := parseURL(inner)
	if err != nil {
		return "", err
	}
	if !isSpecialScheme(u.protocol) {
		return "", errors.New("opaque origin")
	}
	origin := u.protocol + "://" + u.hostname
	if u.port != "" {
		origin += ":" + u.port
	}
	return origin + "/", nil
}

// isInternalScheme reports whether scheme names the browser's own pages,
// which agents may never open: they expose the browser itself (settings,
// DevTools, extensions) rather than the web.
func isInternalScheme(scheme string) bool {
	switch scheme {
	case "chrome", "chrome-untrusted", "chrome-devtools", "devtools", "chrome-extension",
		"chrome-extension-resource", "chrome-search", "chrome-native", "chrome-error",
		"chrome-distiller", "chrome-guest", "isolated-app", "edge":
		return true
	}
	return false
}

// Reason says why a URL or an action was refused.
type Reason uint8

const (
	// ReasonInvalidURL: the URL could not be parsed (it has no scheme, or
	// is malformed and patterns would need to read it).
	ReasonInvalidURL Reason = iota + 1
	// ReasonHostNotASCII: the host is not ASCII, so the patterns cannot be
	// checked (IDNA is not supported); the punycode form is accepted.
	ReasonHostNotASCII
	// ReasonFile: a file: URL, and file: URLs are not allowed.
	ReasonFile
	// ReasonInternalPage: one of the browser's own pages (chrome:,
	// devtools:, chrome-extension: ...).
	ReasonInternalPage
	// ReasonAboutPage: an about: URL other than about:blank and about:srcdoc.
	ReasonAboutPage
	// ReasonJavaScript: the agent's own JavaScript (evaluate_script,
	// initScript, a javascript: or data: URL) and JavaScript is not allowed.
	ReasonJavaScript
	// ReasonBlocked: the URL matches a --blocked-url-pattern.
	ReasonBlocked
	// ReasonNotAllowed: the URL matches no --allowed-url-pattern.
	ReasonNotAllowed
	// ReasonProtected: a file: URL in the browser's profile or a private
	// directory of the server (see [Policy.Protect]).
	ReasonProtected
	// ReasonEndpoint: a URL of tabhive's own Lighthouse endpoint while it
	// is open (see [Policy.Endpoints]).
	ReasonEndpoint
)

// String returns a short name for the reason, fit for a log field or a
// metric label.
func (r Reason) String() string {
	switch r {
	case ReasonInvalidURL:
		return "invalid-url"
	case ReasonHostNotASCII:
		return "host-not-ascii"
	case ReasonFile:
		return "file"
	case ReasonInternalPage:
		return "internal-page"
	case ReasonAboutPage:
		return "about-page"
	case ReasonJavaScript:
		return "javascript"
	case ReasonBlocked:
		return "blocked"
	case ReasonNotAllowed:
		return "not-allowed"
	case ReasonProtected:
		return "protected"
	case ReasonEndpoint:
		return "endpoint"
	}
	return "unknown"
}

// RefusedError is the error of a refused URL or action. Its text is one
// sentence for the agent: what was refused and why, and what would allow it
// when the operator can change that.
type RefusedError struct {
	Action  string // "Navigation", "Request", or a tool or option name
	URL     string // the URL as given; "" when an action was refused
	Reason  Reason
	Pattern string // for ReasonBlocked: the pattern the URL matched

	scheme  string     // the scheme the reason is about
	detail  string     // for ReasonInvalidURL: what is wrong
	allowed []*Pattern // for ReasonNotAllowed
}

// Unwrap returns [ErrBlocked].
func (e *RefusedError) Unwrap() error { return ErrBlocked }

// Error returns the sentence for the agent, such as "Navigation to
// file:///etc/shadow refused: this server does not allow file: URLs (start
// it with --file-navigations to allow them)."
func (e *RefusedError) Error() string {
	subject := e.Action
	if e.URL != "" {
		subject += " to " + displayURL(e.URL)
	}
	return subject + " refused: " + e.why() + "."
}

// why is the reason part of the sentence.
func (e *RefusedError) why() string {
	switch e.Reason {
	case ReasonInvalidURL:
		return "it is not a valid URL (" + e.detail + "); give the full URL, such as https://example.com/"
	case ReasonHostNotASCII:
		return "its host name is not ASCII, so the URL patterns cannot be checked; write the host in its punycode (xn--) form"
	case ReasonFile:
		return "this server does not allow file: URLs (start it with --file-navigations to allow them)"
	case ReasonInternalPage:
		return e.scheme + ": URLs are the browser's own pages, which this server never opens"
	case ReasonAboutPage:
		return "of the about: URLs only about:blank and about:srcdoc may be opened"
	case ReasonJavaScript:
		switch e.scheme {
		case "":
			return "this server was started with --javascript-evaluation=false, which disables running an agent's JavaScript in pages"
		case "javascript":
			return "this server was started with --javascript-evaluation=false, which refuses javascript: URLs"
		case "data":
			return "this server was started with --javascript-evaluation=false, which refuses data: URLs (they can run script)"
		default:
			return "this server was started with --javascript-evaluation=false, which refuses " + e.scheme + ": URLs that carry their own content (they can run script)"
		}
	case ReasonBlocked:
		return "it matches --blocked-url-pattern " + strconv.Quote(e.Pattern)
	case ReasonNotAllowed:
		return "it is not allowed by any --allowed-url-pattern (allowed: " + listPatterns(e.allowed) + ")"
	case ReasonProtected:
		return "it is in the browser's profile or in a session's private directory, which no page may read, whatever --file-navigations says"
	case ReasonEndpoint:
		return "it is tabhive's own DevTools endpoint for a Lighthouse audit in progress, which no page may load"
	}
	return "the server's URL policy refuses it"
}

// listPatterns quotes the first few patterns for an error.
func listPatterns(ps []*Pattern) string {
	const shown = 5
	var b strings.Builder
	for i, p := range ps {
		if i == shown {
			fmt.Fprintf(&b, " and %d more", len(ps)-shown)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(p.String()))
	}
	return b.String()
}

// maxShownURL bounds the URL in an error: a data: URL can be megabytes.
const maxShownURL = 200

// displayURL shortens a long URL and quotes one with control characters or
// invalid UTF-8, so that the sentence stays one readable line.
func displayURL(u string) string {
	short := u
	if len(short) > maxShownURL {
		cut := maxShownURL
		for cut > 0 && !utf8.RuneStart(short[cut]) {
			cut--
		}
		short = short[:cut] + "…"
	}
	if !utf8.ValidString(u) || strings.ContainsFunc(short, func(r rune) bool { return r < 0x20 || r == 0x7F }) {
		return strconv.Quote(short)
	}
	return short
}
