package urlpolicy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// urlParts are the components of an absolute URL as URLPattern matches
// them: canonical, without delimiters ("https", not "https:"; "q=1", not
// "?q=1").
type urlParts struct {
	protocol string
	username string
	password string
	hostname string
	port     string
	pathname string
	search   string
	hash     string
}

// errNoScheme is returned for a relative URL.
var errNoScheme = errors.New("it has no scheme")

// cleanURL does the URL parser's first steps: it trims C0 controls and
// spaces at both ends and removes tabs and newlines, and returns the
// lowercased scheme and what follows its ":". scheme is "" for a relative
// URL.
func cleanURL(raw string) (cleaned, scheme, rest string) {
	cleaned = strings.TrimFunc(raw, func(r rune) bool { return r <= 0x20 })
	cleaned = removeTabNewline(cleaned)
	if cleaned == "" || !isSchemeStart(cleaned[0]) {
		return cleaned, "", cleaned
	}
	for i := 1; i < len(cleaned); i++ {
		c := cleaned[i]
		if c == ':' {
			return cleaned, strings.ToLower(cleaned[:i]), cleaned[i+1:]
		}
		if !isSchemeChar(c) {
			break
		}
	}
	return cleaned, "", cleaned
}

// parseURL parses an absolute URL the way the URL standard's basic URL
// parser does (without a base), far enough to give URLPattern's components.
// Chromium's request URLs are already canonical and come through unchanged;
// other spellings (upper case, backslashes, dot segments, numeric IPv4
// hosts, default ports, unencoded bytes) are canonicalized as Chromium
// would. Hosts outside ASCII fail with errNonASCIIHost.
func parseURL(raw string) (urlParts, error) {
	_, scheme, rest := cleanURL(raw)
	if scheme == "" {
		return urlParts{}, errNoScheme
	}
	u := urlParts{protocol: scheme}
	special := isSpecialScheme(scheme)
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		u.hash = percentEncode(rest[i+1:], fragmentSet)
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		set := querySet
		if special {
			set = specialQuerySet
		}
		u.search = percentEncode(rest[i+1:], set)
		rest = rest[:i]
	}
	isSlash := func(c byte) bool { return c == '/' || (special && c == '\\') }
	var authority, path string
	hasAuthority := false
	switch {
	case scheme == "file":
		if len(rest) >= 2 && isSlash(rest[0]) && isSlash(rest[1]) {
			rest = rest[2:]
			end := len(rest)
			for i := 0; i < len(rest); i++ {
				if isSlash(rest[i]) {
					end = i
					break
				}
			}
			host := rest[:end]
			if isDriveLetter(host) {
				// "file://C:/x" is a path with a drive letter, not a host.
				path = "/" + rest
				break
			}
			path = rest[end:]
			if host != "" && host != "localhost" {
				h, err := parseHost(host, true)
				if err != nil {
					return urlParts{}, err
				}
				if h != "localhost" {
					u.hostname = h
				}
			}
			break
		}
		path = rest
		if path == "" || !isSlash(path[0]) {
			path = "/" + path
		}
	case special:
		i := 0
		for i < len(rest) && isSlash(rest[i]) {
			i++
		}
		rest = rest[i:]
		end := len(rest)
		for j := 0; j < len(rest); j++ {
			if isSlash(rest[j]) {
				end = j
				break
			}
		}
		authority, path, hasAuthority = rest[:end], rest[end:], true
	case strings.HasPrefix(rest, "//"):
		rest = rest[2:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		authority, path, hasAuthority = rest[:end], rest[end:], true
	case strings.HasPrefix(rest, "/"):
		path = rest
	default:
		u.pathname = percentEncode(rest, c0ControlSet)
		return u, nil
	}
	if hasAuthority {
		if err := u.parseAuthority(authority, special); err != nil {
			return urlParts{}, err
		}
	}
	u.pathname = canonPath(path, special, scheme == "file")
	return u, nil
}

// parseAuthority splits "user:pass@host:port" into u. The last "@" ends
// the credentials, so earlier ones are part of them (and encoded).
func (u *urlParts) parseAuthority(authority string, special bool) error {
	hostport := authority
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, pass, _ := strings.Cut(authority[:at], ":")
		u.username = percentEncode(user, userinfoSet)
		u.password = percentEncode(pass, userinfoSet)
		hostport = authority[at+1:]
		if hostport == "" {
			return errors.New("it has credentials but no host")
		}
	}
	host, port := hostport, ""
	hasPort := false
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return fmt.Errorf("its IPv6 host %q is not closed by \"]\"", hostport)
		}
		host = hostport[:end+1]
		after := hostport[end+1:]
		if after != "" {
			if after[0] != ':' {
				return fmt.Errorf("%q follows its IPv6 host", after)
			}
			port, hasPort = after[1:], true
		}
	} else if i := strings.IndexByte(hostport, ':'); i >= 0 {
		host, port, hasPort = hostport[:i], hostport[i+1:], true
	}
	if host == "" && (special || hasPort) {
		return errors.New("it has no host")
	}
	h, err := parseHost(host, special)
	if err != nil {
		return err
	}
	u.hostname = h
	if hasPort && port != "" {
		if !isDigits(port) {
			return fmt.Errorf("its port %q is not a number", port)
		}
		n, err := strconv.ParseUint(port, 10, 64)
		if err != nil || n > 65535 {
			return fmt.Errorf("its port %s is above 65535", port)
		}
		if port[0] == '0' {
			port = strconv.FormatUint(n, 10)
		}
		if port == defaultPort(u.protocol) {
			port = ""
		}
		u.port = port
	}
	return nil
}

// parseHost is the URL standard's host parser. Special schemes get a
// domain or IP address; others an opaque host, kept as written.
func parseHost(host string, special bool) (string, error) {
	if strings.HasPrefix(host, "[") {
		return parseIPv6Host(host)
	}
	if !special {
		for i := 0; i < len(host); i++ {
			if c := host[i]; c == 0 || c == ' ' || strings.IndexByte("#/:<>?@[\\]^|", c) >= 0 {
				return "", fmt.Errorf("its host %q holds %q", host, string(c))
			}
		}
		return percentEncode(host, c0ControlSet), nil
	}
	domain, err := canonDomain(host)
	if err != nil {
		return "", err
	}
	if domain == "" {
		return "", errors.New("it has no host")
	}
	if endsInNumber(domain) {
		return parseIPv4(domain)
	}
	return domain, nil
}
