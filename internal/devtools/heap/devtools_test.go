package heap

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// The differential check: testdata holds heap snapshots of
// bench/heap/fixtures/leaks.html (before and after its leak grows) and, for
// each, what DevTools' own model (JSHeapSnapshot, as chrome-devtools-mcp
// 1.11 ships it) computes from it, recorded by bench/heap/oracle.mjs. These
// tests hold the engine to those values exactly: every node's dominator,
// retained size, distance, shallow size, class, name, DOM state and native
// context; the class aggregates under every filter; and the answers about
// sample objects. Tolerance: none (equal sizes, equal orders).

var fixtures = []string{"leaks-before", "leaks-after"}

var (
	loadOnce sync.Map // name → *fixture
)

type fixture struct {
	once sync.Once
	s    *Snapshot
	err  error
}

// loadFixture loads a test snapshot once per test binary.
func loadFixture(t *testing.T, name string) *Snapshot {
	t.Helper()
	v, _ := loadOnce.LoadOrStore(name, &fixture{})
	f := v.(*fixture)
	f.once.Do(func() {
		r, err := os.Open(filepath.Join("testdata", name+".heapsnapshot.gz"))
		if err != nil {
			f.err = err
			return
		}
		defer r.Close()
		zr, err := gzip.NewReader(r)
		if err != nil {
			f.err = err
			return
		}
		f.s, f.err = Load(context.Background(), zr, 0, 0)
	})
	if f.err != nil {
		t.Fatalf("load %s: %v", name, f.err)
	}
	return f.s
}

// readJSON decodes a gzipped JSON file of testdata.
func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	r, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(zr)
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
}

type expectedNodes struct {
	ID            []uint32  `json:"id"`
	Name          []string  `json:"name"`
	Type          []string  `json:"type"`
	Self          []float64 `json:"self"`
	Retained      []float64 `json:"retained"`
	Dominator     []uint32  `json:"dominator"`
	Distance      []int32   `json:"distance"`
	State         []uint32  `json:"state"`
	ClassKey      []string  `json:"classKey"`
	NativeContext []int32   `json:"nativeContext"`
	Flags         []uint8   `json:"flags"`
}

type expectedAggregate struct {
	Key      string   `json:"key"`
	Name     string   `json:"name"`
	Count    int      `json:"count"`
	Self     float64  `json:"self"`
	MaxRet   float64  `json:"maxRet"`
	Distance int32    `json:"distance"`
	Nodes    []uint32 `json:"nodes"`
}

type expected struct {
	Nodes                    expectedNodes                  `json:"nodes"`
	Statistics               Statistics                     `json:"statistics"`
	StaticData               StaticData                     `json:"staticData"`
	NativeContextSizes       json.RawMessage                `json:"nativeContextSizes"`
	RetainedByContextSummary json.RawMessage                `json:"retainedByContextSummary"`
	InterfaceDefinitions     []interfaceDef                 `json:"interfaceDefinitions"`
	Aggregates               map[string][]expectedAggregate `json:"aggregates"`
	Samples                  []struct {
		ID              float64         `json:"id"`
		ClassName       string          `json:"className"`
		Paths           json.RawMessage `json:"paths"`
		PathsBounded    json.RawMessage `json:"pathsBounded"`
		Dominators      json.RawMessage `json:"dominators"`
		ObjectInfo      json.RawMessage `json:"objectInfo"`
		EdgesByRetained json.RawMessage `json:"edgesByRetained"`
		EdgesByName     json.RawMessage `json:"edgesByName"`
		EdgesBySelf     json.RawMessage `json:"edgesBySelf"`
		EdgesAll        json.RawMessage `json:"edgesAll"`
		Retainers       json.RawMessage `json:"retainers"`
	} `json:"samples"`
	DuplicateStrings json.RawMessage `json:"duplicateStrings"`
	Queries          []struct {
		Query struct {
			ClassName       string   `json:"className"`
			PropertyName    string   `json:"propertyName"`
			NodeType        string   `json:"nodeType"`
			IsDetached      *bool    `json:"isDetached"`
			SortBy          string   `json:"sortBy"`
			MinRetainedSize *float64 `json:"minRetainedSize"`
			MaxRetainedSize *float64 `json:"maxRetainedSize"`
			MinSelfSize     *float64 `json:"minSelfSize"`
			MaxSelfSize     *float64 `json:"maxSelfSize"`
		} `json:"query"`
		Items json.RawMessage `json:"items"`
	} `json:"queries"`
	Contexts json.RawMessage `json:"contexts"`
}

