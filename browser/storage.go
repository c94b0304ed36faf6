package browser

// Cookies and storage state of browser contexts (list_cookies, set_cookie,
// delete_cookies, save_storage_state, load_storage_state, and
// --storage-state).
//
// Cookies belong to a browser context, not to a page: they are read and
// written with the Storage domain on the browser's own session, naming the
// context of the page the agent gave (all the pages of an isolated session
// share one). Like creating tabs, these calls run on the caller's
// goroutine over the browser connection, which is safe for concurrent use;
// the supervisor's run goroutine only hands out what it owns.
//
// An origin's localStorage and IndexedDB can be read or written only from
// a document of that origin. To do so without a page of the agent's, and
// without running any page script, the supervisor opens a hidden tab in
// the context (Target.createTarget with hidden: a target of type "other",
// which is no page of the registry and is closed with the call), pauses
// every request of it and answers each with an empty document of its
// own, then loads each origin there in turn and runs the state scripts
// (package storagestate). The URL policy is checked first: an origin it
// refuses is skipped, since a fulfilled request never reaches the
// browser-wide interception that enforces it.
//
// A load of more than eagerOrigins origins writes only those with
// IndexedDB so: the others' localStorage is left pending
// (pendingStorage), written by a document-start script into the first
// top-level document of each origin that a page of the context shows.
// 3,000 origins, each a renderer in a hidden tab, ran out of a call's
// minute on 2 cores; pending, they load in seconds.
//
// A context that --storage-state is given to is created on the run
// goroutine like any other, marked as loading; the first page it is to
// open waits on its caller's goroutine while that caller gives the
// context the state (claimLoad, awaitState), and later callers wait for
// the same outcome, so that no page of the context loads anything before
// the state is in place.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp/rpcc"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/browser/storagestate"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
)

// Storage is the handle on the cookies and storage state of the
// supervisor's browser contexts: [Supervisor.Storage]. Its state is the
// supervisor's; each method says which goroutine may call it.
type Storage struct{ s *Supervisor }

// Storage returns the handle on the cookies and storage state of the
// browser contexts.
func (s *Supervisor) Storage() Storage { return Storage{s} }

// maxVisited bounds the origins remembered per browser context for
// save_storage_state.
const maxVisited = 1000

// visit records that page target targetID, of context contextID, showed
// url. Run goroutine only.
func (h Storage) visit(contextID, targetID, url string) {
	o := page.OriginOf(url)
	if o == "" {
		return
	}
	h.dropPending(contextID, targetID, o)
	m := h.s.visited[contextID]
	if m == nil {
		m = map[string]bool{}
		h.s.visited[contextID] = m
	}
	if len(m) < maxVisited {
		m[o] = true
	}
}

// contextOf returns the browser connection and the browser context ("" for
// the default one) of page id, from the registry.
func (h Storage) contextOf(ctx context.Context, id int) (*cdpconn.Conn, string, error) {
	if err := h.s.Ensure(ctx); err != nil {
		return nil, "", err
	}
	v := h.s.view.Load()
	e, ok := v.byID[id]
	if !ok || v.conn == nil {
		return nil, "", ErrNoPage
	}
	return v.conn, e.contextID, nil
}

// NewCookie is a cookie to set. URL, or Domain (with Path), says where it
// applies.
type NewCookie struct {
	Name, Value string
	// URL is a URL the cookie is for: its host and path give the cookie's
	// domain and path unless Domain or Path are given.
	URL          string
	Domain, Path string
	// Expires is when it expires, in seconds since the Unix epoch; 0 makes
	// a session cookie.
	Expires          float64
	HTTPOnly, Secure bool
	// SameSite is Strict, Lax, None, or "" for the browser's default.
	SameSite string
	// PartitionKey, if set, makes a partitioned (CHIPS) cookie of this
	// top-level site, such as https://example.com.
	PartitionKey string
}

// CookieRefusedError reports cookies Chrome refused to set. Its text is
// the sentence the agent reads.
type CookieRefusedError struct{ Msg string }

func (e *CookieRefusedError) Error() string { return e.Msg }

// chromeCookie is a cookie as Storage.getCookies reports it.
type chromeCookie struct {
	Name         string          `json:"name"`
	Value        string          `json:"value"`
	Domain       string          `json:"domain"`
	Path         string          `json:"path"`
	Expires      float64         `json:"expires"`
	HTTPOnly     bool            `json:"httpOnly"`
	Secure       bool            `json:"secure"`
	Session      bool            `json:"session"`
	SameSite     string          `json:"sameSite"`
	PartitionKey json.RawMessage `json:"partitionKey"`
}

