package styles

// What get_css_styles reads from the browser, on a call goroutine of the
// element's frame's session: the matched styles, the property names'
// metadata, the element's ancestors in the flat tree and the containers
// its @container conditions query.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/css"
	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/snapshot"
)

// stylesGroup is the object group of the remote objects a call makes,
// released together when it ends.
const stylesGroup = "tabhive-css"

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
// runs on a call goroutine and touches no page state.
func fetchStyles(ctx context.Context, s *page.Session, frameID string, ref snapshot.Ref, backend dom.BackendNodeID, withIDs bool) (out fetchedStyles, err error) {
	c := s.Client()
	defer func() {
		// Off again whatever happened, even past the caller's deadline.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		rpcc.Invoke(cctx, "CSS.disable", nil, nil, s.RPC())
		c.DOM.Disable(cctx)
		c.Runtime.ReleaseObjectGroup(cctx, runtime.NewReleaseObjectGroupArgs(stylesGroup))
	}()
	world, err := s.SnapshotWorld(ctx, frameID)
	if err != nil {
		return out, err
	}
	var node runtime.RemoteObjectID
	if !ref.IsZero() {
		if node, err = s.RefObject(ctx, ref); err != nil {
			return out, err
		}
		defer s.ReleaseObject(node)
	} else {
		r, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(backend).
			SetExecutionContextID(world).SetObjectGroup(stylesGroup))
		if page.IsNodeGone(err) {
			return out, page.ErrNodeGone
		}
		if err != nil {
			return out, err
		}
		if r.Object.ObjectID == nil {
			return out, page.ErrNodeGone
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
	if err := rpcc.Invoke(ctx, "CSS.enable", nil, nil, s.RPC()); err != nil {
		return out, err
	}
	out.payload = new(css.Payload)
	if err := rpcc.Invoke(ctx, "CSS.getMatchedStylesForNode", map[string]any{"nodeId": req.NodeID}, out.payload, s.RPC()); err != nil {
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
			objs[i], ids[i] = findContainer(gctx, s, world, req.NodeID, q)
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
		return out, fmt.Errorf("read the element's ancestors: %w", page.WalkerError(info.ExceptionDetails))
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
func findContainer(ctx context.Context, s *page.Session, world runtime.ExecutionContextID, node dom.NodeID, q css.ContainerQuery) (runtime.RemoteObjectID, dom.BackendNodeID) {
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
	if err := rpcc.Invoke(ctx, "DOM.getContainerForNode", args, &reply, s.RPC()); err != nil || reply.NodeID == 0 {
		return "", 0
	}
	d, err := s.Client().DOM.DescribeNode(ctx, dom.NewDescribeNodeArgs().SetNodeID(reply.NodeID))
	if err != nil {
		return "", 0
	}
	r, err := s.Client().DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetNodeID(reply.NodeID).
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
