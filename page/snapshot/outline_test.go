package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

func TestSnapshotOutline(t *testing.T) {
	root, _ := tree(t, page)
	got := Outline(root.Text(false), 16<<10)
	want := `uid=1_1 navigation "Contents" (3 nodes)
uid=1_4 main (12 nodes)
    uid=1_5 heading "Intro" level="2" (3 nodes)
    uid=1_8 heading "Usage" level="2" (8 nodes)
`
	if got != want {
		t.Errorf("Outline =\n%s\nwant\n%s", got, want)
	}
	if got := Outline("uid=1_0 RootWebArea \"x\"\n  uid=1_1 \"t\"\n", 100); got != "No landmarks or headings among its 2 nodes.\n" {
		t.Errorf("Outline(no headings) = %q", got)
	}
}

// bigBook is the text of a snapshot of a book in one page: chapters (h1),
// sections (h2), subsections (h3), each with paragraphs, over 2 MB.
func bigBook() string {
	var b strings.Builder
	b.WriteString("uid=1_0 RootWebArea \"The Book\" url=\"http://x/print.html\"\n  uid=1_1 navigation \"Chapters\"\n  uid=1_2 main\n")
	n := 3
	line := func(depth int, s string) {
		fmt.Fprintf(&b, "%suid=1_%d %s\n", strings.Repeat("  ", depth), n, s)
		n++
	}
	for c := range 40 {
		line(2, fmt.Sprintf("heading \"Chapter %d: on the nature of things\" level=\"1\"", c))
		for s := range 15 {
			line(2, fmt.Sprintf("heading \"%d.%d A section with a long enough title\" level=\"2\"", c, s))
			for ss := range 4 {
				line(2, fmt.Sprintf("heading \"%d.%d.%d Subsection\" level=\"3\"", c, s, ss))
				for range 6 {
					line(2, "paragraph")
					line(3, "\"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore.\"")
				}
			}
		}
	}
	return b.String()
}

// TestSnapshotOutlineBounded: the outline of a 2 MB
// snapshot fits its budget and says how to find what it leaves out.
func TestSnapshotOutlineBounded(t *testing.T) {
	text := bigBook()
	if len(text) < 2<<20 {
		t.Fatalf("book is %d bytes, want over 2 MB", len(text))
	}
	for _, max := range []int{14 << 10, 2000, 300} {
		got := Outline(text, max)
		if len(got) > max {
			t.Errorf("Outline(%d) is %d bytes", max, len(got))
		}
		if !strings.Contains(got, "take_snapshot with query") {
			t.Errorf("Outline(%d) does not say how to narrow:\n%s", max, got)
		}
	}
	got := Outline(text, 14<<10)
	if !strings.Contains(got, `heading "Chapter 39: on the nature of things" level="1" (`) || strings.Contains(got, `level="3"`) {
		t.Errorf("Outline(14 KB) lists the wrong levels:\n%s", got)
	}
	if !strings.Contains(got, "uid=1_1 navigation \"Chapters\" (1 node)") {
		t.Errorf("Outline lacks the landmark:\n%s", got[:300])
	}
}
