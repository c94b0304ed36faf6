package urlpolicy_test

import (
	"errors"
	"testing"

	"github.com/tabhive/tabhive/browser/urlpolicy"
)

// TestBlockedLoopbackAliases: a blocked pattern that names a loopback
// host covers every spelling that reaches the same machine, as Chromium
// resolves it: localhost and its subdomains in any case, with a trailing
// dot, the whole 127.0.0.0/8 block in any numeric spelling, 0.0.0.0, and
// the IPv6 loopback and IPv4-mapped forms. The port and the rest of the
// pattern still apply; the allow list stays literal.
func TestBlockedLoopbackAliases(t *testing.T) {
	for _, pattern := range []string{"*://127.0.0.1:9402/*", "*://localhost:9402/*", "*://[\\:\\:1]:9402/*", "*://127.*:9402/*"} {
		pol := mustNew(t, urlpolicy.Config{Blocked: []string{pattern}, JavaScript: true})
		for _, u := range []string{
			"http://127.0.0.1:9402/", "http://localhost:9402/x", "http://LOCALHOST:9402/", "http://localhost.:9402/",
			"http://x.localhost:9402/", "http://a.b.LocalHost.:9402/", "http://0.0.0.0:9402/", "http://0:9402/",
			"http://[::ffff:127.0.0.1]:9402/", "http://[::ffff:7f00:2]:9402/", "http://127.0.0.2:9402/",
			"http://127.1:9402/", "http://0x7f.1:9402/", "http://2130706433:9402/", "http://[::1]:9402/",
			"http://[0:0::1]:9402/", "http://[::]:9402/", "ws://localhost:9402/socket", "https://localhost:9402/",
			"http://localhost6:9402/", "http://ip6-localhost:9402/", "http://localhost.localdomain:9402/",
			"view-source:http://localhost:9402/", "blob:http://localhost:9402/0b6a9c1e",
		} {
			if err := pol.Request(u); !errors.Is(err, urlpolicy.ErrBlocked) {
				t.Errorf("blocked %q: Request(%q) = %v, want refused", pattern, u, err)
			}
		}
		for _, u := range []string{
			"http://127.0.0.1:9403/", "http://localhost:9403/", "http://localhost/", "http://example.com:9402/",
			"http://localhostx:9402/", "http://x-localhost:9402/", "http://128.0.0.1:9402/", "http://10.0.0.1:9402/",
			"http://[::2]:9402/", "http://[::ffff:10.0.0.1]:9402/", "http://localhost.example:9402/",
		} {
			if err := pol.Request(u); err != nil {
				t.Errorf("blocked %q: Request(%q) = %v, want allowed", pattern, u, err)
			}
		}
	}

	// An allow list is literal: allowing one spelling does not allow
	// another, which the agent can always write as allowed.
	allow := mustNew(t, urlpolicy.Config{Allowed: []string{"http://localhost:9402/*"}})
	if err := allow.Request("http://localhost:9402/"); err != nil {
		t.Errorf("allowed localhost: %v", err)
	}
	if err := allow.Request("http://127.0.0.1:9402/"); !errors.Is(err, urlpolicy.ErrBlocked) {
		t.Errorf("allow list of localhost: 127.0.0.1 = %v, want refused", err)
	}
}
