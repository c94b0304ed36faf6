package css

import (
	"fmt"
	"regexp"
	"strings"
)

// Rule is one section of the reply: a block of declarations with the
// selector or at-rule it belongs to, where it comes from, and the
// conditions (@media, @layer, ...) around it.
type Rule struct {
	kind      string // inline, attributes, matched, inherited, pseudo, keyframes, at-rule, position-try, property
	selector  string
	source    string
	ancestors []ancestor
	props     []prop
	// node is the ancestor an inherited block, or an inherited
	// pseudo-element's, comes from.
	node       *Node
	pseudoType string
	keyframes  []keyframe
	active     bool // an @position-try rule in use
}

// prop is a declaration as the reply shows it.
type prop struct {
	name, value string
	status      string // active, overloaded, invalid or disabled
	important   bool
}

// keyframe is one step of an @keyframes rule.
type keyframe struct {
	key   string
	props []prop
}

// ancestor is a condition or rule around a block, outermost first.
type ancestor struct {
	kind  string // layer, media, container, scope, supports, starting-style, nesting, navigation, at-rule
	name  string
	query string
	// container is the element an @container queries, if found.
	container *Node
}

// Rules lists the reply's sections in DevTools' order: the element's own
// blocks and those it inherits, highest precedence first; its
// pseudo-elements'; then @keyframes, at-rules, @position-try and
// @property rules.
func (m *Matched) Rules() []Rule {
	var out []Rule
	for _, s := range m.main.styles() {
		props := s.leading(m.meta)
		if len(props) == 0 {
			continue
		}
		if s.inherited {
			if r, ok := m.inheritedRule(s, props); ok {
				out = append(out, r)
			}
			continue
		}
		switch s.kind {
		case kindAttributes:
			sel := "[attributes style]"
			if m.element.Tag != "" {
				sel = m.element.Tag + sel
			}
			out = append(out, Rule{kind: "attributes", selector: sel, props: m.props(props)})
		case kindInline:
			out = append(out, Rule{kind: "inline", selector: "element.style", props: m.props(props)})
		default:
			r := m.described(s.rule)
			r.kind, r.selector, r.props = "matched", s.rule.selectorText(), m.props(props)
			out = append(out, r)
		}
	}
	for _, pc := range m.pseudo {
		for _, s := range pc.cascade.styles() {
			all := s.leading(m.meta)
			if len(all) == 0 {
				continue
			}
			var node *Node
			props := all
			if s.inherited {
				node = m.ancestor(s.owner)
				props = m.inheritable(all, pc.highlight)
			}
			if len(props) == 0 {
				continue
			}
			r := m.described(s.rule)
			r.kind, r.pseudoType, r.node, r.props = "pseudo", pc.name, node, m.props(props)
			r.selector = s.rule.selectorText()
			out = append(out, r)
		}
	}
	out = append(out, m.keyframesRules()...)
	out = append(out, m.atRules()...)
	out = append(out, m.positionTryRules()...)
	out = append(out, m.propertyRules()...)
	return out
}

// inheritedRule is the section of an ancestor's block: the declarations it
// passes down, if any.
func (m *Matched) inheritedRule(s *style, all []*decl) (Rule, bool) {
	props := m.inheritable(all, false)
	if len(props) == 0 {
		return Rule{}, false
	}
	r := Rule{kind: "inherited", node: m.ancestor(s.owner), props: m.props(props)}
	switch {
	case s.kind == kindInline:
		r.selector = "element.style"
	case s.rule != nil:
		d := m.described(s.rule)
		r.source, r.ancestors = d.source, d.ancestors
		r.selector = s.rule.selectorText()
	}
	return r, true
}

// ancestor returns the ancestor at index i of the flat tree.
func (m *Matched) ancestor(i int) *Node {
	if i >= 0 && i < len(m.ancestors) {
		n := m.ancestors[i]
		return &n
	}
	return &Node{}
}

// inheritable keeps the declarations an element passes down: inherited
// properties, custom properties unless registered as not inheriting; for
// a highlight, everything but custom properties.
func (m *Matched) inheritable(ds []*decl, highlight bool) []*decl {
	var out []*decl
	for _, d := range ds {
		switch {
		case highlight:
			if isCustom(d.name) {
				continue
			}
		case isCustom(d.name):
			if inherits, ok := m.registered[d.name]; ok && !inherits {
				continue
			}
		case !m.meta.inherited(d.name):
			continue
		}
		out = append(out, d)
	}
	return out
}

