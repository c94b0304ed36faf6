package urlpolicy

import (
	"errors"
	"testing"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw  string
		want urlParts
	}{
		// Chromium's canonical URLs come through unchanged.
		{"http://127.0.0.1:8080/a?b", urlParts{protocol: "http", hostname: "127.0.0.1", port: "8080", pathname: "/a", search: "b"}},
		{"file:///etc/hostname", urlParts{protocol: "file", pathname: "/etc/hostname"}},
		{"https://user:pass@example.com/p'b%20c%3C~[]@!$;=%zz%41%C3%A9?q%27b%20`{}|^#f", urlParts{
			protocol: "https", username: "user", password: "pass", hostname: "example.com",
			pathname: "/p'b%20c%3C~[]@!$;=%zz%41%C3%A9", search: "q%27b%20`{}|^", hash: "f"}},
		{"ws://[::1]:9222/devtools/browser/abc", urlParts{protocol: "ws", hostname: "[::1]", port: "9222", pathname: "/devtools/browser/abc"}},
		// Other spellings are canonicalized as Chromium does (see canon.go).
		{"HTTP://EXAMPLE.com:80/a/../b/./c", urlParts{protocol: "http", hostname: "example.com", pathname: "/b/c"}},
		{"  https://example.com  ", urlParts{protocol: "https", hostname: "example.com", pathname: "/"}},
		{"ht\ttp://exa\nmple.com/a\rb", urlParts{protocol: "http", hostname: "example.com", pathname: "/ab"}},
		{`http:\\example.com\a\..\b`, urlParts{protocol: "http", hostname: "example.com", pathname: "/b"}},
		{"http:example.com/x", urlParts{protocol: "http", hostname: "example.com", pathname: "/x"}},
		{"http:///example.com/x", urlParts{protocol: "http", hostname: "example.com", pathname: "/x"}},
		{"http://0x7f.1/", urlParts{protocol: "http", hostname: "127.0.0.1", pathname: "/"}},
		{"http://2130706433/", urlParts{protocol: "http", hostname: "127.0.0.1", pathname: "/"}},
		{"http://0177.0.0.01/", urlParts{protocol: "http", hostname: "127.0.0.1", pathname: "/"}},
		{"http://127.0.0.1./", urlParts{protocol: "http", hostname: "127.0.0.1", pathname: "/"}},
		{"http://%31%32%37.0.0.1/", urlParts{protocol: "http", hostname: "127.0.0.1", pathname: "/"}},
		{"http://0.0.0.0:9222/", urlParts{protocol: "http", hostname: "0.0.0.0", port: "9222", pathname: "/"}},
		{"http://[0:0:0:0:0:0:0:1]/", urlParts{protocol: "http", hostname: "[::1]", pathname: "/"}},
		{"http://[::FFFF:127.0.0.1]/", urlParts{protocol: "http", hostname: "[::ffff:7f00:1]", pathname: "/"}},
		{"http://[1:0:0:2:0:0:0:3]/", urlParts{protocol: "http", hostname: "[1:0:0:2::3]", pathname: "/"}},
		{"http://[1:0:0:2:0:0:3:4]/", urlParts{protocol: "http", hostname: "[1::2:0:0:3:4]", pathname: "/"}},
		{"https://example.com:0443/", urlParts{protocol: "https", hostname: "example.com", pathname: "/"}},
		{"https://example.com:08443/", urlParts{protocol: "https", hostname: "example.com", port: "8443", pathname: "/"}},
		{"https://example.com:443/", urlParts{protocol: "https", hostname: "example.com", pathname: "/"}},
		{"http://example.com:/", urlParts{protocol: "http", hostname: "example.com", pathname: "/"}},
		{"http://u@s:p@a@h/x", urlParts{protocol: "http", username: "u%40s", password: "p%40a", hostname: "h", pathname: "/x"}},
		{"http://a b@h/", urlParts{protocol: "http", username: "a%20b", hostname: "h", pathname: "/"}},
		{"http://h/a b\"<>`{}|^", urlParts{protocol: "http", hostname: "h", pathname: "/a%20b%22%3C%3E%60%7B%7D%7C%5E"}},
		{"http://h/%2e%2E/x/%2e/y/..", urlParts{protocol: "http", hostname: "h", pathname: "/x/"}},
		{"http://h/../../x", urlParts{protocol: "http", hostname: "h", pathname: "/x"}},
		{"http://h/é?é#é", urlParts{protocol: "http", hostname: "h", pathname: "/%C3%A9", search: "%C3%A9", hash: "%C3%A9"}},
		{"http://h?q'#h", urlParts{protocol: "http", hostname: "h", pathname: "/", search: "q%27", hash: "h"}},
		{"http://h/?a?b#c#d", urlParts{protocol: "http", hostname: "h", pathname: "/", search: "a?b", hash: "c#d"}},
		// file: URLs.
		{"file://localhost/etc/passwd", urlParts{protocol: "file", pathname: "/etc/passwd"}},
		{"file://server/share/x", urlParts{protocol: "file", hostname: "server", pathname: "/share/x"}},
		{"file:/etc/passwd", urlParts{protocol: "file", pathname: "/etc/passwd"}},
		{"file:etc/passwd", urlParts{protocol: "file", pathname: "/etc/passwd"}},
		{"FILE:///tmp/../etc/passwd", urlParts{protocol: "file", pathname: "/etc/passwd"}},
		{`file:\\\etc\passwd`, urlParts{protocol: "file", pathname: "/etc/passwd"}},
		{"file:///C:/../x", urlParts{protocol: "file", pathname: "/C:/x"}},
		{"file://C:/x", urlParts{protocol: "file", pathname: "/C:/x"}},
		// Non-special schemes: opaque paths and hosts.
		{"data:text/html,<b>hi</b>", urlParts{protocol: "data", pathname: "text/html,<b>hi</b>"}},
		{"javascript:alert(1)", urlParts{protocol: "javascript", pathname: "alert(1)"}},
		{"about:blank", urlParts{protocol: "about", pathname: "blank"}},
		{"blob:https://a/uuid", urlParts{protocol: "blob", pathname: "https://a/uuid"}},
		{"foo://EXAMPLE/a/../b", urlParts{protocol: "foo", hostname: "EXAMPLE", pathname: "/b"}},
		{"foo://h", urlParts{protocol: "foo", hostname: "h"}},
		{"foo:///x", urlParts{protocol: "foo", pathname: "/x"}},
		{"foo:/a/./b", urlParts{protocol: "foo", pathname: "/a/b"}},
		{`foo://h/a\b`, urlParts{protocol: "foo", hostname: "h", pathname: `/a\b`}},
		{"mailto:a@b.c", urlParts{protocol: "mailto", pathname: "a@b.c"}},
	}
	for _, tt := range tests {
		got, err := parseURL(tt.raw)
		if err != nil {
			t.Errorf("parseURL(%q): %v", tt.raw, err)
			continue
		}
		if got != tt.want {
			t.Errorf("parseURL(%q) =\n %+v, want\n %+v", tt.raw, got, tt.want)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	for _, raw := range []string{
		"", "   ", "example.com", "/path", "//example.com/", "1http://a/", "ht tp://a/",
		"http://", "http:///", "http://@/", "http://user@/", "http://a:b/", "http://a:99999/",
		"http://exa mple.com/", "http://a<b/", "http://a%2fb/", "http://[::1/", "http://[::1]x/",
		"http://[::g]/", "http://[fe80::1%25eth0]/", "http://1.2.3.4.5/", "http://1.2.3.256/",
		"http://0x100000000/", "http://09.1.1.1/", "file://a:1/", "foo://a b/", "foo://:0", "foo://u@:1/",
	} {
		if got, err := parseURL(raw); err == nil {
			t.Errorf("parseURL(%q) = %+v, want an error", raw, got)
		}
	}
	for _, raw := range []string{"http://café.example/", "http://ex%C3%A4mple.com/", "https://xn--caf-dma.com\u00a0/"} {
		if _, err := parseURL(raw); !errors.Is(err, errNonASCIIHost) {
			t.Errorf("parseURL(%q) = %v, want errNonASCIIHost", raw, err)
		}
	}
}

func TestCanonPathIsIdentityOnCanonicalPaths(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b/", "/a.js", "/.well-known/x", "/a..b/", "/%2e%2e%2fx", "/a%2Fb"} {
		if got := canonPath(p, true, false); got != p {
			t.Errorf("canonPath(%q) = %q, want it unchanged", p, got)
		}
	}
}

func TestIsCanonicalIPv4(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "0.0.0.0": true, "255.255.255.255": true, "10.0.0.25": true,
		"256.0.0.1": false, "01.0.0.1": false, "1.2.3": false, "1.2.3.4.": false, "1.2.3.4.5": false,
		"1..2.3": false, "0x7f.0.0.1": false, "": false, "1.2.3.1000": false,
	} {
		if got := isCanonicalIPv4(host); got != want {
			t.Errorf("isCanonicalIPv4(%q) = %v, want %v", host, got, want)
		}
	}
}
