package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/storagestate"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
	kit "github.com/tabhive/tabhive/transport/tool"
)

// stateBudget bounds save_storage_state and load_storage_state: a hidden
// tab loads each origin in turn, and IndexedDB may hold megabytes.
const stateBudget = 60 * time.Second

// stateTools read and write what a browser context keeps: cookies, web
// storage, and whole storage states (log in once, start every agent from
// it). Cookies and states are the browser context's: every page of an
// isolated session shares one. They are calls to the supervisor (cookies,
// states) or to the page's actor (web storage), never a lock.
func (s *Server) stateTools() []*tool {
	return []*tool{
		define(tool{name: "list_cookies", description: "Lists the cookies of the page's browser context, httpOnly ones included (with --isolate-sessions, the session's own).", page: true, readOnly: true},
			fixed[listCookiesArgs](listBudget), s.runListCookies),
		define(tool{name: "set_cookie", description: "Sets a cookie in the page's browser context, for a url or a domain.", page: true},
			fixed[setCookieArgs](listBudget), s.runSetCookie),
		define(tool{name: "delete_cookies", description: "Deletes cookies of the page's browser context: those of a name for a url or domain, or all of them.", page: true},
			fixed[deleteCookiesArgs](listBudget), s.runDeleteCookies),
		define(tool{name: "get_cookie", description: "Gets the cookies of a name in the page's browser context, httpOnly ones included: those of every domain and path, or of a url or domain.", page: true, readOnly: true},
			fixed[getCookieArgs](listBudget), s.runGetCookie),
		define(tool{name: "clear_cookies", description: "Deletes every cookie of the page's browser context (with --isolate-sessions, the session's own).", page: true},
			fixed[clearCookiesArgs](listBudget), s.runClearCookies),
		define(tool{name: "get_web_storage", description: "Reads the localStorage or sessionStorage of the page's origin, or of the origin of one of its frames.", page: true, readOnly: true},
			fixed[getStorageArgs](listBudget), runGetStorage),
		define(tool{name: "set_web_storage", description: "Sets an entry of the localStorage or sessionStorage of the page's origin, or of the origin of one of its frames.", page: true},
			fixed[setStorageArgs](listBudget), runSetStorage),
		define(tool{name: "delete_web_storage", description: "Deletes an entry, or every entry, of the localStorage or sessionStorage of the page's origin, or of the origin of one of its frames.", page: true},
			fixed[deleteStorageArgs](listBudget), runDeleteStorage),
		define(tool{name: "save_storage_state", description: "Saves the page's browser context's cookies and each origin's localStorage and IndexedDB to a file, in Playwright's storageState format. The file holds login sessions: keep it secret.", page: true},
			fixed[saveStateArgs](stateBudget), s.runSaveState),
		define(tool{name: "load_storage_state", description: "Loads a storage state file (save_storage_state's, or Playwright's) into the page's browser context: its cookies replace the context's, and each origin it names gets its localStorage and IndexedDB. Load it before the pages that need it navigate.", page: true},
			fixed[loadStateArgs](stateBudget), s.runLoadState),
	}
}

type listCookiesArgs struct {
	URLs   []string `json:"urls" desc:"Only the cookies a request to one of these URLs would carry."`
	Domain string   `json:"domain" desc:"Only the cookies of this domain or of its subdomains, such as example.com."`
	Name   string   `json:"name" desc:"Only the cookies with this name."`
}

func (s *Server) runListCookies(ctx context.Context, c *call, a *listCookiesArgs) error {
	var urls []func(storagestate.Cookie) bool
	for _, u := range a.URLs {
		if _, err := httpURL("urls", u); err != nil {
			return err
		}
		urls = append(urls, browser.CookieFilter(browser.CookieMatch{URL: u}))
	}
	cookies, err := s.sup.Cookies(ctx, c.pageID)
	if err != nil {
		return noPage(err, c.pageID)
	}
	domain := strings.TrimPrefix(strings.ToLower(a.Domain), ".")
	out := []string{"## Cookies"}
	for _, ck := range cookies {
		d := strings.TrimPrefix(strings.ToLower(ck.Domain), ".")
		if a.Name != "" && ck.Name != a.Name || domain != "" && d != domain && !strings.HasSuffix(d, "."+domain) {
			continue
		}
		if len(urls) > 0 && !anyMatch(urls, ck) {
			continue
		}
		out = append(out, formatCookie(ck))
	}
	if len(out) == 1 {
		out = append(out, "No cookies found.")
	}
	c.r.sections = append(c.r.sections, strings.Join(out, "\n"))
	return nil
}

type getCookieArgs struct {
	Name   string `json:"name" required:"true" desc:"The cookie's name."`
	URL    string `json:"url" desc:"Only the cookie a request to this URL would carry."`
	Domain string `json:"domain" desc:"Only the cookie of this domain or of its subdomains, such as example.com."`
}

