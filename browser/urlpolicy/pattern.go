package urlpolicy

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Pattern is a compiled URL pattern. It is immutable and safe for
// concurrent use.
type Pattern struct {
	text  string
	comps [numComponents]*component
}

// Components are a pattern's component pattern strings, normalized as the
// URLPattern getters (protocol, hostname, ...) return them. A component the
// pattern string left out is "*".
type Components struct {
	Protocol, Username, Password, Hostname, Port, Pathname, Search, Hash string
}

// Compile parses a URL pattern in URLPattern's constructor-string form, as
// chrome-devtools-mcp's --allowed-url-pattern and --blocked-url-pattern
// take it: "https://*.example.com/*", "*://evil.test/*",
// "http://127.0.0.1:*/api/*". Leading and trailing spaces are ignored.
//
// It refuses an empty pattern, one without a scheme (there is no base URL
// to complete it), whose scheme is empty ("://a/*" matches nothing) or is
// a host name by mistake ("example.com:8080/*", "localhost:9222"), one the
// spec rejects, one whose regexp groups use what
// Go's RE2 engine cannot run (lookaround, backreferences), and one that
// cannot be enforced on network requests: requests carry no #fragment, so
// the hash component must match anything.
func Compile(s string) (*Pattern, error) {
	p, err := compilePattern(s)
	if err != nil {
		return nil, err
	}
	if h := p.comps[compHash]; h.kind != matchAny {
		return nil, fmt.Errorf("URL pattern %q cannot be enforced: network requests carry no #fragment, so its hash part %q could never be checked; leave out the \"#...\" part", p.text, h.pattern)
	}
	return p, nil
}

// compilePattern is Compile without the enforceability check, so that the
// spec's hash cases can be tested too.
func compilePattern(s string) (*Pattern, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return nil, errors.New("URL pattern is empty; give a pattern such as \"https://example.com/*\"")
	}
	p, err := buildPattern(text)
	if err != nil {
		return nil, fmt.Errorf("URL pattern %q is not valid: %w", text, err)
	}
	return p, nil
}

// buildPattern is the spec's "create" for a constructor string without a
// base URL (https://urlpattern.spec.whatwg.org/#url-pattern-create).
func buildPattern(text string) (*Pattern, error) {
	in, err := parseConstructorString(text)
	if err != nil {
		return nil, fmt.Errorf("protocol: %w", err)
	}
	if !in.has[compProtocol] {
		return nil, errors.New("it has no scheme; write a full pattern such as \"https://example.com/*\" or \"*://example.com/*\"")
	}
	// Process the URLPatternInit as a "pattern": strip the delimiters a
	// value may still carry, and default what is missing to a wildcard.
	in.value[compProtocol] = strings.TrimSuffix(in.value[compProtocol], ":")
	in.value[compSearch] = strings.TrimPrefix(in.value[compSearch], "?")
	in.value[compHash] = strings.TrimPrefix(in.value[compHash], "#")
	for i := range in.value {
		if !in.has[i] {
			in.set(i, "*")
		}
	}
	if isSpecialScheme(in.value[compProtocol]) && in.value[compPort] == defaultPort(in.value[compProtocol]) {
		in.value[compPort] = ""
	}
	p := &Pattern{text: text}
	ipv6 := hostnameIsIPv6(in.value[compHostname])
	compile := func(i int, encode encodeFunc, opts options) error {
		c, err := compileComponent(in.value[i], encode, opts)
		if err != nil && i == compHostname && ipv6 {
			return fmt.Errorf("%s %q: %w (write each colon of an IPv6 address as \\:, as in \"http://[\\:\\:1]:*/*\")", componentName(i), in.value[i], err)
		}
		if err != nil {
			return fmt.Errorf("%s %q: %w", componentName(i), in.value[i], err)
		}
		p.comps[i] = c
		return nil
	}
	hostEncode := canonHostnamePiece
	if ipv6 {
		hostEncode = canonIPv6Piece
	}
	if err := errors.Join(
		compile(compProtocol, canonProtocol, defaultOptions),
		compile(compUsername, canonUserinfo, defaultOptions),
		compile(compPassword, canonUserinfo, defaultOptions),
		compile(compHostname, hostEncode, hostnameOptions),
		compile(compPort, canonPort, defaultOptions),
	); err != nil {
		return nil, err
	}
	if proto := p.comps[compProtocol]; proto.kind == matchExact && proto.exact == "" {
		// "://evil.test/*" parses, with a scheme no URL has.
		return nil, fmt.Errorf("its scheme is empty, so it matches no URL; write \"*%s\" for any scheme", text)
	}
	if proto := p.comps[compProtocol]; proto.kind == matchExact && (strings.Contains(proto.exact, ".") || proto.exact == "localhost") {
		// "example.com:8080/*" and "localhost:9222" parse, with a scheme
		// nobody has; as a blocked pattern such a typo would block nothing.
		return nil, fmt.Errorf("it reads %q as its scheme; write the scheme first, as in \"https://%s\" or \"*://%s\"", proto.exact, text, text)
	}
	if err := p.dropDefaultPort(); err != nil {
		return nil, err
	}
	special := p.comps[compProtocol].matchesSpecialScheme()
	pathEncode, pathOpts := canonOpaquePathname, defaultOptions
	if special {
		pathEncode, pathOpts = canonPathnamePiece, pathnameOptions
	}
	if err := errors.Join(
		compile(compPathname, pathEncode, pathOpts),
		compile(compSearch, canonSearch, defaultOptions),
		compile(compHash, canonHash, defaultOptions),
	); err != nil {
		return nil, err
	}
	if special {
		if err := p.canonWholeHostname(); err != nil {
			return nil, fmt.Errorf("hostname %q: %w", in.value[compHostname], err)
		}
	}
	return p, nil
}