func (c chromeCookie) state() storagestate.Cookie {
	out := storagestate.Cookie{
		Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: c.Expires,
		HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: c.SameSite,
	}
	if c.Session || out.Expires <= 0 {
		out.Expires = -1
	}
	if out.SameSite == "" {
		out.SameSite = "Lax" // Chrome's default, as Playwright writes it
	}
	var pk struct {
		TopLevelSite         string `json:"topLevelSite"`
		HasCrossSiteAncestor bool   `json:"hasCrossSiteAncestor"`
	}
	if len(c.PartitionKey) > 0 && json.Unmarshal(c.PartitionKey, &pk) == nil && pk.TopLevelSite != "" {
		out.PartitionKey = pk.TopLevelSite
		out.CrossSiteAncestor = &pk.HasCrossSiteAncestor
	}
	return out
}

// cookiesOf returns page id's browser context (its connection and id) and
// the cookies Chrome holds in it.
func (h Storage) cookiesOf(ctx context.Context, id int) (*cdpconn.Conn, string, []chromeCookie, error) {
	conn, contextID, err := h.contextOf(ctx, id)
	if err != nil {
		return nil, "", nil, err
	}
	raw, err := getCookies(ctx, conn, contextID)
	if err != nil {
		return nil, "", nil, err
	}
	return conn, contextID, raw, nil
}

// getCookies returns every cookie of browser context contextID.
func getCookies(ctx context.Context, conn *cdpconn.Conn, contextID string) ([]chromeCookie, error) {
	var reply struct {
		Cookies []chromeCookie `json:"cookies"`
	}
	if err := rpcc.Invoke(ctx, "Storage.getCookies", withContext(nil, contextID), &reply, conn.RPC()); err != nil {
		return nil, fmt.Errorf("read cookies: %w", lostIfClosed(err))
	}
	return reply.Cookies, nil
}

// withContext adds browserContextId to args unless contextID is "", the
// default context.
func withContext(args map[string]any, contextID string) map[string]any {
	if args == nil {
		args = map[string]any{}
	}
	if contextID != "" {
		args["browserContextId"] = contextID
	}
	return args
}

// setCookies sets cookies (Storage.setCookies parameters) in a context.
func setCookies(ctx context.Context, conn *cdpconn.Conn, contextID string, cookies []map[string]any) error {
	if len(cookies) == 0 {
		return nil
	}
	err := rpcc.Invoke(ctx, "Storage.setCookies", withContext(map[string]any{"cookies": cookies}, contextID), nil, conn.RPC())
	var re *rpcc.ResponseError
	if errors.As(err, &re) {
		return &CookieRefusedError{Msg: fmt.Sprintf("Chrome refused the cookie (%s): check its domain and path, and that a cookie with sameSite None or a partitionKey is secure.", strings.TrimSuffix(re.Message, "."))}
	}
	if err != nil {
		return fmt.Errorf("set cookies: %w", lostIfClosed(err))
	}
	return nil
}

// Cookies returns the cookies of page id's browser context, as a storage
// state file lists them.
func (h Storage) Cookies(ctx context.Context, id int) ([]storagestate.Cookie, error) {
	_, _, raw, err := h.cookiesOf(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]storagestate.Cookie, len(raw))
	for i, c := range raw {
		out[i] = c.state()
	}
	return out, nil
}

// SetCookie sets a cookie in page id's browser context.
func (h Storage) SetCookie(ctx context.Context, id int, c NewCookie) error {
	conn, contextID, err := h.contextOf(ctx, id)
	if err != nil {
		return err
	}
	p := map[string]any{"name": c.Name, "value": c.Value, "httpOnly": c.HTTPOnly, "secure": c.Secure}
	for k, v := range map[string]string{"url": c.URL, "domain": c.Domain, "path": c.Path, "sameSite": c.SameSite} {
		if v != "" {
			p[k] = v
		}
	}
	if c.Expires > 0 {
		p["expires"] = c.Expires
	}
	if c.PartitionKey != "" {
		p["partitionKey"] = map[string]any{"topLevelSite": c.PartitionKey, "hasCrossSiteAncestor": false}
	}
	return setCookies(ctx, conn, contextID, []map[string]any{p})
}

// DeleteCookies deletes the cookies of page id's browser context that
// match says to, and returns how many.
func (h Storage) DeleteCookies(ctx context.Context, id int, match func(storagestate.Cookie) bool) (int, error) {
	conn, contextID, raw, err := h.cookiesOf(ctx, id)
	if err != nil {
		return 0, err
	}
	// A cookie set again with an expiry in the past replaces the one of
	// the same name, domain, path and partition, and is dropped at once.
	var gone []map[string]any
	for _, c := range raw {
		if !match(c.state()) {
			continue
		}
		p := map[string]any{"name": c.Name, "value": "", "domain": c.Domain, "path": c.Path, "secure": c.Secure, "httpOnly": c.HTTPOnly, "expires": 1}
		if c.SameSite != "" {
			p["sameSite"] = c.SameSite
		}
		if len(c.PartitionKey) > 0 {
			p["partitionKey"] = c.PartitionKey
		}
		gone = append(gone, p)
	}
	return len(gone), setCookies(ctx, conn, contextID, gone)
}

