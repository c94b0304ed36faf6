package page

// Web storage (get_web_storage, set_web_storage, delete_web_storage): the
// localStorage and sessionStorage of an origin the page shows, in its main
// frame or any other, out-of-process ones included. Read and written
// through the DOMStorage domain on the session of a frame of that origin,
// under the frame's own storage key (a third-party iframe's storage is
// partitioned by its top-level site), so no page script is involved and a
// page that replaced Storage.prototype's methods sees the same as it
// would.

import (
	"context"
	"fmt"
	"net/url"
	"slices"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/actor"
)

// StorageItem is one entry of a page's localStorage or sessionStorage.
type StorageItem struct {
	Key, Value string
}

// WebStorage is an origin's localStorage or sessionStorage as a page sees
// it.
type WebStorage struct {
	// Origin is the origin whose storage this is.
	Origin string
	// Items are its entries, in the order Chrome lists them.
	Items []StorageItem
	State
}

// StorageChange is what [Actor.ChangeWebStorage] does to an origin's
// storage: set Key to Value, or remove Key, or clear it all.
type StorageChange struct {
	// Origin is the origin to change, "" for the main frame's.
	Origin string
	// Local selects localStorage; otherwise sessionStorage.
	Local bool
	Key   string
	// Value is what Key is set to; with Remove, Key is removed instead,
	// and with Clear every entry is.
	Value  string
	Remove bool
	Clear  bool
}

// NoOriginError reports a web storage call for an origin none of the
// page's frames shows, or a page whose main frame has no origin to store
// for (about:blank, a data: URL).
type NoOriginError struct {
	PageID int
	// Origin is the origin asked for; "" when none was given and the main
	// frame's URL, URL, has no origin of its own.
	Origin, URL string
}

func (e *NoOriginError) Error() string {
	if e.Origin == "" {
		return fmt.Sprintf("page %d shows %s, which has no web storage", e.PageID, e.URL)
	}
	return fmt.Sprintf("no frame of page %d shows origin %s", e.PageID, e.Origin)
}

// WebStorage returns the localStorage (local) or sessionStorage of origin
// as the page sees it; origin "" is the main frame's.
func (a *Actor) WebStorage(ctx context.Context, origin string, local bool) (WebStorage, error) {
	return ask(ctx, a, func(ctx context.Context) (WebStorage, error) {
		s, key, origin, err := a.storageOf(ctx, origin)
		if err != nil {
			return WebStorage{}, err
		}
		var reply struct {
			Entries [][]string `json:"entries"`
		}
		err = a.call(ctx, func(ctx context.Context) error {
			return rpcc.Invoke(ctx, "DOMStorage.getDOMStorageItems", map[string]any{"storageId": storageID(key, local)}, &reply, s.conn.RPC())
		})
		if err != nil {
			return WebStorage{}, fmt.Errorf("read the web storage of %s: %w", origin, err)
		}
		out := WebStorage{Origin: origin, State: a.state()}
		for _, e := range reply.Entries {
			if len(e) == 2 {
				out.Items = append(out.Items, StorageItem{Key: e[0], Value: e[1]})
			}
		}
		return out, nil
	})
}

// ChangeWebStorage changes an origin's storage as ch says, and returns the
// origin it changed.
func (a *Actor) ChangeWebStorage(ctx context.Context, ch StorageChange) (string, State, error) {
	type out struct {
		origin string
		s      State
	}
	o, err := ask(ctx, a, func(ctx context.Context) (out, error) {
		s, key, origin, err := a.storageOf(ctx, ch.Origin)
		if err != nil {
			return out{}, err
		}
		id := storageID(key, ch.Local)
		method, args := "DOMStorage.setDOMStorageItem", map[string]any{"storageId": id, "key": ch.Key, "value": ch.Value}
		switch {
		case ch.Clear:
			method, args = "DOMStorage.clear", map[string]any{"storageId": id}
		case ch.Remove:
			method, args = "DOMStorage.removeDOMStorageItem", map[string]any{"storageId": id, "key": ch.Key}
		}
		err = a.call(ctx, func(ctx context.Context) error { return rpcc.Invoke(ctx, method, args, nil, s.conn.RPC()) })
		if err != nil {
			return out{}, fmt.Errorf("change the web storage of %s: %w", origin, err)
		}
		return out{origin, a.state()}, nil
	})
	return o.origin, o.s, err
}

func storageID(key string, local bool) map[string]any {
	return map[string]any{"storageKey": key, "isLocalStorage": local}
}

// storageOf finds a frame that shows origin ("" for the main frame's) and
// returns its session, its storage key and the origin. Run goroutine only.
func (a *Actor) storageOf(ctx context.Context, origin string) (*Session, string, string, error) {
	if err := a.needRenderer(); err != nil {
		return nil, "", "", err
	}
	if err := a.awaitChildren(ctx); err != nil {
		return nil, "", "", err
	}
	frameID := ""
	if origin == "" {
		origin = OriginOf(a.url)
		if origin == "" {
			return nil, "", "", &NoOriginError{PageID: a.id, URL: a.url}
		}
		frameID = a.mainFrame
	} else if f := a.frames[a.mainFrame]; f != nil && OriginOf(f.url) == origin {
		frameID = f.id
	} else {
		// The main frame first, then the others in a stable order.
		ids := make([]string, 0, len(a.frames))
		for id := range a.frames {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if OriginOf(a.frames[id].url) == origin {
				frameID = id
				break
			}
		}
	}
	if frameID == "" {
		return nil, "", "", &NoOriginError{PageID: a.id, Origin: origin}
	}
	s := a.sessionOf(frameID)
	var key struct {
		StorageKey string `json:"storageKey"`
	}
	err := a.call(ctx, func(ctx context.Context) error {
		return rpcc.Invoke(ctx, "Storage.getStorageKeyForFrame", map[string]string{"frameId": frameID}, &key, s.conn.RPC())
	})
	if err != nil {
		return nil, "", "", fmt.Errorf("find the storage of %s: %w", origin, err)
	}
	return s, key.StorageKey, origin, nil
}

// Origins returns the http and https origins the page's frames show, the
// main frame's first, from what the actor knows (no renderer is asked).
func (a *Actor) Origins(ctx context.Context) ([]string, error) {
	return actor.Ask(ctx, a.act, func(context.Context) ([]string, error) {
		var out []string
		if o := OriginOf(a.url); o != "" {
			out = append(out, o)
		}
		for _, f := range a.frames {
			if o := OriginOf(f.url); o != "" && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
		return out, nil
	})
}

// OriginOf returns the origin of an http or https URL, as
// scheme://host[:port]; "" for any other URL.
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
