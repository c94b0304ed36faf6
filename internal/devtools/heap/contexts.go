package heap

import (
	"context"
	"slices"
	"strings"
)

// The context analysis finds closure contexts that hold "dead" captured
// variables: variables that no closure still alive can read, so that what
// they hold is kept for nothing. It needs the scope tables newer V8
// versions write into snapshots (scopes, scope_context_vars, scope_uses);
// scripts without them are listed apart.

// DeadField is a captured variable no live closure reads.
type DeadField struct {
	Name         string
	ValueNodeID  uint32
	ValueName    string
	ValueType    string
	SelfSize     float64
	RetainedSize float64
}

// DeadContext is a context with dead fields.
type DeadContext struct {
	ContextNodeID uint32
	contextOrd    uint32
	RetainedSize  float64
	// DeadFieldsRetainedSize is the sum of the dead fields' retained
	// sizes: the ranking score.
	DeadFieldsRetainedSize float64
	DeadFields             []DeadField // by retained size, largest first
}

// Scope is a scope whose contexts have dead fields.
type Scope struct {
	ScopeInfoNodeID   uint32
	ScriptNodeID      uint32
	ScriptName        string
	ScopeName         string // the function's name, if known
	ScopeStart        float64
	ScopeEnd          float64
	ContextFieldCount int
	Contexts          []DeadContext // best first
	scopeInfoOrd      uint32
}

// ScriptWithoutScopes is a script whose contexts could not be analysed.
type ScriptWithoutScopes struct {
	ScriptNodeID uint32
	ScriptName   string
	ContextCount int
	scriptOrd    uint32
}

// ContextAnalysis is the result of AnalyzeContexts.
type ContextAnalysis struct {
	Scopes               []Scope
	ScriptsWithoutScopes []ScriptWithoutScopes
}

type embeddedScope struct {
	scopeID   int64
	parent    *embeddedScope
	variables []*scopeVariable
}

type scopeVariable struct {
	name string
	uses []*embeddedScope
}

// AnalyzeContexts ranks the closure contexts that hold dead captured
// variables.
func (s *Snapshot) AnalyzeContexts(ctx context.Context) (_ ContextAnalysis, err error) {
	if err := s.begin(ctx); err != nil {
		return ContextAnalysis{}, err
	}
	defer s.end(&err)
	a := contextAnalysis{s}
	scopes := a.embeddedScopes()
	sc := a.scanContexts()
	live := a.liveFunctions(sc)
	correlated, without := a.correlate(sc, scopes)
	analyses := a.classifyFields(correlated, live)
	return sortAnalysis(analyses, without), nil
}

// contextAnalysis holds the steps of AnalyzeContexts, under its lock.
type contextAnalysis struct{ *Snapshot }