func (s *Server) runGetCookie(ctx context.Context, c *call, a *getCookieArgs) error {
	if a.Name == "" {
		return badArgs("Give the name of the cookie to get.")
	}
	l := &listCookiesArgs{Name: a.Name, Domain: a.Domain}
	if a.URL != "" {
		l.URLs = []string{a.URL}
	}
	if err := s.runListCookies(ctx, c, l); err != nil {
		return err
	}
	last := &c.r.sections[len(c.r.sections)-1]
	*last = strings.Replace(*last, "No cookies found.", fmt.Sprintf("No cookie named %s.", quote(a.Name)), 1)
	return nil
}

type clearCookiesArgs struct{}

func (s *Server) runClearCookies(ctx context.Context, c *call, _ *clearCookiesArgs) error {
	return s.runDeleteCookies(ctx, c, &deleteCookiesArgs{All: true})
}

func anyMatch(fs []func(storagestate.Cookie) bool, ck storagestate.Cookie) bool {
	for _, f := range fs {
		if f(ck) {
			return true
		}
	}
	return false
}

// formatCookie renders a cookie as a Set-Cookie header would carry it.
func formatCookie(c storagestate.Cookie) string {
	parts := []string{c.Name + "=" + c.Value, "Domain=" + c.Domain, "Path=" + c.Path}
	if c.Expires > 0 {
		parts = append(parts, "Expires="+time.Unix(int64(c.Expires), 0).UTC().Format(time.RFC3339))
	}
	if c.HTTPOnly {
		parts = append(parts, "HttpOnly")
	}
	if c.Secure {
		parts = append(parts, "Secure")
	}
	if c.SameSite != "" {
		parts = append(parts, "SameSite="+c.SameSite)
	}
	if c.PartitionKey != "" {
		parts = append(parts, "Partitioned="+c.PartitionKey)
	}
	return strings.Join(parts, "; ")
}

// httpURL checks that raw, the value of argument arg, is an absolute http
// or https URL.
func httpURL(arg, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, badArgs("Invalid %s %q: give an absolute http or https URL, such as https://example.com/.", arg, raw)
	}
	return u, nil
}

type setCookieArgs struct {
	Name         string   `json:"name" required:"true" desc:"Cookie name."`
	Value        string   `json:"value" required:"true" desc:"Cookie value."`
	URL          string   `json:"url" desc:"A URL the cookie is for, such as https://example.com/: its host becomes the cookie's domain. Give url or domain."`
	Domain       string   `json:"domain" desc:"Cookie domain, such as example.com; a leading dot (.example.com) covers its subdomains too. Give url or domain."`
	Path         string   `json:"path" desc:"Cookie path. Default: /."`
	Expires      *float64 `json:"expires" min:"0" desc:"When the cookie expires, in seconds since the Unix epoch. Default: a session cookie."`
	HTTPOnly     bool     `json:"httpOnly" desc:"Whether page scripts are kept from reading the cookie (document.cookie). Default false."`
	Secure       bool     `json:"secure" desc:"Whether the cookie is sent over https only. Default false."`
	SameSite     string   `json:"sameSite" enum:"Strict,Lax,None" desc:"The cookie's SameSite attribute. Default: the browser's (Lax). None needs secure."`
	PartitionKey string   `json:"partitionKey" desc:"The top-level site of a partitioned (CHIPS) cookie, such as https://example.com. It needs secure."`
}

func (s *Server) runSetCookie(ctx context.Context, c *call, a *setCookieArgs) error {
	if a.Name == "" {
		return badArgs("A cookie needs a name: pass a non-empty name.")
	}
	if a.URL == "" && a.Domain == "" {
		return badArgs("A cookie needs a url or a domain: pass url (such as https://example.com/) or domain (such as example.com).")
	}
	if a.URL != "" {
		if _, err := httpURL("url", a.URL); err != nil {
			return err
		}
	}
	if a.Path != "" && !strings.HasPrefix(a.Path, "/") {
		return badArgs("Invalid path %q: a cookie path starts with /.", a.Path)
	}
	if a.PartitionKey != "" {
		o, err := storagestate.CheckOrigin(a.PartitionKey)
		if err != nil {
			return badArgs("Invalid partitionKey %q: give a top-level site such as https://example.com.", a.PartitionKey)
		}
		a.PartitionKey = o
	}
	nc := browser.NewCookie{Name: a.Name, Value: a.Value, URL: a.URL, Domain: a.Domain, Path: a.Path,
		HTTPOnly: a.HTTPOnly, Secure: a.Secure, SameSite: a.SameSite, PartitionKey: a.PartitionKey}
	if a.Expires != nil {
		nc.Expires = *a.Expires
	}
	if err := s.sup.SetCookie(ctx, c.pageID, nc); err != nil {
		return noPage(err, c.pageID)
	}
	where := a.Domain
	if where == "" {
		where = a.URL
	}
	c.r.line("Set cookie %q for %s in the page's browser context.", a.Name, where)
	return nil
}

