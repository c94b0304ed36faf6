package snapshot

// The outline of a snapshot too large to send (--snapshot-max-bytes): its
// landmarks and headings, each with its uid and the number of nodes it
// holds, so that an agent can ask for the part it needs.

import (
	"fmt"
	"strconv"
	"strings"
)

// outlineLineMax bounds one outline line, in runes, so that a page whose
// headings are paragraphs long still lists many of them.
const outlineLineMax = 120

// outlineEntry is a landmark or heading of the outline.
type outlineEntry struct {
	at     int // its line
	level  int // heading level, 0 for a landmark
	indent int
	nodes  int
}

// Outline returns the landmarks and headings of a snapshot's text, one a
// line, with their uids and node counts (a heading counts the nodes of
// its section, up to the next heading of its level or above), in at most
// max bytes. When all of them do not fit, it lists headings down to the
// deepest level that fits and says how many it left out; when even the
// landmarks and top headings do not fit, the first of them.
func Outline(text string, max int) string {
	ls := parseLines(text)
	size := subtreeSizes(ls)
	entries := outlineEntries(ls, size)
	if len(entries) == 0 {
		return fmt.Sprintf("No landmarks or headings among its %d nodes.\n", len(ls))
	}
	for maxLevel := 6; maxLevel >= 0; maxLevel-- {
		var b strings.Builder
		left := 0
		for _, e := range entries {
			if e.level > maxLevel {
				left++
				continue
			}
			writeEntry(&b, ls[e.at], e)
		}
		if left > 0 {
			fmt.Fprintf(&b, "… %d headings below level %d not listed: take_snapshot with query (their text) or uid (a part above) shows them.\n", left, maxLevel)
		}
		if b.Len() <= max {
			return b.String()
		}
	}
	// Too many landmarks and top-level headings: as many as fit.
	var b strings.Builder
	for i, e := range entries {
		var l strings.Builder
		writeEntry(&l, ls[e.at], e)
		tail := fmt.Sprintf("… %d more landmarks and headings not listed: take_snapshot with query or uid shows them.\n", len(entries)-i)
		if b.Len()+l.Len()+len(tail) > max {
			b.WriteString(tail)
			break
		}
		b.WriteString(l.String())
	}
	return b.String()
}

func writeEntry(b *strings.Builder, l line, e outlineEntry) {
	indent(b, e.indent)
	b.WriteString(cut(l.content, outlineLineMax))
	fmt.Fprintf(b, " (%s)\n", nodes(e.nodes))
}

// outlineEntries finds the landmarks and headings of ls. A landmark is
// indented by the landmarks around it, a heading also by its level.
func outlineEntries(ls []line, size []int) []outlineEntry {
	var entries []outlineEntry
	landmarks := make([]int, len(ls)) // landmarks at or above each line
	open := []int{}                   // headings whose sections are open, by entry index
	for i, l := range ls {
		depth := 0
		if l.parent >= 0 {
			depth = landmarks[l.parent]
		}
		landmarks[i] = depth
		switch {
		case l.role == "heading":
			level := headingLevel(l.content)
			for len(open) > 0 && entries[open[len(open)-1]].level >= level {
				e := &entries[open[len(open)-1]]
				e.nodes = i - e.at
				open = open[:len(open)-1]
			}
			open = append(open, len(entries))
			entries = append(entries, outlineEntry{at: i, level: level, indent: depth + level - 1})
		case Landmark(l.role) && l.role != "RootWebArea":
			entries = append(entries, outlineEntry{at: i, indent: depth, nodes: size[i]})
			landmarks[i] = depth + 1
		}
	}
	for _, k := range open {
		entries[k].nodes = len(ls) - entries[k].at
	}
	return entries
}

// headingLevel reads a heading's level="N", 1 to 6; a heading without one
// is level 2, as Chrome computes for a role=heading without aria-level.
func headingLevel(content string) int {
	_, after, ok := strings.Cut(content, ` level="`)
	if !ok {
		return 2
	}
	v, _, _ := strings.Cut(after, `"`)
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 2
	}
	return min(n, 6)
}
