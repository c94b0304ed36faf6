package route

import (
	"regexp"
	"strings"
)

// Agents that learnt request routing from Playwright write its URL globs
// ("**/api/*", "**/*.{png,jpg}"), which are not URLPatterns: a glob
// matches the whole URL, "*" any characters but "/", "**" between slashes
// (or at either end) any number of path segments, "{a,b}" either
// alternative, "?" itself, and "\" quotes the next character. route_requests
// takes a pattern as a glob when it starts with "**" or holds a "{a,b}"
// alternation (a URLPattern's "{…}" group has no comma); any other is a
// URLPattern, as before.

// isGlob reports whether a route pattern is a Playwright glob.
func isGlob(p string) bool {
	return strings.HasPrefix(p, "**") || alternation.MatchString(p)
}

var alternation = regexp.MustCompile(`\{[^{}]*,[^{}]*\}`)

// compileGlob turns a Playwright glob into a regular expression over the
// whole URL. It fails on an unclosed or nested "{".
func compileGlob(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	inGroup := false
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		case c == '*':
			before := byte('/')
			if i > 0 {
				before = glob[i-1]
			}
			stars := 1
			for i+1 < len(glob) && glob[i+1] == '*' {
				stars++
				i++
			}
			after := byte('/')
			if i+1 < len(glob) {
				after = glob[i+1]
			}
			if stars > 1 && before == '/' && after == '/' {
				// Any number of whole segments, the slash after them
				// included.
				b.WriteString(`(?:[^/]*(?:/|$))*`)
				if i+1 < len(glob) {
					i++
				}
			} else {
				b.WriteString(`[^/]*`)
			}
		case c == '{':
			if inGroup {
				return nil, errGlob("a { inside another { … }")
			}
			inGroup = true
			b.WriteString("(?:")
		case c == '}' && inGroup:
			inGroup = false
			b.WriteString(")")
		case c == ',' && inGroup:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if inGroup {
		return nil, errGlob("a { without its }")
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

type errGlob string

func (e errGlob) Error() string { return string(e) }
