// Package urlpolicy decides which URLs tabhive's browser may load and
// whether agents may run their own JavaScript, from chrome-devtools-mcp's
// flags: --allowed-url-pattern, --blocked-url-pattern, --file-navigations
// and --javascript-evaluation. It matches URLs against WHATWG URLPattern
// patterns (https://urlpattern.spec.whatwg.org/), compiled to Go.
//
// The package is pure: it does no I/O and holds no state after [New]. The
// browser supervisor asks [Policy.Request] about every network request of
// every target; the tools ask [Policy.Navigation] about URLs agents want to
// open and [Policy.Evaluation] before running an agent's script.
//
//	pol, err := urlpolicy.New(urlpolicy.Config{
//		Blocked:    []string{"*://evil.test/*", "http://127.0.0.1:*/json/*"},
//		JavaScript: true,
//	})
//	if err != nil {
//		return err // a pattern that is invalid or cannot be enforced
//	}
//	if err := pol.Request("http://evil.test/x"); err != nil {
//		// err wraps ErrBlocked; its text is a sentence for the agent:
//		// Request to http://evil.test/x refused: it matches
//		// --blocked-url-pattern "*://evil.test/*".
//	}
//
// # Patterns
//
// A pattern is a URL whose components may hold pattern syntax, written as
// URLPattern's constructor string: "https://*.example.com/*",
// "http://127.0.0.1:*/api/*", "file:///tmp/*", "*://evil.test/*",
// "http{s}?://example.com/:path*". In each component:
//
//   - "*" matches anything (in the hostname and pathname too: "*.example.com"
//     matches "a.b.example.com");
//   - ":name" matches one segment: up to the next "." in the hostname, "/" in
//     the pathname;
//   - "(regexp)" matches a regular expression, JavaScript syntax;
//   - "{...}" groups text, and "?", "*" or "+" after a group makes it
//     optional or repeated ("{www.}?example.com");
//   - "\" escapes a character ("data\:*" is the scheme data with any content:
//     a bare ":" would start a name).
//
// A component the string leaves out is a wildcard, with the spec's rules:
// "https://example.com" matches any path, query and fragment; a username
// and password match anything unless given; a pattern that names a host but
// no port means the scheme's default port, so "https://example.com/*" does
// not match "https://example.com:8443/" (write "https://example.com:*/*"
// for any port). That holds for blocked patterns too: "*://evil.test/*"
// blocks evil.test on ports 80 and 443 only; "*://evil.test:*/*" blocks
// every port. Protocol and hostname are lowercased; the rest is
// case-sensitive. Fixed text is canonicalized like a URL ("HTTP" becomes
// "http", a space in a path "%20").
//
// [Compile] refuses a pattern without a scheme (there is no base URL to
// complete it), one whose scheme is empty or a host by mistake
// ("://a/*", "localhost:9222"), which would match nothing, an empty one, and one the spec refuses, each with a sentence that says
// why.
//
// Paths are compared as the URL spells them, after canonicalization but
// without decoding: a blocked "https://example.com/admin/*" does not match
// "https://example.com/%61dmin/", which a server may well read as /admin/.
// Block or allow whole hosts where it matters.
//
// # Enforceable patterns
//
// Requests carry no #fragment, so a pattern whose hash component is
// anything but a wildcard ("https://a/#top") could never be checked on a
// redirect or a subresource: [Compile] refuses it. Username and password
// are matched: Chromium reports them in request URLs, and subresources of a
// page loaded with credentials inherit them.
//
// # Decisions
//
// [Policy.Request] and [Policy.Navigation] apply these rules, in order:
//
//   - view-source:X and filesystem:X are decided as X; blob:X as the origin
//     of X ("blob:https://a/uuid" as "https://a/"), or, when that origin is
//     opaque ("blob:null/uuid"), like data:;
//   - about:blank and about:srcdoc are allowed; other about: URLs refused;
//   - data: and javascript: URLs carry their own content and load nothing:
//     Navigation refuses them unless JavaScript is allowed (a data: page can
//     run script), and only the blocked patterns apply to them;
//   - file: URLs are refused unless FileNavigations is set;
//   - the browser's own pages (chrome:, chrome-untrusted:, devtools:,
//     chrome-extension:, chrome-search: and the like) are always refused,
//     chrome://newtab included: about:blank is the blank page;
//   - everything else, any scheme (http, https, ws, wss, file, ...), is
//     refused if it matches a blocked pattern or, when there are allowed
//     patterns, matches none of them.
//
// A blocked pattern that names a loopback host covers the other spellings
// of the machine: when a URL's host is a loopback alias (localhost and
// *.localhost in any case, with or without a trailing dot, the hosts
// file's loopback names, 127.0.0.0/8 in any numeric form, 0.0.0.0, [::1],
// [::] and the IPv4-mapped forms), a blocked pattern is also matched with
// the host spelt localhost, 127.0.0.1 and [::1]; so "*://127.0.0.1:9402/*"
// blocks http://LOCALHOST.:9402/ and http://[::ffff:127.0.0.1]:9402/ too.
// Port, path and the rest still apply. Names that reach the machine
// through DNS are not seen: the policy resolves no names. Allowed patterns
// are not widened this way.
//
// The patterns are literal: an allow list of "https://example.com/*" does
// not allow the site's WebSockets (add "wss://example.com/*", or write
// "*://example.com/*"), nor blob: URLs unless it matches the origin's root.
//
// # Spec corners left out
//
//   - Host names outside ASCII: mapping them to punycode needs IDNA tables
//     this package does not carry. A pattern must spell such a host in its
//     xn-- form; a URL with such a host matches no pattern (Chromium's URLs
//     are always in xn-- form, so requests are unaffected).
//   - The URLPatternInit dictionary form, base URLs (relative patterns),
//     the ignoreCase option, and the groups of exec: the flags need none.
//   - Regexp groups run on Go's RE2: lookahead, lookbehind and
//     backreferences are refused, as are the "v" flag's class set operations
//     ("[\w--\d]", "[a&&b]", "\q{...}"), negated classes inside classes, and
//     Unicode properties other than general categories and scripts.
//     JavaScript's "." and "\s" differ from RE2's only on line terminators
//     and Unicode spaces, which canonical URL components never hold.
//
// Deliberate differences from the spec, each to make a pattern mean what
// its author plainly meant or to refuse it:
//
//   - a hostname pattern that is one fixed text is canonicalized as a whole
//     host ("127.1" and "0x7f.1" become "127.0.0.1", "[0\:0\:\:1]" becomes
//     "[::1]"), so that it matches the URLs Chromium reports; a partial one
//     is not, so "http://10.0.0.*" keeps matching 10.0.0.5 where the spec
//     would turn it into "10.0.0.0*";
//   - a hostname piece holding "/", "?", "#" or "\" (possible only escaped
//     or inside "{...}") is refused where the spec would cut the host there;
//   - a port piece must be digits (the spec ignores what follows them), and
//     is not compared with https's default port the way the spec's dummy URL
//     does ("http://a:443/" keeps its port), while a port that is the
//     pattern's own scheme's default in another spelling ("http://a:080/")
//     is dropped;
//   - a protocol piece must be scheme text;
//   - the path percent-encode set is Chromium's, which also encodes "|" and
//     "^", so that patterns agree with the URLs Chromium reports.
//
// # Cost
//
// [Policy.Request] parses the URL once and matches every pattern against
// its components. Most components are a wildcard, fixed text, or fixed text
// around "*" and are matched without a regexp; only ":name", modifiers and
// regexp groups use Go's regexp package. Matching a URL against 20 typical
// patterns takes about a microsecond (BenchmarkRequest).
package urlpolicy
