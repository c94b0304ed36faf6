package urlpolicy

import (
	"net/url"
	"path"
	"strings"
)

// Protect returns a copy of p that also refuses every file: URL whose path
// protected reports true for, whatever FileNavigations says: the browser's
// profile and the sessions' private directories, which no page may read.
// protected is called with the URL's path, percent-decoded and cleaned, on
// the goroutine that asks; it must be safe for concurrent use and may do
// I/O (resolve symlinks). Protect keeps the policy pure: where the
// directories are, and how a path is checked against them, is the
// caller's. A nil p is a policy that allows everything else.
func (p *Policy) Protect(protected func(path string) bool) *Policy {
	var c Policy
	if p != nil {
		c = *p
	} else {
		c = Policy{fileNavigations: true, javaScript: true}
	}
	c.protected = protected
	return &c
}

// protectedFile reports whether the file: URL u names a protected path.
func (p *Policy) protectedFile(u *urlParts) bool {
	if p.protected == nil {
		return false
	}
	// Chromium opens the percent-decoded path; decode all of it, %2F
	// included, so that no spelling hides a protected directory.
	decoded, err := url.PathUnescape(u.pathname)
	if err != nil {
		return true // Chromium would not open it either; refuse rather than guess
	}
	if decoded == "" || !strings.HasPrefix(decoded, "/") {
		decoded = "/" + decoded
	}
	return p.protected(path.Clean(decoded))
}
