package urlpolicy

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// partType is the kind of a [part] (https://urlpattern.spec.whatwg.org/#parts).
type partType uint8

const (
	partFixed           partType = iota // fixed text
	partRegexp                          // a group with a custom regexp
	partSegmentWildcard                 // :name, up to the next delimiter
	partFullWildcard                    // *, anything
)

// modifier is a part's modifier: none, ?, * or +.
type modifier uint8

const (
	modNone modifier = iota
	modOptional
	modZeroOrMore
	modOneOrMore
)

func (m modifier) String() string {
	switch m {
	case modOptional:
		return "?"
	case modZeroOrMore:
		return "*"
	case modOneOrMore:
		return "+"
	}
	return ""
}

// part is one piece of a parsed pattern string: fixed text, or one group
// with an optional fixed prefix and suffix and a modifier.
type part struct {
	typ    partType
	value  string // fixed text, or the regexp of a partRegexp (JavaScript syntax)
	mod    modifier
	name   string
	prefix string
	suffix string
}

// options are the spec's pattern options: the delimiter a segment wildcard
// stops at, and the prefix code point that becomes part of a group.
type options struct {
	delimiter string // "" or one ASCII character
	prefix    string // "" or one ASCII character
}

// The spec's options for each kind of component; read-only.
var (
	defaultOptions  = options{}
	hostnameOptions = options{delimiter: "."}
	pathnameOptions = options{delimiter: "/", prefix: "/"}
)

// encodeFunc is an encoding callback: it validates and canonicalizes a piece
// of fixed text of one URL component.
type encodeFunc func(string) (string, error)

// fullWildcardRegexp is the spec's full wildcard regexp value.
const fullWildcardRegexp = ".*"

// segmentWildcardRegexp is the spec's segment wildcard regexp for opts, in
// JavaScript syntax: it is compared with user regexps, as the spec does.
func segmentWildcardRegexp(opts options) string {
	return "[^" + escapeRegexpString(opts.delimiter) + "]+?"
}

// patternParser holds the state of the spec's pattern parser.
type patternParser struct {
	tokens          []token
	encode          encodeFunc
	segmentWildcard string
	parts           []part
	pendingFixed    strings.Builder
	index           int
	nextNumericName int
}

