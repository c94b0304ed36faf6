package urlpolicy

import (
	"fmt"
	"unicode"
)

// tokenType is the kind of a [token], as the spec's tokenizer names them
// (https://urlpattern.spec.whatwg.org/#tokens).
type tokenType uint8

const (
	tokInvalidChar   tokenType = iota // a code point the syntax does not allow here
	tokOpen                           // {
	tokClose                          // }
	tokRegexp                         // (regexp); value is the text between the parentheses
	tokName                           // :name; value is the name
	tokChar                           // a plain code point
	tokEscapedChar                    // \c; value is c
	tokOtherModifier                  // ? or +
	tokAsterisk                       // *
	tokEnd                            // end of input
)

// token is one lexical token of a pattern string. index counts code points,
// not bytes, like the spec's.
type token struct {
	typ   tokenType
	index int
	value string
}

// tokenizer holds the state of the spec's tokenize algorithm.
type tokenizer struct {
	input     []rune
	lenient   bool
	tokens    []token
	index     int
	nextIndex int
	cp        rune
}

// tokenize splits a pattern string into tokens. In strict mode the first
// error is returned; in lenient mode (used by the constructor string parser)
// offending code points become invalid-char tokens and tokenize never fails.
func tokenize(input []rune, lenient bool) ([]token, error) {
	t := &tokenizer{input: input, lenient: lenient, tokens: make([]token, 0, len(input)+1)}
	for t.index < len(t.input) {
		t.seek(t.index)
		switch t.cp {
		case '*':
			t.addDefault(tokAsterisk)
		case '+', '?':
			t.addDefault(tokOtherModifier)
		case '\\':
			if t.index == len(t.input)-1 {
				if err := t.fail(t.nextIndex, t.index, "a pattern cannot end with a lone backslash"); err != nil {
					return nil, err
				}
				continue
			}
			escapedIndex := t.nextIndex
			t.next()
			t.addWithLength(tokEscapedChar, t.nextIndex, escapedIndex)
		case '{':
			t.addDefault(tokOpen)
		case '}':
			t.addDefault(tokClose)
		case ':':
			if err := t.name(); err != nil {
				return nil, err
			}
		case '(':
			if err := t.regexp(); err != nil {
				return nil, err
			}
		default:
			t.addDefault(tokChar)
		}
	}
	t.addWithLength(tokEnd, t.index, t.index)
	return t.tokens, nil
}

// name tokenizes ":name".
func (t *tokenizer) name() error {
	namePos := t.nextIndex
	nameStart := namePos
	for namePos < len(t.input) {
		t.seek(namePos)
		if !isNameCodePoint(t.cp, namePos == nameStart) {
			break
		}
		namePos = t.nextIndex
	}
	if namePos <= nameStart {
		return t.fail(nameStart, t.index, `":" must be followed by a group name; write "\:" for a literal colon`)
	}
	t.addWithLength(tokName, namePos, nameStart)
	return nil
}

// regexp tokenizes "(regexp)". Like the spec, it only checks what it must to
// find the closing parenthesis: ASCII only, no leading "?", and nested groups
// must be non-capturing or other "(?" forms.
func (t *tokenizer) regexp() error {
	depth := 1
	regexpPos := t.nextIndex
	regexpStart := regexpPos
	for regexpPos < len(t.input) {
		t.seek(regexpPos)
		if t.cp > unicode.MaxASCII {
			return t.fail(regexpStart, t.index, "a regexp group may only contain ASCII characters")
		}
		if regexpPos == regexpStart && t.cp == '?' {
			return t.fail(regexpStart, t.index, `a regexp group cannot start with "?"`)
		}
		if t.cp == '\\' {
			if regexpPos == len(t.input)-1 {
				return t.fail(regexpStart, t.index, "a regexp group is not closed")
			}
			t.next()
			if t.cp > unicode.MaxASCII {
				return t.fail(regexpStart, t.index, "a regexp group may only contain ASCII characters")
			}
			regexpPos = t.nextIndex
			continue
		}
		if t.cp == ')' {
			depth--
			if depth == 0 {
				regexpPos = t.nextIndex
				break
			}
		} else if t.cp == '(' {
			depth++
			if regexpPos == len(t.input)-1 {
				return t.fail(regexpStart, t.index, "a regexp group is not closed")
			}
			tmp := t.nextIndex
			t.next()
			if t.cp != '?' {
				return t.fail(regexpStart, t.index, `a group inside a regexp group must be non-capturing, like "(?:...)"`)
			}
			t.nextIndex = tmp
		}
		regexpPos = t.nextIndex
	}
	if depth != 0 {
		return t.fail(regexpStart, t.index, "a regexp group is not closed")
	}
	regexpLength := regexpPos - regexpStart - 1
	if regexpLength == 0 {
		return t.fail(regexpStart, t.index, `a regexp group cannot be empty; write "{}" for an empty group`)
	}
	t.add(tokRegexp, regexpPos, regexpStart, regexpLength)
	return nil
}

// seek reads the code point at index.
func (t *tokenizer) seek(index int) {
	t.nextIndex = index
	t.next()
}

// next reads the code point at nextIndex and advances it.
func (t *tokenizer) next() {
	t.cp = t.input[t.nextIndex]
	t.nextIndex++
}

func (t *tokenizer) add(typ tokenType, nextPos, valuePos, valueLen int) {
	t.tokens = append(t.tokens, token{typ: typ, index: t.index, value: string(t.input[valuePos : valuePos+valueLen])})
	t.index = nextPos
}

func (t *tokenizer) addWithLength(typ tokenType, nextPos, valuePos int) {
	t.add(typ, nextPos, valuePos, nextPos-valuePos)
}

func (t *tokenizer) addDefault(typ tokenType) {
	t.addWithLength(typ, t.nextIndex, t.index)
}

// fail processes a tokenizing error: in strict mode it returns the error, in
// lenient mode it records an invalid-char token and returns nil.
func (t *tokenizer) fail(nextPos, valuePos int, reason string) error {
	if !t.lenient {
		return fmt.Errorf("at character %d: %s", t.index+1, reason)
	}
	t.addWithLength(tokInvalidChar, nextPos, valuePos)
	return nil
}

// isNameCodePoint reports whether r may appear in a group name: JavaScript's
// IdentifierStart (first) or IdentifierPart.
func isNameCodePoint(r rune, first bool) bool {
	if r == '$' || r == '_' {
		return true
	}
	if unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r) {
		return true
	}
	if first {
		return false
	}
	return r == '\u200C' || r == '\u200D' ||
		unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}