// ClearCookies deletes every cookie of page id's browser context and
// returns how many there were.
func (h Storage) ClearCookies(ctx context.Context, id int) (int, error) {
	conn, contextID, raw, err := h.cookiesOf(ctx, id)
	if err != nil {
		return 0, err
	}
	if err := rpcc.Invoke(ctx, "Storage.clearCookies", withContext(nil, contextID), nil, conn.RPC()); err != nil {
		return 0, fmt.Errorf("clear cookies: %w", lostIfClosed(err))
	}
	return len(raw), nil
}

// stateCookies turns a state file's cookies into Storage.setCookies
// parameters.
func stateCookies(cs []storagestate.Cookie) []map[string]any {
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		p := map[string]any{"name": c.Name, "value": c.Value, "domain": c.Domain, "path": c.Path, "httpOnly": c.HTTPOnly, "secure": c.Secure}
		if c.Expires > 0 {
			p["expires"] = c.Expires
		}
		if c.SameSite != "" {
			p["sameSite"] = c.SameSite
		}
		if c.PartitionKey != "" {
			cross := true // Playwright's default for a partitioned cookie
			if c.CrossSiteAncestor != nil {
				cross = *c.CrossSiteAncestor
			}
			p["partitionKey"] = map[string]any{"topLevelSite": c.PartitionKey, "hasCrossSiteAncestor": cross}
		}
		out = append(out, p)
	}
	return out
}

// StateOptions tune [Storage.State].
type StateOptions struct {
	// IndexedDB includes each origin's IndexedDB databases, records
	// included, besides its localStorage.
	IndexedDB bool
}

// SavedState is a browser context's storage state, and the origins left
// out because the URL policy refuses them.
type SavedState struct {
	State   *storagestate.State
	Skipped []string
}

// maxOriginChars bounds what one origin's storage adds to a state file.
const maxOriginChars = 16 << 20

// State returns the storage state of page id's browser context: its
// cookies, and the localStorage (and IndexedDB) of every origin its pages
// showed, those open now included, that has any.
func (h Storage) State(ctx context.Context, id int, opts StateOptions) (SavedState, error) {
	conn, contextID, raw, err := h.cookiesOf(ctx, id)
	if err != nil {
		return SavedState{}, err
	}
	st := &storagestate.State{Cookies: make([]storagestate.Cookie, len(raw)), Origins: []storagestate.Origin{}}
	for i, c := range raw {
		st.Cookies[i] = c.state()
	}
	origins, err := h.originsOf(ctx, contextID)
	if err != nil {
		return SavedState{}, err
	}
	origins, skipped := h.allowedOrigins(origins)
	// Origins still pending hold what their storage will be: their items
	// are saved as they are, not read from a document.
	pending, err := h.pendingItems(ctx, contextID)
	if err != nil {
		return SavedState{}, err
	}
	if len(pending) > 0 {
		origins = slices.DeleteFunc(origins, func(o string) bool { _, ok := pending[o]; return ok })
		defer func() {
			for o, items := range pending {
				if len(items) > 0 {
					st.Origins = append(st.Origins, storagestate.Origin{Origin: o, LocalStorage: items})
				}
			}
			slices.SortFunc(st.Origins, func(a, b storagestate.Origin) int { return strings.Compare(a.Origin, b.Origin) })
		}()
	}
	if len(origins) == 0 {
		return SavedState{State: st, Skipped: skipped}, nil
	}
	entries := make([]storagestate.Origin, len(origins))
	var total atomic.Int64
	collect := storagestate.CollectCall(opts.IndexedDB, maxOriginChars)
	err = forEachOrigin(ctx, conn, contextID, origins, func(int) (string, error) { return collect, nil }, func(i int, text string) error {
		if total.Add(int64(len(text))) > storagestate.MaxFileBytes {
			return fmt.Errorf("the storage of this context is more than the %d MB a state file may hold", storagestate.MaxFileBytes>>20)
		}
		if err := json.Unmarshal([]byte(text), &entries[i]); err != nil {
			return fmt.Errorf("read the storage of %s: %w", origins[i], err)
		}
		return nil
	})
	if err != nil {
		return SavedState{}, err
	}
	for i, entry := range entries {
		if len(entry.LocalStorage) > 0 || len(entry.IndexedDB) > 0 {
			entry.Origin = origins[i]
			st.Origins = append(st.Origins, entry)
		}
	}
	return SavedState{State: st, Skipped: skipped}, nil
}

