package css

import (
	"regexp"
	"strings"
)

// Node describes an element the reply names: the element whose styles
// are shown, an ancestor it inherits from, or a query container.
type Node struct {
	// Selector is DevTools' short selector of the element: its tag, then
	// #id, or .classes (div's tag left out), or input's [type].
	Selector string
	// UID is the element's uid in the page's latest snapshot, or "" when
	// the snapshot does not show it.
	UID string
	// Tag is the element's tag name, lower case for HTML.
	Tag string
}

// Container is an @container condition of a rule, and the element it
// queries once the caller has found it ([Matched.Containers]).
type Container struct {
	Query ContainerQuery
	// Node is the query container, or nil when it was not found.
	Node *Node
}

// Input is what [Match] builds the cascade from.
type Input struct {
	Payload *Payload
	// Headers are the style sheets' headers, by id (CSS.styleSheetAdded).
	Headers map[string]Header
	// Meta is what the browser says of the property names of [Names].
	Meta *Meta
	// Element is the element whose styles are shown.
	Element Node
	// Ancestors are the element's ancestors in the flat tree, its parent
	// first, as the payload's inherited entries list them.
	Ancestors []Node
}

// Matched is an element's cascade: its own blocks and those it inherits,
// its pseudo-elements', and the at-rules that apply to it, with the state
// of each declaration.
type Matched struct {
	meta       *Meta
	headers    map[string]Header
	element    Node
	ancestors  []Node
	main       *inheritance
	pseudo     []pseudoCascade
	payload    *Payload
	registered map[string]bool // registered custom property → whether it inherits
	state      map[*decl]state
	containers []*Container
}

// pseudoCascade is the cascade of one pseudo-element type, or of one
// custom highlight.
type pseudoCascade struct {
	name      string // ::before, ::highlight(x), ...
	highlight bool
	cascade   *inheritance
}

// rule is the rule a block belongs to.
type rule struct {
	origin      string
	sheet       string
	selectors   []Value
	nesting     []string
	media       []Media
	containers  []*Container
	supports    []Condition
	layers      []Condition
	scopes      []Condition
	navigations []Condition
	ruleTypes   []string
	// style is false for the rules that hold no selector: keyframes,
	// at-rules, @position-try and @property.
	style bool
	block *Range // the rule's block, for the line of a rule without selector
}

func (r *rule) selectorText() string {
	parts := make([]string, len(r.selectors))
	for i, s := range r.selectors {
		parts[i] = s.Text
	}
	return strings.Join(parts, ", ")
}

// applies reports whether the rule's conditions hold for the node. Chrome
// lists only matching rules; a condition it reports as false (an @media
// or @supports that does not hold) takes the rule out of the cascade.
func (r *rule) applies() bool {
	for _, m := range r.media {
		if !m.active() {
			return false
		}
	}
	for _, s := range r.supports {
		if s.Active != nil && !*s.Active {
			return false
		}
	}
	return true
}

// Match builds the cascade of in's element.
func Match(in Input) *Matched {
	m := &Matched{
		meta: in.Meta, headers: in.Headers, element: in.Element, ancestors: in.Ancestors,
		payload: in.Payload, registered: map[string]bool{}, state: map[*decl]state{},
	}
	if m.meta == nil {
		m.meta = &Meta{}
	}
	p := in.Payload
	for i := range p.PropertyRules {
		r := &p.PropertyRules[i]
		s := newStyle(&r.Style, kindRegular, nil, m.meta)
		v, _ := s.value("inherits")
		m.registered[r.PropertyName.Text] = v == "true"
	}
	for _, r := range p.PropertyRegistrations {
		m.registered[r.PropertyName] = r.Inherits
	}
	m.main = m.mainCascade()
	m.pseudo = m.pseudoCascades()
	m.main.compute(m)
	for _, pc := range m.pseudo {
		pc.cascade.compute(m)
	}
	return m
}

// Containers returns the @container conditions of the rules that apply to
// the element and its pseudo-elements, for the caller to find each one's
// container and set [Container.Node].
func (m *Matched) Containers() []*Container { return m.containers }

// newRule wraps a rule's payload.
func (m *Matched) newRule(r *CSSRule) *rule {
	out := &rule{
		origin: r.Origin, sheet: r.StyleSheetID, selectors: r.SelectorList.Selectors, nesting: r.NestingSelectors,
		media: r.Media, supports: r.Supports, layers: r.Layers, scopes: r.Scopes, navigations: r.Navigations,
		ruleTypes: r.RuleTypes, style: true, block: r.Style.Range,
	}
	for _, q := range r.ContainerQueries {
		c := &Container{Query: q}
		out.containers = append(out.containers, c)
		m.containers = append(m.containers, c)
	}
	return out
}