// eachFixture runs test on each fixture's snapshot, loaded, and what
// DevTools says of it, in a subtest named after the fixture.
func eachFixture(t *testing.T, test func(t *testing.T, s *Snapshot, e *expected)) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			test(t, loadFixture(t, name), readExpected(t, name))
		})
	}
}

func readExpected(t *testing.T, name string) *expected {
	t.Helper()
	var e expected
	readJSON(t, name+".expected.json.gz", &e)
	return &e
}

// same compares got, marshalled to JSON, with want, keeping only the
// fields want has that got has too (DevTools' serialisations carry UI
// flags the engine has no use for), and reports the first difference.
func same(t *testing.T, what string, got any, want json.RawMessage) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	json.Unmarshal(b, &g)
	json.Unmarshal(want, &w)
	w = prune(w, g)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs from DevTools: %s", what, firstDiff("", g, w))
	}
}

// prune drops from want the object keys got lacks.
func prune(want, got any) any {
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		out := map[string]any{}
		for k, v := range w {
			if gv, ok := g[k]; ok {
				out[k] = prune(v, gv)
			}
		}
		return out
	case []any:
		g, _ := got.([]any)
		out := make([]any, len(w))
		for i, v := range w {
			var gv any
			if i < len(g) {
				gv = g[i]
			}
			out[i] = prune(v, gv)
		}
		return out
	}
	return want
}

func firstDiff(path string, g, w any) string {
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %v, want an object", path, g)
		}
		for k, v := range wv {
			if !reflect.DeepEqual(gv[k], v) {
				return firstDiff(path+"."+k, gv[k], v)
			}
		}
	case []any:
		gv, ok := g.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %v, want a list", path, g)
		}
		for i := range min(len(gv), len(wv)) {
			if !reflect.DeepEqual(gv[i], wv[i]) {
				return firstDiff(fmt.Sprintf("%s[%d]", path, i), gv[i], wv[i])
			}
		}
		if len(gv) != len(wv) {
			return fmt.Sprintf("%s: got %d items, want %d", path, len(gv), len(wv))
		}
	}
	return fmt.Sprintf("%s: got %v, want %v", path, abbreviate(g), abbreviate(w))
}