// originsOf returns the origins the pages of a browser context have shown,
// and those their frames show now, sorted.
func (h Storage) originsOf(ctx context.Context, contextID string) ([]string, error) {
	seen, err := actor.Ask(ctx, h.s.act, func(context.Context) ([]string, error) {
		var out []string
		for o := range h.s.visited[contextID] {
			out = append(out, o)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range h.s.view.Load().pages {
		if e.contextID != contextID || e.actor == nil || e.actor.Err() != nil {
			continue
		}
		// A page busy with a long call answers after it; its main frame's
		// origin is among those seen already.
		octx, cancel := context.WithTimeout(ctx, time.Second)
		more, err := e.actor.Origins(octx)
		cancel()
		if err == nil {
			seen = append(seen, more...)
		}
	}
	slices.Sort(seen)
	return slices.Compact(seen), nil
}

// allowedOrigins splits origins into those the URL policy lets load and
// those it refuses.
func (h Storage) allowedOrigins(origins []string) (allowed, refused []string) {
	for _, o := range origins {
		if h.s.blocked(o+"/") != nil {
			refused = append(refused, o)
		} else {
			allowed = append(allowed, o)
		}
	}
	return allowed, refused
}

// LoadState replaces the cookies of page id's browser context with
// st's, and the localStorage and IndexedDB of each origin st names with
// what it holds, or leaves that pending (see pendingStorage). It returns
// the origins skipped because the URL policy refuses them, and how many
// it left pending.
func (h Storage) LoadState(ctx context.Context, id int, st *storagestate.State) (skipped []string, pending int, err error) {
	conn, contextID, err := h.contextOf(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	skipped, lazy, err := h.applyState(ctx, conn, contextID, st, true, true)
	if err != nil {
		return nil, 0, err
	}
	// The state replaces what a load before left pending.
	if _, err := actor.Ask(ctx, h.s.act, func(context.Context) (struct{}, error) {
		h.setPending(contextID, lazy)
		return struct{}{}, nil
	}); err != nil {
		return nil, 0, err
	}
	h.refreshPending(ctx, contextID)
	return skipped, len(lazy), nil
}

// applyState gives browser context contextID the cookies and storage of
// st; with replace, its cookies are cleared first. With lazyOK, a state
// of more than eagerOrigins origins has those without IndexedDB returned
// (their localStorage, by origin) instead, for the caller to leave
// pending. It returns the origins skipped because the URL policy refuses
// them. It may run on the run goroutine (actor.Await), so it asks the
// supervisor nothing.
func (h Storage) applyState(ctx context.Context, conn *cdpconn.Conn, contextID string, st *storagestate.State, replace, lazyOK bool) (skipped []string, lazy map[string][]storagestate.Item, err error) {
	if replace {
		if err := rpcc.Invoke(ctx, "Storage.clearCookies", withContext(nil, contextID), nil, conn.RPC()); err != nil {
			return nil, nil, fmt.Errorf("clear cookies: %w", lostIfClosed(err))
		}
	}
	if err := setCookies(ctx, conn, contextID, stateCookies(st.Cookies)); err != nil {
		return nil, nil, err
	}
	var names []string
	byName := map[string]storagestate.Origin{}
	for _, o := range st.Origins {
		names = append(names, o.Origin)
		byName[o.Origin] = o
	}
	origins, skipped := h.allowedOrigins(names)
	// Past eagerOrigins, the origins without IndexedDB are left pending:
	// written by the first document of each that a page of the context
	// shows, before its own scripts.
	lazy = map[string][]storagestate.Item{}
	if lazyOK && len(origins) > eagerOrigins {
		eager := origins[:0:0]
		for _, o := range origins {
			if len(byName[o].IndexedDB) > 0 {
				eager = append(eager, o)
			} else {
				lazy[o] = byName[o].LocalStorage
			}
		}
		origins = eager
	}
	if len(origins) > 0 {
		err = forEachOrigin(ctx, conn, contextID, origins, func(i int) (string, error) { return storagestate.RestoreCall(byName[origins[i]]) }, nil)
		if err != nil {
			return nil, nil, err
		}
	}
	return skipped, lazy, nil
}

// PrepareContext creates the isolated context named name, if it does not
// exist yet, and gives it [Config.StorageState], so that pages opened in it
// later find it ready. It is for callers that bound that setup apart from
// the call that opens the first page.
func (h Storage) PrepareContext(ctx context.Context, name string) error {
	type where struct {
		conn      *cdpconn.Conn
		contextID string
		load      *stateLoad
		first     bool
	}
	w, err := actor.Ask(ctx, h.s.act, func(ctx context.Context) (where, error) {
		if err := h.s.link().ensure(ctx); err != nil {
			return where{}, err
		}
		id, err := h.s.contextID(ctx, name)
		if err != nil {
			return where{}, err
		}
		load, first := h.claimLoad(id)
		return where{h.s.conn, id, load, first}, nil
	})
	if err != nil {
		return err
	}
	return h.awaitState(ctx, w.conn, name, w.contextID, w.load, w.first)
}

// stateLoad is a context being given Config.StorageState.
type stateLoad struct {
	// claimed is set by the call that gives it. Run goroutine only.
	claimed bool
	// done is closed once it was given, or failed; err is written before.
	done chan struct{}
	err  error
}

// claimLoad returns the state load of context id, if one is under way or
// due, and whether the caller is the one to give it. Run goroutine only.
func (h Storage) claimLoad(id string) (*stateLoad, bool) {
	l := h.s.loading[id]
	if l == nil {
		return nil, false
	}
	first := !l.claimed
	l.claimed = true
	return l, first
}

// awaitState gives context contextID (named name) Config.StorageState when
// first, or waits until whoever does has; it is a no-op for a context
// with no state due. A context that could not be given it is disposed of,
// and its name forgotten, so that the next page asked for in it gets a
// fresh one.
func (h Storage) awaitState(ctx context.Context, conn *cdpconn.Conn, name, contextID string, l *stateLoad, first bool) error {
	if l == nil {
		return nil
	}
	if !first {
		select {
		case <-l.done:
			return l.err
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	_, _, err := h.applyState(ctx, conn, contextID, h.s.cfg.StorageState, false, false)
	if err != nil {
		err = fmt.Errorf("give the new browser context the storage state of --storage-state: %w", err)
	}
	l.err = err
	close(l.done)
	// Cleanup after the caller may have given up.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	actor.Ask(cctx, h.s.act, func(context.Context) (struct{}, error) {
		if h.s.loading[contextID] == l {
			delete(h.s.loading, contextID)
		}
		if err != nil && h.s.contexts[name] == contextID {
			delete(h.s.contexts, name)
		}
		return struct{}{}, nil
	})
	if err != nil {
		rpcc.Invoke(cctx, "Target.disposeBrowserContext", map[string]string{"browserContextId": contextID}, nil, conn.RPC())
	}
	return err
}

// originTabs bounds the hidden tabs that read or write a state's origins
// at once. Each origin is a document of another site, and so, with site
// isolation, a navigation to a new renderer process: one tab in turn took
// over a minute for 3,000 origins, where a few at once keep the browser's
// process launcher busy.
const originTabs = 8

// forEachOrigin shows each of origins in a hidden tab of browser context
// contextID (see originPage), evaluates there the expression expr gives
// for the origin's index, and hands its value to got, if not nil: up to
// originTabs tabs at once, each taking the next origin not yet taken. It
// returns the first error, once every tab is closed.
//
// Its goroutines, one per tab, are started and waited for here; each ends
// at the first error of any of them, or when ctx ends.
func forEachOrigin(ctx context.Context, conn *cdpconn.Conn, contextID string, origins []string, expr func(i int) (string, error), got func(i int, text string) error) error {
	// Origins of one site, loaded in turn in one tab, reuse its renderer
	// (300 subdomains of one site loaded in 17 s where 300 sites took 44
	// s, at load 13-18 on 2 cores): the origins are sorted by their hosts'
	// labels read from the right, and each tab takes a run of one site (its
	// host's last two labels, near enough for this), cut so that every tab
	// has work.
	if len(origins) == 0 {
		return nil
	}
	order := make([]int, len(origins))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(hostKey(origins[a]), hostKey(origins[b])) })
	tabs := min(originTabs, len(origins))
	most := (len(origins) + tabs - 1) / tabs
	var runs [][]int
	for _, i := range order {
		if n := len(runs); n == 0 || len(runs[n-1]) == most || siteKey(origins[runs[n-1][0]]) != siteKey(origins[i]) {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], i)
	}
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range tabs {
		g.Go(func() error {
			p, err := openOriginPage(gctx, conn, contextID)
			if err != nil {
				return err
			}
			defer p.close(gctx)
			for {
				k := int(next.Add(1) - 1)
				if k >= len(runs) {
					return nil
				}
				for _, i := range runs[k] {
					e, err := expr(i)
					if err != nil {
						return err
					}
					if got == nil {
						if err := p.run(gctx, origins[i], e, nil); err != nil {
							return fmt.Errorf("restore the storage of %s: %w", origins[i], err)
						}
						continue
					}
					var text string
					if err := p.run(gctx, origins[i], e, &text); err != nil {
						return fmt.Errorf("read the storage of %s: %w", origins[i], err)
					}
					if err := got(i, text); err != nil {
						return err
					}
				}
			}
		})
	}
	return g.Wait()
}

// siteKey is the last two labels of origin's host, read from the right:
// its site, near enough to group origins by.
func siteKey(origin string) string {
	k := hostKey(origin)
	if i := strings.IndexByte(k, '.'); i >= 0 {
		if j := strings.IndexByte(k[i+1:], '.'); j >= 0 {
			return k[:i+1+j]
		}
	}
	return k
}

// hostKey is origin's host with its labels from the right
// ("https://a.example.com:8080" gives "com.example.a"), so that sorting by
// it puts the origins of one site next to each other.
func hostKey(origin string) string {
	host := origin
	if u, err := url.Parse(origin); err == nil {
		host = u.Hostname()
	}
	labels := strings.Split(host, ".")
	slices.Reverse(labels)
	return strings.Join(labels, ".")
}

// originPage is a hidden tab that shows an empty document of tabhive's own
// at any origin, to read or write that origin's storage (see the top of
// this file). It is owned by the call that opened it, which closes it.
type originPage struct {
	browser  *cdpconn.Conn
	targetID string
	conn     *cdpconn.Conn
	// answered is closed when the goroutine that answers the tab's
	// requests has ended.
	answered chan struct{}
}

// originDocument is what every request of an originPage gets.
const originDocument = "<!doctype html><title></title>"

// openOriginPage opens a hidden tab in browser context contextID.
func openOriginPage(ctx context.Context, browser *cdpconn.Conn, contextID string) (*originPage, error) {
	var created struct {
		TargetID string `json:"targetId"`
	}
	args := withContext(map[string]any{"url": "about:blank", "hidden": true, "background": true}, contextID)
	if err := rpcc.Invoke(ctx, "Target.createTarget", args, &created, browser.RPC()); err != nil {
		return nil, fmt.Errorf("open a hidden tab for the storage state: %w", lostIfClosed(err))
	}
	p := &originPage{browser: browser, targetID: created.TargetID, answered: make(chan struct{})}
	conn, err := browser.Attach(ctx, created.TargetID, cdpconn.Options{Keep: func(m string) bool { return m == "Fetch.requestPaused" }})
	if err != nil {
		close(p.answered)
		p.close(ctx)
		return nil, fmt.Errorf("open a hidden tab for the storage state: %w", lostIfClosed(err))
	}
	p.conn = conn
	go p.answer() // owned by p: ends when conn closes, which close does
	err = rpcc.Invoke(ctx, "Fetch.enable", map[string]any{"patterns": []map[string]string{{"urlPattern": "*", "requestStage": "Request"}}}, nil, conn.RPC())
	if err == nil {
		err = rpcc.Invoke(ctx, "Network.enable", map[string]any{}, nil, conn.RPC())
	}
	if err == nil {
		// A service worker of the origin must not answer in our place.
		err = rpcc.Invoke(ctx, "Network.setBypassServiceWorker", map[string]any{"bypass": true}, nil, conn.RPC())
	}
	if err != nil {
		p.close(ctx)
		return nil, fmt.Errorf("set up the hidden tab for the storage state: %w", lostIfClosed(err))
	}
	return p, nil
}

// answer fulfils every request of the tab with the empty document.
func (p *originPage) answer() {
	defer close(p.answered)
	for {
		select {
		case <-p.conn.Ready():
			for _, ev := range p.conn.Take() {
				var e struct {
					RequestID string `json:"requestId"`
				}
				if json.Unmarshal(ev.Params, &e) != nil {
					continue
				}
				p.conn.Send("Fetch.fulfillRequest", map[string]any{
					"requestId":    e.RequestID,
					"responseCode": 200,
					// no-store: a document left is not kept in the
					// back-forward cache, with its renderer.
					"responseHeaders": []map[string]string{{"name": "Content-Type", "value": "text/html; charset=utf-8"}, {"name": "Cache-Control", "value": "no-store"}},
					"body":            base64.StdEncoding.EncodeToString([]byte(originDocument)),
				})
			}
		case <-p.conn.Done():
			return
		}
	}
}

// run shows the empty document at origin, evaluates expr in it once it
// is the tab's document, awaiting a promise, and decodes its value into
// out (unless out is nil). Evaluating expr guarded by the document's
// origin, rather than asking for the origin first, saves a round trip per
// origin: an evaluation that reaches the document before (null) or while
// it is replaced (Chrome's error) is tried again.
func (p *originPage) run(ctx context.Context, origin, expr string, out any) error {
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := rpcc.Invoke(ctx, "Page.navigate", map[string]string{"url": origin + "/"}, &nav, p.conn.RPC()); err != nil {
		return fmt.Errorf("load %s in the hidden tab: %w", origin, lostIfClosed(err))
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("load %s in the hidden tab: %s", origin, nav.ErrorText)
	}
	o, _ := json.Marshal(origin)
	guarded := strings.NewReplacer("__ORIGIN__", string(o), "__EXPR__", expr).Replace(originGuardJS)
	// Page.navigate answers once the navigation commits; the document's
	// context may come a moment later.
	for {
		var got *struct {
			V json.RawMessage `json:"v"`
		}
		err := p.eval(ctx, guarded, &got)
		var re *rpcc.ResponseError
		switch {
		case err == nil && got != nil:
			if out == nil || len(got.V) == 0 {
				return nil
			}
			return json.Unmarshal(got.V, out)
		case err != nil && !errors.As(err, &re):
			return err
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("load %s in the hidden tab: %w", origin, context.Cause(ctx))
		}
	}
}

// eval evaluates expr in the tab's document, awaiting a promise, and
// decodes its value into out (unless out is nil).
func (p *originPage) eval(ctx context.Context, expr string, out any) error {
	var reply struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	args := map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}
	if err := rpcc.Invoke(ctx, "Runtime.evaluate", args, &reply, p.conn.RPC()); err != nil {
		return lostIfClosed(err)
	}
	if d := reply.ExceptionDetails; d != nil {
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg, _, _ = strings.Cut(d.Exception.Description, "\n")
		}
		return errors.New(strings.TrimPrefix(msg, "Error: "))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(reply.Result.Value, out)
}

