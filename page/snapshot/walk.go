package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Walk is what the in-page snapshot walker (page/js/snapshot.js) returns
// for one document: the nodes Puppeteer's filter keeps, in pre-order, with
// the roles, names and AX properties Chrome would give them.
type Walk struct {
	// Doc identifies the walker's state in the document: ids are unique
	// within one Doc.
	Doc   string
	Nodes []WalkNode
	// Hosts lists elements that may host a closed shadow root, which the
	// walker cannot open: the caller looks each up and, if it has one,
	// hands it to the walker and walks again. Each element is listed once
	// per document.
	Hosts []int
}

// WalkNode is one kept node of a [Walk].
type WalkNode struct {
	Depth int
	ID    int
	Role  string
	Name  string
	// Props holds AX properties by their CDP names (value, description,
	// checked ...), valued as Accessibility.getFullAXTree values them.
	Props map[string]any
	// Opaque is non-zero for an element whose accessible parts the walker
	// cannot see (a date field's spin buttons, media controls): 1, or 2 when
	// inside a control. Its nodes come from Chrome's tree of the element
	// (see [Subtree]).
	Opaque int
}

// Ref names a node for the walker that found it: the isolated world it ran
// in, its state there and the node's id. A ref is resolved to a DOM node
// only when an action needs one.
type Ref struct {
	Context int    // execution context id of the isolated world
	Doc     string // [Walk.Doc]
	ID      int
}

// IsZero reports whether r names no node.
func (r Ref) IsZero() bool { return r.ID == 0 }

// key is the identity of a ref for uid reuse.
func (r Ref) key() string { return fmt.Sprintf("%s.%d", r.Doc, r.ID) }

// Tree builds the snapshot tree of a walk of one frame's document, whose
// walker ran in the isolated world context. opaque gives the nodes that
// stand for an opaque walk node (by its id); nil drops them. It returns nil
// for an empty walk.
//
// Nodes keep their walker ids in Ref; BackendNodeID stays 0 until resolved.
func (w *Walk) Tree(frameID, loaderID string, context int, opaque map[int][]*Node) *Node {
	if w == nil || len(w.Nodes) == 0 {
		return nil
	}
	var stack []*Node
	var root *Node
	for i := range w.Nodes {
		wn := &w.Nodes[i]
		if wn.Opaque != 0 {
			if len(stack) == 0 || wn.Depth > len(stack) {
				continue
			}
			parent := stack[wn.Depth-1]
			parent.Children = append(parent.Children, opaque[wn.ID]...)
			stack = stack[:wn.Depth]
			continue
		}
		n := &Node{
			Role:     wn.Role,
			Name:     wn.Name,
			Props:    walkProps(wn),
			FrameID:  frameID,
			LoaderID: loaderID,
			Ref:      Ref{Context: context, Doc: w.Doc, ID: wn.ID},
		}
		if wn.Depth > len(stack) {
			// Depths only grow by one; anything else is a walker bug.
			return root
		}
		stack = stack[:wn.Depth]
		if len(stack) == 0 {
			if root != nil {
				return root // a second root: not a tree
			}
			root = n
		} else {
			parent := stack[len(stack)-1]
			parent.Children = append(parent.Children, n)
		}
		stack = append(stack, n)
	}
	return root
}

// walkProps turns the AX properties of a walk node into [Prop]s by the same
// rules as the AX tree path (node in ax.go), so that both print alike.
func walkProps(wn *WalkNode) []Prop {
	var out []Prop
	add := func(k string, v any) { out = append(out, Prop{k, v}) }
	p := wn.Props
	if v, ok := p["value"]; ok {
		switch v.(type) {
		case string, float64, bool:
			add("value", v)
		}
	}
	if v, ok := p["description"].(string); ok {
		add("description", v)
	}
	for _, k := range stringProps {
		if v, ok := p[k]; ok {
			s, _ := v.(string)
			add(k, s)
		}
	}
	for _, k := range boolProps {
		if k == "focused" && wn.Role == "RootWebArea" {
			continue
		}
		if v, ok := p[k]; ok {
			b, _ := v.(bool)
			add(k, b)
		}
	}
	for _, k := range tristateProps {
		if v, ok := p[k]; ok {
			switch v {
			case "mixed":
				add(k, "mixed")
			case "true", true:
				add(k, true)
			default:
				add(k, false)
			}
		}
	}
	for _, k := range numberProps {
		if v, ok := p[k].(float64); ok {
			add(k, v)
		}
	}
	for _, k := range tokenProps {
		if v, ok := p[k]; ok {
			var s string
			switch v := v.(type) {
			case string:
				s = v
			case bool:
				s = fmt.Sprint(v)
			}
			if s != "" && s != "false" {
				add(k, s)
			}
		}
	}
	if wn.Role == "option" && wn.Name != "" {
		out = slices.DeleteFunc(out, func(p Prop) bool { return p.Key == "value" })
		add("value", wn.Name)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// DecodeWalk decodes the walker's reply, a string of lines (a compact
// format: on the snapshot page of the benchmark it is half the size of JSON
// and parses ten times faster):
//
//	doc TAB host,host,...
//	depth TAB id TAB role TAB opaque TAB name TAB props
//
// where name escapes backslash, tab, newline and carriage return as \\, \t,
// \n, \r, and props is a JSON object or empty.
func DecodeWalk(text string) (*Walk, error) {
	head, rest, _ := strings.Cut(text, "\n")
	doc, hosts, ok := strings.Cut(head, "\t")
	if !ok || doc == "" {
		return nil, fmt.Errorf("decode snapshot walk: bad header %q", head)
	}
	w := &Walk{Doc: doc, Nodes: make([]WalkNode, 0, strings.Count(rest, "\n")+1)}
	if hosts != "" {
		for _, h := range strings.Split(hosts, ",") {
			id, err := strconv.Atoi(h)
			if err != nil {
				return nil, fmt.Errorf("decode snapshot walk: bad host %q", h)
			}
			w.Hosts = append(w.Hosts, id)
		}
	}
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		var f [6]string
		for i := 0; i < 5; i++ {
			var ok bool
			f[i], line, ok = strings.Cut(line, "\t")
			if !ok {
				return nil, fmt.Errorf("decode snapshot walk: short line %q", line)
			}
		}
		f[5] = line
		depth, err1 := strconv.Atoi(f[0])
		id, err2 := strconv.Atoi(f[1])
		opaque, err3 := strconv.Atoi(f[3])
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("decode snapshot walk: %w", err)
		}
		n := WalkNode{Depth: depth, ID: id, Role: f[2], Opaque: opaque, Name: unescape(f[4])}
		if f[5] != "" {
			if err := json.Unmarshal([]byte(f[5]), &n.Props); err != nil {
				return nil, fmt.Errorf("decode snapshot walk: props %q: %w", f[5], err)
			}
		}
		w.Nodes = append(w.Nodes, n)
	}
	return w, nil
}

// unescape undoes the walker's escaping of names.
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
