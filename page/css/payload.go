package css

// The fields of CSS.getMatchedStylesForNode's reply and of
// CSS.styleSheetAdded that the rules are built from. They are decoded
// here rather than with the cdp package's types, which predate several of
// them (at-rules, position-try rules, nesting selectors, longhands).

// Payload is CSS.getMatchedStylesForNode's reply.
type Payload struct {
	InlineStyle             *Style                 `json:"inlineStyle"`
	AttributesStyle         *Style                 `json:"attributesStyle"`
	MatchedCSSRules         []RuleMatch            `json:"matchedCSSRules"`
	PseudoElements          []PseudoMatches        `json:"pseudoElements"`
	Inherited               []InheritedEntry       `json:"inherited"`
	InheritedPseudoElements []InheritedPseudo      `json:"inheritedPseudoElements"`
	KeyframesRules          []KeyframesRule        `json:"cssKeyframesRules"`
	PositionTryRules        []PositionTryRule      `json:"cssPositionTryRules"`
	PropertyRules           []PropertyRule         `json:"cssPropertyRules"`
	PropertyRegistrations   []PropertyRegistration `json:"cssPropertyRegistrations"`
	AtRules                 []AtRule               `json:"cssAtRules"`
}

// Style is a CSSStyle: a declaration block.
type Style struct {
	StyleSheetID     string           `json:"styleSheetId"`
	CSSProperties    []Property       `json:"cssProperties"`
	ShorthandEntries []ShorthandEntry `json:"shorthandEntries"`
	CSSText          string           `json:"cssText"`
	Range            *Range           `json:"range"`
}

// Property is a CSSProperty: one declaration.
type Property struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	Important bool   `json:"important"`
	Implicit  bool   `json:"implicit"`
	// ParsedOK is nil when Chrome leaves it out, which means true.
	ParsedOK           *bool      `json:"parsedOk"`
	Disabled           bool       `json:"disabled"`
	Range              *Range     `json:"range"`
	LonghandProperties []Property `json:"longhandProperties"`
}

// ShorthandEntry is a shorthand's value as a block gives it.
type ShorthandEntry struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	Important bool   `json:"important"`
}

// Range is a SourceRange, 0-based, in its style sheet's text.
type Range struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

// RuleMatch is a rule and which of its selectors matched.
type RuleMatch struct {
	Rule              CSSRule `json:"rule"`
	MatchingSelectors []int   `json:"matchingSelectors"`
}

// CSSRule is a style rule.
type CSSRule struct {
	StyleSheetID     string           `json:"styleSheetId"`
	SelectorList     SelectorList     `json:"selectorList"`
	NestingSelectors []string         `json:"nestingSelectors"`
	Origin           string           `json:"origin"`
	Style            Style            `json:"style"`
	Media            []Media          `json:"media"`
	ContainerQueries []ContainerQuery `json:"containerQueries"`
	Supports         []Condition      `json:"supports"`
	Layers           []Condition      `json:"layers"`
	Scopes           []Condition      `json:"scopes"`
	Navigations      []Condition      `json:"navigations"`
	RuleTypes        []string         `json:"ruleTypes"`
}

// SelectorList is a rule's selectors.
type SelectorList struct {
	Selectors []Value `json:"selectors"`
	Text      string  `json:"text"`
}

// Value is a text with where it is in its style sheet.
type Value struct {
	Text  string `json:"text"`
	Range *Range `json:"range"`
}

// Media is a CSSMedia: an @media (or other media-dependent) condition.
type Media struct {
	Text      string `json:"text"`
	MediaList []struct {
		Active bool `json:"active"`
	} `json:"mediaList"`
}

// active reports whether the media condition holds; one without a media
// list does.
func (m Media) active() bool {
	if m.MediaList == nil {
		return true
	}
	for _, q := range m.MediaList {
		if q.Active {
			return true
		}
	}
	return false
}

// ContainerQuery is a CSSContainerQuery: an @container condition.
type ContainerQuery struct {
	Text               string `json:"text"`
	ConditionText      string `json:"conditionText"`
	Name               string `json:"name"`
	PhysicalAxes       string `json:"physicalAxes"`
	LogicalAxes        string `json:"logicalAxes"`
	QueriesScrollState bool   `json:"queriesScrollState"`
	QueriesAnchored    bool   `json:"queriesAnchored"`
}

// text is the query as DevTools shows it: its condition when Chrome gives
// one apart, else its text.
func (q ContainerQuery) text() string {
	if q.ConditionText != "" {
		return q.ConditionText
	}
	return q.Text
}

// Condition is an @supports, @layer, @scope or @navigation wrapper.
type Condition struct {
	Text string `json:"text"`
	// Active is given for @supports only; nil means it holds.
	Active *bool `json:"active"`
}

// PseudoMatches are the rules of one pseudo-element of the node.
type PseudoMatches struct {
	PseudoType       string      `json:"pseudoType"`
	PseudoIdentifier string      `json:"pseudoIdentifier"`
	Matches          []RuleMatch `json:"matches"`
}

// InheritedEntry is what one ancestor passes down.
type InheritedEntry struct {
	InlineStyle     *Style      `json:"inlineStyle"`
	MatchedCSSRules []RuleMatch `json:"matchedCSSRules"`
}

// InheritedPseudo is what one ancestor's pseudo-elements pass down.
type InheritedPseudo struct {
	PseudoElements []PseudoMatches `json:"pseudoElements"`
}

// KeyframesRule is an @keyframes rule an animation of the node uses.
type KeyframesRule struct {
	AnimationName Value          `json:"animationName"`
	Keyframes     []KeyframeRule `json:"keyframes"`
}

// KeyframeRule is one step of an @keyframes rule.
type KeyframeRule struct {
	StyleSheetID string `json:"styleSheetId"`
	Origin       string `json:"origin"`
	KeyText      Value  `json:"keyText"`
	Style        Style  `json:"style"`
}

// PositionTryRule is an @position-try rule.
type PositionTryRule struct {
	StyleSheetID string `json:"styleSheetId"`
	Origin       string `json:"origin"`
	Name         Value  `json:"name"`
	Style        Style  `json:"style"`
	Active       bool   `json:"active"`
}

// PropertyRule is an @property rule.
type PropertyRule struct {
	StyleSheetID string `json:"styleSheetId"`
	Origin       string `json:"origin"`
	PropertyName Value  `json:"propertyName"`
	Style        Style  `json:"style"`
}

// PropertyRegistration is a property registered with CSS.registerProperty.
type PropertyRegistration struct {
	PropertyName string `json:"propertyName"`
	InitialValue *Value `json:"initialValue"`
	Inherits     bool   `json:"inherits"`
	Syntax       string `json:"syntax"`
}

// AtRule is an at-rule that applies to the node, such as @font-face.
type AtRule struct {
	StyleSheetID string `json:"styleSheetId"`
	Type         string `json:"type"`
	Subsection   string `json:"subsection"`
	Name         *Value `json:"name"`
	Origin       string `json:"origin"`
	Style        Style  `json:"style"`
}

// Header is what CSS.styleSheetAdded says of a style sheet.
type Header struct {
	StyleSheetID  string `json:"styleSheetId"`
	SourceURL     string `json:"sourceURL"`
	Origin        string `json:"origin"`
	IsConstructed bool   `json:"isConstructed"`
	StartLine     int    `json:"startLine"`
}
