// Package styles is the get_css_styles capability: the rules that style
// an element, read through Chrome's CSS domain on the session of the
// element's frame (an out-of-process iframe's own), and shaped by package
// page/css, which does no I/O, as DevTools' Styles pane shows them.
//
// The DOM and CSS domains are turned on for the call and off after it:
// they cost the page work (style sheet bookkeeping, DOM events) that no
// other tool needs. Turning CSS on makes Chrome announce every style sheet
// of the document (CSS.styleSheetAdded) before it answers, which is how
// the rules' sources are known; the page's [Slice] collects those
// announcements for the call, on the page's run goroutine.
//
// It starts no goroutines of its own; a call's CDP exchanges run on the
// goroutines [page.Host.Call] and errgroup make and wait for.
package styles

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mafredri/cdp/protocol/dom"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/css"
	"github.com/tabhive/tabhive/page/snapshot"
)

// slices finds a page's styles reader.
var slices = page.Register(page.Capability[*Slice]{
	Name:   "styles",
	Events: []string{"CSS.styleSheetAdded"},
	New:    func(h *page.Host) *Slice { return &Slice{h: h} },
})

// Of returns page a's styles reader.
func Of(a *page.Actor) *Slice { return slices.Of(a) }

// Slice reads a page's elements' styles. The page's run goroutine owns
// its fields: its methods run there, through [page.Do], as the events it
// applies do.
type Slice struct {
	h *page.Host
	// sheets collects the style sheets Chrome announces on session
	// sheetsOf while a call has the CSS domain on there; nil otherwise.
	sheets   map[string]css.Header
	sheetsOf *page.Session
}

// Apply records a style sheet Chrome announced on session s, while a call
// listens for them.
func (sl *Slice) Apply(s *page.Session, ev cdpconn.Event) error {
	if sl.sheets == nil || s != sl.sheetsOf {
		return nil
	}
	var e struct {
		Header css.Header `json:"header"`
	}
	if err := json.Unmarshal(ev.Params, &e); err != nil {
		return err
	}
	sl.sheets[e.Header.StyleSheetID] = e.Header
	return nil
}

// Styles is an element's cascade, ready to be listed and paged.
type Styles struct {
	// Element is the element whose styles these are.
	Element css.Node
	// Rules are the sections of the reply, highest precedence first.
	Rules []css.Rule
	State page.State
}

// ErrNotElement is returned by [Slice.Styles] for a uid that names
// neither an element nor a text node.
var ErrNotElement = errors.New("not an element")

// Styles returns the matched rules, inline style, inherited blocks and
// at-rules of the element uid names (a text node's parent element).
func (sl *Slice) Styles(ctx context.Context, uid string) (Styles, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (Styles, error) {
		if err := h.NeedRenderer(); err != nil {
			return Styles{}, err
		}
		n, err := h.Elements().Resolve(uid)
		if err != nil {
			return Styles{}, err
		}
		target := n.Ref
		var backend dom.BackendNodeID
		if target.IsZero() {
			if backend, err = h.Elements().BackendNodeID(ctx, n); err != nil {
				return Styles{}, err
			}
		}
		s := h.SessionOf(n.FrameID)
		byWalker, byBackend := frameUIDs(h.Elements().Snapshot(), n.FrameID)
		sl.sheets, sl.sheetsOf = map[string]css.Header{}, s
		defer func() { sl.sheets, sl.sheetsOf = nil, nil }()
		var got fetchedStyles
		err = h.Call(ctx, func(ctx context.Context) (err error) {
			got, err = fetchStyles(ctx, s, n.FrameID, target, backend, len(byBackend) > 0)
			return err
		})
		h.ApplyEvents() // the style sheets Chrome announced before it answered
		if errors.Is(err, page.ErrNodeGone) {
			return Styles{}, &page.UIDError{UID: uid, PageID: h.ID(), Gone: true, Cause: err}
		}
		if err != nil {
			return Styles{}, err
		}
		name := func(d elementInfo, backend dom.BackendNodeID) css.Node {
			out := css.Node{Selector: d.S, Tag: d.T}
			if d.W != 0 {
				out.UID = byWalker[d.W]
			}
			if out.UID == "" && backend != 0 {
				out.UID = byBackend[backend]
			}
			return out
		}
		chain := make([]css.Node, len(got.info.Chain))
		for i, d := range got.info.Chain {
			var b dom.BackendNodeID
			if i < len(got.chainIDs) {
				b = got.chainIDs[i]
			}
			chain[i] = name(d, b)
		}
		if len(chain) == 0 {
			return Styles{}, ErrNotElement
		}
		m := css.Match(css.Input{
			Payload:   got.payload,
			Headers:   sl.sheets,
			Meta:      got.info.meta(),
			Element:   chain[0],
			Ancestors: chain[1:],
		})
		for _, c := range m.Containers() {
			if f, ok := got.containers[containerKey(c.Query)]; ok && f.info != nil {
				node := name(*f.info, f.backend)
				c.Node = &node
			}
		}
		return Styles{Element: chain[0], Rules: m.Rules(), State: h.State()}, nil
	})
}

// frameUIDs indexes the uids of a snapshot's nodes of a frame by walker id
// and by backend node id, to name the ancestors and containers the reply
// mentions.
func frameUIDs(root *snapshot.Node, frameID string) (byWalker map[int]string, byBackend map[dom.BackendNodeID]string) {
	byWalker, byBackend = map[int]string{}, map[dom.BackendNodeID]string{}
	var walk func(n *snapshot.Node)
	walk = func(n *snapshot.Node) {
		if n.FrameID == frameID && n.UID != "" {
			if !n.Ref.IsZero() {
				byWalker[n.Ref.ID] = n.UID
			} else if n.BackendNodeID != 0 {
				byBackend[dom.BackendNodeID(n.BackendNodeID)] = n.UID
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	if root != nil {
		walk(root)
	}
	return byWalker, byBackend
}