// embeddedScopes reads the scope tables: per script node ordinal, its
// scopes by scope id.
func (s contextAnalysis) embeddedScopes() map[uint32]map[int64]*embeddedScope {
	out := map[uint32]map[int64]*embeddedScope{}
	h := s.h
	stride := len(h.scopeFields)
	if stride == 0 {
		return out
	}
	varStride, useStride := len(h.scopeVarFields), len(h.scopeUseFields)
	f := func(l []string, name string) int { return slices.Index(l, name) }
	scriptOff, idOff, depthOff := f(h.scopeFields, "script_node_index"), f(h.scopeFields, "scope_id"), f(h.scopeFields, "depth")
	varsOff, usesOff := f(h.scopeFields, "scope_context_vars_count"), f(h.scopeFields, "scope_uses_count")
	nameOff := f(h.scopeVarFields, "name")
	declOff, slotOff := f(h.scopeUseFields, "declaring_scope_id"), f(h.scopeUseFields, "slot_index")
	if scriptOff < 0 || idOff < 0 || depthOff < 0 || varsOff < 0 || usesOff < 0 {
		return out
	}
	at := func(l []int64, i int) (int64, bool) {
		if i < 0 || i >= len(l) {
			return 0, false
		}
		return l[i], true
	}
	raw := s.rawScopes
	nf := int64(s.nodeFieldCount)
	scriptOrd := func(v int64) (uint32, bool) {
		if v < 0 || v%nf != 0 || v/nf >= int64(s.nodeCount) {
			return 0, false
		}
		return uint32(v / nf), true
	}
	varOff := 0
	var stack []*embeddedScope
	current := int64(-1)
	for i := 0; i+stride <= len(raw); i += stride {
		script, id, depth, nvars := raw[i+scriptOff], raw[i+idOff], raw[i+depthOff], raw[i+varsOff]
		sc := &embeddedScope{scopeID: id}
		for j := int64(0); j < nvars; j++ {
			name := ""
			if v, ok := at(s.rawScopeVars, varOff+int(j)*varStride+nameOff); ok && nameOff >= 0 && v >= 0 && v < int64(s.stringCount()) {
				name = s.str(uint32(v))
			}
			sc.variables = append(sc.variables, &scopeVariable{name: name})
		}
		varOff += int(nvars) * varStride
		if script != current {
			current = script
			stack = stack[:0]
		}
		if depth > 0 && int(depth-1) < len(stack) {
			sc.parent = stack[depth-1]
		}
		if depth >= 0 && int(depth) <= len(stack) {
			stack = append(stack[:depth], sc)
		}
		o, ok := scriptOrd(script)
		if !ok {
			continue
		}
		m := out[o]
		if m == nil {
			m = map[int64]*embeddedScope{}
			out[o] = m
		}
		m[id] = sc
	}
	useOff := 0
	for i := 0; i+stride <= len(raw); i += stride {
		script, id, nuses := raw[i+scriptOff], raw[i+idOff], raw[i+usesOff]
		o, ok := scriptOrd(script)
		var sc *embeddedScope
		if ok {
			sc = out[o][id]
		}
		if sc != nil {
			for j := int64(0); j < nuses; j++ {
				decl, ok1 := at(s.rawScopeUses, useOff+int(j)*useStride+declOff)
				slot, ok2 := at(s.rawScopeUses, useOff+int(j)*useStride+slotOff)
				if !ok1 || !ok2 || declOff < 0 || slotOff < 0 {
					continue
				}
				d := out[o][decl]
				if d == nil || slot < 0 || slot >= int64(len(d.variables)) {
					continue
				}
				v := d.variables[slot]
				if !slices.Contains(v.uses, sc) {
					v.uses = append(v.uses, sc)
				}
			}
		}
		useOff += int(nuses) * useStride
	}
	return out
}

type scriptInfo struct {
	name   string
	nodeID uint32
}

type contextNode struct {
	ord, scopeInfo uint32
}

type liveClosure struct {
	owner, context, script uint32
	scopeID                float64
}

type contextScan struct {
	scripts             map[uint32]scriptInfo
	contexts            []contextNode
	closures            []liveClosure
	finishedModuleFuncs map[uint32]bool
	scopeInfoScript     map[uint32]*uint32 // nil value: known to have no script
}

// scanContexts finds scripts (and the scope infos each declares),
// contexts, live closures and suspended generators.
func (s contextAnalysis) scanContexts() *contextScan {
	sc := &contextScan{scripts: map[uint32]scriptInfo{}, finishedModuleFuncs: map[uint32]bool{}, scopeInfoScript: map[uint32]*uint32{}}
	generatorMaps := map[uint32]bool{}
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		s.tick()
		name := s.name(o)
		switch {
		case strings.HasPrefix(name, "system / Script"):
			s.processScript(sc, o)
			s.processScriptScopeInfos(sc, o)
		case s.isContextObject(o):
			if si, ok := s.internalTarget(o, "scope_info"); ok {
				sc.contexts = append(sc.contexts, contextNode{o, si})
			}
		case int(s.nType[o]) == s.tClosure:
			shared, ok1 := s.internalTarget(o, "shared")
			ctx, ok2 := s.internalTarget(o, "context")
			if ok1 && ok2 {
				s.addLiveClosure(sc, o, shared, ctx)
			}
		case s.isGenerator(generatorMaps, o):
			s.processGenerator(sc, o)
		}
	}
	return sc
}

func (s contextAnalysis) processScript(sc *contextScan, o uint32) {
	const prefix = "system / Script / "
	name := ""
	if raw := s.name(o); strings.HasPrefix(raw, prefix) {
		name = raw[len(prefix):]
	}
	if name == "" {
		if u, ok := s.internalTarget(o, "source_url"); ok {
			name = s.nodeName(u)
		}
	}
	sc.scripts[o] = scriptInfo{name: name, nodeID: s.nID[o]}
}

