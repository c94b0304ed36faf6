package urlpolicy

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// The canonicalization here follows the WHATWG URL standard where Chromium
// does, and Chromium where they differ, since the URLs it must agree with
// are the ones Chromium reports: its path percent-encode set also holds "|"
// and "^" (measured with Chromium 14x: "/a|b^c" is requested as
// "/a%7Cb%5Ec").

// encodeSet is a percent-encode set: the ASCII bytes to encode. Bytes
// below 0x20 and from 0x7F are always encoded.
type encodeSet struct{ ascii [128]bool }

func newEncodeSet(chars string) *encodeSet {
	s := &encodeSet{}
	for i := 0; i < len(chars); i++ {
		s.ascii[chars[i]] = true
	}
	return s
}

// The percent-encode sets. They are read-only after package initialization.
var (
	c0ControlSet    = newEncodeSet("")
	fragmentSet     = newEncodeSet(" \"<>`")
	querySet        = newEncodeSet(" \"#<>")
	specialQuerySet = newEncodeSet(" \"#<>'")
	pathSet         = newEncodeSet(" \"#<>?`{}|^")
	userinfoSet     = newEncodeSet(" \"#<>?`{}/:;=@[\\]^|")
)

func (s *encodeSet) has(c byte) bool { return c < 0x20 || c >= 0x7F || s.ascii[c] }

