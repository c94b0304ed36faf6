package snapshot

// The diff of two snapshots of one page. uids are stable across
// snapshots while a node and its document live ([IDs.Assign]), so a node
// is matched to itself by uid alone: no sequence alignment is needed, and
// the diff takes time linear in the snapshots' size.

import (
	"fmt"
	"strings"
)

// DiffStats counts what a diff found.
type DiffStats struct {
	Added, Removed, Changed int
	Nodes                   int // nodes of the newer snapshot
}

// Empty reports whether nothing changed.
func (s DiffStats) Empty() bool { return s.Added+s.Removed+s.Changed == 0 }

// Diff returns what changed from the snapshot text prev to cur, both as
// [Node.Text] prints them:
//
//	1 added, 1 changed, 1 removed (of 41 nodes):
//	@ uid=1_39 region "Results"
//	+ uid=5_1 heading "Results" level="2"
//	~ uid=1_12 button "Save" focusable focused
//	    was: uid=1_12 button "Save" focusable
//	@ uid=1_39 region "Results"
//	- uid=1_40 "Loading…"
//
// Each group of added or removed lines is headed by its parent's line (@)
// unless that line is printed just above; an added subtree prints whole, a
// removed one as its top line and a count. A node whose line or parent
// changed prints with `~`, and its old line. Order among siblings is not
// compared.
func Diff(prev, cur string) (string, DiffStats) {
	old, now := parseLines(prev), parseLines(cur)
	oldBy, nowBy := indexByUID(old), indexByUID(now)
	st := DiffStats{Nodes: len(now)}
	var b strings.Builder
	lastContext := -1 // the line of now printed last, as context or change
	parentUID := func(ls []line, i int) string {
		if p := ls[i].parent; p >= 0 {
			return ls[p].uid
		}
		return ""
	}
	for i := 0; i < len(now); i++ {
		l := now[i]
		j, existed := oldBy[l.uid]
		if !existed {
			st.Added++
			if p := l.parent; p >= 0 && p != lastContext {
				fmt.Fprintf(&b, "@ %s\n", now[p].content)
			}
			// The whole added subtree: its lines follow it in document order.
			end := i + 1
			for end < len(now) && now[end].depth > l.depth {
				end++
			}
			for k := i; k < end; k++ {
				if k > i {
					if _, existed := oldBy[now[k].uid]; existed {
						// A node moved into the new subtree: still printed
						// here, where it now is.
						st.Changed++
					} else {
						st.Added++
					}
				}
				b.WriteString("+ ")
				indent(&b, now[k].depth-l.depth)
				b.WriteString(now[k].content)
				b.WriteByte('\n')
			}
			lastContext = l.parent
			i = end - 1
			continue
		}
		o := old[j]
		moved := parentUID(now, i) != parentUID(old, j)
		if o.content == l.content && !moved {
			continue
		}
		st.Changed++
		b.WriteString("~ ")
		b.WriteString(l.content)
		if moved {
			fmt.Fprintf(&b, " (moved, now under uid=%s)", parentUID(now, i))
		}
		b.WriteByte('\n')
		if o.content != l.content {
			b.WriteString("    was: ")
			b.WriteString(o.content)
			b.WriteByte('\n')
		}
		lastContext = i
	}
	oldSize := subtreeSizes(old)
	lastParent := ""
	for j := 0; j < len(old); j++ {
		o := old[j]
		if _, kept := nowBy[o.uid]; kept {
			continue
		}
		st.Removed += oldSize[j]
		if p := parentUID(old, j); p != "" && p != lastParent {
			if k, ok := nowBy[p]; ok {
				fmt.Fprintf(&b, "@ %s\n", now[k].content)
			} else {
				fmt.Fprintf(&b, "@ %s\n", old[o.parent].content)
			}
			lastParent = p
		}
		b.WriteString("- ")
		b.WriteString(o.content)
		if n := oldSize[j] - 1; n > 0 {
			fmt.Fprintf(&b, " (and %d nodes inside)", n)
		}
		b.WriteByte('\n')
		j += oldSize[j] - 1
	}
	if st.Empty() {
		return fmt.Sprintf("No changes since the previous snapshot (%d nodes).\n", st.Nodes), st
	}
	head := fmt.Sprintf("%d added, %d changed, %d removed (of %d nodes):\n", st.Added, st.Changed, st.Removed, st.Nodes)
	return head + b.String(), st
}

// Whole says whether to send the whole snapshot cur rather than diff, the
// diff of prev to it with stats st, and in what sentence: "" to send the
// diff. Whichever is smaller goes: a diff that lists most of the page (a
// new document, a page rebuilt, a grid whose reused rows all changed their
// text) costs more than it saves. The sentence says which case it is by
// what the diff holds: most nodes new, or changes that outweigh the page.
func Whole(diff, cur string, st DiffStats) string {
	if len(diff) < len(cur) {
		return ""
	}
	if st.Added > st.Nodes/2 {
		return "Most of the page changed since the previous snapshot (it navigated, or was rebuilt): here is the whole snapshot."
	}
	return "What changed since the previous snapshot takes more room than the whole snapshot: here is the whole snapshot."
}

func indexByUID(ls []line) map[string]int {
	m := make(map[string]int, len(ls))
	for i, l := range ls {
		m[l.uid] = i
	}
	return m
}