func abbreviate(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func TestDevToolsNodes(t *testing.T) {
	eachFixture(t, func(t *testing.T, s *Snapshot, e *expected) {
		n := e.Nodes
		if len(n.ID) != s.nodeCount {
			t.Fatalf("node count = %d, DevTools has %d", s.nodeCount, len(n.ID))
		}
		bad := 0
		for o := uint32(0); o < uint32(s.nodeCount); o++ {
			got := []any{s.nID[o], s.nodeName(o), s.nodeTypeName(o), float64(s.nSelf[o]), s.retained[o], s.dominator[o], s.distance[o], s.state(o), classes{s}.keyString(classes{s}.classKeyOf(o)), s.nativeCtx[o], s.flags[o]}
			want := []any{n.ID[o], n.Name[o], n.Type[o], n.Self[o], n.Retained[o], n.Dominator[o], n.Distance[o], n.State[o], n.ClassKey[o], n.NativeContext[o], n.Flags[o]}
			if !reflect.DeepEqual(got, want) {
				if bad < 10 {
					t.Errorf("node %d (@%d):\n got [id name type self retained dominator distance state class nativeContext flags] %q\nwant %q", o, s.nID[o], got, want)
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%d of %d nodes differ from DevTools", bad, s.nodeCount)
		}
	})
}

func TestDevToolsSummary(t *testing.T) {
	eachFixture(t, func(t *testing.T, s *Snapshot, e *expected) {
		if got := s.Statistics(); got != e.Statistics {
			t.Errorf("statistics = %+v, want %+v", got, e.Statistics)
		}
		if got := s.StaticData(); got != e.StaticData {
			t.Errorf("static data = %+v, want %+v", got, e.StaticData)
		}
		same(t, "native context sizes", nativeSizesJSON(s.NativeContextSizes()), e.NativeContextSizes)
		same(t, "retained by context summary", summaryJSON(must(s.RetainedByContextSummary(bg))), e.RetainedByContextSummary)
		if !reflect.DeepEqual(s.interfaceDefs, e.InterfaceDefinitions) && !(len(s.interfaceDefs) == 0 && len(e.InterfaceDefinitions) == 0) {
			t.Errorf("interface definitions = %+v, want %+v", s.interfaceDefs, e.InterfaceDefinitions)
		}
	})
}

func nativeSizesJSON(n NativeContextSizes) map[string]any {
	var l []map[string]any
	for _, c := range n.Contexts {
		l = append(l, map[string]any{"nodeId": c.NodeID, "nodeIndex": c.NodeIndex, "nodeName": c.NodeName, "attributedSize": c.AttributedSize, "retainedSize": c.RetainedSize, "selfSize": c.SelfSize})
	}
	return map[string]any{"nativeContexts": l, "sharedSize": n.SharedSize, "noAttributionSize": n.NoAttributionSize}
}

func summaryJSON(r RetainedByContextSummary) map[string]any {
	return map[string]any{
		"contextCount": r.ContextCount, "retainedByContextSize": r.RetainedByContextSize, "retainedByContextCount": r.RetainedByContextCount,
		"notRetainedByContextSize": r.NotRetainedByContextSize, "notRetainedByContextCount": r.NotRetainedByContextCount, "totalSize": r.TotalSize,
	}
}

func TestDevToolsAggregates(t *testing.T) {
	eachFixture(t, func(t *testing.T, s *Snapshot, e *expected) {
		for filter, want := range e.Aggregates {
			t.Run("filter="+filter, func(t *testing.T) {
				f, ctxID := filter, -1.0
				if rest, ok := strings.CutPrefix(filter, "nativeContext_"); ok {
					var idx int
					fmt.Sscan(rest, &idx)
					f, ctxID = FilterSpecificContext, float64(s.nID[idx/s.nodeFieldCount])
				}
				if err := s.begin(bg); err != nil {
					t.Fatal(err)
				}
				set, err := classes{s}.aggregatesFor(f, ctxID)
				s.end(nil)
				if err != nil {
					t.Fatal(err)
				}
				var got []expectedAggregate
				for _, a := range set.list {
					g := expectedAggregate{Key: a.key, Name: a.name, Count: a.count, Self: a.self, MaxRet: a.maxRet, Distance: a.distance}
					if filter == "" {
						g.Nodes = a.nodes
					}
					got = append(got, g)
				}
				if len(got) == 0 && len(want) == 0 {
					return
				}
				if !reflect.DeepEqual(got, want) {
					for i := range min(len(got), len(want)) {
						if !reflect.DeepEqual(got[i], want[i]) {
							t.Fatalf("aggregate %d = %+v,\nwant %+v", i, abbreviate(got[i]), abbreviate(want[i]))
						}
					}
					t.Fatalf("%d aggregates, want %d", len(got), len(want))
				}
			})
		}
	})
}

func TestDevToolsSamples(t *testing.T) {
	eachFixture(t, func(t *testing.T, s *Snapshot, e *expected) {
		if len(e.Samples) < 10 {
			t.Fatalf("only %d samples", len(e.Samples))
		}
		for _, x := range e.Samples {
			t.Run(fmt.Sprintf("%s@%v", x.ClassName, x.ID), func(t *testing.T) {
				paths, limits, err := s.RetainingPaths(bg, x.ID, nil, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				same(t, "retaining paths", pathsJSON(paths, limits), x.Paths)
				d, n, sib := 5.0, 50.0, 2.0
				paths, limits, _ = s.RetainingPaths(bg, x.ID, &d, &n, &sib)
				same(t, "bounded retaining paths", pathsJSON(paths, limits), x.PathsBounded)
				doms, _ := s.Dominators(bg, x.ID)
				same(t, "dominators", dominatorsJSON(doms), x.Dominators)
				info, _ := s.ObjectInfo(bg, x.ID)
				same(t, "object info", infoJSON(info), x.ObjectInfo)
				for _, c := range []struct {
					sortBy   string
					excluded bool
					want     json.RawMessage
				}{{"retainedSize", true, x.EdgesByRetained}, {"name", true, x.EdgesByName}, {"selfSize", true, x.EdgesBySelf}, {"retainedSize", false, x.EdgesAll}} {
					edges, _ := s.Edges(bg, x.ID, EdgeOptions{SortBy: c.sortBy, ExcludePrimitives: c.excluded})
					same(t, "edges by "+c.sortBy, edgesJSON(edges.Slice(0, edges.Len())), c.want)
				}
				ret, _ := s.Retainers(bg, x.ID)
				same(t, "retainers", edgesJSON(ret.Slice(0, ret.Len())), x.Retainers)
			})
		}
	})
}

func nodeJSON(n Node) map[string]any {
	return map[string]any{"id": n.ID, "name": n.Name, "type": n.Type, "distance": n.Distance, "selfSize": n.SelfSize, "retainedSize": n.RetainedSize, "nodeIndex": n.NodeIndex}
}

func edgesJSON(edges []Edge) []any {
	out := []any{}
	for _, e := range edges {
		out = append(out, map[string]any{"name": e.Name, "type": e.Type, "edgeIndex": e.EdgeIndex, "node": nodeJSON(e.Node)})
	}
	return out
}

func pathsJSON(paths []Path, limits Limits) map[string]any {
	var conv func(ps []Path) []any
	conv = func(ps []Path) []any {
		out := []any{}
		for _, p := range ps {
			out = append(out, map[string]any{"edgeIndex": p.EdgeIndex, "edgeName": p.EdgeName, "edgeType": p.EdgeType, "nodeId": p.NodeID, "nodeIndex": p.NodeIndex, "nodeName": p.NodeName, "distance": p.Distance, "children": conv(p.Children)})
		}
		return out
	}
	l := map[string]any{}
	for _, k := range limits {
		l[k] = true
	}
	return map[string]any{"paths": conv(paths), "limitsReached": l}
}

func dominatorsJSON(ds []Dominator) []any {
	out := []any{}
	for _, d := range ds {
		out = append(out, map[string]any{"nodeId": d.NodeID, "nodeIndex": d.NodeIndex, "nodeName": d.NodeName, "retainedSize": d.RetainedSize, "selfSize": d.SelfSize})
	}
	return out
}

func infoJSON(i ObjectInfo) map[string]any {
	return map[string]any{"id": i.ID, "name": i.Name, "type": i.Type, "nodeIndex": i.NodeIndex, "detachedness": i.Detachedness, "selfSize": i.SelfSize,
		"retainedSize": i.RetainedSize, "distance": i.Distance, "edgeCount": i.EdgeCount, "retainerCount": i.RetainerCount}
}

func TestDevToolsDuplicateStrings(t *testing.T) {
	eachFixture(t, func(t *testing.T, s *Snapshot, e *expected) {
		var got []any
		for _, g := range must(s.DuplicateStrings(bg)) {
			var nodes []any
			for _, o := range g.ords {
				n := s.node(o)
				nodes = append(nodes, map[string]any{"id": n.ID, "selfSize": n.SelfSize, "retainedSize": n.RetainedSize, "distance": n.Distance})
			}
			got = append(got, map[string]any{"value": g.Value, "count": g.Count, "totalSelfSize": g.TotalSelfSize, "totalRetainedSize": g.TotalRetainedSize, "nodes": nodes, "truncated": g.Truncated})
		}
		if len(got) < 2 {
			t.Fatalf("%d duplicate strings", len(got))
		}
		same(t, "duplicate strings", got, e.DuplicateStrings)
	})
}

func TestDevToolsQueries(t *testing.T) {
	eachFixture(t, func(t *testing.T, s *Snapshot, e *expected) {
		for _, q := range e.Queries {
			qq := q.Query
			list, err := s.QueryObjects(bg, Query{ClassName: qq.ClassName, PropertyName: qq.PropertyName, NodeType: qq.NodeType, IsDetached: qq.IsDetached, SortBy: qq.SortBy,
				MinRetained: qq.MinRetainedSize, MaxRetained: qq.MaxRetainedSize, MinSelf: qq.MinSelfSize, MaxSelf: qq.MaxSelfSize})
			if err != nil {
				t.Fatal(err)
			}
			got := list.Slice(0, list.Len())
			// DevTools' provider lists them in the query's order;
			// chrome-devtools-mcp then sorts by retained size, as
			// QueryObjects does: compare as sorted.
			var want []Node
			var raw []map[string]any
			json.Unmarshal(q.Items, &raw)
			for _, r := range raw {
				want = append(want, Node{RetainedSize: r["retainedSize"].(float64)})
			}
			if len(got) != len(raw) {
				t.Fatalf("query %+v: %d objects, want %d", qq, len(got), len(raw))
			}
			var items []any
			json.Unmarshal(q.Items, &items)
			sorted := sortRaw(items)
			var gotJSON []any
			for _, n := range got {
				gotJSON = append(gotJSON, nodeJSON(n))
			}
			b, _ := json.Marshal(sorted)
			same(t, fmt.Sprintf("query %+v", qq), gotJSON, b)
		}
	})
}

// sortRaw sorts serialized nodes by retained size, largest first, stably.
func sortRaw(items []any) []any {
	out := append([]any(nil), items...)
	retained := func(v any) float64 { return v.(map[string]any)["retainedSize"].(float64) }
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && retained(out[j]) > retained(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestDevToolsContexts(t *testing.T) {
	eachFixture(t, func(t *testing.T, s *Snapshot, e *expected) {
		a := must(s.AnalyzeContexts(bg))
		if len(a.Scopes) == 0 {
			t.Fatal("no scope with dead fields: the fixture's BigBuffer should be one")
		}
		var scopes []any
		for _, sc := range a.Scopes {
			var ctxs []any
			for _, c := range sc.Contexts {
				var fields []any
				for _, f := range c.DeadFields {
					fields = append(fields, map[string]any{"name": f.Name, "valueNodeId": f.ValueNodeID, "valueName": f.ValueName, "valueType": f.ValueType, "selfSize": f.SelfSize, "retainedSize": f.RetainedSize})
				}
				ctxs = append(ctxs, map[string]any{"contextNodeId": c.ContextNodeID, "retainedSize": c.RetainedSize, "deadFieldsRetainedSizeSum": c.DeadFieldsRetainedSize, "deadFields": fields})
			}
			m := map[string]any{"scopeInfoNodeId": sc.ScopeInfoNodeID, "scriptNodeId": sc.ScriptNodeID, "scriptName": sc.ScriptName,
				"scopeStart": sc.ScopeStart, "scopeEnd": sc.ScopeEnd, "contextFieldCount": sc.ContextFieldCount, "contexts": ctxs}
			if sc.ScopeName != "" {
				m["scopeName"] = sc.ScopeName
			}
			scopes = append(scopes, m)
		}
		without := []any{}
		for _, w := range a.ScriptsWithoutScopes {
			without = append(without, map[string]any{"scriptNodeId": w.ScriptNodeID, "scriptName": w.ScriptName, "contextCount": w.ContextCount})
		}
		same(t, "context analysis", map[string]any{"scopes": scopes, "scriptsWithoutScopes": without}, e.Contexts)
	})
}

func TestDevToolsDiff(t *testing.T) {
	before, after := loadFixture(t, "leaks-before"), loadFixture(t, "leaks-after")
	var want json.RawMessage
	readJSON(t, "diff.expected.json.gz", &want)
	var got []any
	for _, d := range must(Compare(bg, before, after)) {
		got = append(got, map[string]any{"name": d.ClassName, "addedCount": d.AddedCount, "removedCount": d.RemovedCount, "addedSize": d.AddedSize, "removedSize": d.RemovedSize,
			"addedIds": orEmpty(d.AddedIDs), "deletedIds": orEmpty(d.DeletedIDs), "addedSelfSizes": orEmptyF(d.AddedSelfSizes), "deletedSelfSizes": orEmptyF(d.DeletedSelfSizes)})
	}
	same(t, "diff", got, want)
}

func orEmpty(v []uint32) []uint32 {
	if v == nil {
		return []uint32{}
	}
	return v
}

func orEmptyF(v []float64) []float64 {
	if v == nil {
		return []float64{}
	}
	return v
}

// bg is the context of queries that have no deadline.
var bg = context.Background()

// must returns a query's answer; a query with no deadline does not fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