// percentEncode encodes the bytes of v in set; "%" itself is never encoded,
// so existing escapes stay as they are. It returns v itself when nothing
// needs encoding.
func percentEncode(v string, set *encodeSet) string {
	i := 0
	for i < len(v) && !set.has(v[i]) {
		i++
	}
	if i == len(v) {
		return v
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(v) + 8)
	b.WriteString(v[:i])
	for ; i < len(v); i++ {
		c := v[i]
		if set.has(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// removeTabNewline drops every tab, line feed and carriage return, as the
// URL parser does before anything else.
func removeTabNewline(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

// isSpecialScheme reports whether scheme is one of the URL standard's
// special schemes.
func isSpecialScheme(scheme string) bool {
	switch scheme {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return false
}

// specialSchemes lists the special schemes, for testing a protocol
// component against them.
func specialSchemes() []string { return []string{"ftp", "file", "http", "https", "ws", "wss"} }

// defaultPort returns the default port of a special scheme, or "".
func defaultPort(scheme string) string {
	switch scheme {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	case "ftp":
		return "21"
	}
	return ""
}

// isSchemeStart and isSchemeChar give the URL standard's scheme syntax.
func isSchemeStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSchemeChar(c byte) bool {
	return isSchemeStart(c) || isASCIIDigit(c) || c == '+' || c == '-' || c == '.'
}

// The encoding callbacks (https://urlpattern.spec.whatwg.org/#canon-encoding-callbacks).

// canonProtocol checks a piece of a protocol pattern. The spec parses
// value+"://dummy.invalid/" and keeps the scheme, which would silently drop
// anything after a stray ":"; this requires the piece to be scheme text.
func canonProtocol(v string) (string, error) {
	v = removeTabNewline(v)
	if v == "" {
		return "", nil
	}
	for i := 0; i < len(v); i++ {
		if !isSchemeChar(v[i]) || (i == 0 && !isSchemeStart(v[0])) {
			return "", fmt.Errorf("protocol %q is not a valid scheme (letters, then letters, digits, \"+\", \"-\" or \".\")", v)
		}
	}
	return strings.ToLower(v), nil
}

func canonUserinfo(v string) (string, error) {
	return percentEncode(removeTabNewline(v), userinfoSet), nil
}

// canonHostnamePiece canonicalizes a piece of a hostname pattern: it may be
// only part of a host ("*.example.com" gives ".example.com"), so the
// numeric IPv4 forms are left to [canonWholeHostname].
func canonHostnamePiece(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	v = removeTabNewline(v)
	// The spec's hostname state would fail at ":" and cut the host at "/",
	// "?", "#" or "\"; like Chromium, all of them are refused here: they can
	// only reach a hostname escaped or in a "{...}" group, by mistake.
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case ':':
			return "", fmt.Errorf("hostname %q holds a \":\"; give the port as its own part, as in \"https://example.com:8080/*\"", v)
		case '/', '?', '#':
			return "", fmt.Errorf("hostname %q holds %q, which ends a host", v, v[i:i+1])
		}
	}
	return canonDomain(v)
}

// canonDomain percent-decodes, lowercases and checks an ASCII domain.
func canonDomain(v string) (string, error) {
	decoded, ok := percentDecode(v)
	if !ok {
		return "", errNonASCIIHost
	}
	for i := 0; i < len(decoded); i++ {
		if c := decoded[i]; c >= 0x80 {
			return "", errNonASCIIHost
		}
		if isForbiddenDomainByte(decoded[i]) {
			return "", fmt.Errorf("hostname %q holds the character %q, which no host name may hold", v, string(decoded[i]))
		}
	}
	return strings.ToLower(decoded), nil
}

// errNonASCIIHost is returned for a host name outside ASCII: mapping it to
// its punycode form needs IDNA tables this package does not carry.
var errNonASCIIHost = errors.New("host names outside ASCII are not supported; write the host in its punycode (xn--) form")

// percentDecode decodes %XX escapes; ok is false if the result is not ASCII
// (IDNA would be needed).
func percentDecode(v string) (string, bool) {
	if strings.IndexByte(v, '%') < 0 {
		for i := 0; i < len(v); i++ {
			if v[i] >= 0x80 {
				return "", false
			}
		}
		return v, true
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '%' && i+2 < len(v) && isHexDigit(v[i+1]) && isHexDigit(v[i+2]) {
			n, _ := strconv.ParseUint(v[i+1:i+3], 16, 8)
			c = byte(n)
			i += 2
		}
		if c >= 0x80 {
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// isForbiddenDomainByte reports the URL standard's forbidden domain code
// points among ASCII bytes.
func isForbiddenDomainByte(c byte) bool {
	if c <= 0x20 || c == 0x7F {
		return true
	}
	return strings.IndexByte("#%/:<>?@[\\]^|", c) >= 0
}

// canonIPv6Piece canonicalizes a piece of a hostname pattern that starts
// with "[": only hex digits, brackets and colons, lowercased.
func canonIPv6Piece(v string) (string, error) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isHexDigit(c) && c != '[' && c != ']' && c != ':' {
			return "", fmt.Errorf("IPv6 hostname %q holds %q; only hex digits, \":\" and brackets may appear", v, string(c))
		}
	}
	return strings.ToLower(v), nil
}

// canonWholeHostname canonicalizes a hostname pattern that is one fixed
// text, as a URL's host would be: "127.1" and "0x7f.0.0.1" become
// "127.0.0.1" and "[0:0::1]" becomes "[::1]", so that a pattern naming a
// host in another spelling still matches the URLs Chromium reports. The
// spec would do this to every piece, which turns "http://10.0.0.*" into
// "10.0.0.0*"; it is done here only when the piece is the whole host.
func canonWholeHostname(v string) (string, error) {
	if strings.HasPrefix(v, "[") {
		return parseIPv6Host(v)
	}
	if endsInNumber(v) {
		return parseIPv4(v)
	}
	return v, nil
}

// canonPort checks a piece of a port pattern: digits, which may be
// followed by spaces (the spec's port state would also ignore anything
// else after them; that is refused here). Unlike the spec's dummy URL, the
// piece is not compared with https's default port: "http://a:443/" must
// not match port 80. The default port of the pattern's own scheme is
// handled when the pattern is built.
func canonPort(v string) (string, error) {
	v = strings.TrimRight(removeTabNewline(v), " ")
	if v == "" {
		return "", nil
	}
	if !isDigits(v) {
		return "", fmt.Errorf("port %q is not a number", v)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n > 65535 {
		return "", fmt.Errorf("port %q is above 65535", v)
	}
	return strconv.FormatUint(n, 10), nil
}

// canonPathnamePiece canonicalizes a piece of a pathname pattern of a
// special scheme, like the URL parser's path state, without the leading
// slash the parser would add to a piece that has none.
func canonPathnamePiece(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if v[0] == '/' {
		return canonPath(removeTabNewline(v), true, false), nil
	}
	// "/-" keeps a leading "." or ".." of the piece from being taken as a
	// dot segment, as the spec does.
	out := canonPath("/-"+removeTabNewline(v), true, false)
	if !strings.HasPrefix(out, "/-") {
		// "a/.." after a group climbs above where the piece starts; the
		// spec cuts two characters off whatever is left.
		return "", fmt.Errorf("pathname piece %q climbs above its start with \"..\"; write the path without \"..\" segments", v)
	}
	return out[2:], nil
}

func canonOpaquePathname(v string) (string, error) {
	return percentEncode(removeTabNewline(v), c0ControlSet), nil
}

// canonSearch encodes as the spec's dummy URL does, which is special.
func canonSearch(v string) (string, error) {
	return percentEncode(removeTabNewline(v), specialQuerySet), nil
}

func canonHash(v string) (string, error) {
	return percentEncode(removeTabNewline(v), fragmentSet), nil
}

// canonPath canonicalizes a hierarchical path that starts at the path start
// state: segments split on "/" (and "\" for special schemes), "." and ".."
// resolved, bytes percent-encoded. It returns path itself when it is
// already canonical, which is the common case for Chromium's URLs.
func canonPath(path string, special, file bool) string {
	if path == "" {
		if special {
			return "/"
		}
		return ""
	}
	if pathIsCanonical(path, special) {
		return path
	}
	rest := path
	if rest[0] == '/' || (special && rest[0] == '\\') {
		rest = rest[1:]
	}
	var segs []string
	for {
		end := len(rest)
		for i := 0; i < len(rest); i++ {
			if rest[i] == '/' || (special && rest[i] == '\\') {
				end = i
				break
			}
		}
		seg := rest[:end]
		last := end == len(rest)
		switch {
		case isDoubleDotSegment(seg):
			if len(segs) > 0 && !(file && len(segs) == 1 && isNormalizedDriveLetter(segs[0])) {
				segs = segs[:len(segs)-1]
			}
			if last {
				segs = append(segs, "")
			}
		case isSingleDotSegment(seg):
			if last {
				segs = append(segs, "")
			}
		default:
			if file && len(segs) == 0 && isDriveLetter(seg) {
				seg = seg[:1] + ":"
			}
			segs = append(segs, percentEncode(seg, pathSet))
		}
		if last {
			break
		}
		rest = rest[end+1:]
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(s)
	}
	return b.String()
}

// pathIsCanonical reports whether path starts with "/" and has no
// backslash, dot segment or byte to encode.
func pathIsCanonical(path string, special bool) bool {
	if path[0] != '/' {
		return false
	}
	start := 1
	for i := 1; i <= len(path); i++ {
		if i < len(path) {
			c := path[i]
			if (special && c == '\\') || pathSet.has(c) {
				return false
			}
			if c != '/' {
				continue
			}
		}
		seg := path[start:i]
		if len(seg) <= 6 && (isSingleDotSegment(seg) || isDoubleDotSegment(seg)) {
			return false
		}
		start = i + 1
	}
	return true
}

func isSingleDotSegment(s string) bool { return s == "." || strings.EqualFold(s, "%2e") }

func isDoubleDotSegment(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func isDriveLetter(s string) bool {
	return len(s) == 2 && isSchemeStart(s[0]) && (s[1] == ':' || s[1] == '|')
}

func isNormalizedDriveLetter(s string) bool { return isDriveLetter(s) && s[1] == ':' }

// endsInNumber is the URL standard's "ends in a number" checker.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" {
		return false
	}
	last := host[strings.LastIndexByte(host, '.')+1:]
	if isDigits(last) {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// isCanonicalIPv4 reports whether host is already four decimal numbers up
// to 255 without leading zeros, as Chromium's URLs give them.
func isCanonicalIPv4(host string) bool {
	parts := 0
	for len(host) > 0 {
		end := strings.IndexByte(host, '.')
		if end < 0 {
			end = len(host)
		}
		n := host[:end]
		if n == "" || len(n) > 3 || !isDigits(n) || (len(n) > 1 && n[0] == '0') || (len(n) == 3 && n > "255") {
			return false
		}
		parts++
		if end == len(host) {
			break
		}
		host = host[end+1:]
		if host == "" {
			return false
		}
	}
	return parts == 4
}

// parseIPv4 is the URL standard's IPv4 parser; it returns the dotted form.
func parseIPv4(host string) (string, error) {
	if isCanonicalIPv4(host) {
		return host, nil
	}
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return "", fmt.Errorf("host %q looks like an IPv4 address but has more than four parts", host)
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return "", fmt.Errorf("host %q looks like an IPv4 address but %q is not a number", host, p)
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", fmt.Errorf("host %q is not a valid IPv4 address", host)
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", fmt.Errorf("host %q is not a valid IPv4 address", host)
	}
	ipv4 := last
	for i, n := range nums[:len(nums)-1] {
		ipv4 += n << (8 * (3 - i))
	}
	return fmt.Sprintf("%d.%d.%d.%d", ipv4>>24, ipv4>>16&255, ipv4>>8&255, ipv4&255), nil
}

// parseIPv4Number parses a decimal, 0x-hex or 0-octal IPv4 part. Values
// saturate above 2^32, which is enough to reject them.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		radix, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0':
		radix, s = 8, s[1:]
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case isASCIIDigit(c):
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= radix {
			return 0, false
		}
		if n < 1<<40 {
			n = n*radix + d
		}
	}
	return n, true
}

// parseIPv6Host parses "[address]" and returns it in the URL standard's
// serialization: lowercase hex, the first longest run of two or more zero
// pieces compressed, no dotted IPv4 tail.
func parseIPv6Host(host string) (string, error) {
	if len(host) < 2 || host[0] != '[' || host[len(host)-1] != ']' {
		return "", fmt.Errorf("IPv6 host %q is not closed by \"]\"", host)
	}
	inner := host[1 : len(host)-1]
	if strings.IndexByte(inner, '%') >= 0 {
		return "", fmt.Errorf("IPv6 host %q holds a zone, which URLs cannot", host)
	}
	addr, err := netip.ParseAddr(inner)
	if err != nil || !addr.Is6() {
		return "", fmt.Errorf("%q is not a valid IPv6 address", host)
	}
	b := addr.As16()
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	start, length := -1, 0
	for i := 0; i < 8; {
		if pieces[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && pieces[j] == 0 {
			j++
		}
		if j-i > length && j-i > 1 {
			start, length = i, j-i
		}
		i = j
	}
	var out strings.Builder
	out.WriteByte('[')
	for i := 0; i < 8; i++ {
		if i == start {
			if i == 0 {
				out.WriteString("::")
			} else {
				out.WriteByte(':')
			}
			i += length - 1
			continue
		}
		out.WriteString(strconv.FormatUint(uint64(pieces[i]), 16))
		if i < 7 {
			out.WriteByte(':')
		}
	}
	out.WriteByte(']')
	return out.String(), nil
}
