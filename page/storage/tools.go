package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/storagestate"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// stateBudget bounds save_storage_state and load_storage_state: a hidden
// tab loads each origin in turn, and IndexedDB may hold megabytes.
const stateBudget = 60 * time.Second

// stateTools read and write what a browser context keeps: cookies, web
// storage, and whole storage states (log in once, start every agent from
// it). Cookies and states are the browser context's: every page of an
// isolated session shares one. They are calls to the supervisor (cookies,
// states) or to the page's actor (web storage), never a lock.
// Tools returns the tools of cookies, web storage and storage states.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "list_cookies", Description: "Lists the cookies of the page's browser context, httpOnly ones included (with --isolate-sessions, the session's own).", Page: true, ReadOnly: true},
			tool.Fixed[listCookiesArgs](tool.ListBudget), runListCookies),
		tool.Define(tool.Tool{Name: "set_cookie", Description: "Sets a cookie in the page's browser context, for a url or a domain.", Page: true},
			tool.Fixed[setCookieArgs](tool.ListBudget), runSetCookie),
		tool.Define(tool.Tool{Name: "delete_cookies", Description: "Deletes cookies of the page's browser context: those of a name for a url or domain, or all of them.", Page: true},
			tool.Fixed[deleteCookiesArgs](tool.ListBudget), runDeleteCookies),
		tool.Define(tool.Tool{Name: "get_cookie", Description: "Gets the cookies of a name in the page's browser context, httpOnly ones included: those of every domain and path, or of a url or domain.", Page: true, ReadOnly: true},
			tool.Fixed[getCookieArgs](tool.ListBudget), runGetCookie),
		tool.Define(tool.Tool{Name: "clear_cookies", Description: "Deletes every cookie of the page's browser context (with --isolate-sessions, the session's own).", Page: true},
			tool.Fixed[clearCookiesArgs](tool.ListBudget), runClearCookies),
		tool.Define(tool.Tool{Name: "get_web_storage", Description: "Reads the localStorage or sessionStorage of the page's origin, or of the origin of one of its frames.", Page: true, ReadOnly: true},
			tool.Fixed[getStorageArgs](tool.ListBudget), runGetStorage),
		tool.Define(tool.Tool{Name: "set_web_storage", Description: "Sets an entry of the localStorage or sessionStorage of the page's origin, or of the origin of one of its frames.", Page: true},
			tool.Fixed[setStorageArgs](tool.ListBudget), runSetStorage),
		tool.Define(tool.Tool{Name: "delete_web_storage", Description: "Deletes an entry, or every entry, of the localStorage or sessionStorage of the page's origin, or of the origin of one of its frames.", Page: true},
			tool.Fixed[deleteStorageArgs](tool.ListBudget), runDeleteStorage),
		tool.Define(tool.Tool{Name: "save_storage_state", Description: "Saves the page's browser context's cookies and each origin's localStorage and IndexedDB to a file, in Playwright's storageState format. The file holds login sessions: keep it secret.", Page: true},
			tool.Fixed[saveStateArgs](stateBudget), runSaveState),
		tool.Define(tool.Tool{Name: "load_storage_state", Description: "Loads a storage state file (save_storage_state's, or Playwright's) into the page's browser context: its cookies replace the context's, and each origin it names gets its localStorage and IndexedDB. Load it before the pages that need it navigate.", Page: true},
			tool.Fixed[loadStateArgs](stateBudget), runLoadState),
	}
}

type listCookiesArgs struct {
	URLs   []string `json:"urls" desc:"Only the cookies a request to one of these URLs would carry."`
	Domain string   `json:"domain" desc:"Only the cookies of this domain or of its subdomains, such as example.com."`
	Name   string   `json:"name" desc:"Only the cookies with this name."`
}

func runListCookies(ctx context.Context, c tool.Call, a *listCookiesArgs) error {
	section, err := cookieSection(ctx, c, a, "No cookies found.")
	if err != nil {
		return err
	}
	c.Reply().Section(section)
	return nil
}

// cookieSection lists the cookies a says, or none, in a section of the
// reply.
func cookieSection(ctx context.Context, c tool.Call, a *listCookiesArgs, none string) (string, error) {
	var urls []func(storagestate.Cookie) bool
	for _, u := range a.URLs {
		if _, err := httpURL("urls", u); err != nil {
			return "", err
		}
		urls = append(urls, browser.CookieFilter(browser.CookieMatch{URL: u}))
	}
	cookies, err := c.Browser().Storage().Cookies(ctx, c.PageID())
	if err != nil {
		return "", c.NoPage(err)
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
		out = append(out, none)
	}
	return strings.Join(out, "\n"), nil
}

type getCookieArgs struct {
	Name   string `json:"name" required:"true" desc:"The cookie's name."`
	URL    string `json:"url" desc:"Only the cookie a request to this URL would carry."`
	Domain string `json:"domain" desc:"Only the cookie of this domain or of its subdomains, such as example.com."`
}