// dropDefaultPort empties a port pattern that is its fixed scheme's default
// port in another spelling ("http://a:080/"): URLs never show it.
func (p *Pattern) dropDefaultPort() error {
	proto, port := p.comps[compProtocol], p.comps[compPort]
	if proto.kind != matchExact || port.kind != matchExact || port.exact == "" || port.exact != defaultPort(proto.exact) {
		return nil
	}
	c, err := newComponent(nil, defaultOptions)
	if err != nil {
		return err
	}
	p.comps[compPort] = c
	return nil
}

// canonWholeHostname re-canonicalizes a hostname pattern that is plain text
// as a whole host (see [canonWholeHostname]).
func (p *Pattern) canonWholeHostname() error {
	c := p.comps[compHostname]
	if c.kind != matchExact || c.exact == "" {
		return nil
	}
	host, err := canonWholeHostname(c.exact)
	if err != nil || host == c.exact {
		return err
	}
	nc, err := newComponent([]part{{typ: partFixed, value: host}}, hostnameOptions)
	if err != nil {
		return err
	}
	p.comps[compHostname] = nc
	return nil
}

// hostnameIsIPv6 is the spec's "hostname pattern is an IPv6 address".
func hostnameIsIPv6(s string) bool {
	if len(s) < 2 {
		return false
	}
	return s[0] == '[' || ((s[0] == '{' || s[0] == '\\') && s[1] == '[')
}

// String returns the pattern as it was given (without surrounding spaces).
func (p *Pattern) String() string { return p.text }

// Components returns the pattern's normalized component pattern strings.
func (p *Pattern) Components() Components {
	return Components{
		Protocol: p.comps[compProtocol].pattern,
		Username: p.comps[compUsername].pattern,
		Password: p.comps[compPassword].pattern,
		Hostname: p.comps[compHostname].pattern,
		Port:     p.comps[compPort].pattern,
		Pathname: p.comps[compPathname].pattern,
		Search:   p.comps[compSearch].pattern,
		Hash:     p.comps[compHash].pattern,
	}
}

// Match reports whether rawURL, an absolute URL, matches the pattern. The
// URL is canonicalized first as the URL standard says (Chromium's URLs
// already are); a URL that cannot be parsed, or whose host is not ASCII,
// matches nothing.
func (p *Pattern) Match(rawURL string) bool {
	u, err := parseURL(rawURL)
	if err != nil {
		return false
	}
	return p.matchParts(&u)
}