type deleteCookiesArgs struct {
	Name   string `json:"name" desc:"Name of the cookies to delete, with url or domain."`
	URL    string `json:"url" desc:"Delete the cookies named name that a request to this URL would carry."`
	Domain string `json:"domain" desc:"Delete the cookies named name of this domain."`
	Path   string `json:"path" desc:"Only those of this path."`
	All    bool   `json:"all" desc:"Delete every cookie of the page's browser context instead."`
}

func (s *Server) runDeleteCookies(ctx context.Context, c *call, a *deleteCookiesArgs) error {
	if a.All {
		if a.Name != "" || a.URL != "" || a.Domain != "" || a.Path != "" {
			return badArgs("Give all: true alone, or name with url or domain, not both.")
		}
		n, err := s.sup.ClearCookies(ctx, c.pageID)
		if err != nil {
			return noPage(err, c.pageID)
		}
		c.r.line("Deleted all %s of the page's browser context.", plural(n, "cookie"))
		return nil
	}
	if a.Name == "" || (a.URL == "" && a.Domain == "") {
		return badArgs("Say which cookies to delete: name with url or domain, or all: true.")
	}
	if a.URL != "" {
		if _, err := httpURL("url", a.URL); err != nil {
			return err
		}
	}
	n, err := s.sup.DeleteCookies(ctx, c.pageID, browser.CookieFilter(browser.CookieMatch{Name: a.Name, URL: a.URL, Domain: a.Domain, Path: a.Path}))
	if err != nil {
		return noPage(err, c.pageID)
	}
	if n == 0 {
		c.r.line("No cookie matched; none deleted.")
		return nil
	}
	c.r.line("Deleted %s.", plural(n, "cookie"))
	return nil
}

func plural(n int, word string) string { return kit.Plural(n, word) }

// storageArgs say whose web storage a tool reads or writes.
type storageArgs struct {
	Type   string `json:"type" enum:"local,session" desc:"localStorage (local, the default) or sessionStorage (session)."`
	Origin string `json:"origin" desc:"The origin whose storage to use, such as https://example.com: the page's main frame's or one of its iframes'. Default: the main frame's."`
}

// resolve checks the origin and returns it in canonical form, with
// whether the storage is localStorage and its name.
func (a storageArgs) resolve() (origin string, local bool, name string, err error) {
	if a.Origin != "" {
		if origin, err = storagestate.CheckOrigin(a.Origin); err != nil {
			return "", false, "", badArgs("Invalid origin %q: give an http or https origin such as https://example.com.", a.Origin)
		}
	}
	if a.Type == "session" {
		return origin, false, "sessionStorage", nil
	}
	return origin, true, "localStorage", nil
}

// storageError words a web storage call's failure.
func storageError(err error) error {
	if ne, ok := errorsAs[*page.NoOriginError](err); ok {
		if ne.Origin == "" {
			return fmt.Errorf("Page %d shows %s, which has no web storage: navigate it to a site first, or pass the origin of one of its frames.", ne.PageID, ne.URL)
		}
		return fmt.Errorf("No frame of page %d shows origin %s: navigate the page there first, or pass the origin of one of its frames.", ne.PageID, ne.Origin)
	}
	return err
}

type getStorageArgs struct {
	storageArgs
	Key string `json:"key" desc:"Only this entry."`
}

func runGetStorage(ctx context.Context, c *call, a *getStorageArgs) error {
	origin, local, name, err := a.resolve()
	if err != nil {
		return err
	}
	st, err := c.page.WebStorage(ctx, origin, local)
	if err != nil {
		return storageError(err)
	}
	c.r.state(st.State)
	out := []string{fmt.Sprintf("## %s of %s", name, st.Origin)}
	for _, it := range st.Items {
		if a.Key == "" || it.Key == a.Key {
			out = append(out, quote(it.Key)+": "+quote(it.Value))
		}
	}
	switch {
	case len(out) > 1:
	case a.Key != "":
		out = append(out, fmt.Sprintf("No entry %s.", quote(a.Key)))
	default:
		out = append(out, "No entries.")
	}
	c.r.sections = append(c.r.sections, strings.Join(out, "\n"))
	return nil
}

// quote writes s as a JSON string, so that an entry's key and value read
// unambiguously whatever they hold.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

type setStorageArgs struct {
	storageArgs
	Key   string `json:"key" required:"true" desc:"The entry's key."`
	Value string `json:"value" required:"true" desc:"The entry's value."`
}

