package heap

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// Names follow DevTools' rules, lengths counted as JavaScript counts them
// (UTF-16 code units), since they bound names and appear in replies.

// edgeName is DevTools' edge name: the index of an element or hidden edge;
// a shortcut's name read as an integer when it starts with one; else the
// name.
func (s *model) edgeName(ei uint32) string {
	switch t := int(s.eType[ei]); t {
	case s.eElement, s.eHidden:
		return strconv.FormatUint(uint64(s.eName[ei]), 10)
	case s.eShortcut:
		name := s.str(s.eName[ei])
		if v, ok := jsParseInt(name); ok {
			return jsfmt.Number(v)
		}
		return name
	}
	return s.str(s.eName[ei])
}

// edgeHasStringName reports whether an edge is named by a string rather
// than an index.
func (s *model) edgeHasStringName(ei uint32) bool {
	switch t := int(s.eType[ei]); t {
	case s.eShortcut:
		_, ok := jsParseInt(s.str(s.eName[ei]))
		return !ok
	case s.eElement, s.eHidden:
		return false
	}
	return true
}

// edgeType returns the edge's type name.
func (s *model) edgeTypeName(ei uint32) string {
	t := int(s.eType[ei])
	if t == s.eInvisible {
		return "invisible"
	}
	return s.h.edgeTypes[t]
}

// nodeTypeName returns the node's type name.
func (s *model) nodeTypeName(o uint32) string { return s.h.nodeTypes[s.nType[o]] }

// isPlainObject reports whether a node is a plain JavaScript object.
func (s *model) isPlainObject(o uint32) bool {
	return int(s.nType[o]) == s.tObject && s.name(o) == "Object"
}

// nodeName is DevTools' name of a node: a concatenated string's text (its
// first 1024 characters or so), a plain object's property names
// ("{a, b, …}"), else its raw name.
func (s *model) nodeName(o uint32) string {
	switch {
	case int(s.nType[o]) == s.tConsString:
		return s.consStringName(o)
	case s.isPlainObject(o):
		return s.plainObjectName(o)
	}
	return s.name(o)
}

func (s *model) consStringName(o uint32) string {
	var b strings.Builder
	length := 0
	stack := []uint32{o}
	for len(stack) > 0 && length < 1024 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if int(s.nType[n]) != s.tConsString {
			part := s.name(n)
			b.WriteString(part)
			length += jsfmt.Length(part)
			continue
		}
		var first, second uint32
		haveFirst, haveSecond := false, false
		for ei := s.firstEdge[n]; ei < s.firstEdge[n+1] && (!haveFirst || !haveSecond); ei++ {
			if int(s.eType[ei]) != s.eInternal {
				continue
			}
			switch s.str(s.eName[ei]) {
			case "first":
				first, haveFirst = s.eTo[ei], s.eTo[ei] != 0
			case "second":
				second, haveSecond = s.eTo[ei], s.eTo[ei] != 0
			}
		}
		// DevTools takes a missing part as node 0.
		stack = append(stack, second, first)
	}
	return b.String()
}

// plainObjectName lists a plain object's properties, alternately from the
// first and the last, within about 100 characters.
func (s *model) plainObjectName(o uint32) string {
	start, end := "{", "}"
	lo, hi := int64(s.firstEdge[o]), int64(s.firstEdge[o+1])-1
	fromEnd := false
	for lo <= hi {
		ei := uint32(lo)
		if fromEnd {
			ei = uint32(hi)
		}
		if int(s.eType[ei]) != s.eProperty || s.edgeName(ei) == "__proto__" {
			if fromEnd {
				hi--
			} else {
				lo++
			}
			continue
		}
		formatted := formatPropertyName(s.edgeName(ei))
		if jsfmt.Length(start) > 1 && jsfmt.Length(start)+jsfmt.Length(end)+jsfmt.Length(formatted) > 100 {
			break
		}
		if fromEnd {
			hi--
			if jsfmt.Length(end) > 1 {
				end = ", " + end
			}
			end = formatted + end
		} else {
			lo++
			if jsfmt.Length(start) > 1 {
				start += ", "
			}
			start += formatted
		}
		fromEnd = !fromEnd
	}
	if lo <= hi {
		start += ", …"
	}
	if jsfmt.Length(end) > 1 {
		start += ", "
	}
	return start + end
}

var propertyNeedsQuotes = regexp.MustCompile(`[,'"{}]`)

// formatPropertyName quotes a property name that holds a comma, a quote
// or a brace, as JSON.
func formatPropertyName(name string) string {
	if !propertyNeedsQuotes.MatchString(name) {
		return name
	}
	return jsfmt.Quote(name)
}

// calculateObjectNames gives each node its class: its name for objects
// and native nodes (an HTML tag only: "<div>" of "<div class=x>"), a
// category for the rest ("(system)", "(compiled code)", "Function",
// "RegExp", "(string)", ...).
func (s builder) calculateObjectNames() {
	hidden := s.indexForString("(system)")
	code := s.indexForString("(compiled code)")
	function := s.indexForString("Function")
	regExp := s.indexForString("RegExp")
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		var c uint32
		switch t := int(s.nType[o]); t {
		case s.tHidden:
			c = hidden
		case s.tObject, s.tNative:
			name := s.name(o)
			switch {
			case strings.HasPrefix(name, "<"):
				if i := strings.IndexByte(name, ' '); i >= 0 {
					name = name[:i] + ">"
				}
				c = s.indexForString(name)
			case strings.HasPrefix(name, "Detached <"):
				if i := strings.IndexByte(name[10:], ' '); i >= 0 {
					name = name[:10+i] + ">"
				}
				c = s.indexForString(name)
			default:
				c = s.nName[o]
			}
		case s.tCode:
			c = code
		case s.tClosure:
			c = function
		case s.tRegExp:
			c = regExp
		default:
			c = s.indexForString("(" + s.h.nodeTypes[t] + ")")
		}
		s.setClassIdx(o, c)
	}
}