func (s contextAnalysis) processScriptScopeInfos(sc *contextScan, script uint32) {
	infos, ok := s.internalTarget(script, "infos")
	if !ok {
		return
	}
	stop := int64(-1)
	if e, ok := s.internalTarget(script, "eval_from_scope_info"); ok && s.name(e) == "system / ScopeInfo" {
		stop = int64(e)
	}
	for ei := s.firstEdge[infos]; ei < s.firstEdge[infos+1]; ei++ {
		info := s.eTo[ei]
		name := s.name(info)
		if name == "system / ScopeInfo" {
			s.attributeScopeInfoChain(sc, info, stop, script)
			continue
		}
		if !strings.HasPrefix(name, "system / SharedFunctionInfo") {
			continue
		}
		if si, ok := s.internalTarget(info, "name_or_scope_info"); ok && s.name(si) == "system / ScopeInfo" {
			s.attributeScopeInfoChain(sc, si, stop, script)
			continue
		}
		id := s.scopeID(info)
		if !id.ok || id.v == -2 {
			continue
		}
		if outer, ok := s.internalTarget(info, "raw_outer_scope_info_or_feedback_metadata"); ok && s.name(outer) == "system / ScopeInfo" {
			s.attributeScopeInfoChain(sc, outer, stop, script)
		}
	}
}

func (s contextAnalysis) scopeID(o uint32) intOrNone {
	if t, ok := s.internalTarget(o, "scope_id"); ok {
		return s.intValue(t)
	}
	return intOrNone{}
}

func (s contextAnalysis) isScriptRootScopeInfo(o uint32) bool {
	id := s.scopeID(o)
	return id.ok && id.v == -2
}

func (s contextAnalysis) attributeScopeInfoChain(sc *contextScan, info uint32, stop int64, script uint32) {
	for cur := info; ; {
		if int64(cur) == stop {
			return
		}
		if _, ok := sc.scopeInfoScript[cur]; ok {
			return
		}
		v := script
		sc.scopeInfoScript[cur] = &v
		outer, ok := s.outerScopeInfo(cur)
		if !ok {
			return
		}
		cur = outer
	}
}

func (s contextAnalysis) addLiveClosure(sc *contextScan, owner, shared, ctx uint32) {
	script, ok := s.internalTarget(shared, "script")
	if !ok {
		return
	}
	if id := s.scopeID(shared); id.ok {
		sc.closures = append(sc.closures, liveClosure{owner: owner, context: ctx, script: script, scopeID: id.v})
	}
}

var generatorTypes = map[string]bool{
	"JS_GENERATOR_OBJECT_TYPE":       true,
	"JS_ASYNC_FUNCTION_OBJECT_TYPE":  true,
	"JS_ASYNC_GENERATOR_OBJECT_TYPE": true,
}

func (s contextAnalysis) isGenerator(cache map[uint32]bool, o uint32) bool {
	if int(s.nType[o]) != s.tObject {
		return false
	}
	m, ok := s.internalTarget(o, "map")
	if !ok {
		return false
	}
	is, ok := cache[m]
	if !ok {
		if t, ok := s.internalTarget(m, "instance_type_name"); ok {
			is = generatorTypes[s.name(t)]
		}
		cache[m] = is
	}
	return is
}

func (s contextAnalysis) processGenerator(sc *contextScan, o uint32) {
	var cont intOrNone
	if t, ok := s.internalTarget(o, "continuation"); ok {
		cont = s.intValue(t)
	}
	fn, ok := s.internalTarget(o, "function")
	if !cont.ok || !ok || int(s.nType[fn]) != s.tClosure {
		return
	}
	shared, ok := s.internalTarget(fn, "shared")
	if !ok {
		return
	}
	if cont.v == -1 { // closed
		if id := s.scopeID(shared); id.ok && id.v == -2 {
			sc.finishedModuleFuncs[fn] = true
		}
		return
	}
	if ctx, ok := s.internalTarget(o, "context"); ok {
		s.addLiveClosure(sc, o, shared, ctx)
	}
}