// props turns declarations into the reply's, with their states.
func (m *Matched) props(ds []*decl) []prop {
	out := make([]prop, len(ds))
	for i, d := range ds {
		status := "active"
		switch {
		case !d.parsedOK:
			status = "invalid"
		case d.disabled:
			status = "disabled"
		case m.state[d] == stateOverloaded:
			status = "overloaded"
		}
		v := d.value
		if d.important {
			v = strings.TrimRight(importantSuffix.ReplaceAllString(v, ""), " \t\n\r\f")
		}
		out[i] = prop{name: d.name, value: v, status: status, important: d.important}
	}
	return out
}

var importantSuffix = regexp.MustCompile(`(?i)\s*!\s*important$`)

// described gives a style rule's source and the conditions around it.
func (m *Matched) described(r *rule) Rule {
	if r == nil {
		return Rule{}
	}
	return Rule{source: m.source(r), ancestors: m.ancestorsOf(r)}
}

// source says where a rule comes from, as DevTools does: the user-agent
// style sheet, another origin, a constructed style sheet, or the style
// sheet's file name (the document's for a <style> element, "<style>" when
// it has no URL) and the rule's 1-based line in it.
func (m *Matched) source(r *rule) string {
	switch r.origin {
	case "user-agent":
		return "user agent stylesheet"
	case "injected":
		return "injected stylesheet"
	case "inspector":
		return "via inspector"
	}
	h, known := m.headers[r.sheet]
	if known && h.IsConstructed && h.SourceURL == "" {
		return "constructed stylesheet"
	}
	line := ""
	switch {
	case r.style:
		n := 0
		if len(r.selectors) > 0 && r.selectors[0].Range != nil && known {
			n = h.StartLine + r.selectors[0].Range.StartLine
		}
		line = fmt.Sprintf(":%d", n+1)
	case known && r.block != nil:
		line = fmt.Sprintf(":%d", h.StartLine+r.block.StartLine+1)
	}
	if h.SourceURL == "" {
		return "<style>" + line
	}
	return fileName(h.SourceURL) + line
}

// fileName is the last part of a URL's path, as DevTools names a file:
// "index" for a directory's own URL, "data-uri" and "blob" for those.
func fileName(u string) string {
	switch {
	case strings.HasPrefix(u, "data:"):
		return "data-uri"
	case strings.HasPrefix(u, "blob:"):
		return "blob"
	}
	path := u
	if i := strings.Index(u, "://"); i > 0 && urlScheme.MatchString(u[:i]) {
		rest := u[i+3:]
		path = "/"
		if j := strings.IndexAny(rest, "/?#"); j >= 0 && rest[j] == '/' {
			path = rest[j:]
			if k := strings.IndexAny(path, "?#"); k >= 0 {
				path = path[:k]
			}
		}
	}
	last := path
	if len(path) > 0 {
		if k := strings.LastIndex(path[:max(1, len(path)-1)], "/"); k >= 0 {
			last = path[k+1:]
		}
	}
	if last == "" {
		return "index"
	}
	return last
}

