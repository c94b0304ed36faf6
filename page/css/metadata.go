package css

import "strings"

// Meta is what the cascade needs to know of property names: the
// longhands of each shorthand and the name each alias stands for. The page
// actor asks the browser (a shorthand set to "inherit" lists its longhands
// in a declaration block) for the names a payload uses, so that it agrees
// with the browser it describes; [Names] lists them.
type Meta struct {
	// Longhands maps a shorthand to its longhands.
	Longhands map[string][]string
	// Canonical maps an alias (word-wrap, -webkit-box-sizing) to the
	// property it stands for.
	Canonical map[string]string

	shorthands map[string][]string // longhand → shorthands, built on first use
}

// longhands returns the longhands of shorthand name, or nil.
func (m *Meta) longhands(name string) []string {
	if m == nil {
		return nil
	}
	return m.Longhands[name]
}

// shorthandsOf returns the shorthands longhand name belongs to.
func (m *Meta) shorthandsOf(name string) []string {
	if m == nil {
		return nil
	}
	if m.shorthands == nil {
		m.shorthands = map[string][]string{}
		for s, ls := range m.Longhands {
			for _, l := range ls {
				m.shorthands[l] = append(m.shorthands[l], s)
			}
		}
	}
	return m.shorthands[name]
}

// canonical returns the property name stands for: itself, unless it is an
// alias; custom properties are their own.
func (m *Meta) canonical(name string) string {
	if isCustom(name) {
		return name
	}
	name = strings.ToLower(name)
	if m != nil {
		if c, ok := m.Canonical[name]; ok {
			return c
		}
	}
	return name
}

// inherited reports whether property name is inherited: custom properties
// are, and the properties the CSS specifications say are.
func (m *Meta) inherited(name string) bool {
	name = strings.ToLower(name)
	return isCustom(name) || inheritedProperties[name] || inheritedProperties[m.canonical(name)]
}

func isCustom(name string) bool { return strings.HasPrefix(name, "--") }

// isHighlightPseudo reports whether a pseudo-element type is a highlight,
// whose styles inherit from the highlights of the element's ancestors.
func isHighlightPseudo(t string) bool {
	switch t {
	case "highlight", "selection", "target-text", "grammar-error", "spelling-error":
		return true
	}
	return false
}

// Names returns the property names p declares, shorthands included, for
// the caller to look up with the browser; custom properties are left out.
func Names(p *Payload) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !isCustom(n) && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	addStyle := func(s *Style) {
		if s == nil {
			return
		}
		for _, pr := range s.CSSProperties {
			add(pr.Name)
			for _, l := range pr.LonghandProperties {
				add(l.Name)
			}
		}
		for _, e := range s.ShorthandEntries {
			add(e.Name)
		}
	}
	addMatches := func(ms []RuleMatch) {
		for i := range ms {
			addStyle(&ms[i].Rule.Style)
		}
	}
	addStyle(p.InlineStyle)
	addStyle(p.AttributesStyle)
	addMatches(p.MatchedCSSRules)
	for _, pm := range p.PseudoElements {
		addMatches(pm.Matches)
	}
	for _, e := range p.Inherited {
		addStyle(e.InlineStyle)
		addMatches(e.MatchedCSSRules)
	}
	for _, e := range p.InheritedPseudoElements {
		for _, pm := range e.PseudoElements {
			addMatches(pm.Matches)
		}
	}
	return out
}

// inheritedProperties are the properties whose value an element inherits
// from its parent when no rule sets it, as the CSS specifications (and
// Chromium, for its own) define them. Aliases are found through
// [Meta.canonical].
var inheritedProperties = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`
		accent-color border-collapse border-spacing caption-side caret-animation
		caret-color caret-shape clip-rule color color-interpolation
		color-interpolation-filters color-rendering color-scheme cursor direction
		dominant-baseline dynamic-range-limit empty-cells fill fill-opacity
		fill-rule font font-family font-feature-settings font-kerning
		font-language-override font-optical-sizing font-palette font-size
		font-size-adjust font-stretch font-style font-synthesis
		font-synthesis-small-caps font-synthesis-style font-synthesis-weight
		font-variant font-variant-alternates font-variant-caps
		font-variant-east-asian font-variant-emoji font-variant-ligatures
		font-variant-numeric font-variant-position font-variation-settings
		font-weight forced-color-adjust hyphenate-character hyphenate-limit-chars
		hyphens image-orientation image-rendering interactivity interpolate-size
		letter-spacing line-break line-height list-style list-style-image
		list-style-position list-style-type marker marker-end marker-mid
		marker-start math-depth math-shift math-style orphans overflow-wrap
		paint-order pointer-events print-color-adjust quotes ruby-align
		ruby-overhang ruby-position scrollbar-color shape-rendering speak stroke
		stroke-dasharray stroke-dashoffset stroke-linecap stroke-linejoin
		stroke-miterlimit stroke-opacity stroke-width tab-size text-align
		text-align-last text-anchor text-autospace text-box-edge
		text-combine-upright text-decoration-skip-ink
		text-decoration-skip-spaces text-emphasis text-emphasis-color
		text-emphasis-position text-emphasis-style text-fit text-indent
		text-justify text-orientation text-rendering text-shadow
		text-size-adjust text-spacing-trim text-transform text-underline-offset
		text-underline-position text-wrap text-wrap-mode text-wrap-style
		user-select visibility white-space white-space-collapse widows
		window-drag word-break word-spacing writing-mode
		-webkit-border-horizontal-spacing -webkit-border-vertical-spacing
		-webkit-font-smoothing -webkit-locale -webkit-rtl-ordering
		-webkit-ruby-position -webkit-tap-highlight-color -webkit-text-combine
		-webkit-text-decorations-in-effect -webkit-text-fill-color
		-webkit-text-orientation -webkit-text-security -webkit-text-stroke
		-webkit-text-stroke-color -webkit-text-stroke-width -webkit-user-modify
		-webkit-writing-mode`) {
		inheritedProperties[n] = true
	}
}
