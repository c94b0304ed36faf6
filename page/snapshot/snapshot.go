// Package snapshot turns a page's accessibility tree into the text agents
// read, in chrome-devtools-mcp's format, and keeps the uids of its lines
// stable across snapshots (ARCHITECTURE.md §3).
//
// A tree comes from one of two sources: Accessibility.getFullAXTree,
// filtered as Puppeteer filters it ([Build], verbose snapshots), or the
// page actor's in-page walker, which computes the filtered tree itself
// ([DecodeWalk], [Walk.Tree], default snapshots; Chrome's own subtrees fill
// in what it cannot see, through [Subtree]). Both give [Node]s that print
// alike; a node is known by its backend DOM node id in the first and by its
// walker [Ref] in the second.
//
// It does no I/O: the page actor fetches the trees and owns the [IDs].
package snapshot

import (
	"fmt"
	"strconv"
	"strings"
)

// Node is one node of a snapshot: one line of its text.
type Node struct {
	Role  string
	Name  string
	Props []Prop // attributes, sorted by key
	// Children are the node's children in document order.
	Children []*Node

	// BackendNodeID is the DOM node behind this node, or 0 if none (for
	// example an InlineTextBox) or not looked up yet (see Ref).
	BackendNodeID int
	// Ref names the node for the in-page walker of default snapshots; zero in
	// snapshots built from the AX tree.
	Ref Ref
	// FrameID and LoaderID identify the document the node belongs to.
	FrameID  string
	LoaderID string
	// UID is set by [IDs.Assign].
	UID string
}

// Prop is one attribute of a node: Value is a bool, a string or a number
// (float64).
type Prop struct {
	Key   string
	Value any
}

// Prop returns the value of the attribute key, or nil.
func (n *Node) Prop(key string) any {
	for _, p := range n.Props {
		if p.Key == key {
			return p.Value
		}
	}
	return nil
}

// Walk calls fn for n and its descendants in pre-order, with their depth.
func (n *Node) Walk(fn func(n *Node, depth int)) { n.walk(fn, 0) }

func (n *Node) walk(fn func(*Node, int), depth int) {
	fn(n, depth)
	for _, c := range n.Children {
		c.walk(fn, depth+1)
	}
}

// ableOf is the capability printed before a boolean state whenever Chrome
// reports the state, true or false: `focusable focused`, `expandable` for a
// collapsed combobox (chrome-devtools-mcp's format).
var ableOf = map[string]string{
	"disabled": "disableable",
	"expanded": "expandable",
	"focused":  "focusable",
	"selected": "selectable",
}

// Text renders the tree, one line per node, two spaces of indent per level:
//
//	uid=1_0 RootWebArea "My test page" url="about:blank"
//	  uid=1_1 button "Click me" focusable focused
//	  uid=1_2 "Some text"
//
// As in chrome-devtools-mcp 1.11: static text prints without its role, role
// none prints as `ignored`, an option prints neither `selectable` nor a
// value equal to its name, and outside verbose mode a named node whose
// children are only static text spelling that name prints without them.
func (n *Node) Text(verbose bool) string {
	var b strings.Builder
	n.text(&b, 0, verbose)
	return b.String()
}

func (n *Node) text(b *strings.Builder, depth int, verbose bool) {
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
	b.WriteString("uid=")
	b.WriteString(n.UID)
	switch n.Role {
	case "none":
		b.WriteString(" ignored")
	case "StaticText", "":
	default:
		b.WriteByte(' ')
		b.WriteString(n.Role)
	}
	if n.Name != "" {
		b.WriteString(` "`)
		b.WriteString(n.Name)
		b.WriteByte('"')
	}
	option := n.Role == "option"
	for _, p := range n.Props {
		switch v := p.Value.(type) {
		case bool:
			if able, ok := ableOf[p.Key]; ok && !(option && p.Key == "selected") {
				b.WriteByte(' ')
				b.WriteString(able)
			}
			if v {
				b.WriteByte(' ')
				b.WriteString(p.Key)
			}
		case string:
			if option && p.Key == "value" && v == n.Name {
				continue
			}
			fmt.Fprintf(b, ` %s="%s"`, p.Key, v)
		case float64:
			fmt.Fprintf(b, ` %s="%s"`, p.Key, strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	b.WriteByte('\n')
	if !verbose && n.redundantText() {
		return
	}
	for _, c := range n.Children {
		c.text(b, depth+1, verbose)
	}
}

// redundantText reports whether n's children are only static text leaves
// that together spell n's name, which the line already shows.
func (n *Node) redundantText() bool {
	if n.Name == "" || len(n.Children) == 0 {
		return false
	}
	var text strings.Builder
	for _, c := range n.Children {
		if c.Role != "StaticText" || len(c.Children) != 0 {
			return false
		}
		text.WriteString(c.Name)
	}
	return stripSpace(text.String()) == stripSpace(n.Name)
}

func stripSpace(s string) string {
	return strings.Join(strings.Fields(s), "")
}