func runGetCookie(ctx context.Context, c tool.Call, a *getCookieArgs) error {
	if a.Name == "" {
		return tool.BadArgs("Give the name of the cookie to get.")
	}
	l := &listCookiesArgs{Name: a.Name, Domain: a.Domain}
	if a.URL != "" {
		l.URLs = []string{a.URL}
	}
	section, err := cookieSection(ctx, c, l, fmt.Sprintf("No cookie named %s.", quote(a.Name)))
	if err != nil {
		return err
	}
	c.Reply().Section(section)
	return nil
}

type clearCookiesArgs struct{}

func runClearCookies(ctx context.Context, c tool.Call, _ *clearCookiesArgs) error {
	return runDeleteCookies(ctx, c, &deleteCookiesArgs{All: true})
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
		return nil, tool.BadArgs("Invalid %s %q: give an absolute http or https URL, such as https://example.com/.", arg, raw)
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

func runSetCookie(ctx context.Context, c tool.Call, a *setCookieArgs) error {
	if a.Name == "" {
		return tool.BadArgs("A cookie needs a name: pass a non-empty name.")
	}
	if a.URL == "" && a.Domain == "" {
		return tool.BadArgs("A cookie needs a url or a domain: pass url (such as https://example.com/) or domain (such as example.com).")
	}
	if a.URL != "" {
		if _, err := httpURL("url", a.URL); err != nil {
			return err
		}
	}
	if a.Path != "" && !strings.HasPrefix(a.Path, "/") {
		return tool.BadArgs("Invalid path %q: a cookie path starts with /.", a.Path)
	}
	if a.PartitionKey != "" {
		o, err := storagestate.CheckOrigin(a.PartitionKey)
		if err != nil {
			return tool.BadArgs("Invalid partitionKey %q: give a top-level site such as https://example.com.", a.PartitionKey)
		}
		a.PartitionKey = o
	}
	nc := browser.NewCookie{Name: a.Name, Value: a.Value, URL: a.URL, Domain: a.Domain, Path: a.Path,
		HTTPOnly: a.HTTPOnly, Secure: a.Secure, SameSite: a.SameSite, PartitionKey: a.PartitionKey}
	if a.Expires != nil {
		nc.Expires = *a.Expires
	}
	if err := c.Browser().Storage().SetCookie(ctx, c.PageID(), nc); err != nil {
		return c.NoPage(err)
	}
	where := a.Domain
	if where == "" {
		where = a.URL
	}
	c.Reply().Line("Set cookie %q for %s in the page's browser context.", a.Name, where)
	return nil
}

type deleteCookiesArgs struct {
	Name   string `json:"name" desc:"Name of the cookies to delete, with url or domain."`
	URL    string `json:"url" desc:"Delete the cookies named name that a request to this URL would carry."`
	Domain string `json:"domain" desc:"Delete the cookies named name of this domain."`
	Path   string `json:"path" desc:"Only those of this path."`
	All    bool   `json:"all" desc:"Delete every cookie of the page's browser context instead."`
}

func runDeleteCookies(ctx context.Context, c tool.Call, a *deleteCookiesArgs) error {
	if a.All {
		if a.Name != "" || a.URL != "" || a.Domain != "" || a.Path != "" {
			return tool.BadArgs("Give all: true alone, or name with url or domain, not both.")
		}
		n, err := c.Browser().Storage().ClearCookies(ctx, c.PageID())
		if err != nil {
			return c.NoPage(err)
		}
		c.Reply().Line("Deleted all %s of the page's browser context.", tool.Plural(n, "cookie"))
		return nil
	}
	if a.Name == "" || (a.URL == "" && a.Domain == "") {
		return tool.BadArgs("Say which cookies to delete: name with url or domain, or all: true.")
	}
	if a.URL != "" {
		if _, err := httpURL("url", a.URL); err != nil {
			return err
		}
	}
	n, err := c.Browser().Storage().DeleteCookies(ctx, c.PageID(), browser.CookieFilter(browser.CookieMatch{Name: a.Name, URL: a.URL, Domain: a.Domain, Path: a.Path}))
	if err != nil {
		return c.NoPage(err)
	}
	if n == 0 {
		c.Reply().Line("No cookie matched; none deleted.")
		return nil
	}
	c.Reply().Line("Deleted %s.", tool.Plural(n, "cookie"))
	return nil
}

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
			return "", false, "", tool.BadArgs("Invalid origin %q: give an http or https origin such as https://example.com.", a.Origin)
		}
	}
	if a.Type == "session" {
		return origin, false, "sessionStorage", nil
	}
	return origin, true, "localStorage", nil
}