// liveFunctions maps, per script, each live function's scope id to the
// contexts its closures can reach (their context chains).
func (s contextAnalysis) liveFunctions(sc *contextScan) map[uint32]map[float64]map[uint32]bool {
	out := map[uint32]map[float64]map[uint32]bool{}
	for _, c := range sc.closures {
		if sc.finishedModuleFuncs[c.owner] {
			continue
		}
		fns := out[c.script]
		if fns == nil {
			fns = map[float64]map[uint32]bool{}
			out[c.script] = fns
		}
		ctxs := fns[c.scopeID]
		if ctxs == nil {
			ctxs = map[uint32]bool{}
			fns[c.scopeID] = ctxs
		}
		for cur, ok := c.context, true; ok && !ctxs[cur]; {
			if !s.isContextObject(cur) {
				break
			}
			ctxs[cur] = true
			cur, ok = s.internalTarget(cur, "previous")
		}
	}
	return out
}

type correlatedScope struct {
	scopeInfo       uint32
	scopeInfoNodeID uint32
	script          uint32
	scriptNodeID    uint32
	scriptName      string
	scopeName       string
	start, end      float64
	scope           *embeddedScope
	fieldNames      []string
	contexts        []correlatedContext
}

type correlatedContext struct {
	ord    uint32
	nodeID uint32
	values []uint32
}

// correlate matches each context with its scope through its scope info.
func (s contextAnalysis) correlate(sc *contextScan, scopes map[uint32]map[int64]*embeddedScope) ([]*correlatedScope, []ScriptWithoutScopes) {
	var order []*correlatedScope
	byInfo := map[uint32]*correlatedScope{}
	without := map[uint32]*ScriptWithoutScopes{}
	var withoutOrder []uint32
	contextFields := func(o uint32, names bool) ([]string, []uint32) {
		var fn []string
		var fv []uint32
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			if int(s.eType[ei]) == s.eContext {
				if names {
					fn = append(fn, s.edgeName(ei))
				}
				fv = append(fv, s.eTo[ei])
			}
		}
		return fn, fv
	}
	for _, c := range sc.contexts {
		if ex := byInfo[c.scopeInfo]; ex != nil {
			_, values := contextFields(c.ord, false)
			ex.contexts = append(ex.contexts, correlatedContext{c.ord, s.nID[c.ord], values})
			continue
		}
		id := s.scopeID(c.scopeInfo)
		if !id.ok {
			continue
		}
		start, end := s.intField(c.scopeInfo, "start_position"), s.intField(c.scopeInfo, "end_position")
		scopeName := ""
		if fnName, ok := s.internalTarget(c.scopeInfo, "function_name"); ok {
			scopeName = s.nodeName(fnName)
		}
		script, ok := s.scopeInfoScript(sc, c.scopeInfo)
		if !ok {
			continue
		}
		info, ok := sc.scripts[script]
		if !ok {
			continue
		}
		if w := without[script]; w != nil {
			w.ContextCount++
			continue
		}
		embedded := scopes[script]
		if embedded == nil {
			without[script] = &ScriptWithoutScopes{ScriptNodeID: info.nodeID, ScriptName: info.name, ContextCount: 1, scriptOrd: script}
			withoutOrder = append(withoutOrder, script)
			continue
		}
		es := embedded[int64(id.v)]
		if es == nil {
			continue
		}
		names, values := contextFields(c.ord, true)
		cs := &correlatedScope{
			scopeInfo: c.scopeInfo, scopeInfoNodeID: s.nID[c.scopeInfo], script: script, scriptNodeID: info.nodeID,
			scriptName: info.name, scopeName: scopeName, start: start, end: end, scope: es, fieldNames: names,
			contexts: []correlatedContext{{c.ord, s.nID[c.ord], values}},
		}
		byInfo[c.scopeInfo] = cs
		order = append(order, cs)
	}
	var ws []ScriptWithoutScopes
	for _, o := range withoutOrder {
		ws = append(ws, *without[o])
	}
	return order, ws
}

// intField reads an internal edge to an integer, 0 if absent.
func (s contextAnalysis) intField(o uint32, name string) float64 {
	if t, ok := s.internalTarget(o, name); ok {
		if v := s.intValue(t); v.ok {
			return v.v
		}
	}
	return 0
}

// outerScopeInfo is the scope info enclosing the scope info o: none
// past a script's root scope, or where V8 recorded no outer one.
func (s contextAnalysis) outerScopeInfo(o uint32) (uint32, bool) {
	if s.isScriptRootScopeInfo(o) {
		return 0, false
	}
	return s.internalTarget(o, "outer_scope_info")
}

