package urlpolicy

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// translateRegexp rewrites the body of a pattern's regexp group, written in
// JavaScript syntax with the "v" flag as the spec compiles it, into RE2
// syntax. It parses the whole body, so a syntax error is reported here with
// a reason, and it refuses what RE2 cannot run: lookahead and lookbehind,
// backreferences, and the "v" flag's class set operations.
//
// Differences that remain cannot show in URL matching: JavaScript's "."
// also stops at \r, U+2028 and U+2029, and its \s and \S know the Unicode
// spaces; canonical URL components never hold those characters unencoded.
func translateRegexp(src string) (string, error) {
	t := &reTranslator{src: src}
	if err := t.disjunction(); err != nil {
		return "", fmt.Errorf("regexp group (%s): %w", src, err)
	}
	if t.pos < len(t.src) {
		return "", fmt.Errorf("regexp group (%s): unmatched %q", src, string(t.src[t.pos]))
	}
	return t.out.String(), nil
}

// reTranslator is a recursive-descent parser over the ASCII regexp source
// (the tokenizer admits only ASCII inside a regexp group) that writes RE2.
type reTranslator struct {
	src   string
	pos   int
	out   strings.Builder
	names map[string]bool
	depth int
}

// maxRegexpNesting bounds group and class nesting, so that a hostile pattern
// cannot exhaust the stack.
const maxRegexpNesting = 100

func (t *reTranslator) peek() byte {
	if t.pos < len(t.src) {
		return t.src[t.pos]
	}
	return 0
}

func (t *reTranslator) eof() bool { return t.pos >= len(t.src) }

func (t *reTranslator) has(prefix string) bool { return strings.HasPrefix(t.src[t.pos:], prefix) }

// disjunction: alternative ("|" alternative)*
func (t *reTranslator) disjunction() error {
	if err := t.alternative(); err != nil {
		return err
	}
	for t.peek() == '|' {
		t.pos++
		t.out.WriteByte('|')
		if err := t.alternative(); err != nil {
			return err
		}
	}
	return nil
}

// alternative: term*, up to "|", ")" or the end.
func (t *reTranslator) alternative() error {
	for !t.eof() && t.peek() != '|' && t.peek() != ')' {
		if err := t.term(); err != nil {
			return err
		}
	}
	return nil
}

// term: an assertion, or an atom with an optional quantifier.
func (t *reTranslator) term() error {
	switch {
	case t.peek() == '^' || t.peek() == '$':
		t.out.WriteByte(t.peek())
		t.pos++
		return t.noQuantifier()
	case t.has(`\b`) || t.has(`\B`):
		t.out.WriteString(t.src[t.pos : t.pos+2])
		t.pos += 2
		return t.noQuantifier()
	case t.has("(?=") || t.has("(?!"):
		return fmt.Errorf("lookahead %q is not supported (Go's RE2 engine has none); match the text itself instead", t.src[t.pos:t.pos+3])
	case t.has("(?<=") || t.has("(?<!"):
		return fmt.Errorf("lookbehind %q is not supported (Go's RE2 engine has none); match the text itself instead", t.src[t.pos:t.pos+4])
	}
	if err := t.atom(); err != nil {
		return err
	}
	return t.quantifier()
}

// noQuantifier fails if an assertion is followed by a quantifier, which
// JavaScript's Unicode modes forbid.
func (t *reTranslator) noQuantifier() error {
	switch t.peek() {
	case '*', '+', '?', '{':
		return fmt.Errorf("quantifier %q follows an assertion and has nothing to repeat", string(t.peek()))
	}
	return nil
}