// storageError words a web storage call's failure.
func storageError(err error) error {
	if ne := (*NoOriginError)(nil); errors.As(err, &ne) {
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

func runGetStorage(ctx context.Context, c tool.Call, a *getStorageArgs) error {
	origin, local, name, err := a.resolve()
	if err != nil {
		return err
	}
	st, err := Of(c.Page()).Get(ctx, origin, local)
	if err != nil {
		return storageError(err)
	}
	c.Reply().State(st.State)
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
	c.Reply().Section(strings.Join(out, "\n"))
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

func runSetStorage(ctx context.Context, c tool.Call, a *setStorageArgs) error {
	origin, local, name, err := a.resolve()
	if err != nil {
		return err
	}
	o, st, err := Of(c.Page()).Change(ctx, Change{Origin: origin, Local: local, Key: a.Key, Value: a.Value})
	if err != nil {
		return storageError(err)
	}
	c.Reply().State(st)
	c.Reply().Line("Set %s in the %s of %s.", quote(a.Key), name, o)
	return nil
}

type deleteStorageArgs struct {
	storageArgs
	Key string `json:"key" desc:"The key of the entry to delete."`
	All bool   `json:"all" desc:"Delete every entry instead."`
}

func runDeleteStorage(ctx context.Context, c tool.Call, a *deleteStorageArgs) error {
	origin, local, name, err := a.resolve()
	if err != nil {
		return err
	}
	if a.All == (a.Key != "") {
		return tool.BadArgs("Say what to delete: a key, or all: true.")
	}
	o, st, err := Of(c.Page()).Change(ctx, Change{Origin: origin, Local: local, Key: a.Key, Remove: !a.All, Clear: a.All})
	if err != nil {
		return storageError(err)
	}
	c.Reply().State(st)
	if a.All {
		c.Reply().Line("Deleted every entry of the %s of %s.", name, o)
	} else {
		c.Reply().Line("Deleted %s from the %s of %s.", quote(a.Key), name, o)
	}
	return nil
}

type saveStateArgs struct {
	FilePath  string `json:"filePath" required:"true" desc:"The absolute path, or a path relative to the current working directory, of the JSON file to write (mode 0600: it holds login sessions)."`
	IndexedDB *bool  `json:"indexedDB" desc:"Whether to include each origin's IndexedDB databases, records included. Default true."`
}

func runSaveState(ctx context.Context, c tool.Call, a *saveStateArgs) error {
	sb := c.Sandbox(ctx)
	if _, err := sb.Resolve(a.FilePath); err != nil {
		return err
	}
	saved, err := c.Browser().Storage().State(ctx, c.PageID(), browser.StateOptions{IndexedDB: a.IndexedDB == nil || *a.IndexedDB})
	if err != nil {
		return c.NoPage(err)
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
	c.Reply().Line("Saved the storage state of the page's browser context (%s, %s) to %s. It holds login sessions: keep it secret.",
		tool.Plural(len(saved.State.Cookies), "cookie"), tool.Plural(len(saved.State.Origins), "origin"), f.Name())
	if len(saved.Skipped) > 0 {
		c.Reply().Line("Left out, as the URL policy refuses them: %s.", strings.Join(saved.Skipped, ", "))
	}
	return nil
}

type loadStateArgs struct {
	FilePath string `json:"filePath" required:"true" desc:"The absolute path, or a path relative to the current working directory, of a storage state file (save_storage_state's, or Playwright's storageState)."`
}

func runLoadState(ctx context.Context, c tool.Call, a *loadStateArgs) error {
	st, path, err := readStateFile(c.Sandbox(ctx), a.FilePath)
	if err != nil {
		return err
	}
	skipped, pending, err := c.Browser().Storage().LoadState(ctx, c.PageID(), st)
	if err != nil {
		return c.NoPage(err)
	}
	c.Reply().Line("Loaded the storage state of %s into the page's browser context (%s, %s).",
		path, tool.Plural(len(st.Cookies), "cookie"), tool.Plural(len(st.Origins)-len(skipped), "origin"))
	if pending > 0 {
		c.Reply().Line("The localStorage of %s is written into the first document of each that a page of this context shows, before its scripts run; a page already showing one gets it when it reloads.", tool.Plural(pending, "origin"))
	}
	if len(skipped) > 0 {
		c.Reply().Line("Skipped, as the URL policy refuses them: %s.", strings.Join(skipped, ", "))
	}
	return nil
}

// readStateFile reads and checks a storage state file through the
// session's sandbox.
func readStateFile(sb *sandbox.Sandbox, path string) (*storagestate.State, string, error) {
	data, canonical, err := sb.ReadFile(path, storagestate.MaxFileBytes)
	if tl := (*sandbox.TooLargeError)(nil); errors.As(err, &tl) {
		return nil, "", fmt.Errorf("%s is %d bytes, more than the %d a storage state file may have.", path, tl.Size, tl.Limit)
	}
	if err != nil {
		if de := (*sandbox.DeniedError)(nil); errors.As(err, &de) {
			return nil, "", err
		}
		return nil, "", agenterr.Unreadable(err, "Unable to read the storage state file %s: %s.", path)
	}
	st, err := storagestate.Parse(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s.", canonical, err)
	}
	return st, canonical, nil
}
