package css

// Which declarations win. A node cascade is the blocks of one element,
// highest precedence first (the node's own, or an ancestor's for what it
// passes down); an inheritance cascade is the node's cascade followed by
// its ancestors', nearest first. A declaration is active when it is the
// one that sets its property for the node, overloaded when another does.

// state is a declaration's standing in the cascade.
type state int

const (
	stateNone state = iota
	stateActive
	stateOverloaded
)

// nodeCascade is the blocks of one element, highest precedence first.
type nodeCascade struct {
	styles    []*style
	inherited bool
	highlight bool // a highlight pseudo-element's: custom properties do not inherit
}

// states keeps declarations' states in the order they were first set,
// which decides, across cascades, which of two equal candidates wins.
type states struct {
	order []*decl
	of    map[*decl]state
}

func newStates() *states { return &states{of: map[*decl]state{}} }

func (s *states) set(d *decl, st state) {
	if _, ok := s.of[d]; !ok {
		s.order = append(s.order, d)
	}
	s.of[d] = st
}

// compute sets the states of the declarations of c's blocks, from the
// lowest precedence up: a later (higher) declaration overloads an earlier
// one of the same property, unless only the earlier is !important.
func (c *nodeCascade) compute(m *Matched) *states {
	st := newStates()
	active := map[string]*decl{}
	update := func(d *decl, canon string) {
		a := active[canon]
		if a != nil && a.important && !d.important {
			st.set(d, stateOverloaded)
			return
		}
		if a != nil {
			st.set(a, stateOverloaded)
		}
		st.set(d, stateActive)
		active[canon] = d
	}
	for i := len(c.styles) - 1; i >= 0; i-- {
		s := c.styles[i]
		if s.rule != nil && !s.rule.applies() {
			continue
		}
		for _, d := range s.decls {
			if c.inherited {
				if c.highlight {
					if isCustom(d.name) {
						continue
					}
				} else if !m.meta.inherited(d.name) {
					continue
				}
			}
			if s.rng != nil && !d.ranged {
				continue
			}
			if d.inactive {
				st.set(d, stateOverloaded)
				continue
			}
			if c.inherited {
				if inherits, registered := m.registered[d.name]; registered && !inherits {
					st.set(d, stateOverloaded)
					continue
				}
			}
			update(d, m.meta.canonical(d.name))
			for _, l := range d.longhands {
				update(l, l.name)
			}
		}
	}
	return st
}

// inheritance is an element's cascade and its ancestors'.
type inheritance struct {
	cascades []*nodeCascade
}

// styles returns every block, the node's first.
func (h *inheritance) styles() []*style {
	var out []*style
	for _, c := range h.cascades {
		out = append(out, c.styles...)
	}
	return out
}

// compute records in m the state of each declaration of h's blocks: the
// nearest cascade that sets a property wins it; a shorthand none of whose
// longhands won in its own block is overloaded.
func (h *inheritance) compute(m *Matched) {
	active := map[string]*decl{}
	var order []string
	for _, c := range h.cascades {
		st := c.compute(m)
		for _, d := range st.order {
			if st.of[d] == stateOverloaded {
				m.state[d] = stateOverloaded
				continue
			}
			canon := m.meta.canonical(d.name)
			if _, taken := active[canon]; taken {
				m.state[d] = stateOverloaded
				continue
			}
			active[canon] = d
			order = append(order, canon)
			m.state[d] = stateActive
		}
	}
	for _, canon := range order {
		d := active[canon]
		if d == nil || len(d.longhands) == 0 {
			continue
		}
		won := false
		for _, l := range d.longhands {
			if a := active[m.meta.canonical(l.name)]; a != nil && a.style == d.style {
				won = true
				break
			}
		}
		if !won {
			delete(active, canon)
			m.state[d] = stateOverloaded
		}
	}
}
