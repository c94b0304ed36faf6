// Package storagestate reads and writes storage state files: a browser
// context's cookies, and each origin's localStorage and IndexedDB, in the
// JSON layout of Playwright's storageState, which @playwright/mcp's
// browser_storage_state and browser_set_storage_state also use. A file
// saved by any of them loads in the others.
//
// A state file holds a logged-in session's cookies: it is a secret.
// Writers create it with mode 0600.
//
// The package does no I/O. [Parse] checks a file's content, [State.Marshal]
// makes one, and [CollectCall] and [RestoreCall] are the page-side
// expressions that read and write one origin's storage, which the browser
// supervisor evaluates in a page of that origin that runs nothing else;
// [PendingScript] is the document-start script that writes the
// localStorage of origins a large state left pending.
package storagestate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
)

// MaxFileBytes bounds a state file that is read (--storage-state,
// load_storage_state) and what one origin's storage may add to a file
// that is written: a logged-in session is kilobytes; IndexedDB databases
// an application caches may be megabytes.
const MaxFileBytes = 64 << 20

// MaxOrigins bounds the origins of a state file that is read: each is a
// document loaded in a hidden tab (a renderer of its own, as each site is
// one), some tens of milliseconds of the browser's work, or, past 50
// origins, an entry of the script every document of the context compiles
// while it is pending ([PendingScript]), so that a load stays within its
// call's budget and the script within a few hundred KB. Saving visits fewer (the origins a
// context's pages showed, at most 1,000 remembered).
const MaxOrigins = 10000

// State is a browser context's cookies and storage, as Playwright's
// storageState writes it.
type State struct {
	Cookies []Cookie `json:"cookies"`
	Origins []Origin `json:"origins"`
}

// Cookie is one cookie as Playwright writes it.
type Cookie struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Domain string `json:"domain"`
	Path   string `json:"path"`
	// Expires is when the cookie expires, in seconds since the Unix epoch;
	// -1 for a session cookie.
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	// SameSite is Strict, Lax or None.
	SameSite string `json:"sameSite"`
	// PartitionKey is the top-level site of a partitioned (CHIPS) cookie,
	// such as "https://example.com"; "" for an unpartitioned one.
	PartitionKey string `json:"partitionKey,omitempty"`
	// CrossSiteAncestor is Chromium's second part of a partition key,
	// under Playwright's name for it.
	CrossSiteAncestor *bool `json:"_crHasCrossSiteAncestor,omitempty"`
}

// Origin is what one origin stores.
type Origin struct {
	// Origin is scheme://host[:port], without a trailing slash.
	Origin       string `json:"origin"`
	LocalStorage []Item `json:"localStorage"`
	// IndexedDB are the origin's databases, each with its version, object
	// stores, indexes and records, as Playwright's storageState({indexedDB:
	// true}) writes them. They are kept as the page-side scripts make and
	// read them; [Parse] checks their outline.
	IndexedDB []json.RawMessage `json:"indexedDB,omitempty"`
}

