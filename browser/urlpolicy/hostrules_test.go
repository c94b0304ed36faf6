package urlpolicy_test

import (
	"testing"

	"github.com/tabhive/tabhive/browser/urlpolicy"
)

func TestHostResolverRules(t *testing.T) {
	for _, tt := range []struct {
		allowed, blocked []string
		want             string
	}{
		{nil, nil, ""},
		{[]string{"https://example.com/*", "http://127.0.0.1:8080/app/*", "https://*.example.org/*", "http://[\\:\\:1]:*/*", "file:///srv/*"}, nil,
			"MAP * ~NOTFOUND, EXCLUDE example.com, EXCLUDE 127.0.0.1, EXCLUDE *.example.org, EXCLUDE ::1"},
		{[]string{"file:///srv/*"}, nil, "MAP * ~NOTFOUND"},
		{[]string{"https://example.com/*", "https://*/*"}, nil, ""},                // every host
		{[]string{"https://example.com/*", "https://:sub.example.org/*"}, nil, ""}, // cannot be written
		{nil, []string{"*://evil.test:*/*", "https://other.test/*", "*://*.ads.test:*/*", "*://a.test:*/admin/*"},
			"MAP evil.test ~NOTFOUND, MAP *.ads.test ~NOTFOUND"},
		{nil, []string{"*://localhost:*/*"},
			"MAP localhost ~NOTFOUND, MAP localhost. ~NOTFOUND, MAP *.localhost ~NOTFOUND, MAP *.localhost. ~NOTFOUND, MAP 127.* ~NOTFOUND, MAP 0.0.0.0 ~NOTFOUND, MAP 0 ~NOTFOUND, MAP ::1 ~NOTFOUND, MAP :: ~NOTFOUND, MAP ::ffff:127.* ~NOTFOUND, MAP ::ffff:7f* ~NOTFOUND"},
	} {
		pol := mustNew(t, urlpolicy.Config{Allowed: tt.allowed, Blocked: tt.blocked})
		if got := pol.HostResolverRules(); got != tt.want {
			t.Errorf("allowed %q, blocked %q:\n got %q\nwant %q", tt.allowed, tt.blocked, got, tt.want)
		}
	}
}
