// Package css turns what Chrome's CSS domain says of an element
// (CSS.getMatchedStylesForNode, and the style sheets' headers) into the
// text of get_css_styles, as chrome-devtools-mcp shows it through
// DevTools' Styles pane model: the element's style attribute and matched
// rules, highest cascade precedence first, then what its ancestors pass
// down, its pseudo-elements' rules, and the @keyframes, at-rules,
// @position-try and @property rules that apply; each rule with its source
// (file and line, <style>, user agent stylesheet, constructed stylesheet)
// and the @media, @layer, @container, @scope and @supports conditions
// around it; each declaration that loses the cascade tagged [overloaded].
//
// It does no I/O. Package page/styles fetches the payload, the headers, the
// property metadata ([Names], [Meta]), the element and its ancestors in
// the flat tree, and the elements @container conditions query
// ([Matched.Containers]); [Match] builds the cascade, [Matched.Rules]
// lists the sections, which the caller may page through, and [Render]
// writes them.
//
// Not shown, as upstream does not show them: the element's computed
// style, and the values an animation or a transition is setting.
package css
