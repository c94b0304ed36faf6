package urlpolicy_test

import (
	"fmt"

	"github.com/tabhive/tabhive/browser/urlpolicy"
)

func ExampleCompile() {
	p, err := urlpolicy.Compile("https://*.example.com/*")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range []string{
		"https://docs.example.com/guide?x=1",
		"https://example.com/",           // "*." needs a subdomain
		"https://docs.example.com:8443/", // no port given: the default port only
		"HTTPS://DOCS.EXAMPLE.COM/",      // URLs are canonicalized first
	} {
		fmt.Println(p.Match(u), u)
	}
	_, err = urlpolicy.Compile("https://example.com/#section")
	fmt.Println(err)
	// Output:
	// true https://docs.example.com/guide?x=1
	// false https://example.com/
	// false https://docs.example.com:8443/
	// true HTTPS://DOCS.EXAMPLE.COM/
	// URL pattern "https://example.com/#section" cannot be enforced: network requests carry no #fragment, so its hash part "section" could never be checked; leave out the "#..." part
}

func ExamplePolicy_Navigation() {
	p, err := urlpolicy.New(urlpolicy.Config{
		Blocked: []string{"*://evil.test:*/*"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range []string{
		"about:blank",
		"https://example.com/",
		"http://evil.test:8080/",
		"file:///etc/shadow",
		"view-source:chrome://settings",
		"javascript:alert(1)",
	} {
		if err := p.Navigation(u); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("allowed:", u)
	}
	// Output:
	// allowed: about:blank
	// allowed: https://example.com/
	// Navigation to http://evil.test:8080/ refused: it matches --blocked-url-pattern "*://evil.test:*/*".
	// Navigation to file:///etc/shadow refused: this server does not allow file: URLs (start it with --file-navigations to allow them).
	// Navigation to view-source:chrome://settings refused: chrome: URLs are the browser's own pages, which this server never opens.
	// Navigation to javascript:alert(1) refused: this server was started with --javascript-evaluation=false, which refuses javascript: URLs.
}