// close closes the tab and its session, even when the caller has given
// up, and waits for its answering goroutine.
func (p *originPage) close(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	closeTarget(cctx, p.browser, p.targetID) // gone already is fine
	if p.conn != nil {
		p.conn.Close()
	}
	<-p.answered
}

// CookieMatch is what [CookieFilter] selects: cookies named Name (any
// name when ""), for URL (sent with a request to it) and of Domain and
// Path when those are given.
type CookieMatch struct {
	Name, URL, Domain, Path string
}

// CookieFilter returns whether a cookie matches m.
func CookieFilter(m CookieMatch) func(storagestate.Cookie) bool {
	var u *url.URL
	if m.URL != "" {
		u, _ = url.Parse(m.URL)
	}
	domain := strings.TrimPrefix(strings.ToLower(m.Domain), ".")
	return func(c storagestate.Cookie) bool {
		if m.Name != "" && c.Name != m.Name {
			return false
		}
		cd := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		if domain != "" && cd != domain {
			return false
		}
		if m.Path != "" && c.Path != m.Path {
			return false
		}
		if u != nil {
			host := strings.ToLower(u.Hostname())
			if host != cd && !(strings.HasPrefix(c.Domain, ".") && strings.HasSuffix(host, "."+cd)) {
				return false
			}
			p := u.Path
			if p == "" {
				p = "/"
			}
			if p != c.Path && !strings.HasPrefix(p, strings.TrimSuffix(c.Path, "/")+"/") {
				return false
			}
			if c.Secure && u.Scheme != "https" && host != "localhost" && !strings.HasSuffix(host, ".localhost") {
				return false
			}
		}
		return true
	}
}

