package snapshot

import (
	"reflect"
	"strings"
	"testing"
)

func TestSnapshotDecodeWalk(t *testing.T) {
	text := strings.Join([]string{
		"doc1\t7,9",
		"0\t1\tRootWebArea\t0\tPage\t{\"url\":\"http://x/\"}",
		"1\t2\tStaticText\t0\tTab\\there\\nand back\\\\slash\t",
		"1\t3\t\t2\t\t",
		"1\t4\tcheckbox\t0\tAgree\t{\"checked\":\"mixed\",\"focused\":true}",
	}, "\n")
	w, err := DecodeWalk(text)
	if err != nil {
		t.Fatalf("DecodeWalk = %v", err)
	}
	if w.Doc != "doc1" || !reflect.DeepEqual(w.Hosts, []int{7, 9}) {
		t.Errorf("header = %q %v, want doc1 [7 9]", w.Doc, w.Hosts)
	}
	if got := w.Nodes[1].Name; got != "Tab\there\nand back\\slash" {
		t.Errorf("escaped name = %q", got)
	}
	if w.Nodes[2].Opaque != 2 || w.Nodes[2].ID != 3 {
		t.Errorf("opaque node = %+v", w.Nodes[2])
	}
	if w.Nodes[3].Props["checked"] != "mixed" {
		t.Errorf("props = %v", w.Nodes[3].Props)
	}
	for _, bad := range []string{"", "\t", "doc\n0\t1\tx", "doc\nx\t1\ta\t0\tn\t", "doc\n0\t1\ta\t0\tn\t{"} {
		if _, err := DecodeWalk(bad); err == nil {
			t.Errorf("DecodeWalk(%q) succeeded", bad)
		}
	}
}

func TestSnapshotWalkTree(t *testing.T) {
	w := &Walk{Doc: "d", Nodes: []WalkNode{
		{Depth: 0, ID: 1, Role: "RootWebArea", Name: "T", Props: map[string]any{"url": "u"}},
		{Depth: 1, ID: 2, Role: "button", Name: "B", Props: map[string]any{"focused": true, "expanded": false, "pressed": "true"}},
		{Depth: 2, ID: 3, Role: "StaticText", Name: "B"},
		{Depth: 1, ID: 4, Opaque: 1},
		{Depth: 1, ID: 5, Role: "combobox", Name: "C", Props: map[string]any{"value": "Two", "haspopup": "menu", "invalid": "false"}},
		{Depth: 2, ID: 6, Role: "option", Name: "Two", Props: map[string]any{"selected": true}},
	}}
	date := &Node{Role: "Date", Name: "When"}
	root := w.Tree("f", "l", 9, map[int][]*Node{4: {date}})
	got := root.Text(false)
	want := `uid= RootWebArea "T" url="u"
  uid= button "B" expandable focusable focused pressed
  uid= Date "When"
  uid= combobox "C" haspopup="menu" value="Two"
    uid= option "Two" selected
`
	if got != want {
		t.Errorf("Text =\n%s\nwant\n%s", got, want)
	}
	b := root.Children[0]
	if b.Ref != (Ref{Context: 9, Doc: "d", ID: 2}) || b.FrameID != "f" || b.LoaderID != "l" || b.BackendNodeID != 0 {
		t.Errorf("button identity = %+v", b)
	}
	if root.Children[2].Children[0].Prop("value") != "Two" {
		t.Errorf("an option carries its name as value")
	}
}

// TestSnapshotIDsByRef: nodes of walker snapshots keep their uids by document and
// walker id, and never share a uid with nodes known by backend node id.
func TestSnapshotIDsByRef(t *testing.T) {
	ids := NewIDs(new(Counter))
	mk := func(id int) *Node {
		return &Node{Role: "button", LoaderID: "L", Ref: Ref{Context: 1, Doc: "d", ID: id}}
	}
	r1 := &Node{Role: "RootWebArea", LoaderID: "L", Ref: Ref{Doc: "d", ID: 1}, Children: []*Node{mk(2), mk(3)}}
	ids.Assign(r1)
	// Same nodes (2 kept, 3 gone, 4 new), and a node known by backend id 2.
	r2 := &Node{Role: "RootWebArea", LoaderID: "L", Ref: Ref{Doc: "d", ID: 1}, Children: []*Node{mk(2), mk(4), {LoaderID: "L", BackendNodeID: 2}}}
	r2.Children[0].BackendNodeID = 77 // resolved since: identity is still the ref
	index := ids.Assign(r2)
	if r2.Children[0].UID != r1.Children[0].UID || r2.UID != r1.UID {
		t.Errorf("kept nodes changed uid: %s→%s, %s→%s", r1.Children[0].UID, r2.Children[0].UID, r1.UID, r2.UID)
	}
	if r2.Children[1].UID == r1.Children[1].UID || r2.Children[2].UID == r1.Children[0].UID {
		t.Errorf("new nodes reuse uids: %v", index)
	}
	if len(index) != 4 {
		t.Errorf("index has %d uids, want 4", len(index))
	}
	// Another document (loader id): all new.
	r3 := &Node{Role: "RootWebArea", LoaderID: "M", Ref: Ref{Doc: "e", ID: 1}}
	ids.Assign(r3)
	if r3.UID == r1.UID {
		t.Errorf("a new document kept uid %s", r3.UID)
	}
}