func (t *reTranslator) quantifier() error {
	switch c := t.peek(); c {
	case '*', '+', '?':
		t.pos++
		t.out.WriteByte(c)
	case '{':
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 0 {
			return fmt.Errorf(`lone "{"; write "\{" for a literal brace`)
		}
		body := t.src[t.pos+1 : t.pos+end]
		lo, hi, hasComma := strings.Cut(body, ",")
		if !isDigits(lo) || (hasComma && hi != "" && !isDigits(hi)) {
			return fmt.Errorf(`invalid quantifier "{%s}"; write "\{" for a literal brace`, body)
		}
		min, err1 := strconv.Atoi(lo)
		max, err2 := min, error(nil)
		if hasComma && hi != "" {
			max, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || min > 1000 || max > 1000 {
			return fmt.Errorf("quantifier {%s}: counts above 1000 are not supported", body)
		}
		if max < min {
			return fmt.Errorf("quantifier {%s} is out of order", body)
		}
		t.out.WriteString(t.src[t.pos : t.pos+end+1])
		t.pos += end + 1
	default:
		return nil
	}
	if t.peek() == '?' {
		t.pos++
		t.out.WriteByte('?')
	}
	switch t.peek() {
	case '*', '+', '?', '{':
		return fmt.Errorf("quantifier %q has nothing to repeat", string(t.peek()))
	}
	return nil
}

func (t *reTranslator) atom() error {
	c := t.peek()
	switch c {
	case '.':
		t.pos++
		t.out.WriteByte('.')
		return nil
	case '(':
		return t.group()
	case '[':
		return t.class()
	case '\\':
		return t.atomEscape()
	case '*', '+', '?':
		return fmt.Errorf("quantifier %q has nothing to repeat", string(c))
	case '{':
		return fmt.Errorf(`lone "{"; write "\{" for a literal brace`)
	case '}', ']':
		return fmt.Errorf("lone %q; write \"\\%c\" for a literal one", string(c), c)
	}
	t.pos++
	t.literal(rune(c))
	return nil
}

// group translates "(...)", "(?:...)", "(?<name>...)" and the modifier
// groups "(?i:...)"; lookarounds were refused by term.
func (t *reTranslator) group() error {
	t.depth++
	defer func() { t.depth-- }()
	if t.depth > maxRegexpNesting {
		return fmt.Errorf("groups nest more than %d deep", maxRegexpNesting)
	}
	t.pos++ // (
	switch {
	case t.has("?:"):
		t.pos += 2
		t.out.WriteString("(?:")
	case t.has("?<"):
		end := strings.IndexByte(t.src[t.pos:], '>')
		if end < 0 {
			return fmt.Errorf("named group is not closed")
		}
		name := t.src[t.pos+2 : t.pos+end]
		if !isRegexpGroupName(name) {
			return fmt.Errorf("invalid group name %q", name)
		}
		if t.names[name] {
			return fmt.Errorf("group name %q is used twice", name)
		}
		if t.names == nil {
			t.names = map[string]bool{}
		}
		t.names[name] = true
		t.pos += end + 1
		// The name is dropped: matching never reads groups, and RE2's
		// name syntax is narrower than JavaScript's.
		t.out.WriteString("(")
	case t.has("?"):
		flags, err := t.modifierFlags()
		if err != nil {
			return err
		}
		t.out.WriteString("(?" + flags + ":")
	default:
		t.out.WriteString("(")
	}
	if err := t.disjunction(); err != nil {
		return err
	}
	if t.peek() != ')' {
		return fmt.Errorf("group is not closed")
	}
	t.pos++
	t.out.WriteByte(')')
	return nil
}

// modifierFlags reads the "?ims-ims:" of a modifier group; RE2 spells it
// the same way.
func (t *reTranslator) modifierFlags() (string, error) {
	end := strings.IndexByte(t.src[t.pos:], ':')
	if end < 0 {
		return "", fmt.Errorf("%q after \"(\" is not a group JavaScript knows", t.src[t.pos:])
	}
	flags := t.src[t.pos+1 : t.pos+end]
	on, off, _ := strings.Cut(flags, "-")
	seen := map[rune]bool{}
	for _, f := range on + off {
		if !strings.ContainsRune("ims", f) || seen[f] {
			return "", fmt.Errorf("invalid group \"(?%s:\"", flags)
		}
		seen[f] = true
	}
	if on+off == "" {
		return "", fmt.Errorf("invalid group \"(?%s:\"", flags)
	}
	t.pos += end + 1
	return flags, nil
}

// atomEscape translates an escape outside a class.
func (t *reTranslator) atomEscape() error {
	if t.pos+1 >= len(t.src) {
		return fmt.Errorf("trailing backslash")
	}
	c := t.src[t.pos+1]
	switch {
	case c >= '1' && c <= '9':
		return fmt.Errorf("backreference \\%c is not supported (Go's RE2 engine has none)", c)
	case c == 'k':
		return fmt.Errorf("named backreference \\k is not supported (Go's RE2 engine has none)")
	case strings.IndexByte("dDwWsS", c) >= 0:
		t.out.WriteString(t.src[t.pos : t.pos+2])
		t.pos += 2
		return nil
	case c == 'p' || c == 'P':
		s, err := t.property()
		if err != nil {
			return err
		}
		t.out.WriteString(s)
		return nil
	}
	r, err := t.characterEscape(false)
	if err != nil {
		return err
	}
	t.literal(r)
	return nil
}

// characterEscape reads "\" and a CharacterEscape and returns the code
// point it stands for. inClass admits the escapes only classes allow.
func (t *reTranslator) characterEscape(inClass bool) (rune, error) {
	c := t.src[t.pos+1]
	t.pos += 2
	switch c {
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'c':
		l := t.peek()
		if !('a' <= l && l <= 'z' || 'A' <= l && l <= 'Z') {
			return 0, fmt.Errorf(`"\c" must be followed by a letter`)
		}
		t.pos++
		return rune(l % 32), nil
	case '0':
		if isASCIIDigit(t.peek()) {
			return 0, fmt.Errorf("octal escapes are not allowed")
		}
		return 0, nil
	case 'x':
		if t.pos+2 > len(t.src) || !isHex(t.src[t.pos:t.pos+2]) {
			return 0, fmt.Errorf(`"\x" must be followed by two hex digits`)
		}
		v, _ := strconv.ParseUint(t.src[t.pos:t.pos+2], 16, 8)
		t.pos += 2
		return rune(v), nil
	case 'u':
		return t.unicodeEscape()
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		return rune(c), nil
	case 'b':
		if inClass {
			return '\b', nil
		}
	case '-':
		if inClass {
			return '-', nil
		}
	case '&', '!', '#', '%', ',', ':', ';', '<', '=', '>', '@', '`', '~':
		if inClass {
			return rune(c), nil
		}
	}
	return 0, fmt.Errorf("invalid escape \"\\%c\"", c)
}

// unicodeEscape reads the rest of \uXXXX (joining a surrogate pair) or \u{X}.
func (t *reTranslator) unicodeEscape() (rune, error) {
	if t.peek() == '{' {
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 2 || !isHex(t.src[t.pos+1:t.pos+end]) {
			return 0, fmt.Errorf(`invalid "\u{...}" escape`)
		}
		v, err := strconv.ParseUint(t.src[t.pos+1:t.pos+end], 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, fmt.Errorf(`"\u{...}" escape is beyond U+10FFFF`)
		}
		t.pos += end + 1
		return surrogateCheck(rune(v))
	}
	hi, ok := t.hex4()
	if !ok {
		return 0, fmt.Errorf(`"\u" must be followed by four hex digits or {...}`)
	}
	if utf16.IsSurrogate(hi) && t.has(`\u`) {
		save := t.pos
		t.pos += 2
		if lo, ok := t.hex4(); ok {
			if r := utf16.DecodeRune(hi, lo); r != unicode.ReplacementChar {
				return r, nil
			}
		}
		t.pos = save
	}
	return surrogateCheck(hi)
}

func (t *reTranslator) hex4() (rune, bool) {
	if t.pos+4 > len(t.src) || !isHex(t.src[t.pos:t.pos+4]) {
		return 0, false
	}
	v, _ := strconv.ParseUint(t.src[t.pos:t.pos+4], 16, 16)
	t.pos += 4
	return rune(v), true
}

func surrogateCheck(r rune) (rune, error) {
	if utf16.IsSurrogate(r) {
		return 0, fmt.Errorf("a lone surrogate U+%04X cannot match text", r)
	}
	return r, nil
}

// property translates \p{...} or \P{...}: RE2 knows general categories and
// scripts by their short names.
func (t *reTranslator) property() (string, error) {
	neg := t.src[t.pos+1] == 'P'
	t.pos += 2
	if t.peek() != '{' {
		return "", fmt.Errorf(`"\p" must be followed by {name}`)
	}
	end := strings.IndexByte(t.src[t.pos:], '}')
	if end < 0 {
		return "", fmt.Errorf(`"\p{" is not closed`)
	}
	name := t.src[t.pos+1 : t.pos+end]
	t.pos += end + 1
	key, value, hasValue := strings.Cut(name, "=")
	if hasValue {
		switch key {
		case "General_Category", "gc", "Script", "sc":
			name = value
		default:
			return "", fmt.Errorf("Unicode property %q is not supported; use a general category or script, such as \\p{L} or \\p{Script=Greek}", name)
		}
	}
	_, isCategory := unicode.Categories[name]
	_, isScript := unicode.Scripts[name]
	if !isCategory && !isScript {
		return "", fmt.Errorf("Unicode property %q is not supported; use a short general category or script name, such as \\p{L} or \\p{Greek}", name)
	}
	if neg {
		return `\P{` + name + `}`, nil
	}
	return `\p{` + name + `}`, nil
}

// class translates a character class. Plain unions, ranges, escapes and
// nested non-negated classes are written as one RE2 class; the "v" flag's
// set operations and string literals are refused.
func (t *reTranslator) class() error {
	var b strings.Builder
	negated, err := t.classBody(&b, 0)
	if err != nil {
		return err
	}
	// RE2 has no empty class: [] matches nothing and [^] any code point.
	switch {
	case b.Len() == 0 && negated:
		t.out.WriteString(`[\x00-\x{10FFFF}]`)
	case b.Len() == 0:
		t.out.WriteString(`[^\x00-\x{10FFFF}]`)
	case negated:
		t.out.WriteString("[^" + b.String() + "]")
	default:
		t.out.WriteString("[" + b.String() + "]")
	}
	return nil
}

// classBody reads "[...]" at t.pos into b (without brackets) and reports
// whether it was negated. Nested classes must not be negated.
func (t *reTranslator) classBody(b *strings.Builder, depth int) (bool, error) {
	if depth > maxRegexpNesting {
		return false, fmt.Errorf("classes nest more than %d deep", maxRegexpNesting)
	}
	t.pos++ // [
	negated := false
	if t.peek() == '^' {
		negated = true
		t.pos++
	}
	for {
		if t.eof() {
			return false, fmt.Errorf("character class is not closed")
		}
		if t.peek() == ']' {
			t.pos++
			return negated, nil
		}
		if t.has("--") || t.has("&&") {
			return false, fmt.Errorf("class set operation %q is not supported", t.src[t.pos:t.pos+2])
		}
		if t.has(`\q{`) {
			return false, fmt.Errorf(`class string literals "\q{...}" are not supported`)
		}
		if t.peek() == '[' {
			var nested strings.Builder
			neg, err := t.classBody(&nested, depth+1)
			if err != nil {
				return false, err
			}
			if neg {
				return false, fmt.Errorf("a negated class inside a class is not supported")
			}
			b.WriteString(nested.String())
			continue
		}
		if t.has(`\`) && t.pos+1 < len(t.src) && strings.IndexByte("dDwWsS", t.src[t.pos+1]) >= 0 {
			b.WriteString(t.src[t.pos : t.pos+2])
			t.pos += 2
			continue
		}
		if t.has(`\p`) || t.has(`\P`) {
			s, err := t.property()
			if err != nil {
				return false, err
			}
			b.WriteString(s)
			continue
		}
		lo, err := t.classChar()
		if err != nil {
			return false, err
		}
		if t.has("--") {
			return false, fmt.Errorf("class set operation \"--\" is not supported")
		}
		if t.peek() == '-' && t.pos+1 < len(t.src) && t.src[t.pos+1] != ']' {
			t.pos++
			if t.peek() == '[' || t.has(`\d`) || t.has(`\w`) || t.has(`\s`) || t.has(`\p`) {
				return false, fmt.Errorf("a range must end in a character")
			}
			hi, err := t.classChar()
			if err != nil {
				return false, err
			}
			if hi < lo {
				return false, fmt.Errorf("range out of order in character class")
			}
			b.WriteString(re2Char(lo) + "-" + re2Char(hi))
			continue
		}
		b.WriteString(re2Char(lo))
	}
}

// classChar reads one character of a class, as the "v" flag's
// ClassSetCharacter: syntax characters must be escaped.
func (t *reTranslator) classChar() (rune, error) {
	c := t.peek()
	if c == '\\' {
		if t.pos+1 >= len(t.src) {
			return 0, fmt.Errorf("trailing backslash")
		}
		return t.characterEscape(true)
	}
	if strings.IndexByte("()[]{}/-|", c) >= 0 {
		return 0, fmt.Errorf("%q must be escaped inside a character class (write \\%c)", string(c), c)
	}
	if t.pos+1 < len(t.src) && t.src[t.pos+1] == c && strings.IndexByte("&!#$%*+,.:;<=>?@^`~", c) >= 0 {
		return 0, fmt.Errorf("%q is reserved inside a character class", t.src[t.pos:t.pos+2])
	}
	t.pos++
	return rune(c), nil
}

// literal writes r as an RE2 literal.
func (t *reTranslator) literal(r rune) { t.out.WriteString(re2Char(r)) }

// re2Char spells r so that RE2 reads it literally, in or out of a class.
func re2Char(r rune) string {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_':
		return string(r)
	case r < 0x80 && strings.ContainsRune(`\.+*?()|[]{}^$-/&~#:!<>=,;@%'"`+"`", r):
		return `\` + string(r)
	}
	return fmt.Sprintf(`\x{%X}`, r)
}

// isRegexpGroupName reports whether s is an ASCII JavaScript identifier, the
// only names an ASCII-only regexp group can hold.
func isRegexpGroupName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alpha := c == '$' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !alpha && !(i > 0 && isASCIIDigit(c)) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIIDigit(s[i]) {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return isASCIIDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