// eagerOrigins bounds the origins of a state that load_storage_state
// writes at once, each in a hidden tab (forEachOrigin). Past it, the
// origins' localStorage is left pending instead (see pendingStorage);
// origins with IndexedDB are always written at once, and so is every
// origin of --storage-state, before a new context's first page.
const eagerOrigins = 50

// pendingStorage is the localStorage a state load left for the pages of
// one browser context to apply: a document-start script (see
// storagestate.PendingScript) registered on every page of the context, on
// a CDP session of the supervisor's own, writes an origin's items into
// the first top-level document of that origin; the origin is dropped
// from the set once a page of the context has shown it (visit), and the
// script registered again without it.
//
// items, gen, queued and pages are the run goroutine's. sem is held by the
// one call that registers the script on the context's pages
// (refreshPending), off the run goroutine.
type pendingStorage struct {
	items map[string][]storagestate.Item // by origin
	gen   int64                          // counts changes of items
	// loadGen is gen when the state was loaded.
	loadGen int64
	// queued is set while a background refresh is due.
	queued bool
	pages  map[string]pendingPage // by target id
	sem    chan struct{}
}

// pendingPage is the supervisor's session on one page of the context, and
// the script it registered there.
type pendingPage struct {
	conn     *cdpconn.Conn
	scriptID string
	gen      int64
}