func runSetStorage(ctx context.Context, c *call, a *setStorageArgs) error {
	origin, local, name, err := a.resolve()
	if err != nil {
		return err
	}
	o, st, err := c.page.ChangeWebStorage(ctx, page.StorageChange{Origin: origin, Local: local, Key: a.Key, Value: a.Value})
	if err != nil {
		return storageError(err)
	}
	c.r.state(st)
	c.r.line("Set %s in the %s of %s.", quote(a.Key), name, o)
	return nil
}

type deleteStorageArgs struct {
	storageArgs
	Key string `json:"key" desc:"The key of the entry to delete."`
	All bool   `json:"all" desc:"Delete every entry instead."`
}

func runDeleteStorage(ctx context.Context, c *call, a *deleteStorageArgs) error {
	origin, local, name, err := a.resolve()
	if err != nil {
		return err
	}
	if a.All == (a.Key != "") {
		return badArgs("Say what to delete: a key, or all: true.")
	}
	o, st, err := c.page.ChangeWebStorage(ctx, page.StorageChange{Origin: origin, Local: local, Key: a.Key, Remove: !a.All, Clear: a.All})
	if err != nil {
		return storageError(err)
	}
	c.r.state(st)
	if a.All {
		c.r.line("Deleted every entry of the %s of %s.", name, o)
	} else {
		c.r.line("Deleted %s from the %s of %s.", quote(a.Key), name, o)
	}
	return nil
}

type saveStateArgs struct {
	FilePath  string `json:"filePath" required:"true" desc:"The absolute path, or a path relative to the current working directory, of the JSON file to write (mode 0600: it holds login sessions)."`
	IndexedDB *bool  `json:"indexedDB" desc:"Whether to include each origin's IndexedDB databases, records included. Default true."`
}

func (s *Server) runSaveState(ctx context.Context, c *call, a *saveStateArgs) error {
	sb := c.sandbox(ctx)
	if _, err := sb.Resolve(a.FilePath); err != nil {
		return err
	}
	saved, err := s.sup.StorageState(ctx, c.pageID, browser.StateOptions{IndexedDB: a.IndexedDB == nil || *a.IndexedDB})
	if err != nil {
		return noPage(err, c.pageID)
	}
	data, err := saved.State.Marshal()
	if err != nil {
		return err
	}
	f := sb.Lazy(sandbox.LazyOptions{Path: a.FilePath, Ext: ".json", Secret: true})
	_, err = f.Write(data)
	if err = f.Finish(err); err != nil {
		return err
	}
	c.r.line("Saved the storage state of the page's browser context (%s, %s) to %s. It holds login sessions: keep it secret.",
		plural(len(saved.State.Cookies), "cookie"), plural(len(saved.State.Origins), "origin"), f.Name())
	if len(saved.Skipped) > 0 {
		c.r.line("Left out, as the URL policy refuses them: %s.", strings.Join(saved.Skipped, ", "))
	}
	return nil
}

type loadStateArgs struct {
	FilePath string `json:"filePath" required:"true" desc:"The absolute path, or a path relative to the current working directory, of a storage state file (save_storage_state's, or Playwright's storageState)."`
}

func (s *Server) runLoadState(ctx context.Context, c *call, a *loadStateArgs) error {
	st, path, err := readStateFile(c.sandbox(ctx), a.FilePath)
	if err != nil {
		return err
	}
	skipped, pending, err := s.sup.LoadStorageState(ctx, c.pageID, st)
	if err != nil {
		return noPage(err, c.pageID)
	}
	c.r.line("Loaded the storage state of %s into the page's browser context (%s, %s).",
		path, plural(len(st.Cookies), "cookie"), plural(len(st.Origins)-len(skipped), "origin"))
	if pending > 0 {
		c.r.line("The localStorage of %s is written into the first document of each that a page of this context shows, before its scripts run; a page already showing one gets it when it reloads.", plural(pending, "origin"))
	}
	if len(skipped) > 0 {
		c.r.line("Skipped, as the URL policy refuses them: %s.", strings.Join(skipped, ", "))
	}
	return nil
}

// readStateFile reads and checks a storage state file through the
// session's sandbox.
func readStateFile(sb *sandbox.Sandbox, path string) (*storagestate.State, string, error) {
	data, canonical, err := sb.ReadFile(path, storagestate.MaxFileBytes)
	if tl, ok := errorsAs[*sandbox.TooLargeError](err); ok {
		return nil, "", fmt.Errorf("%s is %d bytes, more than the %d a storage state file may have.", path, tl.Size, tl.Limit)
	}
	if err != nil {
		if _, ok := errorsAs[*sandbox.DeniedError](err); ok {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("Unable to read the storage state file %s: %s.", path, agenterr.RootCause(err))
	}
	st, err := storagestate.Parse(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s.", canonical, err)
	}
	return st, canonical, nil
}
