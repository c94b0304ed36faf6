// Package storage is the capability of what a browser context keeps:
// cookies, web storage, and whole storage states (log in once, start every
// agent from it), and their tools. Cookies and states are the browser
// context's, kept by the supervisor (package browser); web storage is read
// and written through a page.
//
// Web storage (get_web_storage, set_web_storage, delete_web_storage): the
// localStorage and sessionStorage of an origin the page shows, in its main
// frame or any other, out-of-process ones included. Read and written
// through the DOMStorage domain on the session of a frame of that origin,
// under the frame's own storage key (a third-party iframe's storage is
// partitioned by its top-level site), so no page script is involved and a
// page that replaced Storage.prototype's methods sees the same as it
// would. The capability keeps no state on a page.
package storage

import (
	"context"
	"fmt"
	"slices"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/page"
)

// hosts finds the Host a page's web storage is reached through.
var hosts = page.RegisterStateless("storage")

// Of returns page a's web storage.
func Of(a *page.Actor) *Web { return &Web{h: hosts.Of(a)} }

// Web reaches the web storage of the origins a page shows. It holds no
// state: its methods run on the page's run goroutine.
type Web struct{ h *page.Host }

// Item is one entry of a page's localStorage or sessionStorage.
type Item struct {
	Key, Value string
}

// Storage is an origin's localStorage or sessionStorage as a page sees
// it.
type Storage struct {
	// Origin is the origin whose storage this is.
	Origin string
	// Items are its entries, in the order Chrome lists them.
	Items []Item
	page.State
}

// Change is what [Web.Change] does to an origin's
// storage: set Key to Value, or remove Key, or clear it all.
type Change struct {
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

// Get returns the localStorage (local) or sessionStorage of origin as the
// page sees it; origin "" is the main frame's.
func (w *Web) Get(ctx context.Context, origin string, local bool) (Storage, error) {
	h := w.h
	return page.Do(ctx, h, func(ctx context.Context) (Storage, error) {
		s, key, origin, err := w.storageOf(ctx, origin)
		if err != nil {
			return Storage{}, err
		}
		var reply struct {
			Entries [][]string `json:"entries"`
		}
		err = h.Call(ctx, func(ctx context.Context) error {
			return rpcc.Invoke(ctx, "DOMStorage.getDOMStorageItems", map[string]any{"storageId": storageID(key, local)}, &reply, s.RPC())
		})
		if err != nil {
			return Storage{}, fmt.Errorf("read the web storage of %s: %w", origin, err)
		}
		out := Storage{Origin: origin, State: h.State()}
		for _, e := range reply.Entries {
			if len(e) == 2 {
				out.Items = append(out.Items, Item{Key: e[0], Value: e[1]})
			}
		}
		return out, nil
	})
}

// Change changes an origin's storage as ch says, and returns the origin it
// changed.
func (w *Web) Change(ctx context.Context, ch Change) (string, page.State, error) {
	h := w.h
	type out struct {
		origin string
		s      page.State
	}
	o, err := page.Do(ctx, h, func(ctx context.Context) (out, error) {
		s, key, origin, err := w.storageOf(ctx, ch.Origin)
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
		err = h.Call(ctx, func(ctx context.Context) error { return rpcc.Invoke(ctx, method, args, nil, s.RPC()) })
		if err != nil {
			return out{}, fmt.Errorf("change the web storage of %s: %w", origin, err)
		}
		return out{origin, h.State()}, nil
	})
	return o.origin, o.s, err
}

func storageID(key string, local bool) map[string]any {
	return map[string]any{"storageKey": key, "isLocalStorage": local}
}

// storageOf finds a frame that shows origin ("" for the main frame's) and
// returns its session, its storage key and the origin. Run goroutine only.
func (w *Web) storageOf(ctx context.Context, origin string) (*page.Session, string, string, error) {
	h := w.h
	if err := h.NeedRenderer(); err != nil {
		return nil, "", "", err
	}
	if err := h.AwaitChildren(ctx); err != nil {
		return nil, "", "", err
	}
	frameID := ""
	frames := h.FrameURLs()
	if origin == "" {
		origin = page.OriginOf(h.URL())
		if origin == "" {
			return nil, "", "", &NoOriginError{PageID: h.ID(), URL: h.URL()}
		}
		frameID = h.MainFrame()
	} else if u, ok := frames[h.MainFrame()]; ok && page.OriginOf(u) == origin {
		frameID = h.MainFrame()
	} else {
		// The main frame first, then the others in a stable order.
		ids := make([]string, 0, len(frames))
		for id := range frames {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if page.OriginOf(frames[id]) == origin {
				frameID = id
				break
			}
		}
	}
	if frameID == "" {
		return nil, "", "", &NoOriginError{PageID: h.ID(), Origin: origin}
	}
	s := h.SessionOf(frameID)
	var key struct {
		StorageKey string `json:"storageKey"`
	}
	err := h.Call(ctx, func(ctx context.Context) error {
		return rpcc.Invoke(ctx, "Storage.getStorageKeyForFrame", map[string]string{"frameId": frameID}, &key, s.RPC())
	})
	if err != nil {
		return nil, "", "", fmt.Errorf("find the storage of %s: %w", origin, err)
	}
	return s, key.StorageKey, origin, nil
}
