package snapshot

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tree builds a tree from lines "role|name", indented two spaces a level,
// with uids 1_0, 1_1, ... in document order.
func tree(t testing.TB, spec string) (*Node, map[string]*Node) {
	t.Helper()
	var root *Node
	var stack []*Node
	byUID := map[string]*Node{}
	n := 0
	for _, raw := range strings.Split(strings.Trim(spec, "\n"), "\n") {
		body := strings.TrimLeft(raw, " ")
		depth := (len(raw) - len(body)) / 2
		role, name, _ := strings.Cut(body, "|")
		node := &Node{Role: role, Name: name, UID: "1_" + strconv.Itoa(n)}
		if role == "heading" {
			node.Props = []Prop{{Key: "level", Value: float64(2)}}
		}
		n++
		byUID[node.UID] = node
		stack = stack[:depth]
		if depth == 0 {
			root = node
		} else {
			p := stack[depth-1]
			p.Children = append(p.Children, node)
		}
		stack = append(stack, node)
	}
	return root, byUID
}

const page = `
RootWebArea|Doc
  navigation|Contents
    link|Intro
    link|Usage
  main|
    heading|Intro
    paragraph|
      StaticText|Hello world
    heading|Usage
    list|
      listitem|
        StaticText|alpha
      listitem|
        StaticText|beta
      listitem|
        StaticText|gamma value
`