// Item is one localStorage entry.
type Item struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Marshal returns the state as a file's content: indented JSON, as
// Playwright writes it.
func (s *State) Marshal() ([]byte, error) {
	out := *s
	if out.Cookies == nil {
		out.Cookies = []Cookie{}
	}
	if out.Origins == nil {
		out.Origins = []Origin{}
	}
	for i := range out.Origins {
		if out.Origins[i].LocalStorage == nil {
			out.Origins[i].LocalStorage = []Item{}
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode storage state: %w", err)
	}
	return append(b, '\n'), nil
}

// FormatError is why a file is not a storage state file. Its text is a
// sentence's end, "is not a storage state file: ...", for the caller to
// put the file's name before.
type FormatError struct{ Why string }

func (e *FormatError) Error() string { return "is not a storage state file: " + e.Why }

func invalid(format string, a ...any) error { return &FormatError{Why: fmt.Sprintf(format, a...)} }

// Parse reads a state file's content. Anything but a JSON object with
// cookies and origins as Playwright writes them is a *[FormatError], so
// that a wrong file is refused before anything of it is applied.
func Parse(data []byte) (*State, error) {
	if len(data) > MaxFileBytes {
		return nil, invalid("it is %d bytes, more than the %d a state file may have", len(data), MaxFileBytes)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, invalid("it is not a JSON object with \"cookies\" and \"origins\" (save one with save_storage_state, or Playwright's storageState)")
	}
	_, hasCookies := top["cookies"]
	_, hasOrigins := top["origins"]
	if !hasCookies && !hasOrigins {
		return nil, invalid("it has neither \"cookies\" nor \"origins\" (save one with save_storage_state, or Playwright's storageState)")
	}
	var s State
	if hasCookies {
		if err := json.Unmarshal(top["cookies"], &s.Cookies); err != nil {
			return nil, invalid("\"cookies\" must be an array of cookies with name, value, domain and path")
		}
	}
	if hasOrigins {
		if err := json.Unmarshal(top["origins"], &s.Origins); err != nil {
			return nil, invalid("\"origins\" must be an array of objects with origin and localStorage")
		}
	}
	for i, c := range s.Cookies {
		if err := checkCookie(c); err != nil {
			return nil, invalid("cookie %d (%q) %s", i+1, c.Name, err)
		}
	}
	if len(s.Origins) > MaxOrigins {
		return nil, invalid("it names %d origins, more than the %d a state file may have; split it, or leave out origins the agent does not need", len(s.Origins), MaxOrigins)
	}
	seen := map[string]bool{}
	for i, o := range s.Origins {
		if err := checkOrigin(o); err != nil {
			return nil, invalid("origin %d (%q) %s", i+1, o.Origin, err)
		}
		if seen[o.Origin] {
			return nil, invalid("origin %q is listed twice", o.Origin)
		}
		seen[o.Origin] = true
	}
	return &s, nil
}

func checkCookie(c Cookie) error {
	switch {
	case c.Name == "":
		return errors.New("has no name")
	case c.Domain == "":
		return errors.New("has no domain")
	case c.Path == "" || !strings.HasPrefix(c.Path, "/"):
		return errors.New("has no path starting with /")
	case math.IsNaN(c.Expires) || c.Expires < 0 && c.Expires != -1:
		return errors.New("has an expiry that is neither -1 nor a time in seconds")
	}
	switch c.SameSite {
	case "", "Strict", "Lax", "None":
	default:
		return fmt.Errorf("has sameSite %q, not Strict, Lax or None", c.SameSite)
	}
	return nil
}

func checkOrigin(o Origin) error {
	if _, err := CheckOrigin(o.Origin); err != nil {
		return err
	}
	for _, db := range o.IndexedDB {
		var d struct {
			Name    *string          `json:"name"`
			Version *float64         `json:"version"`
			Stores  *json.RawMessage `json:"stores"`
		}
		if err := json.Unmarshal(db, &d); err != nil || d.Name == nil || d.Version == nil || *d.Version < 1 || d.Stores == nil {
			return errors.New("has an IndexedDB database without a name, a version of 1 or more and stores")
		}
		var stores []struct {
			Name    *string           `json:"name"`
			Records []json.RawMessage `json:"records"`
			Indexes []json.RawMessage `json:"indexes"`
		}
		if err := json.Unmarshal(*d.Stores, &stores); err != nil {
			return fmt.Errorf("has IndexedDB database %q whose stores are not an array of stores", *d.Name)
		}
		for _, st := range stores {
			if st.Name == nil || st.Records == nil || st.Indexes == nil {
				return fmt.Errorf("has IndexedDB database %q with a store without a name, records and indexes", *d.Name)
			}
		}
	}
	return nil
}

// CheckOrigin returns origin in the form a state file names it,
// scheme://host[:port], if it is an http or https origin; else an error
// that says why not.
func CheckOrigin(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("is not an http or https origin such as https://example.com")
	}
	return u.Scheme + "://" + u.Host, nil
}

// CollectCall returns the expression that collects the current origin's
// storage: it resolves to the JSON text of an [Origin] without its origin,
// or rejects with a sentence when that is longer than limit characters.
func CollectCall(withIndexedDB bool, limit int) string {
	return fmt.Sprintf("(%s).collect(%t, %d)", storageJS, withIndexedDB, limit)
}

// RestoreCall returns the expression that replaces the current origin's
// localStorage and IndexedDB with o's, and resolves once done.
func RestoreCall(o Origin) (string, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return "", fmt.Errorf("encode the storage of %s: %w", o.Origin, err)
	}
	return fmt.Sprintf("(%s).restore(%s)", storageJS, b), nil
}
