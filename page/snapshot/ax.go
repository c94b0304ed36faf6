package snapshot

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/mafredri/cdp/protocol/accessibility"
)

// Frame is the accessibility tree of one frame's document, as
// Accessibility.getFullAXTree returns it, with the identity of that
// document.
type Frame struct {
	FrameID  string
	LoaderID string
	Nodes    []accessibility.AXNode
	// Children maps the backend node id of an <iframe> in this document to
	// that iframe's own tree, when it could be fetched.
	Children map[int]*Frame
}

// axNode is an AX node with the derived facts the filter needs, following
// the rules Puppeteer's accessibility snapshot applies (and so
// chrome-devtools-mcp's text): what is a leaf, a control, and interesting.
type axNode struct {
	p        *accessibility.AXNode
	role     string
	name     string
	children []*axNode
	frame    *Frame
	iframe   *axNode // root of an iframe's tree, attached under its Iframe node

	focusable, hidden, editable, richlyEditable bool
	// Properties that make a node worth showing even when it is not a
	// control or a named leaf.
	busy, modal, hasErrorMessage, hasDetails bool
	live, roleDescription, description       string
	hasFocusableChild                        *bool
}

// Build makes the snapshot tree of a frame and the iframes inside it.
// verbose keeps every node; otherwise only the nodes an agent can act on or
// read are kept, as chrome-devtools-mcp's default snapshot does. It returns
// nil for an empty tree.
func Build(f *Frame, verbose bool) *Node {
	root := axTree(f)
	if root == nil {
		return nil
	}
	if verbose {
		return serialize(root, nil)[0]
	}
	interesting := map[*axNode]bool{}
	collectInteresting(interesting, root, false)
	if !interesting[root] {
		return nil
	}
	out := serialize(root, interesting)
	if len(out) == 0 {
		return nil
	}
	return out[0]
}

// Subtree filters the AX nodes of one element and its descendants (as
// Accessibility.queryAXTree returns them, the element first) the way Build
// filters a whole tree; insideControl says whether an ancestor of the element
// is a control. It returns the nodes that stand for the element: itself with
// its kept descendants, or only those.
func Subtree(f *Frame, insideControl bool) []*Node {
	root := axTree(f)
	if root == nil {
		return nil
	}
	interesting := map[*axNode]bool{}
	collectInteresting(interesting, root, insideControl)
	return serialize(root, interesting)
}

func axTree(f *Frame) *axNode {
	if f == nil || len(f.Nodes) == 0 {
		return nil
	}
	byID := make(map[accessibility.AXNodeID]*axNode, len(f.Nodes))
	order := make([]*axNode, 0, len(f.Nodes))
	for i := range f.Nodes {
		n := newAXNode(&f.Nodes[i], f)
		byID[f.Nodes[i].NodeID] = n
		order = append(order, n)
	}
	for _, n := range order {
		for _, id := range n.p.ChildIDs {
			if c := byID[id]; c != nil {
				n.children = append(n.children, c)
			}
		}
		if n.role == "Iframe" && n.p.BackendDOMNodeID != nil {
			if child := f.Children[int(*n.p.BackendDOMNodeID)]; child != nil {
				n.iframe = axTree(child)
			}
		}
	}
	return order[0]
}

func newAXNode(p *accessibility.AXNode, f *Frame) *axNode {
	n := &axNode{p: p, frame: f, role: "Unknown"}
	if p.Role != nil {
		n.role = stringValue(p.Role.Value)
	}
	if p.Name != nil {
		n.name = stringValue(p.Name.Value)
	}
	if p.Description != nil {
		n.description = stringValue(p.Description.Value)
	}
	for _, prop := range p.Properties {
		v := prop.Value.Value
		switch prop.Name {
		case "editable":
			n.editable = true
			n.richlyEditable = stringValue(v) == "richtext"
		case "focusable":
			n.focusable = boolValue(v)
		case "hidden":
			n.hidden = boolValue(v)
		case "busy":
			n.busy = boolValue(v)
		case "modal":
			n.modal = boolValue(v)
		case "live":
			n.live = stringOrBool(v)
		case "roledescription":
			n.roleDescription = stringValue(v)
		case "errormessage":
			n.hasErrorMessage = true
		case "details":
			n.hasDetails = true
		}
	}
	return n
}

func (n *axNode) isPlainTextField() bool {
	if n.richlyEditable {
		return false
	}
	return n.editable || n.role == "textbox" || n.role == "searchbox"
}

func (n *axNode) isTextOnly() bool {
	switch n.role {
	case "LineBreak", "text", "InlineTextBox", "StaticText":
		return true
	}
	return false
}

func (n *axNode) focusableChild() bool {
	if n.hasFocusableChild == nil {
		v := false
		for _, c := range n.children {
			if c.focusable || c.focusableChild() {
				v = true
				break
			}
		}
		n.hasFocusableChild = &v
	}
	return *n.hasFocusableChild
}

func (n *axNode) isLeaf() bool {
	if len(n.children) == 0 {
		return true
	}
	if n.isPlainTextField() || n.isTextOnly() {
		return true
	}
	// Roles whose children are presentational only.
	switch n.role {
	case "doc-cover", "graphics-symbol", "img", "image", "Meter", "scrollbar", "slider", "separator", "progressbar":
		return true
	}
	if n.focusableChild() {
		return false
	}
	return n.role == "heading" && n.name != ""
}