func TestSnapshotViewText(t *testing.T) {
	root, byUID := tree(t, page)
	q := func(s string) *Query {
		q, err := ParseQuery(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	tests := []struct {
		name string
		view View
		want string
	}{
		{"all", View{Depth: -1}, root.Text(false)},
		{"depth 1", View{Depth: 1}, `uid=1_0 RootWebArea "Doc"
  uid=1_1 navigation "Contents"
    … 2 nodes below: take_snapshot with uid "1_1" (and depth) shows them
  uid=1_4 main
    … 11 nodes below: take_snapshot with uid "1_4" (and depth) shows them
`},
		{"uid with depth", View{Root: byUID["1_9"], Depth: 1}, `Path: uid=1_0 RootWebArea "Doc" > uid=1_4 main
uid=1_9 list
  uid=1_10 listitem
    … 1 node below: take_snapshot with uid "1_10" (and depth) shows them
  uid=1_12 listitem
    … 1 node below: take_snapshot with uid "1_12" (and depth) shows them
  uid=1_14 listitem
    … 1 node below: take_snapshot with uid "1_14" (and depth) shows them
`},
		{"text query", View{Query: q("BETA"), Depth: -1}, `uid=1_0 RootWebArea "Doc"
  … 3 nodes not shown
  uid=1_4 main
    … 4 nodes not shown
    uid=1_9 list
      … 2 nodes not shown
      uid=1_12 listitem
        uid=1_13 "beta"
      … 2 nodes not shown
`},
		{"regex query, depth 0 below matches", View{Query: q("/^(Intro|Usage)$/"), Depth: 0}, `uid=1_0 RootWebArea "Doc"
  uid=1_1 navigation "Contents"
    uid=1_2 link "Intro"
    uid=1_3 link "Usage"
  uid=1_4 main
    uid=1_5 heading "Intro" level="2"
    … 2 nodes not shown
    uid=1_8 heading "Usage" level="2"
    … 7 nodes not shown
`},
		{"no match", View{Query: q("zzz"), Depth: -1}, `uid=1_0 RootWebArea "Doc"
  … 15 nodes not shown
No node matches the query.
`},
		{"viewport", View{Depth: -1, Visible: func(n *Node) Visibility {
			if n.Name == "alpha" || n.Role == "listitem" && n == byUID["1_10"] {
				return Visible
			}
			return Hidden
		}}, `uid=1_0 RootWebArea "Doc"
  uid=1_1 navigation "Contents"
    … 2 nodes not shown
  uid=1_4 main
    … 4 nodes not shown
    uid=1_9 list
      uid=1_10 listitem
        uid=1_11 "alpha"
      … 4 nodes not shown
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := root.ViewText(tt.view)
			if err != nil {
				t.Fatalf("ViewText = %v", err)
			}
			if got != tt.want {
				t.Errorf("ViewText =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSnapshotViewTextNotInTree(t *testing.T) {
	root, _ := tree(t, page)
	if _, err := root.ViewText(View{Root: &Node{UID: "9_9"}, Depth: -1}); !errors.Is(err, ErrNotInTree) {
		t.Errorf("ViewText(foreign root) = %v, want ErrNotInTree", err)
	}
}

func TestSnapshotQueryCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("RootWebArea|R\n")
	for range MaxMatches + 7 {
		b.WriteString("  button|Go\n")
	}
	root, _ := tree(t, b.String())
	q, _ := ParseQuery("go")
	got, _ := root.ViewText(View{Query: q, Depth: -1})
	if n := strings.Count(got, `button "Go"`); n != MaxMatches {
		t.Errorf("printed %d matches, want %d", n, MaxMatches)
	}
	if !strings.Contains(got, "… 7 more nodes match") {
		t.Errorf("no count of the matches left out:\n%s", got[len(got)-200:])
	}
}

func TestSnapshotParseQuery(t *testing.T) {
	n := &Node{Role: "textbox", Name: "Search", Props: []Prop{{Key: "value", Value: "golang"}, {Key: "description", Value: "Find things"}}}
	tests := []struct {
		q     string
		match bool
		err   bool
	}{
		{"search", true, false},
		{"GOLANG", true, false},
		{"find th", true, false},
		{"nope", false, false},
		{"", false, false},
		{"/^Sea/", true, false},
		{"/^sea/", false, false},
		{"/(?i)^sea/", true, false},
		{"/", false, false}, // one slash is text
		{"/a(/", false, true},
		{"/" + strings.Repeat("a", MaxQueryLen) + "/", false, true},
		// JavaScript's flags, as agents write them.
		{"/^sea/i", true, false},
		{"/^SEARCH$/im", true, false},
		{"/^sea/gi", true, false},
		{"/gol.ng/u", true, false},
		{"/find/q", false, false}, // not a flag: the text "/find/q"
		{"/usr/bin", false, false},
	}
	for _, tt := range tests {
		q, err := ParseQuery(tt.q)
		if (err != nil) != tt.err {
			t.Errorf("ParseQuery(%q) error = %v, want error %v", tt.q, err, tt.err)
			continue
		}
		if err == nil && q.Match(n) != tt.match {
			t.Errorf("ParseQuery(%q).Match = %v, want %v", tt.q, !tt.match, tt.match)
		}
	}
	var qe *QueryError
	if _, err := ParseQuery("/[z-a]/"); !errors.As(err, &qe) || !strings.Contains(err.Error(), "invalid character class range") {
		t.Errorf("ParseQuery(bad range) = %v", err)
	}
}

// TestSnapshotQueryBounds: a pattern that compiles to a large program is
// refused with its size; a query that runs past its budget stops with a
// *QueryTimeoutError that counts how far it got. /(.*){1000}x/ was taken,
// and burnt a core for 30 s on a 3.8 MB snapshot.
func TestSnapshotQueryBounds(t *testing.T) {
	var qe *QueryError
	_, err := ParseQuery("/(.*){1000}x/")
	if !errors.As(err, &qe) || !errors.Is(err, ErrQueryTooComplex) || qe.Size <= MaxQueryProgram {
		t.Fatalf("ParseQuery(/(.*){1000}x/) = %v (%+v), want ErrQueryTooComplex with its size", err, qe)
	}
	for _, ok := range []string{"/(?i)\\b(save|cancel|submit)\\b/", "/[A-Z][a-z]+ \\d{1,3}/", "/^(Intro|Usage|Options|Examples)$/"} {
		if _, err := ParseQuery(ok); err != nil {
			t.Errorf("ParseQuery(%s) = %v: a pattern agents write is refused", ok, err)
		}
	}
	root, _ := tree(t, page)
	q, _ := ParseQuery("/nothing/")
	defer func(b time.Duration) { queryBudget = b }(queryBudget)
	queryBudget = 0
	_, err = root.ViewText(View{Query: q, Depth: -1})
	var te *QueryTimeoutError
	if !errors.As(err, &te) || te.Nodes == 0 || te.Matched >= te.Nodes {
		t.Errorf("ViewText past the budget = %v (%+v), want a QueryTimeoutError", err, te)
	}
}

// FuzzQuery: a query is an agent's input: parsing it never panics, a
// query that parses prints a view that holds only lines of the tree, count
// lines and the closing sentences, and one over the length bound is
// refused.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"beta", "/^(Intro|Usage)$/", "/a(/", "/(?i)ALPHA/", "", "/", "//", "/[z-a]/", "/\\pL+/", "/(a*)*$/", "/x{1000}/"} {
		f.Add(s)
	}
	root, _ := tree(f, page)
	full := root.Text(false)
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s)
		if len(s) > MaxQueryLen {
			if !errors.Is(err, ErrQueryTooLong) {
				t.Fatalf("ParseQuery(%d bytes) = %v, want ErrQueryTooLong", len(s), err)
			}
			return
		}
		if err != nil {
			return
		}
		got, err := root.ViewText(View{Query: q, Depth: 0})
		if err != nil {
			t.Fatalf("ViewText = %v", err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			body := strings.TrimLeft(l, " ")
			if strings.HasPrefix(body, "uid=") && !strings.Contains(full, body+"\n") {
				t.Fatalf("ViewText printed a line not in the tree: %q", l)
			}
			if !strings.HasPrefix(body, "uid=") && !strings.HasPrefix(body, "…") && !strings.HasPrefix(body, "No node matches") {
				t.Fatalf("ViewText printed %q", l)
			}
		}
	})
}