// Plain objects are classed by the shape most of them share, as DevTools
// does: the property lists that at least two objects, and one in a
// thousand plain objects, have become interfaces named "{a, b}", and each
// plain object takes the interface with the most properties among those
// whose properties it has (the first inferred on a tie).
const (
	minInterfacePropertyCount = 1
	maxInterfaceNameLength    = 120
	minObjectsPerInterface    = 2
	minObjectProportion       = 1000
)

// interfaceDef is an inferred interface.
type interfaceDef struct {
	Name       string   `json:"name"`
	Properties []string `json:"properties"`
	Count      int      `json:"count"`
}

// inferInterfaceDefinitions finds the common plain-object shapes.
func (s builder) inferInterfaceDefinitions() []interfaceDef {
	type candidate struct {
		def   interfaceDef
		order int
	}
	candidates := map[string]*candidate{}
	var ordered []*candidate
	total := 0
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		if !s.isPlainObject(o) {
			continue
		}
		total++
		name := "{"
		nameLen := 1
		var props []string
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			en := s.edgeName(ei)
			if int(s.eType[ei]) != s.eProperty || en == "__proto__" {
				continue
			}
			f := formatPropertyName(en)
			fl := jsfmt.Length(f)
			if nameLen > minInterfacePropertyCount && nameLen+fl > maxInterfaceNameLength {
				break
			}
			if nameLen != 1 {
				name += ", "
				nameLen += 2
			}
			name += f
			nameLen += fl
			props = append(props, en)
		}
		if len(props) == 0 {
			continue
		}
		name += "}"
		if c := candidates[name]; c != nil {
			c.def.Count++
		} else {
			c := &candidate{def: interfaceDef{Name: name, Properties: props, Count: 1}, order: len(ordered)}
			candidates[name] = c
			ordered = append(ordered, c)
		}
	}
	slices.SortStableFunc(ordered, func(a, b *candidate) int { return b.def.Count - a.def.Count })
	minCount := max(float64(minObjectsPerInterface), float64(total)/minObjectProportion)
	var out []interfaceDef
	for _, c := range ordered {
		if float64(c.def.Count) < minCount {
			break
		}
		out = append(out, c.def)
	}
	return out
}

func (s builder) applyInterfaceDefinitionsInferred() {
	s.applyInterfaceDefinitions(s.inferInterfaceDefinitions())
}

// propertyTrie is a trie of sorted property lists.
type propertyTrie struct {
	next     map[string]*propertyTrie
	greatest string // the greatest key of next
	has      bool   // next is not empty
	match    *interfaceMatch
}

type interfaceMatch struct {
	name          string
	propertyCount int
	index         int
}

// better returns the better of two matches: more properties, then the
// earlier definition.
func better(a, b *interfaceMatch) *interfaceMatch {
	if b == nil || a.propertyCount > b.propertyCount {
		return a
	}
	if b.propertyCount > a.propertyCount {
		return b
	}
	if a.index <= b.index {
		return a
	}
	return b
}

// applyInterfaceDefinitions classes every plain object by defs. It drops
// the cached aggregates, which depend on the classes. the query lock is held (see begin), or the
// snapshot is being built.
func (s *Snapshot) applyInterfaceDefinitions(defs []interfaceDef) {
	s.interfaceDefs = defs
	s.aggregates = nil
	s.allSortedByID = false
	if s.interfaceNames == nil {
		s.interfaceNames = map[string]uint32{}
	}
	root := &propertyTrie{next: map[string]*propertyTrie{}}
	for i, d := range defs {
		props := slices.Clone(d.Properties)
		slices.SortFunc(props, jsfmt.Compare)
		cur := root
		for _, p := range props {
			nx := cur.next[p]
			if nx == nil {
				nx = &propertyTrie{next: map[string]*propertyTrie{}}
				cur.next[p] = nx
				if !cur.has || jsfmt.Less(cur.greatest, p) {
					cur.greatest, cur.has = p, true
				}
			}
			cur = nx
		}
		if cur.match == nil {
			cur.match = &interfaceMatch{name: d.Name, propertyCount: len(props), index: i}
		}
	}
	initial := &interfaceMatch{name: "Object", index: math.MaxInt}
	var props []string
	var states, snapshot []*propertyTrie
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		if !s.isPlainObject(o) {
			continue
		}
		props = props[:0]
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			if int(s.eType[ei]) == s.eProperty {
				props = append(props, s.edgeName(ei))
			}
		}
		slices.SortFunc(props, jsfmt.Compare)
		states = append(states[:0], root)
		match := better(initial, root.match)
		for _, p := range props {
			snapshot = append(snapshot[:0], states...)
			for _, st := range snapshot {
				if !st.has || !jsfmt.Less(p, st.greatest) {
					states = removeState(states, st)
				}
				if nx := st.next[p]; nx != nil {
					if !slices.Contains(states, nx) {
						states = append(states, nx)
					}
					if nx.match != nil {
						match = better(match, nx.match)
					}
				}
			}
			if len(states) == 0 {
				break
			}
		}
		var c uint32
		if match == initial {
			c = s.nName[o]
		} else {
			idx, ok := s.interfaceNames[match.name]
			if !ok {
				idx = s.addString(match.name)
				s.interfaceNames[match.name] = idx
			}
			c = idx
		}
		s.setClassIdx(o, c)
	}
}

func removeState(states []*propertyTrie, st *propertyTrie) []*propertyTrie {
	if i := slices.Index(states, st); i >= 0 {
		return slices.Delete(states, i, i+1)
	}
	return states
}
