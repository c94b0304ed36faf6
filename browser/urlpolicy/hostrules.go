package urlpolicy

import "strings"

// Request interception, which enforces the patterns, does not see every
// connection a page can make: WebSockets (a GET with path and query to
// any host and port) go around it. Chromium's --host-resolver-rules do
// see them, as every connection's host goes through name resolution (IP
// literals included): what the patterns say about hosts alone can be
// enforced there too.
//
//   - With allowed patterns, every host none of them names resolves to
//     nothing: "MAP * ~NOTFOUND, EXCLUDE host, ...". Ports, paths and
//     schemes are not seen at that level, so an allowed host is reachable
//     on any port.
//   - With blocked patterns, a pattern that blocks a whole host (every
//     scheme, port, path and query) makes that host, and for a loopback
//     host its aliases, resolve to nothing.
//
// Only hostnames that are fixed text or text around "*" can be written
// as rules; a pattern whose hostname is a regexp, a :name or a group
// cannot, and then no rules are made for the allow list (a block list
// just loses that pattern's host rule).

// HostResolverRules returns the value for Chromium's --host-resolver-rules
// that enforces the patterns' hosts at name resolution, or "" when there
// is nothing to enforce there or the allow list cannot be written as
// rules (see above).
func (p *Policy) HostResolverRules() string {
	if p == nil {
		return ""
	}
	if len(p.allowed) > 0 {
		var rules []string
		for _, a := range p.allowed {
			if proto := a.comps[compProtocol]; proto.kind == matchExact && !isNetworkScheme(proto.exact) {
				continue // file:, data: ...: no host to resolve
			}
			host, ok := hostRule(a.comps[compHostname])
			if !ok || host == "*" {
				return "" // a host that cannot be written, or every host
			}
			rules = append(rules, "EXCLUDE "+host)
		}
		if len(rules) == 0 {
			return "MAP * ~NOTFOUND"
		}
		return "MAP * ~NOTFOUND, " + strings.Join(rules, ", ")
	}
	var rules []string
	for _, b := range p.blocked {
		if !b.wholeHost() {
			continue
		}
		host, ok := hostRule(b.comps[compHostname])
		if !ok {
			continue
		}
		hosts := []string{host}
		if isLoopbackHost(b.comps[compHostname].exact) {
			hosts = []string{"localhost", "localhost.", "*.localhost", "*.localhost.", "127.*", "0.0.0.0", "0", "::1", "::", "::ffff:127.*", "::ffff:7f*"}
		}
		for _, h := range hosts {
			rules = append(rules, "MAP "+h+" ~NOTFOUND")
		}
	}
	return strings.Join(rules, ", ")
}

// wholeHost reports whether the pattern matches every URL of its host:
// any scheme, port, credentials, path and query.
func (p *Pattern) wholeHost() bool {
	for _, i := range []int{compProtocol, compUsername, compPassword, compPort, compSearch} {
		if p.comps[i].kind != matchAny {
			return false
		}
	}
	// "/*" is every path a URL with a host has.
	path := p.comps[compPathname]
	return path.kind == matchAny || path.kind == matchGlob && len(path.glob) == 2 && path.glob[0] == "/" && path.glob[1] == ""
}

// hostRule writes a hostname component as a host pattern of Chromium's
// rules (base::MatchPattern: "*" for any text): fixed text, or text around
// "*" wildcards; IPv6 addresses without brackets, as Chromium matches
// them. It reports false for one that cannot be written.
func hostRule(c *component) (string, bool) {
	var h string
	switch c.kind {
	case matchAny:
		return "*", true
	case matchExact:
		h = c.exact
	case matchGlob:
		h = strings.Join(c.glob, "*")
	default:
		return "", false
	}
	if h == "" || strings.ContainsAny(h, ", ?\\") {
		return "", false // would not parse as one rule
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h, true
}

// isNetworkScheme reports whether URLs of scheme connect to a host.
func isNetworkScheme(scheme string) bool {
	switch scheme {
	case "http", "https", "ws", "wss", "ftp":
		return true
	}
	return false
}
