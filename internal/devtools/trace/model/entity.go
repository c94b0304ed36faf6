package model

import (
	"net/url"
	"regexp"
	"strings"
)

// Entity is a site a resource or a script belongs to. DevTools names the
// known ones from the third-party-web dataset (Google Analytics, ...);
// tabhive does not carry that dataset, so every entity is named by its
// registrable domain, as DevTools names the sites it does not know.
type Entity struct {
	Name string
}

// The rules third-party-web uses to find a URL's domain and root domain.
var (
	domainInURL   = regexp.MustCompile(`://(\S*?)(:\d+)?(/|$)`)
	domainChars   = regexp.MustCompile(`(?i)(?:[a-z0-9.-]+\.[a-z0-9]+|localhost)`)
	ipAddress     = regexp.MustCompile(`^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$`)
	rootDomainExp = regexp.MustCompile(`(?i)[^.]+\.([^.]+|(gov|com|co|ne)\.\w{2})$`)
)

// rootDomain returns the registrable domain of a URL as third-party-web
// computes it ("www.example.co.uk" → "example.co.uk"), or "".
func rootDomain(u string) string {
	if len(u) > 10000 || strings.HasPrefix(u, "data:") {
		return ""
	}
	domain := ""
	if m := domainInURL.FindStringSubmatch(u); m != nil {
		domain = m[1]
	}
	if m := domainChars.FindString(u); m != "" {
		domain = m
	}
	if domain == "" {
		return ""
	}
	if ipAddress.MatchString(domain) {
		return domain
	}
	if m := rootDomainExp.FindString(domain); m != "" {
		return m
	}
	return domain
}

// Entities maps URLs to entities, making one per root domain (and one per
// extension) on first use.
type Entities struct {
	byName map[string]*Entity
	byURL  map[string]*Entity
}

func newEntities() *Entities {
	return &Entities{byName: map[string]*Entity{}, byURL: map[string]*Entity{}}
}

// ForURL returns u's entity, or nil for a URL that is not http(s) or an
// extension's.
func (es *Entities) ForURL(u string) *Entity {
	if e, ok := es.byURL[u]; ok {
		return e
	}
	var name string
	switch {
	case strings.HasPrefix(u, "chrome-extension:"):
		p, err := url.Parse(u)
		if err != nil {
			return nil
		}
		name = p.Host
	case strings.HasPrefix(u, "http"):
		name = rootDomain(u)
	}
	if name == "" {
		return nil
	}
	e := es.byName[name]
	if e == nil {
		e = &Entity{Name: name}
		es.byName[name] = e
	}
	es.byURL[u] = e
	return e
}
