package urlpolicy

import (
	"regexp"
	"strings"
	"testing"
)

// fuzzURLs are matched against every pattern FuzzCompile compiles.
var fuzzURLs = []string{
	"https://example.com/",
	"http://127.0.0.1:9222/json/version?x=1",
	"file:///etc/passwd",
	"wss://a.b.example.com:8443/socket",
	"https://user:pass@[::1]/a/b/../c?q#f",
	"data:text/html,<b>x</b>",
	"javascript:alert(1)",
	"foo://Host/x",
}

// FuzzCompile checks that Compile never panics, and that a pattern it
// accepts matches without panicking, agrees with the spec's regexps, and
// has normalized component strings that compile back to the same regexps.
func FuzzCompile(f *testing.F) {
	f.Add("https://*.example.com/*")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := compilePattern(s)
		if err != nil {
			if _, err2 := Compile(s); err2 == nil {
				t.Fatalf("Compile(%q) succeeded where compilePattern failed: %v", s, err)
			}
			return
		}
		if _, err := Compile(s); err != nil && p.comps[compHash].kind == matchAny {
			t.Fatalf("Compile(%q) refused a pattern with a wildcard hash: %v", s, err)
		}
		res := specRegexps(t, p)
		for _, u := range fuzzURLs {
			checkMatchAgreesWithRegexp(t, p, res, u)
		}
		checkRoundTrip(t, p)
	})
}

// FuzzMatch checks that matching any URL against any pattern never panics
// and agrees with the spec's regexps, and that parsing a URL is idempotent:
// the canonical URL parses to the same components.
func FuzzMatch(f *testing.F) {
	f.Add("*://evil.test/*", "http://evil.test/x")
	f.Fuzz(func(t *testing.T, pattern, rawURL string) {
		checkParseIdempotent(t, rawURL)
		p, err := compilePattern(pattern)
		if err != nil {
			return
		}
		checkMatchAgreesWithRegexp(t, p, specRegexps(t, p), rawURL)
	})
}

// specRegexps compiles the spec's regexp of each component of p.
func specRegexps(t *testing.T, p *Pattern) [numComponents]*regexp.Regexp {
	t.Helper()
	var res [numComponents]*regexp.Regexp
	for i, c := range p.comps {
		re, err := regexp.Compile(c.source)
		if err != nil {
			t.Fatalf("Pattern(%q) %s regexp %q does not compile: %v", p.text, componentName(i), c.source, err)
		}
		res[i] = re
	}
	return res
}

// checkMatchAgreesWithRegexp compares Match, which skips regexps where it
// can, with the spec's regexps run on every component.
func checkMatchAgreesWithRegexp(t *testing.T, p *Pattern, res [numComponents]*regexp.Regexp, rawURL string) {
	t.Helper()
	got := p.Match(rawURL)
	u, err := parseURL(rawURL)
	if err != nil {
		if got {
			t.Fatalf("Pattern(%q).Match(%q) = true for a URL that does not parse (%v)", p.text, rawURL, err)
		}
		return
	}
	values := [numComponents]string{u.protocol, u.username, u.password, u.hostname, u.port, u.pathname, u.search, u.hash}
	want := true
	for i, c := range p.comps {
		fast, slow := c.match(values[i]), res[i].MatchString(values[i])
		if fast != slow {
			t.Fatalf("Pattern(%q) %s (kind %d) on %q: fast path %v, regexp %q %v", p.text, componentName(i), c.kind, values[i], fast, c.source, slow)
		}
		want = want && slow
	}
	if got != want {
		t.Fatalf("Pattern(%q).Match(%q) = %v, regexps say %v", p.text, rawURL, got, want)
	}
}

// checkRoundTrip compiles each normalized component pattern string again
// and expects the same regexp: the spec's pattern string generation is
// meant to reproduce the part list.
func checkRoundTrip(t *testing.T, p *Pattern) {
	t.Helper()
	special := p.comps[compProtocol].matchesSpecialScheme()
	for i, c := range p.comps {
		encode, opts := componentEncoding(i, c.pattern, special)
		again, err := compileComponent(c.pattern, encode, opts)
		if err != nil {
			t.Fatalf("Pattern(%q) %s: normalized %q does not compile: %v", p.text, componentName(i), c.pattern, err)
		}
		if again.source != c.source {
			t.Fatalf("Pattern(%q) %s: normalized %q compiles to %q, not %q", p.text, componentName(i), c.pattern, again.source, c.source)
		}
	}
}

// componentEncoding returns how buildPattern compiles component i.
func componentEncoding(i int, pattern string, special bool) (encodeFunc, options) {
	switch i {
	case compProtocol:
		return canonProtocol, defaultOptions
	case compUsername, compPassword:
		return canonUserinfo, defaultOptions
	case compHostname:
		// The spec picks the IPv6 encoding from the pattern as written:
		// `\[` is IPv6 and normalizes to "[", which only IPv6 can give.
		if hostnameIsIPv6(pattern) || strings.HasPrefix(pattern, "[") {
			return canonIPv6Piece, hostnameOptions
		}
		return canonHostnamePiece, hostnameOptions
	case compPort:
		return canonPort, defaultOptions
	case compPathname:
		if special {
			return canonPathnamePiece, pathnameOptions
		}
		return canonOpaquePathname, defaultOptions
	case compSearch:
		return canonSearch, defaultOptions
	}
	return canonHash, defaultOptions
}

// checkParseIdempotent serializes a parsed URL and parses it again.
func checkParseIdempotent(t *testing.T, rawURL string) {
	t.Helper()
	u, err := parseURL(rawURL)
	if err != nil {
		return
	}
	s := serializeURL(u)
	again, err := parseURL(s)
	if err != nil {
		t.Fatalf("parseURL(%q) = %+v, serialized %q, which does not parse: %v", rawURL, u, s, err)
	}
	if again != u {
		t.Fatalf("parseURL(%q) = %+v, serialized %q, which parses to %+v", rawURL, u, s, again)
	}
}

// serializeURL writes parsed components back as a URL.
func serializeURL(u urlParts) string {
	s := u.protocol + ":"
	opaque := !isSpecialScheme(u.protocol) && u.hostname == "" && (u.pathname == "" || u.pathname[0] != '/')
	if !opaque {
		s += "//"
		if u.username != "" || u.password != "" {
			s += u.username
			if u.password != "" {
				s += ":" + u.password
			}
			s += "@"
		}
		s += u.hostname
		if u.port != "" {
			s += ":" + u.port
		}
	}
	s += u.pathname
	if u.search != "" {
		s += "?" + u.search
	}
	if u.hash != "" || (opaque && u.search == "" && strings.HasSuffix(u.pathname, " ")) {
		// An opaque path's trailing spaces survive only before a "?" or
		// "#": the parser trims the URL's own trailing spaces.
		s += "#" + u.hash
	}
	return s
}
