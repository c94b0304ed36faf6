package css

import (
	"fmt"
	"regexp"
	"strings"
)

// Render writes the reply's text for element (as the agent named it, by
// uid) and the sections rules, in chrome-devtools-mcp's layout: CSS-like
// blocks, each headed by its selector and source, nested in the
// conditions around it; inherited blocks under "Inherited from ...";
// overridden declarations tagged [overloaded].
func Render(element Node, uid string, rules []Rule) string {
	var w writer
	w.line(fmt.Sprintf(`Styles for %s (uid: "%s"):`, element.Selector, uid))
	if len(rules) == 0 {
		w.blank()
		w.line("  (no styles)")
		return w.String()
	}
	w.indent = 2
	for i := range rules {
		r := &rules[i]
		w.blank()
		switch r.kind {
		case "inherited":
			w.line(fmt.Sprintf("Inherited from %s%s:", r.node.Selector, uidSuffix(r.node.UID, " (uid: \"%s\")")))
			w.indent += 2
			w.rule(r)
			w.indent -= 2
		case "pseudo":
			inh := ""
			if r.node != nil {
				inh = fmt.Sprintf(" (inherited from %s%s)", r.node.Selector, uidSuffix(r.node.UID, `, uid: "%s"`))
			}
			w.line(fmt.Sprintf("/* Pseudo %s element%s */", r.pseudoType, inh))
			w.rule(r)
		case "keyframes":
			w.line(r.header() + " {")
			w.indent += 2
			for _, k := range r.keyframes {
				w.line(k.key + " {")
				w.indent += 2
				for _, p := range k.props {
					w.line(p.String())
				}
				w.indent -= 2
				w.line("}")
			}
			w.indent -= 2
			w.line("}")
		default:
			w.rule(r)
		}
	}
	return w.String()
}

func uidSuffix(uid, format string) string {
	if uid == "" {
		return ""
	}
	return fmt.Sprintf(format, uid)
}

// header is a section's first line: its selector, then its source.
func (r *Rule) header() string {
	sel := r.selector
	switch r.kind {
	case "inherited":
		if sel == "" {
			sel = "element.style"
		}
	case "pseudo":
		if sel == "" {
			sel = r.pseudoType
		}
	case "position-try":
		if !r.active {
			sel = "[inactive] " + sel
		}
	}
	if r.source != "" {
		return fmt.Sprintf("%s (%s)", sel, r.source)
	}
	return sel
}

// String is a declaration's line: state tag, name, value, !important.
func (p prop) String() string {
	tag := ""
	if p.status != "active" {
		tag = "[" + p.status + "] "
	}
	imp := ""
	if p.important && !endsImportant.MatchString(p.value) {
		imp = " !important"
	}
	return fmt.Sprintf("%s%s: %s%s;", tag, p.name, p.value, imp)
}

var endsImportant = regexp.MustCompile(`(?i)\s*!\s*important$`)

// header is a wrapper's opening line, and the comment above it, if any.
func (a ancestor) header() (comment, header string) {
	switch a.kind {
	case "layer":
		if a.name != "" {
			return "", "@layer " + a.name
		}
		return "", "@layer"
	case "media":
		return "", "@media " + a.query
	case "container":
		if c := a.container; c != nil {
			comment = c.Selector
			if c.UID != "" {
				u := fmt.Sprintf(`(uid: "%s")`, c.UID)
				if comment != "" {
					comment += " " + u
				} else {
					comment = u
				}
			}
			if comment != "" {
				comment = "container: " + comment
			}
		}
		name := ""
		if a.name != "" && !strings.HasPrefix(a.query, a.name) {
			name = a.name + " "
		}
		return comment, "@container " + name + a.query
	case "scope":
		if q := strings.TrimSpace(a.query); q != "" {
			return "", "@scope " + q
		}
		return "", "@scope"
	case "supports":
		return "", "@supports " + a.query
	case "starting-style":
		return "", "@starting-style"
	case "nesting":
		return "", a.name
	case "navigation":
		return "", "@navigation " + a.query
	case "at-rule":
		if a.name != "" {
			return "", "@" + a.query + " " + a.name
		}
		return "", "@" + a.query
	}
	return "", a.kind
}

// writer indents lines.
type writer struct {
	lines  []string
	indent int
}

func (w *writer) line(s string) { w.lines = append(w.lines, strings.Repeat(" ", w.indent)+s) }
func (w *writer) blank()        { w.lines = append(w.lines, "") }
func (w *writer) String() string {
	return strings.Join(w.lines, "\n")
}

// rule writes a section with its wrappers around it.
func (w *writer) rule(r *Rule) {
	for _, a := range r.ancestors {
		comment, header := a.header()
		if comment != "" {
			w.line("/* " + comment + " */")
		}
		w.line(header + " {")
		w.indent += 2
	}
	w.line(r.header() + " {")
	w.indent += 2
	for _, p := range r.props {
		w.line(p.String())
	}
	w.indent -= 2
	w.line("}")
	for range r.ancestors {
		w.indent -= 2
		w.line("}")
	}
}
