package snapshot

// Parts of a snapshot, so that an agent reads only what it needs: a
// subtree rooted at one node, a depth limit, the nodes a query matches,
// the nodes in the viewport. Each prints
// the lines of the nodes it shows exactly as [Node.Text] prints them, with
// their uids, and says in one line per gap how many nodes it left out and
// how to see them, so that an agent can always ask for more.

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxQueryLen bounds a query's length in bytes.
const MaxQueryLen = 500

// MaxQueryProgram bounds the size of a /regex/ query once compiled, in
// instructions of Go's regexp machine. Go's regexp runs in time linear in
// the text and in the program's size, and a short pattern can compile to
// a large program (/(.*){1000}x/ is over 4000 instructions, and took a core
// for 30 s over a 3.8 MB snapshot); what agents write (words, alternatives,
// classes, a few bounded repetitions) stays far below.
const MaxQueryProgram = 1000

// MaxQueryText bounds how much of one name, value or description a query
// reads, in bytes: with the program's size, it bounds one match's time.
const MaxQueryText = 64 << 10

// QueryBudget bounds the time a query takes to match a whole snapshot:
// matching runs on the page's own goroutine, which must get back to the
// page's events.
const QueryBudget = time.Second

// queryBudget is QueryBudget, for tests to shorten.
var queryBudget = QueryBudget

// MaxMatches is the most nodes a query prints; the reply says how many
// more matched.
const MaxMatches = 100

// ErrQueryTooLong is returned by [ParseQuery] for a query over
// [MaxQueryLen] bytes.
var ErrQueryTooLong = fmt.Errorf("query longer than %d bytes", MaxQueryLen)

// QueryError reports a /regex/ query that does not compile, or compiles to
// a program over [MaxQueryProgram] instructions (Size is then its size).
type QueryError struct {
	Pattern string
	Err     error
	Size    int
}

func (e *QueryError) Error() string { return fmt.Sprintf("query %s: %v", e.Pattern, e.Err) }

func (e *QueryError) Unwrap() error { return e.Err }

// ErrQueryTooComplex is the Err of a [*QueryError] for a pattern whose
// program is over [MaxQueryProgram] instructions.
var ErrQueryTooComplex = fmt.Errorf("the pattern compiles to more than %d instructions", MaxQueryProgram)

// QueryTimeoutError is returned by [Node.ViewText] for a query that did
// not finish matching within [QueryBudget].
type QueryTimeoutError struct {
	Matched, Nodes int // nodes matched against before it stopped, of all
}

func (e *QueryTimeoutError) Error() string {
	return fmt.Sprintf("the query took more than %v to match (%d of %d nodes)", QueryBudget, e.Matched, e.Nodes)
}

// Query matches nodes by their name, value and description.
type Query struct {
	text string         // lower-cased text to find, when re is nil
	re   *regexp.Regexp // the /regex/ form
}

// regexFlags are the flags a /regex/flags query may end with, as
// JavaScript writes them: i, m and s become Go's; the others (global,
// sticky, unicode, indices) mean nothing for matching a node's text.
const regexFlags = "dgimsuvy"

// ParseQuery parses a query: "/.../" is a regular expression in Go's
// syntax (RE2), optionally followed by JavaScript's flags ("/save/i"),
// anything else a text matched without regard to case. An empty query
// matches nothing.
func ParseQuery(q string) (*Query, error) {
	if len(q) > MaxQueryLen {
		return nil, ErrQueryTooLong
	}
	pattern, flags, ok := splitRegex(q)
	if !ok {
		return &Query{text: strings.ToLower(q)}, nil
	}
	prefix := ""
	for _, f := range "ims" {
		if strings.ContainsRune(flags, f) {
			prefix += string(f)
		}
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			err = fmt.Errorf("%s in %q", se.Code, se.Expr)
		}
		return nil, &QueryError{Pattern: q, Err: err}
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, &QueryError{Pattern: q, Err: err}
	}
	if n := len(prog.Inst); n > MaxQueryProgram {
		return nil, &QueryError{Pattern: q, Err: ErrQueryTooComplex, Size: n}
	}
	compiled, err := regexp.Compile(pattern)
	if err != nil {
		return nil, &QueryError{Pattern: q, Err: err}
	}
	return &Query{re: compiled}, nil
}

