package css

import (
	"strings"
	"testing"
)

func TestFileName(t *testing.T) {
	for url, want := range map[string]string{
		"http://h:8080/a/b/site.css?v=2#x": "site.css",
		"http://h/":                        "index",
		"http://h":                         "index",
		"http://h/dir/":                    "dir/",
		"https://user@h/page.html":         "page.html",
		"file:///usr/share/doc/x.css":      "x.css",
		"data:text/css,a{}":                "data-uri",
		"blob:http://h/1234":               "blob",
		"":                                 "index",
	} {
		if got := fileName(url); got != want {
			t.Errorf("fileName(%q) = %q, want %q", url, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// rng is a source range on one line.
func rng(line int) *Range { return &Range{StartLine: line, EndLine: line, EndColumn: 10} }

// TestCascadeStates: within a block the later declaration wins unless only
// the earlier is !important; across blocks the higher one wins, an
// !important lower one beats it; an inherited block passes down only
// inherited properties; a shorthand none of whose longhands win is
// overloaded.
func TestCascadeStates(t *testing.T) {
	p := &Payload{
		InlineStyle: &Style{StyleSheetID: "i", CSSText: "color: red; margin-left: 1px", Range: rng(0), CSSProperties: []Property{
			{Name: "color", Value: "red", Range: rng(0)},
			{Name: "margin-left", Value: "1px", Range: rng(0)},
		}},
		MatchedCSSRules: []RuleMatch{
			{Rule: CSSRule{StyleSheetID: "s", Origin: "regular", SelectorList: SelectorList{Selectors: []Value{{Text: ".low", Range: rng(1)}}},
				Style: Style{StyleSheetID: "s", CSSText: "...", Range: rng(1), CSSProperties: []Property{
					{Name: "color", Value: "blue !important", Important: true, Range: rng(1)},
					{Name: "padding", Value: "1px", Range: rng(1), LonghandProperties: []Property{
						{Name: "padding-top", Value: "1px"}, {Name: "padding-left", Value: "1px"}}},
				}}}, MatchingSelectors: []int{0}},
			{Rule: CSSRule{StyleSheetID: "s", Origin: "regular", SelectorList: SelectorList{Selectors: []Value{{Text: ".high", Range: rng(5)}}},
				Style: Style{StyleSheetID: "s", CSSText: "...", Range: rng(5), CSSProperties: []Property{
					{Name: "padding-top", Value: "2px", Range: rng(5)},
					{Name: "padding-left", Value: "2px", Range: rng(5)},
					{Name: "width", Value: "1px", Range: rng(5)},
					{Name: "width", Value: "2px", Range: rng(5)},
					{Name: "height", Value: "bad", ParsedOK: ptr(false), Range: rng(5)},
				}}}, MatchingSelectors: []int{0}},
		},
		Inherited: []InheritedEntry{{MatchedCSSRules: []RuleMatch{
			{Rule: CSSRule{StyleSheetID: "s", Origin: "regular", SelectorList: SelectorList{Selectors: []Value{{Text: "body", Range: rng(9)}}},
				Style: Style{StyleSheetID: "s", CSSText: "...", Range: rng(9), CSSProperties: []Property{
					{Name: "color", Value: "black", Range: rng(9)},
					{Name: "font-size", Value: "9px", Range: rng(9)},
					{Name: "border", Value: "none", Range: rng(9)},
				}}}, MatchingSelectors: []int{0}},
		}}},
	}
	m := Match(Input{Payload: p, Headers: map[string]Header{"s": {StyleSheetID: "s", SourceURL: "http://h/s.css", StartLine: 10}},
		Element: Node{Selector: "p", Tag: "p"}, Ancestors: []Node{{Selector: "body", UID: "1_0"}}})
	got := Render(m.element, "1_5", m.Rules())
	want := `Styles for p (uid: "1_5"):

  element.style {
    [overloaded] color: red;
    margin-left: 1px;
  }

  .high (s.css:16) {
    padding-top: 2px;
    padding-left: 2px;
    [overloaded] width: 1px;
    width: 2px;
    [invalid] height: bad;
  }

  .low (s.css:12) {
    color: blue !important;
    [overloaded] padding: 1px;
  }

  Inherited from body (uid: "1_0"):
    body (s.css:20) {
      [overloaded] color: black;
      font-size: 9px;
    }`
	if got != want {
		t.Errorf("Render =\n%s\nwant:\n%s", got, want)
	}
}

// TestUserAgentRules: a user-agent rule keeps only its matching
// selectors; consecutive ones with the same selectors merge; a block
// without source shows the shorthands it gives values for, not their
// longhands.
func TestUserAgentRules(t *testing.T) {
	ua := func(sel []string, match []int, props []Property, short []ShorthandEntry) RuleMatch {
		var vs []Value
		for _, s := range sel {
			vs = append(vs, Value{Text: s})
		}
		return RuleMatch{Rule: CSSRule{Origin: "user-agent", SelectorList: SelectorList{Selectors: vs, Text: strings.Join(sel, ", ")},
			Style: Style{CSSProperties: props, ShorthandEntries: short}}, MatchingSelectors: match}
	}
	p := &Payload{MatchedCSSRules: []RuleMatch{
		ua([]string{"p", "div"}, []int{1}, []Property{{Name: "display", Value: "block"}}, nil),
		ua([]string{"div"}, []int{0}, []Property{
			{Name: "margin-top", Value: "1em"}, {Name: "margin-bottom", Value: "1em"}, {Name: "display", Value: "flow-root"},
		}, []ShorthandEntry{{Name: "margin", Value: "1em 0"}}),
	}}
	meta := &Meta{Longhands: map[string][]string{"margin": {"margin-top", "margin-bottom"}}}
	m := Match(Input{Payload: p, Meta: meta, Element: Node{Selector: "div"}})
	got := Render(m.element, "1_1", m.Rules())
	want := `Styles for div (uid: "1_1"):

  div (user agent stylesheet) {
    display: flow-root;
    margin: 1em 0;
  }`
	if got != want {
		t.Errorf("Render =\n%s\nwant:\n%s", got, want)
	}
}

func TestNoStyles(t *testing.T) {
	m := Match(Input{Payload: &Payload{}, Element: Node{Selector: "x-y"}})
	if got, want := Render(m.element, "2_3", m.Rules()), "Styles for x-y (uid: \"2_3\"):\n\n  (no styles)"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}