// matchParts matches parsed components, the most selective first.
func (p *Pattern) matchParts(u *urlParts) bool {
	return p.comps[compProtocol].match(u.protocol) &&
		p.comps[compHostname].match(u.hostname) &&
		p.comps[compPort].match(u.port) &&
		p.comps[compPathname].match(u.pathname) &&
		p.comps[compSearch].match(u.search) &&
		p.comps[compUsername].match(u.username) &&
		p.comps[compPassword].match(u.password) &&
		p.comps[compHash].match(u.hash)
}

// matchKind is how a component is matched: most patterns need no regexp.
type matchKind uint8

const (
	matchAny    matchKind = iota // only wildcards: matches everything
	matchExact                   // fixed text only
	matchGlob                    // fixed text and "*" wildcards
	matchRegexp                  // anything else
)

// component is one compiled component of a pattern.
type component struct {
	pattern string // normalized pattern string
	source  string // the spec's regexp, in RE2 syntax
	kind    matchKind
	exact   string   // for matchExact
	glob    []string // for matchGlob: the fixed texts around the wildcards
	re      *regexp.Regexp
}

// compileComponent is the spec's "compile a component".
func compileComponent(input string, encode encodeFunc, opts options) (*component, error) {
	parts, err := parsePatternString(input, opts, encode)
	if err != nil {
		return nil, err
	}
	return newComponent(parts, opts)
}

func newComponent(parts []part, opts options) (*component, error) {
	source, err := generateRegexp(parts, opts)
	if err != nil {
		return nil, err
	}
	c := &component{pattern: generatePatternString(parts, opts), source: source}
	c.classify(parts)
	if c.kind == matchRegexp {
		re, err := regexp.Compile(source)
		if err != nil {
			return nil, fmt.Errorf("its regexp cannot be compiled: %v", err)
		}
		c.re = re
	}
	return c, nil
}

// classify picks the cheapest way to match parts that agrees with the
// regexp the spec would build.
func (c *component) classify(parts []part) {
	if len(parts) > 0 {
		allWild := true
		for _, p := range parts {
			if p.typ != partFullWildcard || p.prefix != "" || p.suffix != "" {
				allWild = false
				break
			}
		}
		if allWild {
			c.kind = matchAny
			return
		}
	}
	var pieces []string
	var cur strings.Builder
	for _, p := range parts {
		switch {
		case p.mod != modNone:
			c.kind = matchRegexp
			return
		case p.typ == partFixed:
			cur.WriteString(p.value)
		case p.typ == partFullWildcard:
			cur.WriteString(p.prefix)
			pieces = append(pieces, cur.String())
			cur.Reset()
			cur.WriteString(p.suffix)
		default:
			c.kind = matchRegexp
			return
		}
	}
	pieces = append(pieces, cur.String())
	if len(pieces) == 1 {
		c.kind, c.exact = matchExact, pieces[0]
		return
	}
	c.kind, c.glob = matchGlob, pieces
}

// match reports whether s matches the component.
func (c *component) match(s string) bool {
	switch c.kind {
	case matchAny:
		return true
	case matchExact:
		return s == c.exact
	case matchGlob:
		return globMatch(c.glob, s)
	}
	return c.re.MatchString(s)
}

// matchesSpecialScheme is the spec's "protocol component matches a special
// scheme".
func (c *component) matchesSpecialScheme() bool {
	for _, s := range specialSchemes() {
		if c.match(s) {
			return true
		}
	}
	return false
}

// globMatch reports whether s is pieces joined by any strings: pieces[0]
// is a prefix, the last piece a suffix, and the others appear in order.
// Taking the leftmost occurrence of each middle piece is always right when
// the gaps may hold anything.
func globMatch(pieces []string, s string) bool {
	first, last := pieces[0], pieces[len(pieces)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, piece := range pieces[1 : len(pieces)-1] {
		i := strings.Index(s, piece)
		if i < 0 {
			return false
		}
		s = s[i+len(piece):]
	}
	return true
}