// styleOf builds the block of a matched rule.
func (m *Matched) styleOf(rm *RuleMatch) *style {
	return newStyle(&rm.Rule.Style, kindRegular, m.newRule(&rm.Rule), m.meta)
}

// mainCascade is the element's cascade and its ancestors': the element's
// style attribute, its rules from the highest precedence down, its
// presentational attributes just above the user-agent rules; then, for
// each ancestor, the blocks that set a property it passes down.
func (m *Matched) mainCascade() *inheritance {
	p := m.payload
	var own []*style
	if p.InlineStyle != nil {
		own = append(own, newStyle(p.InlineStyle, kindInline, nil, m.meta))
	}
	attributesAdded := false
	addAttributes := func() {
		if p.AttributesStyle != nil {
			own = append(own, newStyle(p.AttributesStyle, kindAttributes, nil, m.meta))
		}
	}
	matched := cleanUserAgent(p.MatchedCSSRules)
	for i := len(matched) - 1; i >= 0; i-- {
		s := m.styleOf(&matched[i])
		if (s.rule.origin == "injected" || s.rule.origin == "user-agent") && !attributesAdded {
			attributesAdded = true
			addAttributes()
		}
		own = append(own, s)
	}
	if !attributesAdded {
		addAttributes()
	}
	h := &inheritance{cascades: []*nodeCascade{{styles: own}}}
	var passed []*style
	contains := func(list []*style, s *style) bool {
		for _, o := range list {
			if o.same(s) {
				return true
			}
		}
		return false
	}
	for i, e := range p.Inherited {
		var styles []*style
		mark := func(s *style) {
			s.inherited, s.owner = true, i
			styles = append(styles, s)
			passed = append(passed, s)
		}
		if e.InlineStyle != nil {
			if s := newStyle(e.InlineStyle, kindInline, nil, m.meta); s.hasInherited(m.meta) {
				mark(s)
			}
		}
		rules := cleanUserAgent(e.MatchedCSSRules)
		for j := len(rules) - 1; j >= 0; j-- {
			s := m.styleOf(&rules[j])
			if !s.hasInherited(m.meta) {
				continue
			}
			// A rule that matched the element too is shown once, as the
			// element's own, unless it sets custom properties.
			if !s.hasCustom() && (contains(own, s) || contains(passed, s)) {
				continue
			}
			mark(s)
		}
		h.cascades = append(h.cascades, &nodeCascade{styles: styles, inherited: true})
	}
	return h
}

// highlightName finds a custom highlight's name in a selector.
var highlightName = regexp.MustCompile(`::highlight\((.*)\)`)

// pseudoCascades are the cascades of the element's pseudo-elements: its
// custom highlights first, then each pseudo-element type, each followed by
// what its ancestors' pseudo-elements of the same type pass down.
func (m *Matched) pseudoCascades() []pseudoCascade {
	p := m.payload
	var types, highlights []string
	byType := map[string][]*nodeCascade{}
	byHighlight := map[string][]*nodeCascade{}
	split := func(rules []RuleMatch, owner int, inherited bool) {
		var names []string
		per := map[string][]*style{}
		for j := len(rules) - 1; j >= 0; j-- {
			rm := &rules[j]
			seen := map[string]bool{}
			for _, idx := range rm.MatchingSelectors {
				if idx < 0 || idx >= len(rm.Rule.SelectorList.Selectors) {
					continue
				}
				g := highlightName.FindStringSubmatch(rm.Rule.SelectorList.Selectors[idx].Text)
				if g == nil || seen[g[1]] {
					continue
				}
				seen[g[1]] = true
				s := m.styleOf(rm)
				s.inherited, s.owner = inherited, owner
				if _, ok := per[g[1]]; !ok {
					names = append(names, g[1])
				}
				per[g[1]] = append(per[g[1]], s)
			}
		}
		for _, n := range names {
			if _, ok := byHighlight[n]; !ok {
				highlights = append(highlights, n)
			}
			byHighlight[n] = append(byHighlight[n], &nodeCascade{styles: per[n], inherited: inherited, highlight: true})
		}
	}
	pseudoStyles := func(rules []RuleMatch, owner int, inherited bool) []*style {
		var out []*style
		for j := len(rules) - 1; j >= 0; j-- {
			s := m.styleOf(&rules[j])
			s.inherited, s.owner = inherited, owner
			out = append(out, s)
		}
		return out
	}
	for _, pm := range p.PseudoElements {
		if pm.PseudoType == "highlight" {
			split(pm.Matches, -1, false)
			continue
		}
		if _, ok := byType[pm.PseudoType]; !ok {
			types = append(types, pm.PseudoType)
		}
		byType[pm.PseudoType] = []*nodeCascade{{styles: pseudoStyles(pm.Matches, -1, false), highlight: isHighlightPseudo(pm.PseudoType)}}
	}
	for i, e := range p.InheritedPseudoElements {
		for _, pm := range e.PseudoElements {
			if pm.PseudoType == "highlight" {
				split(pm.Matches, i, true)
				continue
			}
			if _, ok := byType[pm.PseudoType]; !ok {
				types = append(types, pm.PseudoType)
			}
			byType[pm.PseudoType] = append(byType[pm.PseudoType], &nodeCascade{styles: pseudoStyles(pm.Matches, i, true), inherited: true, highlight: isHighlightPseudo(pm.PseudoType)})
		}
	}
	var out []pseudoCascade
	for _, n := range highlights {
		out = append(out, pseudoCascade{name: "::highlight(" + n + ")", highlight: true, cascade: &inheritance{cascades: byHighlight[n]}})
	}
	for _, t := range types {
		out = append(out, pseudoCascade{name: "::" + t, highlight: isHighlightPseudo(t), cascade: &inheritance{cascades: byType[t]}})
	}
	return out
}

