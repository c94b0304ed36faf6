package urlpolicy

// Component indexes, in URL order.
const (
	compProtocol = iota
	compUsername
	compPassword
	compHostname
	compPort
	compPathname
	compSearch
	compHash
	numComponents
)

// componentName returns the URLPattern name of component i.
func componentName(i int) string {
	return [numComponents]string{"protocol", "username", "password", "hostname", "port", "pathname", "search", "hash"}[i]
}

// ctorState is a state of the constructor string parser.
type ctorState uint8

const (
	stInit ctorState = iota
	stProtocol
	stAuthority
	stUsername
	stPassword
	stHostname
	stPort
	stPathname
	stSearch
	stHash
	stDone
)

// component returns the component a state collects, or -1.
func (s ctorState) component() int {
	switch s {
	case stProtocol:
		return compProtocol
	case stUsername:
		return compUsername
	case stPassword:
		return compPassword
	case stHostname:
		return compHostname
	case stPort:
		return compPort
	case stPathname:
		return compPathname
	case stSearch:
		return compSearch
	case stHash:
		return compHash
	}
	return -1
}

// ctorInit is the URLPatternInit a constructor string yields: which
// components it gave, and their pattern strings.
type ctorInit struct {
	value [numComponents]string
	has   [numComponents]bool
}

func (in *ctorInit) set(i int, v string) { in.value[i], in.has[i] = v, true }

// ctorParser holds the state of the spec's constructor string parser
// (https://urlpattern.spec.whatwg.org/#constructor-string-parsing).
type ctorParser struct {
	input                  []rune
	tokens                 []token
	result                 ctorInit
	componentStart         int
	tokenIndex             int
	tokenIncrement         int
	groupDepth             int
	ipv6BracketDepth       int
	protocolMatchesSpecial bool
	state                  ctorState
}

// parseConstructorString splits a pattern such as
// "https://*.example.com/*" into its components.
func parseConstructorString(input string) (ctorInit, error) {
	runes := []rune(input)
	tokens, _ := tokenize(runes, true) // lenient: never fails
	p := &ctorParser{input: runes, tokens: tokens, tokenIncrement: 1}
	for p.tokenIndex < len(p.tokens) {
		p.tokenIncrement = 1
		if p.tokens[p.tokenIndex].typ == tokEnd {
			if p.state == stInit {
				// No protocol: a relative pattern. The caller refuses it,
				// as there is no base URL, but it is parsed like the spec.
				p.rewind()
				switch {
				case p.isHashPrefix():
					p.changeState(stHash, 1)
				case p.isSearchPrefix():
					p.changeState(stSearch, 1)
				default:
					p.changeState(stPathname, 0)
				}
				p.tokenIndex += p.tokenIncrement
				continue
			}
			if p.state == stAuthority {
				p.rewindAndSetState(stHostname)
				p.tokenIndex += p.tokenIncrement
				continue
			}
			p.changeState(stDone, 0)
			break
		}
		if p.tokens[p.tokenIndex].typ == tokOpen {
			p.groupDepth++
			p.tokenIndex += p.tokenIncrement
			continue
		}
		if p.groupDepth > 0 {
			if p.tokens[p.tokenIndex].typ == tokClose {
				p.groupDepth--
			} else {
				p.tokenIndex += p.tokenIncrement
				continue
			}
		}
		if err := p.step(); err != nil {
			return ctorInit{}, err
		}
		p.tokenIndex += p.tokenIncrement
	}
	if p.result.has[compHostname] && !p.result.has[compPort] {
		// A pattern that names a host means its default port: "https://*"
		// is any HTTPS origin on port 443.
		p.result.set(compPort, "")
	}
	return p.result, nil
}

