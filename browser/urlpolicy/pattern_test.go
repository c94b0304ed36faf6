package urlpolicy

import (
	"regexp"
	"strings"
	"testing"
)

// The cases below restate facts of the URLPattern spec and of its public
// web-platform-tests data (urlpatterntestdata.json) as tables of our own,
// plus the cases an allow or block list depends on.

func TestCompileComponents(t *testing.T) {
	tests := []struct {
		pattern string
		want    Components
	}{
		{"https://example.com:8080/foo?bar#baz", Components{"https", "*", "*", "example.com", "8080", "/foo", "bar", "baz"}},
		{"https://example.com", Components{"https", "*", "*", "example.com", "", "*", "*", "*"}},
		{"https://example.com/", Components{"https", "*", "*", "example.com", "", "/", "*", "*"}},
		{"https://example.com?foo", Components{"https", "*", "*", "example.com", "", "/", "foo", "*"}},
		{"https://example.com#foo", Components{"https", "*", "*", "example.com", "", "/", "", "foo"}},
		{"https://example.com:8080?foo", Components{"https", "*", "*", "example.com", "8080", "/", "foo", "*"}},
		{"https://example.com:8080#foo", Components{"https", "*", "*", "example.com", "8080", "/", "", "foo"}},
		{"https://example.com/*?foo", Components{"https", "*", "*", "example.com", "", "/*?foo", "*", "*"}},
		{`https://example.com/*\?foo`, Components{"https", "*", "*", "example.com", "", "/*", "foo", "*"}},
		{"https://example.com/:name?foo", Components{"https", "*", "*", "example.com", "", "/:name?foo", "*", "*"}},
		{`https://example.com/:name\?foo`, Components{"https", "*", "*", "example.com", "", "/:name", "foo", "*"}},
		{"https://example.com/(bar)?foo", Components{"https", "*", "*", "example.com", "", "/(bar)?foo", "*", "*"}},
		{`https://example.com/(bar)\?foo`, Components{"https", "*", "*", "example.com", "", "/(bar)", "foo", "*"}},
		{"https://example.com/{bar}?foo", Components{"https", "*", "*", "example.com", "", "/{bar}?foo", "*", "*"}},
		{`https://example.com/{bar}\?foo`, Components{"https", "*", "*", "example.com", "", "/bar", "foo", "*"}},
		{"http{s}?://{*.}?example.com/:product/:endpoint", Components{"http{s}?", "*", "*", "{*.}?example.com", "", "/:product/:endpoint", "*", "*"}},
		{`data\:foobar`, Components{"data", "*", "*", "", "", "foobar", "*", "*"}},
		{"data:", Components{"data", "*", "*", "", "", "", "*", "*"}},
		{"javascript:*", Components{"javascript", "*", "*", "", "", "*", "*", "*"}},
		{"https://{sub.}?example.com/foo", Components{"https", "*", "*", "{sub.}?example.com", "", "/foo", "*", "*"}},
		{"https://(sub.)?example.com/foo", Components{"https", "*", "*", "(sub.)?example.com", "", "/foo", "*", "*"}},
		{"https://(sub.)?example(.com/)foo", Components{"https", "*", "*", "(sub.)?example(.com/)foo", "", "*", "*", "*"}},
		{"https://(sub(?:.))?example.com/foo", Components{"https", "*", "*", "(sub(?:.))?example.com", "", "/foo", "*", "*"}},
		{"file:///foo/bar", Components{"file", "*", "*", "", "", "/foo/bar", "*", "*"}},
		{"foo://bar", Components{"foo", "*", "*", "bar", "", "*", "*", "*"}},
		{`https://foo\:bar@example.com`, Components{"https", "foo", "bar", "example.com", "", "*", "*", "*"}},
		{"https://foo@example.com", Components{"https", "foo", "*", "example.com", "", "*", "*", "*"}},
		{`https://\:bar@example.com`, Components{"https", "", "bar", "example.com", "", "*", "*", "*"}},
		{"https://:user::pass@example.com", Components{"https", ":user", ":pass", "example.com", "", "*", "*", "*"}},
		{`https\:foo\:bar@example.com`, Components{"https", "foo", "bar", "example.com", "", "*", "*", "*"}},
		{`data\:foo\:bar@example.com`, Components{"data", "*", "*", "", "", `foo\:bar@example.com`, "*", "*"}},
		{`https://foo{\:}bar@example.com`, Components{"https", "foo%3Abar", "*", "example.com", "", "*", "*", "*"}},
		{`http://[\:\:1]/`, Components{"http", "*", "*", `[\:\:1]`, "", "/", "*", "*"}},
		{`http://[\:\:1]:8080/`, Components{"http", "*", "*", `[\:\:1]`, "8080", "/", "*", "*"}},
		{"http://[:address]/", Components{"http", "*", "*", "[:address]", "", "/", "*", "*"}},
		{`http://[\:\:AB\::num]/`, Components{"http", "*", "*", `[\:\:ab\::num]`, "", "/", "*", "*"}},
		{`data\:text/javascript,let x = 100/:tens?5;`, Components{"data", "*", "*", "", "", "text/javascript,let x = 100/:tens?5;", "*", "*"}},
		// Scheme, host and default port rules.
		{"HTTPS://EXAMPLE.com/A", Components{"https", "*", "*", "example.com", "", "/A", "*", "*"}},
		{"http://example.com:80/", Components{"http", "*", "*", "example.com", "", "/", "*", "*"}},
		{"https://example.com:443/", Components{"https", "*", "*", "example.com", "", "/", "*", "*"}},
		{"http://example.com:443/", Components{"http", "*", "*", "example.com", "443", "/", "*", "*"}},
		{"https://*", Components{"https", "*", "*", "*", "", "*", "*", "*"}},
		{"https://*:*", Components{"https", "*", "*", "*", "*", "*", "*", "*"}},
		{"*://evil.test/*", Components{"*", "*", "*", "evil.test", "", "/*", "*", "*"}},
		{"http://127.0.0.1:*/api/*", Components{"http", "*", "*", "127.0.0.1", "*", "/api/*", "*", "*"}},
		{"http{s}?://example.com/:path*", Components{"http{s}?", "*", "*", "example.com", "", "/:path*", "*", "*"}},
		// Fixed text is canonicalized.
		{"https://example.com/a b/café", Components{"https", "*", "*", "example.com", "", "/a%20b/caf%C3%A9", "*", "*"}},
		{"https://example.com/foo/../bar", Components{"https", "*", "*", "example.com", "", "/bar", "*", "*"}},
		{`https://example.com/foo\{`, Components{"https", "*", "*", "example.com", "", "/foo%7B", "*", "*"}},
		{"https://example.com/a|b^c", Components{"https", "*", "*", "example.com", "", "/a%7Cb%5Ec", "*", "*"}},
		{"https://example.com/?q=caf%C3%A9&x='", Components{"https", "*", "*", "example.com", "", "/", "q=caf%C3%A9&x=%27", "*"}},
		// A whole-host fixed text is canonicalized as a host; a partial one is not.
		{"http://127.1/", Components{"http", "*", "*", "127.0.0.1", "", "/", "*", "*"}},
		{"http://0x7F.0.0.1:*/", Components{"http", "*", "*", "127.0.0.1", "*", "/", "*", "*"}},
		{"http://2130706433/", Components{"http", "*", "*", "127.0.0.1", "", "/", "*", "*"}},
		{`http://[0\:0\:\:1]/`, Components{"http", "*", "*", `[\:\:1]`, "", "/", "*", "*"}},
		{`http://[\:\:FFFF\:7f00\:0001]/`, Components{"http", "*", "*", `[\:\:ffff\:7f00\:1]`, "", "/", "*", "*"}},
		{"http://example.com:080/", Components{"http", "*", "*", "example.com", "", "/", "*", "*"}},
		{"http://example.com:80 /", Components{"http", "*", "*", "example.com", "", "/", "*", "*"}},
		{"http://example.com:http/", Components{"http", "*", "*", "example.com:http", "", "/", "*", "*"}},
		{"http://10.0.0.*", Components{"http", "*", "*", "10.0.0.*", "", "*", "*", "*"}},
		{"foo://127.1/", Components{"foo", "*", "*", "127.1", "", "/", "*", "*"}},
		{"  https://example.com/*  ", Components{"https", "*", "*", "example.com", "", "/*", "*", "*"}},
	}
	for _, tt := range tests {
		p, err := compilePattern(tt.pattern)
		if err != nil {
			t.Errorf("compilePattern(%q): %v", tt.pattern, err)
			continue
		}
		if got := p.Components(); got != tt.want {
			t.Errorf("compilePattern(%q).Components() =\n %+v, want\n %+v", tt.pattern, got, tt.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // a piece of the error
	}{
		{"", "is empty"},
		{"   ", "is empty"},
		{"/foo", "has no scheme"},
		{"example.com/foo", "has no scheme"},
		{"data:foobar", "has no scheme"},
		{"https://{sub.}?example{.com/}foo", "not valid"},
		{"{https://}example.com/foo", "has no scheme"},
		{"(https://)example.com/foo", "has no scheme"},
		{"https://{sub{.}}example.com/foo", "not valid"},
		{"(café)://foo", "ASCII"},
		{"https://foo{{@}}example.com", "not valid"},
		{"https://foo{@example.com", "not valid"},
		{"https://example.com/(café)", "ASCII"},
		{"https://example.com/(\\m)", `invalid escape "\m"`},
		{"https://example.com/:id/:id", `group name "id" is used twice`},
		{"https://bad host/", "which no host name may hold"},
		{"https://bad<host/", "which no host name may hold"},
		{"https://bad^host/", "which no host name may hold"},
		{"https://bad|host/", "which no host name may hold"},
		{`https://bad\\host/`, "which no host name may hold"},
		{`https://bad\:host/`, `port "host" is not a number`},
		{`https://bad{/}host/`, `holds "/"`},
		{"https://{sub.}?example{.com/}foo", `holds "/"`},
		{"https://café.example/", "punycode"},
		{`http://[\:\:ffff\:127.0.0.1]/`, "only hex digits"},
		{`http://[\:\:xY\:1]/`, "only hex digits"},
		{"http://[::1]/", `write each colon of an IPv6 address as \:`},
		{"http://example.com:99999/", "above 65535"},
		{"http://example.com:8o/", "is not a number"},
		{"http://1.2.3.4.5/", "more than four parts"},
		{"http://256.256.256.256/", "not a valid IPv4 address"},
		{"example.com:8080/*", `it reads "example.com" as its scheme; write the scheme first, as in "https://example.com:8080/*" or "*://example.com:8080/*"`},
		{"localhost:9222", `it reads "localhost" as its scheme`},
		{"://evil.test/*", `its scheme is empty, so it matches no URL; write "*://evil.test/*" for any scheme`},
		{"LocalHost:*", `it reads "localhost" as its scheme`},
		{"+ssh://example.com/", `modifier "+" has nothing to apply to`},
		{"https://example.com/(a(?=b))", "lookahead"},
		{"https://example.com/(a(?<!b))", "lookbehind"},
		{`https://example.com/(a(?:b)\1)`, "backreference"},
		{`https://example.com/(\k<n>)`, "named backreference"},
		{"https://example.com/([[a-z]--a])", "class set operation"},
		{`https://example.com/([\d&&[0-1]])`, "class set operation"},
		{"https://example.com/(a{1001})", "above 1000"},
		{"https://example.com/(a)++", `modifier "+" has nothing to apply to`},
		{"https://example.com/([^/]+)", `"/" must be escaped inside a character class`},
		{"https://example.com/a}", "closes no group"},
		{`https://example.com/a\`, "not valid"},
		{"https://example.com/(", "not valid"},
		{"https://h/*a/..", `climbs above its start`},
		{"https://h/:x-/..", `climbs above its start`},
		{"https://h/*%2e%2e/..", `climbs above its start`},
		// Enforceability: requests carry no fragment.
		{"https://example.com/#frag", `its hash part "frag" could never be checked`},
		{"https://example.com/page#", `its hash part "" could never be checked`},
		{"https://example.com/page#:name", "could never be checked"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.pattern)
		if err == nil {
			t.Errorf("Compile(%q) = nil error, want one containing %q", tt.pattern, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%q) = %q, want it to contain %q", tt.pattern, err, tt.want)
		}
	}
}

func TestCompileAcceptsWildcardHash(t *testing.T) {
	for _, s := range []string{"https://example.com/#*", "https://example.com/#(.*)", "https://example.com/#*?", "https://example.com/foo?bar"} {
		if _, err := Compile(s); err != nil {
			t.Errorf("Compile(%q): %v", s, err)
		}
	}
}

// matchTests are patterns, URLs and whether the one matches the other,
// for TestMatch.
var matchTests = []struct {
	pattern string
	url     string
	want    bool
}{
	{"https://example.com:8080/foo?bar#baz", "https://example.com:8080/foo?bar#baz", true},
	{"https://example.com:8080/foo?bar#baz", "https://example.com:8080/foo?bar#qux", false},
	{"http{s}?://{*.}?example.com/:product/:endpoint", "https://sub.example.com/foo/bar", true},
	{"http{s}?://{*.}?example.com/:product/:endpoint", "http://example.com/foo/bar", true},
	{"http{s}?://{*.}?example.com/:product/:endpoint", "ftp://example.com/foo/bar", false},
	{"http{s}?://{*.}?example.com/:product/:endpoint", "https://example.com/foo/bar/baz", false},
	{"https://example.com?foo", "https://example.com/?foo", true},
	{"https://example.com#foo", "https://example.com/#foo", true},
	{"https://example.com#foo", "https://example.com/?q#foo", false},
	{"https://example.com/*?foo", "https://example.com/?foo", false},
	{`https://example.com/*\?foo`, "https://example.com/?foo", true},
	{"https://example.com/:name?foo", "https://example.com/bar?foo", false},
	{`https://example.com/:name\?foo`, "https://example.com/bar?foo", true},
	{"https://example.com/(bar)?foo", "https://example.com/bar?foo", false},
	{`https://example.com/(bar)\?foo`, "https://example.com/bar?foo", true},
	{`https://example.com/{bar}\?foo`, "https://example.com/bar?foo", true},
	{"https://example.com/", "https://example.com:8080/", false},
	{`data\:foobar`, "data:foobar", true},
	{"https://{sub.}?example.com/foo", "https://example.com/foo", true},
	{"https://{sub.}?example.com/foo", "https://sub.example.com/foo", true},
	{"https://(sub.)?example.com/foo", "https://example.com/foo", true},
	{"https://(sub.)?example(.com/)foo", "https://example.com/foo", false},
	{"https://(sub(?:.))?example.com/foo", "https://example.com/foo", true},
	{"file:///foo/bar", "file:///foo/bar", true},
	{"data:", "data:", true},
	{"foo://bar", "foo://bad_url_browser_interop", false},
	{"foo://bar", "foo://bar", true},
	{`https://foo\:bar@example.com`, "https://foo:bar@example.com", true},
	{"https://foo@example.com", "https://foo@example.com", true},
	{"https://foo@example.com", "https://example.com", false},
	{`https://\:bar@example.com`, "https://:bar@example.com", true},
	{"https://:user::pass@example.com", "https://foo:bar@example.com", true},
	{`https\:foo\:bar@example.com`, "https:foo:bar@example.com", true},
	{`data\:foo\:bar@example.com`, "data:foo:bar@example.com", true},
	{`https://foo{\:}bar@example.com`, "https://foo:bar@example.com", false},
	{`http://[\:\:1]/`, "http://[::1]/", true},
	{`http://[\:\:1]:8080/`, "http://[::1]:8080/", true},
	{`http://[\:\:a]/`, "http://[::a]/", true},
	{"http://[:address]/", "http://[::1]/", true},
	{`http://[\:\:AB\::num]/`, "http://[::ab:1]/", true},
	{`http://[*\:1]/`, "http://[::ab:1]/", true},
	{`data\:text/javascript,let x = 100/:tens?5;`, "data:text/javascript,let x = 100/5;", true},
	// Pathname groups and modifiers.
	{"https://h/foo/:bar", "https://h/foo/bar", true},
	{"https://h/foo/:bar", "https://h/foo/index.html", true},
	{"https://h/foo/:bar", "https://h/foo/bar/", false},
	{"https://h/foo/:bar", "https://h/foo/", false},
	{`https://h/foo/([^\/]+?)`, "https://h/foo/bar", true},
	{"https://h/foo/(.*)", "https://h/foo/bar/baz", true},
	{"https://h/foo/(.*)", "https://h/foo/", true},
	{"https://h/foo/(.*)", "https://h/foo", false},
	{"https://h/foo/*", "https://h/foo/bar/baz", true},
	{"https://h/foo/*", "https://h/foo", false},
	{"https://h/foo/:bar(.*)", "https://h/foo/", true},
	{"https://h/foo/:bar(.*)", "https://h/foo", false},
	{"https://h/foo/:bar?", "https://h/foo/bar", true},
	{"https://h/foo/:bar?", "https://h/foo", true},
	{"https://h/foo/:bar?", "https://h/foo/", false},
	{"https://h/foo/:bar?", "https://h/foobar", false},
	{"https://h/foo/:bar?", "https://h/foo/bar/baz", false},
	{"https://h/foo/:bar+", "https://h/foo/bar/baz", true},
	{"https://h/foo/:bar+", "https://h/foo", false},
	{"https://h/foo/:bar+", "https://h/foo/", false},
	{"https://h/foo/:bar*", "https://h/foo", true},
	{"https://h/foo/:bar*", "https://h/foo/bar/baz", true},
	{"https://h/foo/:bar*", "https://h/foo/", false},
	{"https://h/foo/:bar*", "https://h/foobar", false},
	{"https://h/foo/*?", "https://h/foo", true},
	{"https://h/foo/*?", "https://h/foobar", false},
	{"https://h/foo/*+", "https://h/foo/", true},
	{"https://h/foo/*+", "https://h/foo", false},
	{"https://h/foo/**", "https://h/foo", true},
	{"https://h/foo/**", "https://h/fo", false},
	{"https://h/foo{/bar}", "https://h/foo/bar", true},
	{"https://h/foo{/bar}", "https://h/foo", false},
	{"https://h/foo{/bar}?", "https://h/foo", true},
	{"https://h/foo{/bar}?", "https://h/foo/", false},
	{"https://h/foo{/bar}+", "https://h/foo/bar/bar", true},
	{"https://h/foo{/bar}+", "https://h/foo/bar/baz", false},
	{"https://h/foo{/bar}*", "https://h/foo", true},
	{"https://h/foo{/bar}*", "https://h/foo/bar/bar", true},
	{"https://h/:café", "https://h/foo", true},
	{"https://h/:\u2118", "https://h/foo", true},
	{"https://h/caf%C3%A9", "https://h/café", true},
	{"https://h/café", "https://h/café", true},
	{"https://h/caf%c3%a9", "https://h/café", false},
	{"https://h/foo/../bar", "https://h/bar", true},
	{"https://h/foo!", "https://h/foo!", true},
	{`https://h/foo\:`, "https://h/foo:", true},
	{`https://h/foo\{`, "https://h/foo{", true},
	{`https://h/foo\(`, "https://h/foo(", true},
	{"https://h/(\\d+)/x", "https://h/42/x", true},
	{"https://h/(\\d+)/x", "https://h/4a/x", false},
	{"https://h/(a|b)*", "https://h/a/b/a", true},
	{"https://h/(a|b)*", "https://h/abab", false},
	{"https://h/([a-c\\-]+)", "https://h/a-c", true},
	{"https://h/([^\\/]+)", "https://h/a/b", false},
	{"https://h/(\\u0041)", "https://h/A", true},
	{"https://h/(\\x41)", "https://h/A", true},
	{"https://h/(\\p{L}+)", "https://h/abc", true},
	{"https://h/((?i:abc))", "https://h/ABC", true},
	{"https://h/(a{2,3})", "https://h/aaa", true},
	{"https://h/(a{2,3})", "https://h/aaaa", false},
	{"https://h/(a(?<n>b))", "https://h/ab", true},
	{"https://h/([])", "https://h/a", false},
	{"https://h/([^])", "https://h/a", true},
	{"https://example.com/?q=caf%C3%A9", "https://example.com/?q=café", true},
	{"https://example.com/?q=caf%c3%a9", "https://example.com/?q=café", false},
	// Ports.
	{"http://example.com:80/", "http://example.com/", true},
	{"http://example.com/", "http://example.com:80/", true},
	{"http://example.com:443/", "http://example.com/", false},
	{"http://example.com:443/", "http://example.com:443/", true},
	{"https://*", "https://a.test/x", true},
	{"https://*", "https://a.test:8443/x", false},
	{"https://*:*", "https://a.test:8443/x", true},
	{"https://example.com/*", "https://example.com:8443/", false},
	{"https://example.com:*/*", "https://example.com:8443/", true},
	// The cases an allow or block list lives by.
	{"https://*.example.com/*", "https://a.example.com/", true},
	{"https://*.example.com/*", "https://a.b.example.com/x?y", true},
	{"https://*.example.com/*", "https://example.com/", false},
	{"https://*.example.com/*", "https://evilexample.com/", false},
	{"https://*.example.com/*", "http://a.example.com/", false},
	{"https://*.example.com/*", "https://a.example.com.evil.test/", false},
	{"https://example.com/*", "https://example.com.evil.test/", false},
	{"https://example.com/*", "https://EXAMPLE.COM/A", true},
	{"*://evil.test/*", "http://evil.test/", true},
	{"*://evil.test/*", "https://evil.test/a/b?c", true},
	{"*://evil.test/*", "wss://evil.test/socket", true},
	{"*://evil.test/*", "http://evil.test:8080/", false},
	{"*://evil.test:*/*", "http://evil.test:8080/", true},
	{"*://evil.test/*", "http://sub.evil.test/", false},
	{"http://127.0.0.1:*/*", "http://127.0.0.1:9222/json/version", true},
	{"http://127.0.0.1:*/*", "http://127.0.0.1/", true},
	{"http://127.0.0.1:*/*", "http://0x7f000001:9222/json", true},
	{"http://127.0.0.1:*/*", "http://127.1:9222/json", true},
	{"http://127.0.0.1:*/*", "http://0177.0.0.1:9222/json", true},
	{"http://127.0.0.1:*/*", "HTTP://127.0.0.1:9222/json", true},
	{"http://127.0.0.1:*/*", "http://localhost:9222/json", false},
	{"*://127.0.0.1:*/*", "ws://127.0.0.1:9222/devtools/browser/x", true},
	{"*://[\\:\\:1]:*/*", "ws://[0:0::1]:9222/devtools/browser/x", true},
	{"http://127.0.0.1:*/api/*", "http://127.0.0.1:8080/api/v1", true},
	{"http://127.0.0.1:*/api/*", "http://127.0.0.1:8080/apiv1", false},
	{"http://127.0.0.1:*/api/*", "http://127.0.0.1:8080/x/../api/v1", true},
	{"http://127.0.0.1:*/api/*", "http://127.0.0.1:8080/api/../secret", false},
	{"http://127.0.0.1:*/api/*", "http://127.0.0.1:8080/api%2F..%2Fsecret", false},
	{"http://10.0.0.*", "http://10.0.0.5/x", true},
	{"http://10.0.0.*", "http://10.0.1.5/x", false},
	{"file:///tmp/*", "file:///tmp/x.html", true},
	{"file:///tmp/*", "file:///tmp", false},
	{"file:///tmp/*", "file:///etc/passwd", false},
	{"file:///tmp/*", "file:///tmp/../etc/passwd", false},
	{"file:///tmp/*", "file://localhost/tmp/x", true},
	{"file:///tmp/*", `file:\\\tmp\x`, true},
	{"file://*", "file:///etc/passwd", true},
	{"http{s}?://example.com/:path*", "https://example.com/a", true},
	// "/:path*" is "" or "/a/b": "/" alone has an empty segment.
	{"http{s}?://example.com/:path*", "https://example.com/", false},
	{"http{s}?://example.com/:path*", "http://example.com/a/b", true},
	{"javascript:*", "javascript:alert(1)", true},
	{"javascript:*", "JavaScript:alert(1)", true},
	{`data\:*`, "data:text/html,<script>", true},
	{"https://admin@example.com/*", "https://admin@example.com/x", true},
	{"https://admin@example.com/*", "https://example.com/x", false},
	{"https://example.com/*", "https://user:pass@example.com/x", true},
	// URLs that do not parse match nothing.
	{"*://*:*/*", "not a url", false},
	{"*://*:*/*", "http://", false},
	{"*://*:*/*", "http://exa mple.com/", false},
	{"*://*:*/*", "http://example.com:99999/", false},
	{"*://*:*/*", "http://café.example/", false},
	{"*://*:*/*", "http://[::1/", false},
}

func TestMatch(t *testing.T) {
	for _, tt := range matchTests {
		p, err := compilePattern(tt.pattern)
		if err != nil {
			t.Errorf("compilePattern(%q): %v", tt.pattern, err)
			continue
		}
		if got := p.Match(tt.url); got != tt.want {
			t.Errorf("Pattern(%q).Match(%q) = %v, want %v", tt.pattern, tt.url, got, tt.want)
		}
	}
}

// TestComponentPatternStrings checks the spec's normalized pattern strings
// and matches of pathname components on their own.
func TestComponentPatternStrings(t *testing.T) {
	tests := []struct {
		pathname string
		want     string // normalized pattern string
		input    string
		match    bool
	}{
		{"/foo/(.*)", "/foo/*", "/foo/bar", true},
		{"/foo/(.*)?", "/foo/*?", "/foo", true},
		{"/foo/(.*)+", "/foo/*+", "/foo/", true},
		{"/foo/(.*)*", "/foo/**", "/foo", true},
		{"/foo{/bar}", "/foo/bar", "/foo/bar", true},
		{"(foo)(.*)", "(foo)(.*)", "foobarbaz", true},
		{"{(foo)bar}(.*)", "{(foo)bar}(.*)", "foobarbaz", true},
		{"(foo)?(.*)", "(foo)?*", "foobarbaz", true},
		{"{:foo}(.*)", "{:foo}(.*)", "foobarbaz", true},
		{"{:foo}(barbaz)", "{:foo}(barbaz)", "foobarbaz", true},
		{"{:foo}{(.*)}", "{:foo}(.*)", "foobarbaz", true},
		{"{:foo}{(.*)bar}", ":foo{*bar}", "foobarbaz", false},
		{"{:foo}{bar(.*)}", ":foo{bar*}", "foobarbaz", true},
		{"{:foo}:bar(.*)", ":foo:bar(.*)", "foobarbaz", true},
		{"{:foo}?(.*)", ":foo?*", "foobarbaz", true},
		{`{:foo\bar}`, `{:foo\bar}`, "foobar", true},
		{`{:foo\.bar}`, "{:foo.bar}", "foo.bar", true},
		{"{:foo(foo)bar}", "{:foo(foo)bar}", "foobar", true},
		{"{:foo}bar", "{:foo}bar", "foobar", true},
		{`:foo\bar`, "{:foo}bar", "foobar", true},
		{":foo{}(.*)", "{:foo}(.*)", "foobar", true},
		{":foo{}bar", "{:foo}bar", "foobar", true},
		{":foo{}?bar", "{:foo}bar", "foobar", true},
		{"*{}**?", "*(.*)?", "foobar", true},
		{":foo(baz)(.*)", ":foo(baz)(.*)", "bazbar", true},
		{":foo(baz)bar", ":foo(baz)bar", "bazbar", true},
		{"*/*", "*/*", "foo/bar", true},
		{`*\/*`, "*/{*}", "foo/bar", true},
		{"*/{*}", "*/{*}", "foo/bar", true},
		{"*//*", "*//*", "foo/bar", false},
		{"/:foo.", "/:foo.", "/bar.", true},
		{"/:foo..", "/:foo..", "/bar..", true},
		{"./foo", "./foo", "./foo", true},
		{"../foo", "../foo", "../foo", true},
		{":foo./", ":foo./", "bar./", true},
		{":foo../", ":foo../", "bar../", true},
		{`/:foo\bar`, "{/:foo}bar", "/bazbar", true},
		{":name*", ":name*", "foobar", true},
		{":name+", ":name+", "foobar", true},
		{":name", ":name", "foobar", true},
		{"var x = 1;", "var%20x%20=%201;", "var%20x%20=%201;", true},
	}
	for _, tt := range tests {
		c, err := compileComponent(tt.pathname, canonPathnamePiece, pathnameOptions)
		if err != nil {
			t.Errorf("compileComponent(%q): %v", tt.pathname, err)
			continue
		}
		if c.pattern != tt.want {
			t.Errorf("compileComponent(%q).pattern = %q, want %q", tt.pathname, c.pattern, tt.want)
		}
		if got := c.match(tt.input); got != tt.match {
			t.Errorf("compileComponent(%q).match(%q) = %v, want %v", tt.pathname, tt.input, got, tt.match)
		}
	}
}

func TestHostnameComponent(t *testing.T) {
	tests := []struct {
		hostname string
		want     string // normalized pattern string, or "error"
	}{
		{"bad hostname", "error"},
		{"bad#hostname", "error"},
		{"bad/hostname", "error"},
		{`bad\:hostname`, "error"},
		{"bad<hostname", "error"},
		{"bad>hostname", "error"},
		{"bad?hostname", "error"},
		{"bad@hostname", "error"},
		{"bad[hostname", "error"},
		{"bad]hostname", "error"},
		{`bad\\hostname`, "error"},
		{"bad^hostname", "error"},
		{"bad|hostname", "error"},
		{"bad\nhostname", "badhostname"},
		{"bad\rhostname", "badhostname"},
		{"bad\thostname", "badhostname"},
		{"xn--caf-dma.com", "xn--caf-dma.com"},
		{"EXAMPLE.com", "example.com"},
		{"ex%41mple.com", "example.com"},
		{":café", ":café"},
	}
	for _, tt := range tests {
		c, err := compileComponent(tt.hostname, canonHostnamePiece, hostnameOptions)
		got := "error"
		if err == nil {
			got = c.pattern
		}
		if got != tt.want {
			t.Errorf("hostname %q = %q (%v), want %q", tt.hostname, got, err, tt.want)
		}
	}
	for _, tt := range []struct{ hostname, want string }{
		{`[\:\:AB\::num]`, `[\:\:ab\::num]`},
		{`{[\:\:ab\::num]}`, `{[\:\:ab\::num]}`},
		{`{[\:\:fé\::num]}`, "error"},
		{`{[\:\::num\:fé]}`, "error"},
		{`[\:\:xY\::num]`, "error"},
	} {
		c, err := compileComponent(tt.hostname, canonIPv6Piece, hostnameOptions)
		got := "error"
		if err == nil {
			got = c.pattern
		}
		if got != tt.want {
			t.Errorf("IPv6 hostname %q = %q (%v), want %q", tt.hostname, got, err, tt.want)
		}
	}
}

func TestPortAndProtocolComponents(t *testing.T) {
	tests := []struct {
		input  string
		encode encodeFunc
		want   string
	}{
		{"80 ", canonPort, "80"},
		{"0080", canonPort, "80"},
		{"(.*)", canonPort, "*"},
		{"(.*)", canonProtocol, "*"},
		{"foo-bar", canonProtocol, "foo-bar"},
		{"HTTP", canonProtocol, "http"},
		{"http{s}?", canonProtocol, "http{s}?"},
		{":café", canonProtocol, ":café"},
	}
	for _, tt := range tests {
		c, err := compileComponent(tt.input, tt.encode, defaultOptions)
		if err != nil {
			t.Errorf("compileComponent(%q): %v", tt.input, err)
			continue
		}
		if c.pattern != tt.want {
			t.Errorf("compileComponent(%q).pattern = %q, want %q", tt.input, c.pattern, tt.want)
		}
	}
	if _, err := compileComponent("80{20}?", canonPort, defaultOptions); err != nil {
		t.Errorf("port 80{20}?: %v", err)
	}
}

// TestFastPathsAgreeWithRegexp checks that components matched without a
// regexp (wildcard, exact, glob) give what the spec's regexp gives.
func TestFastPathsAgreeWithRegexp(t *testing.T) {
	patterns := []string{
		"*", "", "/foo", "/foo/*", "*.example.com", "/a/*/b/*", "/*/", "**", "*/*", "*//*",
		"/foo/*?", "/foo/(.*)", "/*.js", "a*a*a", "/:name", "{x}*{y}", "/foo{bar}",
	}
	inputs := []string{
		"", "/", "/foo", "/foo/", "/foo/bar", "/foobar", "a.example.com", "example.com", ".example.com",
		"/a/x/b/y", "/a/b/", "/a//b/", "//", "x/y", "x//y", "/app.js", "/a.js/b", "aaa", "aa", "aXaYa",
		"xy", "xzy", "/foobar",
	}
	for _, s := range patterns {
		for _, opts := range []options{defaultOptions, hostnameOptions, pathnameOptions} {
			c, err := compileComponent(s, func(v string) (string, error) { return v, nil }, opts)
			if err != nil {
				t.Fatalf("compileComponent(%q): %v", s, err)
			}
			re := regexp.MustCompile(c.source)
			for _, in := range inputs {
				if got, want := c.match(in), re.MatchString(in); got != want {
					t.Errorf("component %q (kind %d) .match(%q) = %v, regexp %s says %v", s, c.kind, in, got, c.source, want)
				}
			}
		}
	}
}

func TestPatternString(t *testing.T) {
	p, err := Compile("  *://evil.test/*\t")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.String(), "*://evil.test/*"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
