package page

// get_css_styles: the rules that style an element, read through Chrome's
// CSS domain on the session of the element's frame (an out-of-process
// iframe's own), and shaped by package page/css as DevTools' Styles pane
// shows them.
//
// The DOM and CSS domains are turned on for the call and off after it:
// they cost the page work (style sheet bookkeeping, DOM events) that no
// other tool needs. Turning CSS on makes Chrome announce every style sheet
// of the document (CSS.styleSheetAdded) before it answers, which is how the
// rules' sources are known; the actor collects those announcements for the
// call (Actor.sheets) like any other event, on its run goroutine.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page/css"
	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/snapshot"
)

// stylesGroup is the object group of the remote objects a call makes,
// released together when it ends.
const stylesGroup = "tabhive-css"

// CSSStyles is an element's cascade, ready to be listed and paged.
type CSSStyles struct {
	// Element is the element whose styles these are.
	Element css.Node
	// Rules are the sections of the reply, highest precedence first.
	Rules []css.Rule
	State State
}

// ErrNotElement is returned by [Actor.CSSStyles] for a uid that names
// neither an element nor a text node.
var ErrNotElement = errors.New("not an element")

// CSSStyles returns the matched rules, inline style, inherited blocks and
// at-rules of the element uid names (a text node's parent element).
func (a *Actor) CSSStyles(ctx context.Context, uid string) (CSSStyles, error) {
	return ask(ctx, a, func(ctx context.Context) (CSSStyles, error) {
		if err := a.needRenderer(); err != nil {
			return CSSStyles{}, err
		}
		n, err := a.resolve(uid)
		if err != nil {
			return CSSStyles{}, err
		}
		target := n.Ref
		var backend dom.BackendNodeID
		if target.IsZero() {
			if backend, err = a.nodeID(ctx, n); err != nil {
				return CSSStyles{}, err
			}
		}
		s := a.sessionOf(n.FrameID)
		byWalker, byBackend := a.frameUIDs(n.FrameID)
		a.sheets, a.sheetsOf = map[string]css.Header{}, s
		defer func() { a.sheets, a.sheetsOf = nil, nil }()
		var got fetchedStyles
		err = a.call(ctx, func(ctx context.Context) (err error) {
			got, err = fetchStyles(ctx, s, n.FrameID, target, backend, len(byBackend) > 0)
			return err
		})
		a.drainEvents() // the style sheets Chrome announced before it answered
		if errors.Is(err, errNodeGone) {
			return CSSStyles{}, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: err}
		}
		if err != nil {
			return CSSStyles{}, err
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
			return CSSStyles{}, ErrNotElement
		}
		m := css.Match(css.Input{
			Payload:   got.payload,
			Headers:   a.sheets,
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
		return CSSStyles{Element: chain[0], Rules: m.Rules(), State: a.state()}, nil
	})
}

// frameUIDs indexes the uids of the latest snapshot's nodes of a frame by
// walker id and by backend node id, to name the ancestors and containers
// the reply mentions.
func (a *Actor) frameUIDs(frameID string) (byWalker map[int]string, byBackend map[dom.BackendNodeID]string) {
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
	if a.snap != nil {
		walk(a.snap)
	}
	return byWalker, byBackend
}

// sheetAdded records a style sheet Chrome announced on session s, while a
// get_css_styles call listens for them. It runs on the run goroutine.
func (a *Actor) sheetAdded(s *Session, params json.RawMessage) error {
	if a.sheets == nil || s != a.sheetsOf {
		return nil
	}
	var e struct {
		Header css.Header `json:"header"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	a.sheets[e.Header.StyleSheetID] = e.Header
	return nil
}

// elementInfo is what js/styles.js says of an element.
type elementInfo struct {
	S string `json:"s"` // short selector
	T string `json:"t"` // tag
	W int    `json:"w"` // walker id, or 0
}

// stylesInfo is js/styles.js's reply.
type stylesInfo struct {
	Chain      []elementInfo  `json:"chain"`
	Containers []*elementInfo `json:"containers"`
	Meta       map[string]struct {
		L []string `json:"l"`
		C string   `json:"c"`
	} `json:"meta"`
}

// meta turns the browser's answers on property names into css.Meta: a
// name that lists several properties is a shorthand; one that lists
// another single one, or that is a -webkit- prefix of a known one, is an
// alias.
func (i *stylesInfo) meta() *css.Meta {
	m := &css.Meta{Longhands: map[string][]string{}, Canonical: map[string]string{}}
	for n, v := range i.Meta {
		if len(v.L) > 1 {
			m.Longhands[n] = v.L
		}
		if v.C != "" && v.C != n {
			m.Canonical[n] = v.C
		}
	}
	return m
}

// fetchedStyles is what fetchStyles read from the browser.
type fetchedStyles struct {
	payload *css.Payload
	info    stylesInfo
	// chainIDs are the backend node ids of info.Chain, when asked for.
	chainIDs []dom.BackendNodeID
	// containers are the query containers found, by containerKey.
	containers map[string]foundContainer
}

type foundContainer struct {
	info    *elementInfo
	backend dom.BackendNodeID
}

// containerKey identifies what CSS.getContainerForNode is asked for a
// query: two rules' queries with equal keys have the same container.
func containerKey(q css.ContainerQuery) string {
	return fmt.Sprintf("%s|%s|%s|%t|%t", q.Name, q.PhysicalAxes, q.LogicalAxes, q.QueriesScrollState, q.QueriesAnchored)
}

// fetchStyles reads the matched styles of the node ref (or backend) of
// frame through session s, with the DOM and CSS domains on for the call.
// withIDs asks for the backend node ids of the element's ancestors too. It
// runs on a call goroutine and touches no actor state.
func fetchStyles(ctx context.Context, s *Session, frameID string, ref snapshot.Ref, backend dom.BackendNodeID, withIDs bool) (out fetchedStyles, err error) {
	c := s.c
	defer func() {
		// Off again whatever happened, even past the caller's deadline.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		rpcc.Invoke(cctx, "CSS.disable", nil, nil, s.conn.RPC())
		c.DOM.Disable(cctx)
		c.Runtime.ReleaseObjectGroup(cctx, runtime.NewReleaseObjectGroupArgs(stylesGroup))
	}()
	w, err := c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(frameID)).SetWorldName(snapshotWorld))
	if err != nil {
		return out, err
	}
	var node runtime.RemoteObjectID
	if !ref.IsZero() {
		if node, err = refObject(ctx, c, ref); err != nil {
			return out, err
		}
		defer releaseObject(c, node)
	} else {
		r, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(backend).
			SetExecutionContextID(w.ExecutionContextID).SetObjectGroup(stylesGroup))
		if isNodeGone(err) {
			return out, errNodeGone
		}
		if err != nil {
			return out, err
		}
		if r.Object.ObjectID == nil {
			return out, errNodeGone
		}
		node = *r.Object.ObjectID
	}
	r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.Enclosing).
		SetObjectID(node).SetObjectGroup(stylesGroup).SetSilent(true))
	if err != nil {
		return out, err
	}
	if r.ExceptionDetails != nil || r.Result.ObjectID == nil {
		return out, ErrNotElement
	}
	el := *r.Result.ObjectID

	if err := c.DOM.Enable(ctx, nil); err != nil {
		return out, err
	}
	if _, err := c.DOM.GetDocument(ctx, dom.NewGetDocumentArgs().SetDepth(0)); err != nil {
		return out, err
	}
	req, err := c.DOM.RequestNode(ctx, dom.NewRequestNodeArgs(el))
	if err != nil {
		return out, err
	}
	if err := rpcc.Invoke(ctx, "CSS.enable", nil, nil, s.conn.RPC()); err != nil {
		return out, err
	}
	out.payload = new(css.Payload)
	if err := rpcc.Invoke(ctx, "CSS.getMatchedStylesForNode", map[string]any{"nodeId": req.NodeID}, out.payload, s.conn.RPC()); err != nil {
		return out, err
	}

	// The containers the @container conditions query, each once.
	out.containers = map[string]foundContainer{}
	var queries []css.ContainerQuery
	seen := map[string]bool{}
	for _, q := range css.Match(css.Input{Payload: out.payload}).Containers() {
		if k := containerKey(q.Query); !seen[k] {
			seen[k] = true
			queries = append(queries, q.Query)
		}
	}
	objs := make([]runtime.RemoteObjectID, len(queries))
	ids := make([]dom.BackendNodeID, len(queries))
	g, gctx := errgroup.WithContext(ctx)
	for i, q := range queries {
		g.Go(func() error {
			objs[i], ids[i] = findContainer(gctx, s, w.ExecutionContextID, req.NodeID, q)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return out, err
	}

	names, _ := json.Marshal(css.Names(out.payload))
	args := []runtime.CallArgument{{Value: names}}
	for _, o := range objs {
		if o == "" {
			args = append(args, runtime.CallArgument{Value: json.RawMessage("null")})
		} else {
			args = append(args, runtime.CallArgument{ObjectID: &o})
		}
	}
	info, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.Styles).
		SetObjectID(el).SetArguments(args).SetReturnByValue(true).SetSilent(true))
	if err != nil {
		return out, err
	}
	if info.ExceptionDetails != nil {
		return out, fmt.Errorf("read the element's ancestors: %w", walkerError(info.ExceptionDetails))
	}
	if err := json.Unmarshal(info.Result.Value, &out.info); err != nil {
		return out, fmt.Errorf("read the element's ancestors: %w", err)
	}
	for i, q := range queries {
		if i < len(out.info.Containers) && out.info.Containers[i] != nil {
			out.containers[containerKey(q)] = foundContainer{info: out.info.Containers[i], backend: ids[i]}
		}
	}
	if withIDs {
		out.chainIDs, err = chainIDs(ctx, c, el)
	}
	return out, err
}

// findContainer finds the element a container query of node queries, as a
// remote object of the isolated world, and its backend node id; "" when
// there is none.
func findContainer(ctx context.Context, s *Session, world runtime.ExecutionContextID, node dom.NodeID, q css.ContainerQuery) (runtime.RemoteObjectID, dom.BackendNodeID) {
	args := map[string]any{"nodeId": node}
	if q.Name != "" {
		args["containerName"] = q.Name
	}
	if q.PhysicalAxes != "" {
		args["physicalAxes"] = q.PhysicalAxes
	}
	if q.LogicalAxes != "" {
		args["logicalAxes"] = q.LogicalAxes
	}
	if q.QueriesScrollState {
		args["queriesScrollState"] = true
	}
	if q.QueriesAnchored {
		args["queriesAnchored"] = true
	}
	var reply struct {
		NodeID dom.NodeID `json:"nodeId"`
	}
	if err := rpcc.Invoke(ctx, "DOM.getContainerForNode", args, &reply, s.conn.RPC()); err != nil || reply.NodeID == 0 {
		return "", 0
	}
	d, err := s.c.DOM.DescribeNode(ctx, dom.NewDescribeNodeArgs().SetNodeID(reply.NodeID))
	if err != nil {
		return "", 0
	}
	r, err := s.c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetNodeID(reply.NodeID).
		SetExecutionContextID(world).SetObjectGroup(stylesGroup))
	if err != nil || r.Object.ObjectID == nil {
		return "", 0
	}
	return *r.Object.ObjectID, d.Node.BackendNodeID
}

// chainIDs returns the backend node ids of element el and its ancestors in
// the flat tree, as js/styles.js lists them.
func chainIDs(ctx context.Context, c *cdp.Client, el runtime.RemoteObjectID) ([]dom.BackendNodeID, error) {
	r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.Ancestors).
		SetObjectID(el).SetObjectGroup(stylesGroup).SetSilent(true))
	if err != nil || r.Result.ObjectID == nil {
		return nil, err
	}
	props, err := c.Runtime.GetProperties(ctx, runtime.NewGetPropertiesArgs(*r.Result.ObjectID).SetOwnProperties(true))
	if err != nil {
		return nil, err
	}
	var objs []runtime.RemoteObjectID
	for _, p := range props.Result {
		i, err := strconv.Atoi(p.Name)
		if err != nil || i < 0 || i >= 4096 || p.Value == nil || p.Value.ObjectID == nil {
			continue // length, and anything that is not an element of the list
		}
		for len(objs) <= i {
			objs = append(objs, "")
		}
		objs[i] = *p.Value.ObjectID
	}
	ids := make([]dom.BackendNodeID, len(objs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i, o := range objs {
		if o == "" {
			continue
		}
		g.Go(func() error {
			d, err := c.DOM.DescribeNode(gctx, dom.NewDescribeNodeArgs().SetObjectID(o))
			if err == nil {
				ids[i] = d.Node.BackendNodeID
			}
			return nil
		})
	}
	g.Wait()
	return ids, nil
}
