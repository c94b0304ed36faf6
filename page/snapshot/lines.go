package snapshot

import "strings"

// line is one node of a snapshot's text, as [Node.Text] prints it: the
// diff and the outline work on the text an agent was given, so that a
// session can keep what it saw without keeping the page's tree.
type line struct {
	depth   int
	uid     string
	content string // the line without its indent: "uid=1_2 button \"OK\""
	role    string // "" for static text
	parent  int    // index of the parent line, -1 for a root
}

// parseLines splits a snapshot's text into its nodes. A line that does not
// start with a uid (a value holding a newline) continues the line before.
func parseLines(text string) []line {
	var out []line
	var stack []int // indexes of the open ancestors, by depth
	for len(text) > 0 {
		raw, rest, _ := strings.Cut(text, "\n")
		text = rest
		body := strings.TrimLeft(raw, " ")
		spaces := len(raw) - len(body)
		if !strings.HasPrefix(body, "uid=") || spaces%2 != 0 {
			if len(out) > 0 {
				out[len(out)-1].content += "\n" + raw
			}
			continue
		}
		l := line{depth: spaces / 2, content: body, parent: -1}
		uid, after, _ := strings.Cut(body[len("uid="):], " ")
		l.uid = uid
		if after != "" && after[0] != '"' {
			l.role, _, _ = strings.Cut(after, " ")
		}
		if l.depth > len(stack) {
			l.depth = len(stack) // a jump in indent: keep the tree a tree
		}
		stack = stack[:l.depth]
		if l.depth > 0 {
			l.parent = stack[l.depth-1]
		}
		stack = append(stack, len(out))
		out = append(out, l)
	}
	return out
}

// subtreeSizes returns, for each line, the number of lines of its subtree,
// itself included.
func subtreeSizes(ls []line) []int {
	size := make([]int, len(ls))
	for i := len(ls) - 1; i >= 0; i-- {
		size[i]++
		if p := ls[i].parent; p >= 0 {
			size[p] += size[i]
		}
	}
	return size
}