// scopeInfoScript finds the script a scope info belongs to through its
// outer scope infos, remembering the answer for each one on the way.
func (s contextAnalysis) scopeInfoScript(sc *contextScan, info uint32) (uint32, bool) {
	if v, ok := sc.scopeInfoScript[info]; ok {
		if v == nil {
			return 0, false
		}
		return *v, true
	}
	var visited []uint32
	seen := map[uint32]bool{}
	var found *uint32
	for cur := info; !seen[cur]; {
		if v, ok := sc.scopeInfoScript[cur]; ok {
			found = v
			break
		}
		seen[cur] = true
		visited = append(visited, cur)
		outer, ok := s.outerScopeInfo(cur)
		if !ok {
			break
		}
		cur = outer
	}
	for _, v := range visited {
		sc.scopeInfoScript[v] = found
	}
	if found == nil {
		return 0, false
	}
	return *found, true
}

// classifyFields finds each context's dead fields.
func (s contextAnalysis) classifyFields(scopes []*correlatedScope, live map[uint32]map[float64]map[uint32]bool) []Scope {
	var out []Scope
	for _, sc := range scopes {
		var contexts []DeadContext
		for _, c := range sc.contexts {
			var dead []DeadField
			sum := 0.0
			for i, v := range c.values {
				if i >= len(sc.fieldNames) {
					break
				}
				name := sc.fieldNames[i]
				var variable *scopeVariable
				for _, x := range sc.scope.variables {
					if x.name == name {
						variable = x
						break
					}
				}
				if variable == nil || usedInContext(live, sc.script, c.ord, variable) {
					continue
				}
				ret := s.retained[v]
				dead = append(dead, DeadField{Name: name, ValueNodeID: s.nID[v], ValueName: s.nodeName(v), ValueType: s.nodeTypeName(v), SelfSize: float64(s.nSelf[v]), RetainedSize: ret})
				sum += ret
			}
			if len(dead) == 0 {
				continue
			}
			contexts = append(contexts, DeadContext{ContextNodeID: s.nID[c.ord], contextOrd: c.ord, RetainedSize: s.retained[c.ord], DeadFieldsRetainedSize: sum, DeadFields: dead})
		}
		if len(contexts) == 0 {
			continue
		}
		out = append(out, Scope{
			ScopeInfoNodeID: sc.scopeInfoNodeID, ScriptNodeID: sc.scriptNodeID, ScriptName: sc.scriptName, ScopeName: sc.scopeName,
			ScopeStart: sc.start, ScopeEnd: sc.end, ContextFieldCount: len(sc.fieldNames), Contexts: contexts, scopeInfoOrd: sc.scopeInfo,
		})
	}
	return out
}

func usedInContext(live map[uint32]map[float64]map[uint32]bool, script, ctx uint32, v *scopeVariable) bool {
	fns := live[script]
	if fns == nil {
		return false
	}
	for _, use := range v.uses {
		for cur := use; cur != nil; cur = cur.parent {
			if ctxs := fns[float64(cur.scopeID)]; ctxs != nil && ctxs[ctx] {
				return true
			}
		}
	}
	return false
}

func sortAnalysis(scopes []Scope, without []ScriptWithoutScopes) ContextAnalysis {
	cmpCtx := func(a, b DeadContext) int {
		if c := cmpDesc(a.DeadFieldsRetainedSize, b.DeadFieldsRetainedSize); c != 0 {
			return c
		}
		if c := cmpDesc(a.RetainedSize, b.RetainedSize); c != 0 {
			return c
		}
		return int(a.contextOrd) - int(b.contextOrd)
	}
	for i := range scopes {
		for j := range scopes[i].Contexts {
			slices.SortStableFunc(scopes[i].Contexts[j].DeadFields, func(a, b DeadField) int { return cmpDesc(a.RetainedSize, b.RetainedSize) })
		}
		slices.SortStableFunc(scopes[i].Contexts, cmpCtx)
	}
	slices.SortStableFunc(scopes, func(a, b Scope) int { return cmpCtx(a.Contexts[0], b.Contexts[0]) })
	slices.SortStableFunc(without, func(a, b ScriptWithoutScopes) int { return int(a.scriptOrd) - int(b.scriptOrd) })
	return ContextAnalysis{Scopes: scopes, ScriptsWithoutScopes: without}
}