// cleanUserAgent tidies the user-agent rules as DevTools shows them: a
// rule keeps only the selectors that matched, and consecutive user-agent
// rules with the same selectors and media are merged into one.
func cleanUserAgent(in []RuleMatch) []RuleMatch {
	ms := make([]RuleMatch, len(in))
	copy(ms, in)
	for i := range ms {
		r := &ms[i].Rule
		if r.Origin != "user-agent" || len(ms[i].MatchingSelectors) == 0 {
			continue
		}
		var kept []Value
		for j, s := range r.SelectorList.Selectors {
			for _, k := range ms[i].MatchingSelectors {
				if k == j {
					kept = append(kept, s)
					break
				}
			}
		}
		texts := make([]string, len(kept))
		for j, s := range kept {
			texts[j] = s.Text
		}
		r.SelectorList = SelectorList{Selectors: kept, Text: strings.Join(texts, ", ")}
		idx := make([]int, len(ms[i].MatchingSelectors))
		for j := range idx {
			idx[j] = j
		}
		ms[i].MatchingSelectors = idx
	}
	var out []RuleMatch
	for _, rm := range ms {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if rm.Rule.Origin == "user-agent" && last.Rule.Origin == "user-agent" &&
				rm.Rule.SelectorList.Text == last.Rule.SelectorList.Text && mediaText(rm.Rule) == mediaText(last.Rule) {
				mergeInto(&last.Rule.Style, &rm.Rule.Style)
				continue
			}
		}
		out = append(out, rm)
	}
	return out
}

// mediaText is a rule's media conditions as one text, "" for none (and
// "\x00" for a rule without a media list, which differs from an empty one).
func mediaText(r CSSRule) string {
	if r.Media == nil {
		return "\x00"
	}
	t := make([]string, len(r.Media))
	for i, m := range r.Media {
		t[i] = m.Text
	}
	return strings.Join(t, ", ")
}

// mergeInto merges a user-agent block into the one before it: values of
// the same name are replaced in place, new names added at the end. Only
// names and values are kept, as DevTools keeps them.
func mergeInto(to, from *Style) {
	to.ShorthandEntries = mergeNamed(to.ShorthandEntries, from.ShorthandEntries,
		func(e ShorthandEntry) (string, string) { return e.Name, e.Value },
		func(name, value string) ShorthandEntry { return ShorthandEntry{Name: name, Value: value} })
	to.CSSProperties = mergeNamed(to.CSSProperties, from.CSSProperties,
		func(p Property) (string, string) { return p.Name, p.Value },
		func(name, value string) Property { return Property{Name: name, Value: value} })
}

// mergeNamed merges the name-value pairs of from into those of to, as
// mergeInto does: split reads a pair, join makes one.
func mergeNamed[T any](to, from []T, split func(T) (name, value string), join func(name, value string) T) []T {
	var names []string
	vals := map[string]string{}
	for _, list := range [][]T{to, from} {
		for _, e := range list {
			name, value := split(e)
			if _, ok := vals[name]; !ok {
				names = append(names, name)
			}
			vals[name] = value
		}
	}
	out := make([]T, len(names))
	for i, n := range names {
		out[i] = join(n, vals[n])
	}
	return out
}