var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// ancestorsOf lists the conditions and rules around a style rule,
// outermost first, from its rule types (innermost first).
func (m *Matched) ancestorsOf(r *rule) []ancestor {
	var media, cont, layer, scope, supports, nest, nav int
	var out []ancestor
	for _, t := range r.ruleTypes {
		switch t {
		case "MediaRule":
			if media < len(r.media) && r.media[media].Text != "" {
				out = append(out, ancestor{kind: "media", query: r.media[media].Text})
			}
			media++
		case "ContainerRule":
			if cont < len(r.containers) {
				c := r.containers[cont]
				out = append(out, ancestor{kind: "container", query: c.Query.text(), name: c.Query.Name, container: c.Node})
			}
			cont++
		case "LayerRule":
			if layer < len(r.layers) {
				out = append(out, ancestor{kind: "layer", name: r.layers[layer].Text})
			}
			layer++
		case "ScopeRule":
			if scope < len(r.scopes) {
				out = append(out, ancestor{kind: "scope", query: r.scopes[scope].Text})
			}
			scope++
		case "SupportsRule":
			if supports < len(r.supports) && r.supports[supports].Text != "" {
				out = append(out, ancestor{kind: "supports", query: r.supports[supports].Text})
			}
			supports++
		case "StartingStyleRule":
			out = append(out, ancestor{kind: "starting-style"})
		case "StyleRule":
			if nest < len(r.nesting) && r.nesting[nest] != "" {
				out = append(out, ancestor{kind: "nesting", name: r.nesting[nest]})
			}
			nest++
		case "NavigationRule":
			if nav < len(r.navigations) && r.navigations[nav].Text != "" {
				out = append(out, ancestor{kind: "navigation", query: r.navigations[nav].Text})
			}
			nav++
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// otherRule is the source of a rule that holds no selector.
func (m *Matched) otherSource(origin, sheet string, block *Range) string {
	return m.source(&rule{origin: origin, sheet: sheet, block: block})
}

// keyframesRules are the @keyframes of the element's animations.
func (m *Matched) keyframesRules() []Rule {
	var out []Rule
	for _, k := range m.payload.KeyframesRules {
		r := Rule{kind: "keyframes", selector: "@keyframes " + k.AnimationName.Text}
		for i := range k.Keyframes {
			f := &k.Keyframes[i]
			props := newStyle(&f.Style, kindRegular, nil, m.meta).leading(m.meta)
			if len(props) == 0 {
				continue
			}
			if r.source == "" {
				r.source = m.otherSource(f.Origin, f.StyleSheetID, f.Style.Range)
			}
			r.keyframes = append(r.keyframes, keyframe{key: f.KeyText.Text, props: m.props(props)})
		}
		if len(r.keyframes) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// atRules are the at-rules that apply to the element (@font-face, ...).
func (m *Matched) atRules() []Rule {
	var out []Rule
	for i := range m.payload.AtRules {
		a := &m.payload.AtRules[i]
		props := newStyle(&a.Style, kindRegular, nil, m.meta).leading(m.meta)
		if len(props) == 0 {
			continue
		}
		name := ""
		if a.Name != nil {
			name = a.Name.Text
		}
		r := Rule{kind: "at-rule", source: m.otherSource(a.Origin, a.StyleSheetID, a.Style.Range), props: m.props(props)}
		switch {
		case a.Subsection != "":
			r.selector = "@" + a.Subsection
			r.ancestors = []ancestor{{kind: "at-rule", query: a.Type, name: name}}
		case name != "":
			r.selector = "@" + a.Type + " " + name
		default:
			r.selector = "@" + a.Type
		}
		out = append(out, r)
	}
	return out
}

// positionTryRules are the @position-try rules of the element.
func (m *Matched) positionTryRules() []Rule {
	var out []Rule
	for i := range m.payload.PositionTryRules {
		p := &m.payload.PositionTryRules[i]
		props := newStyle(&p.Style, kindRegular, nil, m.meta).leading(m.meta)
		if len(props) == 0 {
			continue
		}
		out = append(out, Rule{kind: "position-try", selector: "@position-try " + p.Name.Text, active: p.Active,
			source: m.otherSource(p.Origin, p.StyleSheetID, p.Style.Range), props: m.props(props)})
	}
	return out
}

// propertyRules are the page's registered custom properties: @property
// rules, then CSS.registerProperty registrations.
func (m *Matched) propertyRules() []Rule {
	var out []Rule
	for i := range m.payload.PropertyRules {
		p := &m.payload.PropertyRules[i]
		props := newStyle(&p.Style, kindRegular, nil, m.meta).leading(m.meta)
		if len(props) == 0 {
			continue
		}
		out = append(out, Rule{kind: "property", selector: "@property " + p.PropertyName.Text,
			source: m.otherSource(p.Origin, p.StyleSheetID, p.Style.Range), props: m.props(props)})
	}
	for _, g := range m.payload.PropertyRegistrations {
		props := []prop{
			{name: "inherits", value: fmt.Sprint(g.Inherits), status: "active"},
			{name: "syntax", value: `"` + g.Syntax + `"`, status: "active"},
		}
		if g.InitialValue != nil {
			props = append(props, prop{name: "initial-value", value: g.InitialValue.Text, status: "active"})
		}
		out = append(out, Rule{kind: "property", selector: "@property " + g.PropertyName, source: "CSS.registerProperty", props: props})
	}
	return out
}