// splitRegex splits "/pattern/flags" into its pattern and flags; ok is
// false for a query that is not one: no enclosing slashes, or letters
// after the last slash that are not all flags ("/usr/bin" is text).
func splitRegex(q string) (pattern, flags string, ok bool) {
	if len(q) < 2 || q[0] != '/' {
		return "", "", false
	}
	end := strings.LastIndexByte(q, '/')
	if end == 0 {
		return "", "", false
	}
	flags = q[end+1:]
	for _, f := range flags {
		if !strings.ContainsRune(regexFlags, f) {
			return "", "", false
		}
	}
	return q[1:end], flags, true
}

// Match reports whether the node's name, value or description matches.
func (q *Query) Match(n *Node) bool {
	if q.matchString(n.Name) {
		return true
	}
	for _, p := range n.Props {
		if p.Key != "value" && p.Key != "description" {
			continue
		}
		if s, ok := p.Value.(string); ok && q.matchString(s) {
			return true
		}
	}
	return false
}

func (q *Query) matchString(s string) bool {
	if s == "" {
		return false
	}
	if len(s) > MaxQueryText {
		cut := MaxQueryText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	if q.re != nil {
		return q.re.MatchString(s)
	}
	if q.text == "" {
		return false
	}
	return strings.Contains(strings.ToLower(s), q.text)
}

// Visibility says whether a node intersects the viewport.
type Visibility int8

// A node's visibility: in the viewport, outside it, or unknown (no box of
// its own, such as a display: contents element, or no DOM node to ask):
// an unknown node is shown when something below it is.
const (
	Unknown Visibility = iota
	Visible
	Hidden
)

// View says which part of a tree to print. A View with Depth -1 and
// nothing else set prints all of it, as [Node.Text] does.
type View struct {
	// Root prints the subtree of this node, its ancestors as a one-line
	// path above it; nil is the tree's root.
	Root *Node
	// Depth, if not negative, is how many levels below Root are printed
	// (below each match with a Query); deeper nodes are counted on one line.
	Depth int
	// Query prints only the nodes it matches, each with its ancestors, and
	// counts the rest.
	Query *Query
	// Visible, if set, prints only nodes in the viewport, with their
	// ancestors, plus the root and landmarks as anchors.
	Visible func(*Node) Visibility
	// Verbose prints as [Node.Text] with verbose set.
	Verbose bool
}

// ErrNotInTree is returned by [Node.ViewText] when the view's root is not
// a node of the tree.
var ErrNotInTree = errors.New("node not in this snapshot")

// Landmark reports whether role is an ARIA landmark (or the page's root),
// the anchors of an outline and of a viewport view.
func Landmark(role string) bool {
	switch role {
	case "banner", "complementary", "contentinfo", "form", "main", "navigation", "region", "search", "RootWebArea":
		return true
	}
	return false
}

// ViewText prints the part of the tree rooted at n that v selects.
func (n *Node) ViewText(v View) (string, error) {
	root := n
	var path []*Node
	if v.Root != nil && v.Root != n {
		path = pathTo(n, v.Root)
		if path == nil {
			return "", ErrNotInTree
		}
		root = v.Root
	}
	p := printer{verbose: v.Verbose, depth: v.Depth}
	var b strings.Builder
	if len(path) > 0 {
		b.WriteString("Path:")
		for i, a := range path {
			if i > 0 {
				b.WriteString(" >")
			}
			b.WriteString(" uid=")
			b.WriteString(a.UID)
			b.WriteString(" " + shortLine(a))
		}
		b.WriteByte('\n')
	}
	switch {
	case v.Query != nil:
		p.shown = map[*Node]bool{}
		p.expand = map[*Node]bool{}
		matches, more, err := p.markMatches(root, v.Query)
		if err != nil {
			return "", err
		}
		p.print(&b, root, 0, -1)
		switch {
		case matches == 0:
			b.WriteString("No node matches the query.\n")
		case more > 0:
			fmt.Fprintf(&b, "… %d more nodes match: narrow the query, or pass uid to search below one node.\n", more)
		}
	case v.Visible != nil:
		p.shown = map[*Node]bool{}
		p.markVisible(root, v.Visible, true)
		p.print(&b, root, 0, v.Depth)
	default:
		p.print(&b, root, 0, v.Depth)
	}
	return b.String(), nil
}

// printer prints a view. shown, when not nil, holds the nodes printed;
// the others are counted. expand holds the nodes whose subtrees print
// whole, to depth levels (the matches of a query).
type printer struct {
	verbose bool
	depth   int
	shown   map[*Node]bool
	expand  map[*Node]bool
}

// kids are the children a node prints below itself.
func (p *printer) kids(n *Node) []*Node {
	if !p.verbose && n.redundantText() {
		return nil
	}
	return n.Children
}

// print prints n at indent level, then its children; left is how many
// levels below n may still print (negative: no limit).
func (p *printer) print(b *strings.Builder, n *Node, level, left int) {
	line := *n
	line.Children = nil
	line.text(b, level, p.verbose)
	kids := p.kids(n)
	if len(kids) == 0 {
		return
	}
	if p.expand[n] {
		left = p.depth
	}
	if left == 0 {
		indent(b, level+1)
		fmt.Fprintf(b, "… %s below: take_snapshot with uid %q (and depth) shows them\n", nodes(p.count(kids)), n.UID)
		return
	}
	hidden := 0
	for _, c := range kids {
		if p.shown != nil && !p.shown[c] {
			hidden += p.count([]*Node{c})
			continue
		}
		if hidden > 0 {
			p.gap(b, level+1, hidden)
			hidden = 0
		}
		p.print(b, c, level+1, left-1)
	}
	if hidden > 0 {
		p.gap(b, level+1, hidden)
	}
}

func (p *printer) gap(b *strings.Builder, level, hidden int) {
	indent(b, level)
	fmt.Fprintf(b, "… %s not shown\n", nodes(hidden))
}

// nodes counts nodes in words: "1 node", "12 nodes".
func nodes(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

// count is the number of nodes the subtrees of ns print.
func (p *printer) count(ns []*Node) int {
	total := 0
	for _, n := range ns {
		total += 1 + p.count(p.kids(n))
	}
	return total
}

// markMatches marks the first [MaxMatches] nodes below root that q
// matches, their ancestors up to root, and the matches' subtrees (which
// print to p.depth levels); it returns how many it marked and how many
// more matched, or a [*QueryTimeoutError] past [QueryBudget].
func (p *printer) markMatches(root *Node, q *Query) (marked, more int, err error) {
	var stack []*Node
	deadline := time.Now().Add(queryBudget)
	seen := 0
	var visit func(n *Node)
	visit = func(n *Node) {
		if err != nil {
			return
		}
		if time.Now().After(deadline) {
			err = &QueryTimeoutError{Matched: seen, Nodes: 1 + p.count(p.kids(root))}
			return
		}
		seen++
		stack = append(stack, n)
		defer func() { stack = stack[:len(stack)-1] }()
		if q.Match(n) {
			if marked == MaxMatches {
				more++
			} else {
				marked++
				for _, a := range stack {
					p.shown[a] = true
				}
				p.expand[n] = true
				p.markAll(n)
			}
		}
		for _, c := range p.kids(n) {
			visit(c)
		}
	}
	visit(root)
	p.shown[root] = true
	return marked, more, err
}

// markAll marks n's subtree shown.
func (p *printer) markAll(n *Node) {
	p.shown[n] = true
	for _, c := range p.kids(n) {
		p.markAll(c)
	}
}

// markVisible marks the nodes of n's subtree to show in a viewport view
// and reports whether n is shown: in the viewport, or an ancestor of a
// node that is; landmarks and the root show as anchors whatever their
// place.
func (p *printer) markVisible(n *Node, vis func(*Node) Visibility, root bool) bool {
	below := false
	for _, c := range p.kids(n) {
		if p.markVisible(c, vis, false) {
			below = true
		}
	}
	show := below || root || Landmark(n.Role) || vis(n) == Visible
	if show {
		p.shown[n] = true
	}
	return show
}

// pathTo returns the ancestors of target from root down, or nil if target
// is not below root.
func pathTo(root, target *Node) []*Node {
	var stack []*Node
	var found []*Node
	var visit func(n *Node) bool
	visit = func(n *Node) bool {
		if n == target {
			found = append([]*Node(nil), stack...)
			return true
		}
		stack = append(stack, n)
		for _, c := range n.Children {
			if visit(c) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		return false
	}
	visit(root)
	return found
}

// shortLine is a node's role and name, the name cut at 60 characters, for
// paths and outlines.
func shortLine(n *Node) string {
	role := n.Role
	if role == "StaticText" || role == "" {
		role = "text"
	}
	if n.Name == "" {
		return role
	}
	return fmt.Sprintf("%s %q", role, cut(n.Name, 60))
}

// cut shortens s to at most max runes, marking the cut with "…".
func cut(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-1]) + "…"
}

func indent(b *strings.Builder, level int) {
	for range level {
		b.WriteString("  ")
	}
}
