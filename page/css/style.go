package css

import "fmt"

// The declaration blocks of the cascade and their declarations, as
// DevTools' Styles pane models them: a block read from its source lists
// the declarations as written, each shorthand with its longhands; a block
// without source text (the user-agent style sheet, presentational
// attributes) lists longhands, and shorthands are put back from the
// block's shorthand entries.

// styleKind says where a block comes from.
type styleKind int

const (
	kindRegular    styleKind = iota // a rule's block
	kindInline                      // the style attribute (element.style)
	kindAttributes                  // presentational attributes (width=, bgcolor=)
	kindSynthetic                   // made up: a registered property's descriptors
)

// decl is one declaration of a block.
type decl struct {
	style     *style
	name      string
	value     string
	important bool
	disabled  bool
	parsedOK  bool
	implicit  bool
	ranged    bool // written in the source: its block can show it
	longhands []*decl
	// inactive is set when a later declaration of the same block
	// overrides it (DevTools' activeInStyle, negated).
	inactive bool
}

// style is one declaration block.
type style struct {
	kind   styleKind
	rule   *rule // nil for element.style, attributes and synthetic blocks
	sheet  string
	rng    *Range
	decls  []*decl           // all of them, longhands of shorthands after the rest
	values map[string]string // shorthand entries' values
	// inherited marks a block of an ancestor.
	inherited bool
	// owner is the element whose block it is: the node (index -1), or an
	// ancestor (its index in the flat tree, 0 for the parent).
	owner int
}

// newStyle builds a block from its payload.
func newStyle(p *Style, kind styleKind, r *rule, meta *Meta) *style {
	s := &style{kind: kind, rule: r, sheet: p.StyleSheetID, rng: p.Range, values: map[string]string{}, owner: -1}
	important := map[string]bool{}
	for _, e := range p.ShorthandEntries {
		s.values[e.Name] = e.Value
		if e.Important {
			important[e.Name] = true
		}
	}
	if p.CSSText != "" && p.Range != nil {
		// The source's declarations, then their longhands: the rest of
		// cssProperties (no range) repeats them as computed longhands.
		var longhands []*decl
		for i := range p.CSSProperties {
			pr := &p.CSSProperties[i]
			if pr.Range == nil {
				continue
			}
			d := s.newDecl(pr, meta)
			s.decls = append(s.decls, d)
			longhands = append(longhands, d.longhands...)
		}
		s.decls = append(s.decls, longhands...)
	} else {
		for i := range p.CSSProperties {
			s.decls = append(s.decls, s.newDecl(&p.CSSProperties[i], meta))
		}
		s.addShorthands(important, meta)
	}
	s.markInactive(meta)
	return s
}

// newDecl makes a declaration of s, with its longhands: those Chrome gives,
// else the metadata's, with no value.
func (s *style) newDecl(p *Property, meta *Meta) *decl {
	d := &decl{style: s, name: p.Name, value: p.Value, important: p.Important, disabled: p.Disabled,
		parsedOK: p.ParsedOK == nil || *p.ParsedOK, implicit: p.Implicit, ranged: p.Range != nil}
	if len(p.LonghandProperties) > 0 {
		for _, l := range p.LonghandProperties {
			d.longhands = append(d.longhands, &decl{style: s, name: l.Name, value: l.Value, important: d.important,
				disabled: d.disabled, parsedOK: d.parsedOK, implicit: true})
		}
	} else {
		for _, l := range meta.longhands(p.Name) {
			d.longhands = append(d.longhands, &decl{style: s, name: l, important: d.important,
				disabled: d.disabled, parsedOK: d.parsedOK, implicit: true})
		}
	}
	return d
}

// addShorthands puts back, in a block without source, the shorthands its
// entries give a value for and that it does not list itself.
func (s *style) addShorthands(important map[string]bool, meta *Meta) {
	if len(s.values) == 0 {
		return
	}
	have := map[string]bool{}
	for _, d := range s.decls {
		have[d.name] = true
	}
	var added []*decl
	for _, d := range s.decls {
		for _, sh := range meta.shorthandsOf(d.name) {
			v := s.values[sh]
			if have[sh] || v == "" {
				continue
			}
			have[sh] = true
			nd := &decl{style: s, name: sh, value: v, important: important[sh], parsedOK: true}
			for _, l := range meta.longhands(sh) {
				nd.longhands = append(nd.longhands, &decl{style: s, name: l, important: nd.important, parsedOK: true, implicit: true})
			}
			added = append(added, nd)
		}
	}
	s.decls = append(s.decls, added...)
}

// markInactive marks the declarations a later one of the same block
// overrides (the later wins unless only the earlier is !important), and
// those disabled or not understood.
func (s *style) markInactive(meta *Meta) {
	active := map[string]*decl{}
	done := map[*decl]bool{}
	for _, d := range s.decls {
		canon := meta.canonical(d.name)
		if d.disabled || !d.parsedOK {
			if !d.disabled && isCustom(d.name) {
				if a := active[canon]; a != nil {
					a.inactive = true
				}
				delete(active, canon)
			}
			d.inactive = true
			continue
		}
		if done[d] {
			continue
		}
		for _, l := range d.longhands {
			if a := active[l.name]; a == nil {
				active[l.name] = l
			} else if !a.important || l.important {
				a.inactive = true
				active[l.name] = l
			} else {
				l.inactive = true
			}
			done[l] = true
		}
		if a := active[canon]; a == nil {
			active[canon] = d
		} else if !a.important || d.important {
			a.inactive = true
			active[canon] = d
		} else {
			d.inactive = true
		}
	}
}

// leading returns the declarations a block shows: those written in the
// source; for a block without source, all but the longhands of a
// shorthand it gives a value for.
func (s *style) leading(meta *Meta) []*decl {
	var out []*decl
	if s.rng != nil {
		for _, d := range s.decls {
			if d.ranged {
				out = append(out, d)
			}
		}
		return out
	}
outer:
	for _, d := range s.decls {
		for _, sh := range meta.shorthandsOf(d.name) {
			if s.values[sh] != "" {
				continue outer
			}
		}
		out = append(out, d)
	}
	return out
}

// hasInherited reports whether the block sets an inherited property.
func (s *style) hasInherited(meta *Meta) bool {
	for _, d := range s.decls {
		if !d.inactive && meta.inherited(d.name) {
			return true
		}
	}
	return false
}

// hasCustom reports whether the block sets a custom property.
func (s *style) hasCustom() bool {
	for _, d := range s.decls {
		if isCustom(d.name) {
			return true
		}
	}
	return false
}

// same reports whether s and o are the same block of a style sheet.
func (s *style) same(o *style) bool {
	return s.sheet != "" && s.rng != nil && o.sheet == s.sheet && o.rng != nil && *o.rng == *s.rng
}

// value returns the value of the active declaration of name, or "".
func (s *style) value(name string) (string, bool) {
	var found *decl
	for _, d := range s.decls {
		if !d.inactive && d.name == name {
			found = d
		}
	}
	if found == nil {
		return "", false
	}
	return found.value, true
}

func (s *style) String() string { return fmt.Sprintf("style(%s %v)", s.sheet, s.rng) }
