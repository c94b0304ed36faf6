package urlpolicy_test

import (
	"fmt"
	"testing"

	"github.com/tabhive/tabhive/browser/urlpolicy"
)

// benchPatterns are 20 patterns of the kinds operators write: hosts and
// subdomains, ports, path prefixes, a named segment and a regexp group.
var benchPatterns = []string{
	"https://*.example.com/*",
	"https://example.com/*",
	"http://127.0.0.1:*/*",
	"http://localhost:*/*",
	"*://[\\:\\:1]:*/*",
	"https://api.example.org/v1/*",
	"https://cdn.example.net/assets/*",
	"file:///tmp/*",
	"wss://example.com/socket/*",
	"https://*.googleapis.com/*",
	"https://fonts.gstatic.com/*",
	"https://example.com/users/:id",
	"http{s}?://docs.example.com/*",
	"https://example.com/(\\d+)/edit",
	"https://static.example.com/*.js",
	"https://*.cdn.example.com:8443/*",
	"https://example.com/search?q=*",
	"https://intranet.test/*",
	"https://partner.test/api/*",
	"https://example.io/*",
}

// BenchmarkRequest decides one request against 20 allowed patterns, the
// cost paid on every request of every page. The URL matches none of them,
// so every pattern is tried.
func BenchmarkRequest(b *testing.B) {
	p, err := urlpolicy.New(urlpolicy.Config{Allowed: benchPatterns})
	if err != nil {
		b.Fatal(err)
	}
	for _, url := range []string{
		"https://www.other.test/static/app.3f9c2a.js?v=12",
		"http://10.1.2.3:8080/api/items?page=2",
	} {
		b.Run(url, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = p.Request(url)
			}
		})
	}
}

// BenchmarkRequestBlocked is the common block-list case: 20 blocked
// patterns, a URL that passes.
func BenchmarkRequestBlocked(b *testing.B) {
	p, err := urlpolicy.New(urlpolicy.Config{Blocked: benchPatterns})
	if err != nil {
		b.Fatal(err)
	}
	url := "https://www.other.test/static/app.3f9c2a.js?v=12"
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Request(url); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	for i, s := range []string{benchPatterns[0], benchPatterns[11], benchPatterns[13]} {
		b.Run(fmt.Sprint(i), func(b *testing.B) {
			for b.Loop() {
				if _, err := urlpolicy.Compile(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