// step runs the current state's steps for the token at tokenIndex.
func (p *ctorParser) step() error {
	switch p.state {
	case stInit:
		if p.isNonSpecialPatternChar(p.tokenIndex, ":") {
			p.rewindAndSetState(stProtocol)
		}
	case stProtocol:
		if p.isNonSpecialPatternChar(p.tokenIndex, ":") {
			if err := p.computeProtocolMatchesSpecial(); err != nil {
				return err
			}
			next, skip := stPathname, 1
			if p.isNonSpecialPatternChar(p.tokenIndex+1, "/") && p.isNonSpecialPatternChar(p.tokenIndex+2, "/") {
				next, skip = stAuthority, 3
			} else if p.protocolMatchesSpecial {
				next = stAuthority
			}
			p.changeState(next, skip)
		}
	case stAuthority:
		if p.isNonSpecialPatternChar(p.tokenIndex, "@") {
			p.rewindAndSetState(stUsername)
		} else if p.isNonSpecialPatternChar(p.tokenIndex, "/") || p.isSearchPrefix() || p.isHashPrefix() {
			p.rewindAndSetState(stHostname)
		}
	case stUsername:
		if p.isNonSpecialPatternChar(p.tokenIndex, ":") {
			p.changeState(stPassword, 1)
		} else if p.isNonSpecialPatternChar(p.tokenIndex, "@") {
			p.changeState(stHostname, 1)
		}
	case stPassword:
		if p.isNonSpecialPatternChar(p.tokenIndex, "@") {
			p.changeState(stHostname, 1)
		}
	case stHostname:
		switch {
		case p.isNonSpecialPatternChar(p.tokenIndex, "["):
			p.ipv6BracketDepth++
		case p.isNonSpecialPatternChar(p.tokenIndex, "]"):
			p.ipv6BracketDepth--
		case p.isNonSpecialPatternChar(p.tokenIndex, ":") && p.ipv6BracketDepth == 0:
			p.changeState(stPort, 1)
		default:
			p.leaveHost()
		}
	case stPort:
		p.leaveHost()
	case stPathname:
		if p.isSearchPrefix() {
			p.changeState(stSearch, 1)
		} else if p.isHashPrefix() {
			p.changeState(stHash, 1)
		}
	case stSearch:
		if p.isHashPrefix() {
			p.changeState(stHash, 1)
		}
	}
	return nil
}

// changeState is the spec's "change state": it stores the component just
// read and defaults the components a later one implies are empty.
func (p *ctorParser) changeState(next ctorState, skip int) {
	if c := p.state.component(); c >= 0 {
		p.result.set(c, p.makeComponentString())
	}
	if p.state != stInit && next != stDone {
		early := p.state == stProtocol || p.state == stAuthority || p.state == stUsername || p.state == stPassword
		if early && (next == stPort || next == stPathname || next == stSearch || next == stHash) && !p.result.has[compHostname] {
			p.result.set(compHostname, "")
		}
		early = early || p.state == stHostname || p.state == stPort
		if early && (next == stSearch || next == stHash) && !p.result.has[compPathname] {
			if p.protocolMatchesSpecial {
				p.result.set(compPathname, "/")
			} else {
				p.result.set(compPathname, "")
			}
		}
		early = early || p.state == stPathname
		if early && next == stHash && !p.result.has[compSearch] {
			p.result.set(compSearch, "")
		}
	}
	p.state = next
	p.tokenIndex += skip
	p.componentStart = p.tokenIndex
	p.tokenIncrement = 0
}

func (p *ctorParser) rewind() {
	p.tokenIndex = p.componentStart
	p.tokenIncrement = 0
}

func (p *ctorParser) rewindAndSetState(s ctorState) {
	p.rewind()
	p.state = s
}

// safeToken returns the token at index, or the end token past the list.
func (p *ctorParser) safeToken(index int) token {
	if index < len(p.tokens) {
		return p.tokens[index]
	}
	return p.tokens[len(p.tokens)-1]
}

func (p *ctorParser) isNonSpecialPatternChar(index int, value string) bool {
	t := p.safeToken(index)
	if t.value != value {
		return false
	}
	return t.typ == tokChar || t.typ == tokEscapedChar || t.typ == tokInvalidChar
}

func (p *ctorParser) isSearchPrefix() bool {
	if p.isNonSpecialPatternChar(p.tokenIndex, "?") {
		return true
	}
	if p.tokens[p.tokenIndex].value != "?" {
		return false
	}
	if p.tokenIndex == 0 {
		return true
	}
	switch p.safeToken(p.tokenIndex - 1).typ {
	case tokName, tokRegexp, tokClose, tokAsterisk:
		return false
	}
	return true
}

// leaveHost moves on from the hostname or port to the pathname, search or
// hash that the token starts, if it starts one.
func (p *ctorParser) leaveHost() {
	switch {
	case p.isNonSpecialPatternChar(p.tokenIndex, "/"):
		p.changeState(stPathname, 0)
	case p.isSearchPrefix():
		p.changeState(stSearch, 1)
	case p.isHashPrefix():
		p.changeState(stHash, 1)
	}
}

func (p *ctorParser) isHashPrefix() bool { return p.isNonSpecialPatternChar(p.tokenIndex, "#") }

func (p *ctorParser) makeComponentString() string {
	end := p.tokens[p.tokenIndex].index
	start := p.safeToken(p.componentStart).index
	return string(p.input[start:end])
}

// computeProtocolMatchesSpecial compiles the protocol read so far and
// records whether it can match a special scheme.
func (p *ctorParser) computeProtocolMatchesSpecial() error {
	c, err := compileComponent(p.makeComponentString(), canonProtocol, defaultOptions)
	if err != nil {
		return err
	}
	p.protocolMatchesSpecial = c.matchesSpecialScheme()
	return nil
}