// setPending replaces the pending storage of context contextID with items
// (none: forgets it). Run goroutine only.
func (h Storage) setPending(contextID string, items map[string][]storagestate.Item) {
	if h.s.pending == nil {
		h.s.pending = map[string]*pendingStorage{}
	}
	p := h.s.pending[contextID]
	if p == nil {
		if len(items) == 0 {
			return
		}
		p = &pendingStorage{pages: map[string]pendingPage{}, sem: make(chan struct{}, 1)}
		h.s.pending[contextID] = p
	}
	p.items = items
	p.gen++
	p.loadGen = p.gen
}

// dropPending drops origin from the pending storage of contextID, now that
// page target targetID of the context showed it with the script in place,
// and has the script registered again without it. A page that showed it
// before its script was registered has it registered: the origin stays
// pending. Run goroutine only.
func (h Storage) dropPending(contextID, targetID, origin string) {
	p := h.s.pending[contextID]
	if p == nil {
		return
	}
	if _, ok := p.items[origin]; !ok {
		return
	}
	// A script registered since the load holds every origin still
	// pending: origins are only dropped.
	if pp := p.pages[targetID]; pp.scriptID == "" || pp.gen < p.loadGen {
		h.kickPending(contextID)
		return
	}
	delete(p.items, origin)
	p.gen++
	h.kickPending(contextID)
}

// kickPending starts a background refresh of contextID's pending script on
// its pages, unless one is due already or nothing is pending: for a page
// that was opened, or an origin a page left pending showed. The goroutine
// is tracked by s.stops and bounded by pendingRefresh. Run goroutine only.
func (h Storage) kickPending(contextID string) {
	p := h.s.pending[contextID]
	if p == nil || p.queued {
		return
	}
	p.queued = true
	h.s.stops.Add(1)
	go func() {
		defer h.s.stops.Done()
		ctx, cancel := context.WithTimeout(h.s.act.Context(), pendingRefresh)
		defer cancel()
		h.refreshPending(ctx, contextID)
	}()
}

// pendingRefresh bounds one registration of the pending script on a
// context's pages.
const pendingRefresh = 20 * time.Second

