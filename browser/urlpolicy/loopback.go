package urlpolicy

import (
	"net/netip"
	"strings"
)

// A blocked pattern that names the machine itself must not be walked past
// by another spelling of it: a server on 127.0.0.1:9402 answers
// http://localhost:9402/ and http://[::ffff:127.0.0.1]:9402/ as well. So
// when a URL's host is a loopback alias, a blocked pattern is matched
// against the host as written and against the canonical loopback
// spellings too. Allowed patterns stay literal: allowing one spelling
// does not allow the others, and the agent can write the allowed one.
//
// Aliases are the names Chromium resolves to the machine without asking
// DNS (localhost and *.localhost, with or without a trailing dot), the
// names every Linux hosts file gives it (localhost.localdomain, localhost6,
// ip6-localhost, ...), 127.0.0.0/8, 0.0.0.0 and [::] (which connect to
// the machine itself), [::1], and the IPv4-mapped forms of these. Host
// names that reach the machine through DNS (127.0.0.1.nip.io) are not:
// the policy does not resolve names.

// loopbackSpellings are the host spellings a blocked pattern is also
// matched against for a URL on a loopback alias.
var loopbackSpellings = []string{"localhost", "127.0.0.1", "[::1]"}

// hostsFileNames are the loopback names of common hosts files.
var hostsFileNames = map[string]bool{
	"localhost.localdomain":   true,
	"localhost4":              true,
	"localhost4.localdomain4": true,
	"localhost6":              true,
	"localhost6.localdomain6": true,
	"ip6-localhost":           true,
	"ip6-loopback":            true,
}

// isLoopbackHost reports whether host, a canonical URL host (lowercase,
// IPv4 dotted, IPv6 in brackets), names the machine itself.
func isLoopbackHost(host string) bool {
	if strings.HasPrefix(host, "[") {
		addr, err := netip.ParseAddr(strings.Trim(host, "[]"))
		if err != nil {
			return false
		}
		return loopbackAddr(addr.Unmap())
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return loopbackAddr(addr)
	}
	name := strings.TrimSuffix(host, ".")
	return name == "localhost" || strings.HasSuffix(name, ".localhost") || hostsFileNames[name]
}

// loopbackAddr reports whether addr connects to the machine itself:
// loopback, or unspecified (0.0.0.0 and :: reach the local host on Linux).
func loopbackAddr(addr netip.Addr) bool {
	return addr.IsLoopback() || addr.IsUnspecified()
}

// matchBlocked reports whether a blocked pattern matches u: as it is, or,
// when u's host is a loopback alias, with the host in any canonical
// loopback spelling.
func (p *Pattern) matchBlocked(u *urlParts) bool {
	if p.matchParts(u) {
		return true
	}
	if !isLoopbackHost(u.hostname) {
		return false
	}
	alias := *u
	for _, h := range loopbackSpellings {
		if h == u.hostname {
			continue
		}
		alias.hostname = h
		if p.matchParts(&alias) {
			return true
		}
	}
	return false
}
