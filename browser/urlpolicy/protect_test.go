package urlpolicy_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/urlpolicy"
)

// TestProtect: a protected path is refused as a file: URL in every
// spelling, whatever FileNavigations says, and file: requests are then
// intercepted even with no pattern; other files load.
func TestProtect(t *testing.T) {
	var asked []string
	guard := func(p string) bool {
		asked = append(asked, p)
		return p == "/srv/profile" || strings.HasPrefix(p, "/srv/profile/")
	}
	pol := mustNew(t, urlpolicy.Config{FileNavigations: true, JavaScript: true}).Protect(guard)
	if got := pol.Intercept(); !slices.Equal(got, []string{"file:*"}) {
		t.Errorf("Intercept() = %v, want [file:*]", got)
	}
	for _, u := range []string{
		"file:///srv/profile/Local%20State", "file:///srv/profile/", "file:///srv/profile",
		"file:///srv/x/../profile/Cookies", "file:///srv/%70rofile/Cookies", "file:///srv%2Fprofile/Cookies",
		"view-source:file:///srv/profile/Local%20State", "filesystem:file:///srv/profile/x", "FILE:///srv/profile/a",
		"file://localhost/srv/profile/a",
	} {
		err := pol.Request(u)
		var re *urlpolicy.RefusedError
		if !errors.As(err, &re) || re.Reason != urlpolicy.ReasonProtected {
			t.Errorf("Request(%q) = %v, want refused as protected", u, err)
		}
	}
	if err := pol.Navigation("file:///srv/profile/Local%20State"); err == nil || err.Error() != "Navigation to file:///srv/profile/Local%20State refused: it is in the browser's profile or in a session's private directory, which no page may read, whatever --file-navigations says." {
		t.Errorf("Navigation sentence = %v", err)
	}
	for _, u := range []string{"file:///srv/profiles/a", "file:///tmp/page.html", "https://example.com/srv/profile/"} {
		if err := pol.Request(u); err != nil {
			t.Errorf("Request(%q) = %v, want allowed", u, err)
		}
	}
	// Without file navigations the reason stays the flag's.
	off := mustNew(t, urlpolicy.Config{}).Protect(guard)
	var re *urlpolicy.RefusedError
	if err := off.Request("file:///srv/profile/a"); !errors.As(err, &re) || re.Reason != urlpolicy.ReasonFile {
		t.Errorf("without --file-navigations: %v, want the flag's reason", err)
	}
}

// TestEndpoints: while an endpoint's port is open, every loopback
// spelling of it is refused, any scheme, wrapped or not, whatever the
// patterns say; other ports and hosts go, and nothing once it closed.
func TestEndpoints(t *testing.T) {
	open := []int{41234}
	pol := mustNew(t, urlpolicy.Config{Allowed: []string{"http://127.0.0.1:*/*", "http://localhost:*/*"}}).
		Endpoints(func() []int { return open })
	for _, u := range []string{
		"http://127.0.0.1:41234/", "http://localhost:41234/json/version", "ws://127.0.0.1:41234/devtools/browser/x",
		"https://localhost:41234/", "http://LOCALHOST:41234/", "http://127.1:41234/", "http://0.0.0.0:41234/",
		"http://[::ffff:127.0.0.1]:41234/", "http://a.localhost:41234/", "http://2130706433:41234/",
		"view-source:http://127.0.0.1:41234/", "blob:http://127.0.0.1:41234/uuid",
	} {
		err := pol.Navigation(u)
		var re *urlpolicy.RefusedError
		if !errors.As(err, &re) || re.Reason != urlpolicy.ReasonEndpoint {
			t.Errorf("Navigation(%q) = %v, want refused as the endpoint", u, err)
		}
	}
	if err := pol.Request("http://localhost:41234/"); err == nil || err.Error() != "Request to http://localhost:41234/ refused: it is tabhive's own DevTools endpoint for a Lighthouse audit in progress, which no page may load." {
		t.Errorf("Request sentence = %v", err)
	}
	for _, u := range []string{"http://127.0.0.1:41235/", "http://localhost:8080/"} {
		if err := pol.Navigation(u); err != nil {
			t.Errorf("Navigation(%q) = %v, want allowed", u, err)
		}
	}
	if err := mustNew(t, urlpolicy.Config{}).Endpoints(func() []int { return open }).Request("http://example.com:41234/"); err != nil {
		t.Errorf("another host on the port: %v, want allowed", err)
	}
	open = nil
	if err := pol.Navigation("http://127.0.0.1:41234/"); err != nil {
		t.Errorf("once closed: %v, want allowed", err)
	}
}
