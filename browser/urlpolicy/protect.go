package urlpolicy

import (
	"net/url"
	"path"
	"slices"
	"strconv"
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

// Endpoints returns a copy of p that also refuses every URL, any scheme,
// whose host names the machine itself (127.0.0.0/8, localhost and the
// other loopback aliases) and whose port is one open lists: tabhive's own
// loopback DevTools endpoints while they are open. (A host outside ASCII
// that Chromium would map to 127.0.0.1 is not read here; the patterns,
// when there are any, refuse such hosts anyway.) open is
// called on the goroutine that asks, for every decision of a URL with a
// port; it must not block, be safe for concurrent use, and not modify
// the slice it returns. A nil p is a policy that allows everything else.
func (p *Policy) Endpoints(open func() []int) *Policy {
	var c Policy
	if p != nil {
		c = *p
	} else {
		c = Policy{fileNavigations: true, javaScript: true}
	}
	c.endpoints = open
	return &c
}

// endpoint reports whether raw reaches one of the open endpoints.
func (p *Policy) endpoint(raw string) bool {
	if p.endpoints == nil {
		return false
	}
	ports := p.endpoints()
	if len(ports) == 0 {
		return false
	}
	u, err := parseURL(raw)
	if err != nil {
		return false
	}
	port := u.port
	if port == "" {
		port = defaultPort(u.protocol)
	}
	n, perr := strconv.Atoi(port)
	if perr != nil || !slices.Contains(ports, n) {
		return false
	}
	return isLoopbackHost(u.hostname)
}