// settlePending registers the current pending script on the pages of the
// context of page target targetID, if any is pending there, before a
// navigation the agent asked for returns: the next document of an origin
// that page just showed then leaves its storage alone.
func (h Storage) settlePending(ctx context.Context, targetID string) {
	contextID, err := actor.Ask(ctx, h.s.act, func(context.Context) (string, error) {
		e := h.s.pages[targetID]
		if e == nil || h.s.pending[e.contextID] == nil {
			return "", errNothingPending
		}
		return e.contextID, nil
	})
	if err == nil {
		h.refreshPending(ctx, contextID)
	}
}

var errNothingPending = errors.New("nothing pending")

// refreshPending registers the pending script of context contextID, as it
// is now, on every page of the context that lacks it, removing the one
// registered before, and forgets the pending storage once it is empty.
// Pages that cannot be reached are skipped: a page that blocks the script
// changes nothing for the others, and its origins stay pending.
func (h Storage) refreshPending(ctx context.Context, contextID string) {
	p, _ := actor.Ask(ctx, h.s.act, func(context.Context) (*pendingStorage, error) { return h.s.pending[contextID], nil })
	if p == nil {
		return
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-p.sem }()
	type todo struct {
		targetID string
		was      pendingPage
	}
	type plan struct {
		conn   *cdpconn.Conn
		gen    int64
		script string
		work   []todo
	}
	pl, err := actor.Ask(ctx, h.s.act, func(context.Context) (plan, error) {
		p.queued = false
		if h.s.pending[contextID] != p || h.s.conn == nil {
			return plan{}, errNothingPending
		}
		for tid := range p.pages {
			if h.s.pages[tid] == nil {
				delete(p.pages, tid) // its session went with its tab
			}
		}
		pl := plan{conn: h.s.conn, gen: p.gen}
		for tid, e := range h.s.pages {
			if e.contextID == contextID && p.pages[tid].gen != p.gen {
				pl.work = append(pl.work, todo{tid, p.pages[tid]})
			}
		}
		if len(pl.work) == 0 {
			return pl, nil
		}
		var err error
		pl.script, err = storagestate.PendingScript(p.items)
		return pl, err
	})
	if err != nil {
		return
	}
	done := make([]pendingPage, len(pl.work))
	for i, w := range pl.work {
		done[i] = w.was
		pp, err := registerPending(ctx, pl.conn, w.targetID, w.was, pl.script)
		done[i] = pp
		if err != nil {
			h.s.log.Debug().Err(err).Str("target", w.targetID).Msg("pending storage script")
			continue
		}
		done[i].gen = pl.gen
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	actor.Ask(cctx, h.s.act, func(context.Context) (struct{}, error) {
		for i, w := range pl.work {
			if h.s.pages[w.targetID] != nil || done[i].conn == nil {
				p.pages[w.targetID] = done[i]
			} else {
				done[i].conn.Close()
			}
		}
		if len(p.items) == 0 && h.s.pending[contextID] == p {
			delete(h.s.pending, contextID)
			for _, pp := range p.pages {
				if pp.conn != nil {
					pp.conn.Close()
				}
			}
		}
		return struct{}{}, nil
	})
}

// registerPending replaces, on page target targetID, the script was
// registered with script ("" registers none), attaching the supervisor's
// session to the page first if it has none.
func registerPending(ctx context.Context, browser *cdpconn.Conn, targetID string, was pendingPage, script string) (pendingPage, error) {
	pp := was
	if pp.conn == nil {
		if script == "" {
			return pp, nil
		}
		conn, err := browser.Attach(ctx, targetID, cdpconn.Options{Keep: func(string) bool { return false }})
		if err != nil {
			return was, err
		}
		pp.conn = conn
		// Chrome runs a session's scripts in new documents only while
		// its Page domain is on.
		if err := rpcc.Invoke(ctx, "Page.enable", map[string]any{}, nil, conn.RPC()); err != nil {
			return pp, err
		}
	}
	if pp.scriptID != "" {
		err := rpcc.Invoke(ctx, "Page.removeScriptToEvaluateOnNewDocument", map[string]string{"identifier": pp.scriptID}, nil, pp.conn.RPC())
		if err != nil {
			return pp, err
		}
		pp.scriptID = ""
	}
	if script == "" {
		return pp, nil
	}
	var reply struct {
		Identifier string `json:"identifier"`
	}
	if err := rpcc.Invoke(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": script}, &reply, pp.conn.RPC()); err != nil {
		return pp, err
	}
	pp.scriptID = reply.Identifier
	return pp, nil
}

// pendingItems returns a copy of the localStorage pending in context
// contextID, by origin.
func (h Storage) pendingItems(ctx context.Context, contextID string) (map[string][]storagestate.Item, error) {
	return actor.Ask(ctx, h.s.act, func(context.Context) (map[string][]storagestate.Item, error) {
		out := map[string][]storagestate.Item{}
		if p := h.s.pending[contextID]; p != nil {
			for o, items := range p.items {
				out[o] = items
			}
		}
		return out, nil
	})
}