// parsePatternString parses one component's pattern string into parts
// (https://urlpattern.spec.whatwg.org/#parse-a-pattern-string).
func parsePatternString(input string, opts options, encode encodeFunc) ([]part, error) {
	tokens, err := tokenize([]rune(input), false)
	if err != nil {
		return nil, err
	}
	p := &patternParser{tokens: tokens, encode: encode, segmentWildcard: segmentWildcardRegexp(opts)}
	for p.index < len(p.tokens) {
		charTok := p.tryConsume(tokChar)
		nameTok := p.tryConsume(tokName)
		regexpTok := p.tryConsumeRegexpOrWildcard(nameTok)
		if nameTok != nil || regexpTok != nil {
			prefix := ""
			if charTok != nil {
				prefix = charTok.value
			}
			if prefix != "" && prefix != opts.prefix {
				p.pendingFixed.WriteString(prefix)
				prefix = ""
			}
			if err := p.flushPendingFixed(); err != nil {
				return nil, err
			}
			modTok := p.tryConsumeModifier()
			if err := p.addPart(prefix, nameTok, regexpTok, "", modTok); err != nil {
				return nil, err
			}
			continue
		}
		fixedTok := charTok
		if fixedTok == nil {
			fixedTok = p.tryConsume(tokEscapedChar)
		}
		if fixedTok != nil {
			p.pendingFixed.WriteString(fixedTok.value)
			continue
		}
		if p.tryConsume(tokOpen) != nil {
			prefix := p.consumeText()
			nameTok = p.tryConsume(tokName)
			regexpTok = p.tryConsumeRegexpOrWildcard(nameTok)
			suffix := p.consumeText()
			if err := p.consumeRequired(tokClose); err != nil {
				return nil, err
			}
			modTok := p.tryConsumeModifier()
			if err := p.addPart(prefix, nameTok, regexpTok, suffix, modTok); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.flushPendingFixed(); err != nil {
			return nil, err
		}
		if err := p.consumeRequired(tokEnd); err != nil {
			return nil, err
		}
	}
	return p.parts, nil
}

func (p *patternParser) tryConsume(typ tokenType) *token {
	if p.tokens[p.index].typ != typ {
		return nil
	}
	p.index++
	return &p.tokens[p.index-1]
}

func (p *patternParser) tryConsumeModifier() *token {
	if t := p.tryConsume(tokOtherModifier); t != nil {
		return t
	}
	return p.tryConsume(tokAsterisk)
}

func (p *patternParser) tryConsumeRegexpOrWildcard(nameTok *token) *token {
	t := p.tryConsume(tokRegexp)
	if nameTok == nil && t == nil {
		t = p.tryConsume(tokAsterisk)
	}
	return t
}

// consumeRequired consumes a token of type typ or says what was found.
func (p *patternParser) consumeRequired(typ tokenType) error {
	if p.tryConsume(typ) != nil {
		return nil
	}
	t := p.tokens[p.index]
	switch {
	case typ == tokClose:
		return fmt.Errorf("at character %d: a \"{\" group is not closed, or holds more than text around one group (groups do not nest)", t.index+1)
	case t.typ == tokClose:
		return fmt.Errorf("at character %d: \"}\" closes no group; write \"\\}\" for a literal brace", t.index+1)
	case t.typ == tokOtherModifier || t.typ == tokAsterisk:
		return fmt.Errorf("at character %d: modifier %q has nothing to apply to; escape it as \"\\%s\" for a literal character", t.index+1, t.value, t.value)
	default:
		return fmt.Errorf("at character %d: unexpected %q", t.index+1, t.value)
	}
}

func (p *patternParser) consumeText() string {
	var b strings.Builder
	for {
		t := p.tryConsume(tokChar)
		if t == nil {
			t = p.tryConsume(tokEscapedChar)
		}
		if t == nil {
			return b.String()
		}
		b.WriteString(t.value)
	}
}

func (p *patternParser) flushPendingFixed() error {
	if p.pendingFixed.Len() == 0 {
		return nil
	}
	encoded, err := p.encode(p.pendingFixed.String())
	if err != nil {
		return err
	}
	p.pendingFixed.Reset()
	// Encoding may leave nothing (a port piece of spaces): an empty part
	// matches nothing more, and would make "*" then "*" read back as "**".
	if encoded != "" {
		p.parts = append(p.parts, part{typ: partFixed, value: encoded})
	}
	return nil
}

// addPart is the spec's "add a part".
func (p *patternParser) addPart(prefix string, nameTok, regexpTok *token, suffix string, modTok *token) error {
	mod := modNone
	if modTok != nil {
		switch modTok.value {
		case "?":
			mod = modOptional
		case "*":
			mod = modZeroOrMore
		case "+":
			mod = modOneOrMore
		}
	}
	if nameTok == nil && regexpTok == nil && mod == modNone {
		// A "{foo}" group: plain text, joined with the text around it.
		p.pendingFixed.WriteString(prefix)
		return nil
	}
	if err := p.flushPendingFixed(); err != nil {
		return err
	}
	if nameTok == nil && regexpTok == nil {
		// A "{foo}?" group: text with a modifier.
		if prefix == "" {
			return nil
		}
		encoded, err := p.encode(prefix)
		if err != nil || encoded == "" {
			return err
		}
		p.parts = append(p.parts, part{typ: partFixed, value: encoded, mod: mod})
		return nil
	}
	regexpValue := ""
	switch {
	case regexpTok == nil:
		regexpValue = p.segmentWildcard
	case regexpTok.typ == tokAsterisk:
		regexpValue = fullWildcardRegexp
	default:
		regexpValue = regexpTok.value
	}
	typ := partRegexp
	switch regexpValue {
	case p.segmentWildcard:
		typ, regexpValue = partSegmentWildcard, ""
	case fullWildcardRegexp:
		typ, regexpValue = partFullWildcard, ""
	}
	name := ""
	if nameTok != nil {
		name = nameTok.value
	} else {
		name = strconv.Itoa(p.nextNumericName)
		p.nextNumericName++
	}
	for _, q := range p.parts {
		if q.name == name {
			return fmt.Errorf("group name %q is used twice", name)
		}
	}
	encodedPrefix, err := p.encode(prefix)
	if err != nil {
		return err
	}
	encodedSuffix, err := p.encode(suffix)
	if err != nil {
		return err
	}
	p.parts = append(p.parts, part{typ: typ, value: regexpValue, mod: mod, name: name, prefix: encodedPrefix, suffix: encodedSuffix})
	return nil
}

// escapeRegexpString escapes the characters the spec escapes in fixed text
// (https://urlpattern.spec.whatwg.org/#escape-a-regexp-string). The result is
// valid in both JavaScript and RE2 syntax.
func escapeRegexpString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.', '+', '*', '?', '^', '$', '{', '}', '(', ')', '[', ']', '|', '/', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// generateRegexp converts parts into an anchored RE2 regexp
// (https://urlpattern.spec.whatwg.org/#generate-a-regular-expression-and-name-list).
// It follows the spec's shapes; only the wildcards and user regexps are
// written in RE2 syntax instead of JavaScript's.
func generateRegexp(parts []part, opts options) (string, error) {
	var b strings.Builder
	b.WriteString("^")
	for _, p := range parts {
		if p.typ == partFixed {
			if p.mod == modNone {
				b.WriteString(escapeRegexpString(p.value))
				continue
			}
			b.WriteString("(?:" + escapeRegexpString(p.value) + ")" + p.mod.String())
			continue
		}
		var re string
		switch p.typ {
		case partSegmentWildcard:
			re = re2SegmentWildcard(opts)
		case partFullWildcard:
			re = fullWildcardRegexp
		default:
			translated, err := translateRegexp(p.value)
			if err != nil {
				return "", err
			}
			re = translated
		}
		prefix, suffix := escapeRegexpString(p.prefix), escapeRegexpString(p.suffix)
		if prefix == "" && suffix == "" {
			if p.mod == modNone || p.mod == modOptional {
				b.WriteString("(" + re + ")" + p.mod.String())
			} else {
				b.WriteString("((?:" + re + ")" + p.mod.String() + ")")
			}
			continue
		}
		if p.mod == modNone || p.mod == modOptional {
			b.WriteString("(?:" + prefix + "(" + re + ")" + suffix + ")" + p.mod.String())
			continue
		}
		b.WriteString("(?:" + prefix + "((?:" + re + ")(?:" + suffix + prefix + "(?:" + re + "))*)" + suffix + ")")
		if p.mod == modZeroOrMore {
			b.WriteString("?")
		}
	}
	b.WriteString("$")
	return b.String(), nil
}

// re2SegmentWildcard is the segment wildcard in RE2 syntax. With no
// delimiter the spec's "[^]+?" (any code point) has no RE2 spelling.
func re2SegmentWildcard(opts options) string {
	if opts.delimiter == "" {
		return "(?s:.)+?"
	}
	return "[^" + escapeRegexpString(opts.delimiter) + "]+?"
}

// generatePatternString converts parts back into a normalized pattern string
// (https://urlpattern.spec.whatwg.org/#generate-a-pattern-string).
func generatePatternString(parts []part, opts options) string {
	var b strings.Builder
	for i, p := range parts {
		var prev, next *part
		if i > 0 {
			prev = &parts[i-1]
		}
		if i < len(parts)-1 {
			next = &parts[i+1]
		}
		if p.typ == partFixed {
			if p.mod == modNone {
				b.WriteString(escapePatternString(p.value))
				continue
			}
			b.WriteString("{" + escapePatternString(p.value) + "}" + p.mod.String())
			continue
		}
		customName := !isASCIIDigit(p.name[0])
		needsGrouping := p.suffix != "" || (p.prefix != "" && p.prefix != opts.prefix)
		if !needsGrouping && customName && p.typ == partSegmentWildcard && p.mod == modNone &&
			next != nil && next.prefix == "" && next.suffix == "" {
			if next.typ == partFixed {
				r, _ := utf8.DecodeRuneInString(next.value)
				needsGrouping = isNameCodePoint(r, false)
			} else {
				needsGrouping = isASCIIDigit(next.name[0])
			}
		}
		if !needsGrouping && p.prefix == "" && prev != nil && prev.typ == partFixed &&
			opts.prefix != "" && strings.HasSuffix(prev.value, opts.prefix) {
			needsGrouping = true
		}
		if needsGrouping {
			b.WriteString("{")
		}
		b.WriteString(escapePatternString(p.prefix))
		if customName {
			b.WriteString(":" + p.name)
		}
		switch {
		case p.typ == partRegexp:
			b.WriteString("(" + p.value + ")")
		case p.typ == partSegmentWildcard && !customName:
			b.WriteString("(" + segmentWildcardRegexp(opts) + ")")
		case p.typ == partFullWildcard:
			if !customName && (prev == nil || prev.typ == partFixed || prev.mod != modNone || needsGrouping || p.prefix != "") {
				b.WriteString("*")
			} else {
				b.WriteString("(" + fullWildcardRegexp + ")")
			}
		}
		if p.typ == partSegmentWildcard && customName && p.suffix != "" {
			if r, _ := utf8.DecodeRuneInString(p.suffix); isNameCodePoint(r, false) {
				b.WriteString("\\")
			}
		}
		b.WriteString(escapePatternString(p.suffix))
		if needsGrouping {
			b.WriteString("}")
		}
		b.WriteString(p.mod.String())
	}
	return b.String()
}

// escapePatternString escapes pattern syntax in fixed text
// (https://urlpattern.spec.whatwg.org/#escape-a-pattern-string).
func escapePatternString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+', '*', '?', ':', '{', '}', '(', ')', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }
