package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

func TestSnapshotDiff(t *testing.T) {
	prev := `uid=1_0 RootWebArea "Doc"
  uid=1_1 button "Save" focusable
  uid=1_2 region "Results"
    uid=1_3 "Loading…"
    uid=1_4 list
      uid=1_5 listitem
      uid=1_6 listitem
  uid=1_7 textbox "Note" value="a
b"
`
	tests := []struct {
		name string
		cur  string
		want string
		st   DiffStats
	}{
		{"same", prev, "No changes since the previous snapshot (8 nodes).\n", DiffStats{Nodes: 8}},
		{"added, changed, removed", `uid=1_0 RootWebArea "Doc"
  uid=1_1 button "Save" focusable focused
  uid=1_2 region "Results"
    uid=2_1 heading "Results" level="2"
      uid=2_2 "3 items"
  uid=1_7 textbox "Note" value="a
b"
`, `2 added, 1 changed, 4 removed (of 6 nodes):
~ uid=1_1 button "Save" focusable focused
    was: uid=1_1 button "Save" focusable
@ uid=1_2 region "Results"
+ uid=2_1 heading "Results" level="2"
+   uid=2_2 "3 items"
@ uid=1_2 region "Results"
- uid=1_3 "Loading…"
- uid=1_4 list (and 2 nodes inside)
`, DiffStats{Added: 2, Changed: 1, Removed: 4, Nodes: 6}},
		// prev with its second listitem moved up to the root and the
		// textbox's value's second line changed.
		{"moved and multi-line value", strings.NewReplacer("      uid=1_6", "  uid=1_6", "value=\"a\nb\"", "value=\"a\nc\"").Replace(prev), `0 added, 2 changed, 0 removed (of 8 nodes):
~ uid=1_6 listitem (moved, now under uid=1_0)
~ uid=1_7 textbox "Note" value="a
c"
    was: uid=1_7 textbox "Note" value="a
b"
`, DiffStats{Changed: 2, Nodes: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := Diff(prev, tt.cur)
			if got != tt.want {
				t.Errorf("Diff =\n%s\nwant\n%s", got, tt.want)
			}
			if st != tt.st {
				t.Errorf("Diff stats = %+v, want %+v", st, tt.st)
			}
		})
	}
}

// TestSnapshotDiffSmallForOneRegion: a change to one
// region of a large page gives a diff of a few lines.
func TestSnapshotDiffSmallForOneRegion(t *testing.T) {
	var prev, cur strings.Builder
	prev.WriteString("uid=1_0 RootWebArea \"Big\"\n")
	for i := range 5000 {
		line := "  uid=1_" + strings.Repeat("9", 1) + itoa3(i) + " paragraph \"Lorem ipsum dolor sit amet\"\n"
		prev.WriteString(line)
		cur.WriteString(line)
	}
	text := "uid=1_0 RootWebArea \"Big\"\n" + cur.String() + "  uid=2_1 status \"Saved\"\n"
	got, st := Diff(prev.String(), text)
	if st.Added != 1 || !strings.Contains(got, `+ uid=2_1 status "Saved"`) {
		t.Errorf("Diff = %s (%+v)", got, st)
	}
	if len(got)*20 > len(text) {
		t.Errorf("diff is %d bytes of a %d-byte snapshot, over 5%%", len(got), len(text))
	}
}

func itoa3(i int) string {
	const digits = "0123456789"
	return string([]byte{digits[i/1000%10], digits[i/100%10], digits[i/10%10], digits[i%10]})
}

// TestSnapshotDiffOrWhole: whichever of the diff and the whole snapshot is
// smaller is sent. A grid re-sorted in place (its rows reused, their text
// changed) used to be judged by node identity, and a key press on a slide
// deck got a 796-byte diff against a 439-byte snapshot.
func TestSnapshotDiffOrWhole(t *testing.T) {
	rows := func(order []int, pad string) string {
		var b strings.Builder
		b.WriteString("uid=1_0 RootWebArea \"Grid\"\n  uid=1_1 heading \"People" + pad + "\" level=\"1\"\n  uid=1_2 grid\n")
		for i, n := range order {
			fmt.Fprintf(&b, "    uid=1_%d row \"Person %d, age %d\"\n", i+3, n, 20+n)
		}
		return b.String()
	}
	sorted, reversed := []int{1, 2, 3, 4, 5, 6, 7, 8}, []int{8, 7, 6, 5, 4, 3, 2, 1}
	for _, tt := range []struct {
		name      string
		prev, cur string
		whole     bool
		mostlyNew bool
	}{
		{name: "a grid that is the page, re-sorted", prev: rows(sorted, ""), cur: rows(reversed, ""), whole: true},
		{name: "a re-sorted grid under a long text", prev: rows(sorted, strings.Repeat(" and more", 100)), cur: rows(reversed, strings.Repeat(" and more", 100))},
		{name: "one row changed", prev: rows(sorted, ""), cur: rows([]int{1, 2, 3, 4, 5, 6, 7, 9}, "")},
		{name: "a new document", prev: rows(sorted, ""), cur: strings.ReplaceAll(rows(sorted, ""), "uid=1_", "uid=2_"), whole: true, mostlyNew: true},
	} {
		diff, st := Diff(tt.prev, tt.cur)
		why := Whole(diff, tt.cur, st)
		if (why != "") != tt.whole || tt.whole && (len(diff) < len(tt.cur)) || !tt.whole && len(diff) >= len(tt.cur) {
			t.Errorf("%s: diff %d bytes, snapshot %d: Whole = %q", tt.name, len(diff), len(tt.cur), why)
		}
		if tt.whole && strings.HasPrefix(why, "Most of the page changed") != tt.mostlyNew {
			t.Errorf("%s: Whole = %q", tt.name, why)
		}
	}
}