func (n *axNode) isControl() bool {
	switch n.role {
	case "button", "checkbox", "ColorWell", "combobox", "DisclosureTriangle", "listbox", "menu", "menubar",
		"menuitem", "menuitemcheckbox", "menuitemradio", "radio", "scrollbar", "searchbox", "slider",
		"spinbutton", "switch", "tab", "textbox", "tree", "treeitem":
		return true
	}
	return false
}

func (n *axNode) isLandmark() bool {
	switch n.role {
	case "banner", "complementary", "contentinfo", "form", "main", "navigation", "region", "search":
		return true
	}
	return false
}

func (n *axNode) isInteresting(insideControl bool) bool {
	if n.role == "Ignored" || n.hidden || n.p.Ignored {
		return false
	}
	if n.isLandmark() {
		return true
	}
	if n.focusable || n.richlyEditable || n.busy || (n.live != "" && n.live != "off") ||
		n.modal || n.hasErrorMessage || n.hasDetails || n.roleDescription != "" {
		return true
	}
	if n.isControl() {
		return true
	}
	if insideControl {
		return false
	}
	return n.isLeaf() && (n.name != "" || n.description != "")
}

func collectInteresting(set map[*axNode]bool, n *axNode, insideControl bool) {
	if n.isInteresting(insideControl) || n.iframe != nil {
		set[n] = true
	}
	if n.iframe != nil {
		collectInteresting(set, n.iframe, false)
	}
	if n.isLeaf() {
		return
	}
	insideControl = insideControl || n.isControl()
	for _, c := range n.children {
		collectInteresting(set, c, insideControl)
	}
}

// serialize returns the nodes that stand for n in the output: n itself with
// its kept descendants, or, when n is filtered out, its kept descendants.
func serialize(n *axNode, keep map[*axNode]bool) []*Node {
	var children []*Node
	for _, c := range n.children {
		children = append(children, serialize(c, keep)...)
	}
	if keep != nil && !keep[n] {
		return children
	}
	out := n.node()
	out.Children = children
	if n.iframe != nil {
		out.Children = append(out.Children, serialize(n.iframe, keep)...)
	}
	return []*Node{out}
}

// Properties copied from the AX node, by kind, as Puppeteer serialises them.
var (
	stringProps   = []string{"keyshortcuts", "roledescription", "valuetext", "url"}
	boolProps     = []string{"disabled", "expanded", "focused", "modal", "multiline", "multiselectable", "readonly", "required", "selected", "busy", "atomic"}
	tristateProps = []string{"checked", "pressed"}
	numberProps   = []string{"level", "valuemax", "valuemin"}
	tokenProps    = []string{"autocomplete", "haspopup", "invalid", "orientation", "live", "relevant", "errormessage", "details"}
)

func (n *axNode) node() *Node {
	out := &Node{Role: n.role, Name: n.name, FrameID: n.frame.FrameID, LoaderID: n.frame.LoaderID}
	if n.p.BackendDOMNodeID != nil {
		out.BackendNodeID = int(*n.p.BackendDOMNodeID)
	}
	props := map[string]json.RawMessage{}
	for _, p := range n.p.Properties {
		props[strings.ToLower(string(p.Name))] = p.Value.Value
	}
	add := func(k string, v any) { out.Props = append(out.Props, Prop{k, v}) }
	if n.p.Value != nil {
		if v := scalar(n.p.Value.Value); v != nil {
			add("value", v)
		}
	}
	if n.p.Description != nil {
		add("description", stringValue(n.p.Description.Value))
	}
	for _, k := range stringProps {
		if v, ok := props[k]; ok {
			add(k, stringValue(v))
		}
	}
	for _, k := range boolProps {
		// A RootWebArea reports whether its frame has focus, not itself.
		if k == "focused" && n.role == "RootWebArea" {
			continue
		}
		// Present means Chrome reports the state, true or false: a collapsed
		// combobox prints `expandable`, an expanded one `expandable expanded`.
		if v, ok := props[k]; ok {
			add(k, boolValue(v))
		}
	}
	for _, k := range tristateProps {
		if v, ok := props[k]; ok {
			switch stringOrBool(v) {
			case "mixed":
				add(k, "mixed")
			case "true":
				add(k, true)
			default:
				add(k, false)
			}
		}
	}
	for _, k := range numberProps {
		if v, ok := props[k]; ok {
			if f, isNum := scalar(v).(float64); isNum {
				add(k, f)
			}
		}
	}
	for _, k := range tokenProps {
		if v, ok := props[k]; ok {
			if s := stringOrBool(v); s != "" && s != "false" {
				add(k, s)
			}
		}
	}
	// Options carry their name as value so that fill can pick one by it
	// (the AX node of an option has no value of its own).
	if n.role == "option" && n.name != "" {
		out.Props = slices.DeleteFunc(out.Props, func(p Prop) bool { return p.Key == "value" })
		add("value", n.name)
	}
	sort.SliceStable(out.Props, func(i, j int) bool { return out.Props[i].Key < out.Props[j].Key })
	return out
}

func scalar(raw json.RawMessage) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64, bool:
		return v
	}
	return nil
}

func stringValue(raw json.RawMessage) string {
	if s, ok := scalar(raw).(string); ok {
		return s
	}
	return ""
}

func boolValue(raw json.RawMessage) bool {
	switch v := scalar(raw).(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

func stringOrBool(raw json.RawMessage) string {
	switch v := scalar(raw).(type) {
	case bool:
		if v {
			return "true"
		}
		return "false"
	case string:
		return v
	}
	return ""
}
