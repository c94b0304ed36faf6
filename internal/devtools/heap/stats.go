package heap

import (
	"slices"
	"sort"
	"strings"
)

// buildLocations sorts the locations by node, keeping the last entry of
// a node named twice, as DevTools' map keeps it.
func (s builder) buildLocations() {
	n := len(s.locNode)
	sorted, dup := true, false
	for i := 1; i < n; i++ {
		if s.locNode[i-1] > s.locNode[i] {
			sorted = false
		} else if s.locNode[i-1] == s.locNode[i] {
			dup = true
		}
	}
	if sorted && !dup {
		return
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.locNode[idx[a]] < s.locNode[idx[b]] })
	var node, script, line, col []uint32
	for k, i := range idx {
		if k+1 < n && s.locNode[idx[k+1]] == s.locNode[i] {
			continue // a later entry for the same node wins
		}
		node, script, line, col = append(node, s.locNode[i]), append(script, s.locScript[i]), append(line, s.locLine[i]), append(col, s.locCol[i])
	}
	s.locNode, s.locScript, s.locLine, s.locCol = node, script, line, col
}

// location returns the index of a node's location, or -1.
func (s *model) location(o uint32) int {
	i, ok := slices.BinarySearch(s.locNode, o)
	if !ok {
		return -1
	}
	return i
}

// Native context attribution markers.
const (
	noNativeContext     = -1
	sharedNativeContext = -2
)

// isNativeContext reports whether a node is a native context (a realm:
// the page, an iframe, an extension's world), detached or not.
func (s builder) isNativeContext(o uint32) bool {
	name := s.name(o)
	return name == "system / NativeContext" || strings.HasPrefix(name, "system / NativeContext / ") ||
		name == "Detached system / NativeContext" || strings.HasPrefix(name, "Detached system / NativeContext / ")
}

// calculateNativeContextAttribution attributes each node to the native
// context that owns it, as DevTools does: a native context owns itself,
// an object whose map's map names a native context belongs to it, and the
// rest take the owner of what reaches them through strong, non-shortcut
// edges; a node reached from two contexts is shared.
func (s builder) calculateNativeContextAttribution() {
	n := s.nodeCount
	attr := make([]int32, n)
	for i := range attr {
		attr[i] = noNativeContext
	}
	fixed := newBitset(n)
	// Each node's first internal "native_context" edge to a native context,
	// and first internal "map" edge.
	nativeCtx := make([]int32, n)
	mapOf := make([]int32, n)
	for i := range nativeCtx {
		nativeCtx[i], mapOf[i] = -1, -1
	}
	ncName, mapName := s.stringIndex("native_context"), s.stringIndex("map")
	for o := 0; o < n; o++ {
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			if int(s.eType[ei]) != s.eInternal {
				continue
			}
			name, to := int64(s.eName[ei]), s.eTo[ei]
			if name == ncName && nativeCtx[o] == -1 && s.isNativeContext(to) {
				nativeCtx[o] = int32(to)
			} else if name == mapName && mapOf[o] == -1 {
				mapOf[o] = int32(to)
			}
		}
	}
	s.nativeContexts = nil
	for o := uint32(0); o < uint32(n); o++ {
		if s.isNativeContext(o) {
			s.nativeContexts = append(s.nativeContexts, o)
			attr[o] = int32(o)
			fixed.set(o)
			continue
		}
		if m := mapOf[o]; m >= 0 {
			if mm := mapOf[m]; mm >= 0 {
				if c := nativeCtx[mm]; c >= 0 {
					attr[o] = c
					fixed.set(o)
				}
			}
		}
	}
	nativeCtx, mapOf = nil, nil
	queue := make([]uint32, 0, n)
	for o := uint32(0); o < uint32(n); o++ {
		if fixed.get(o) {
			queue = append(queue, o)
		}
	}
	for i := 0; i < len(queue); i++ {
		o := queue[i]
		cur := attr[o]
		for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
			if t := int(s.eType[ei]); t == s.eShortcut || t == s.eWeak {
				continue
			}
			to := s.eTo[ei]
			if to == o || fixed.get(to) {
				continue
			}
			if merged := mergeOwner(attr[to], cur); merged != attr[to] {
				attr[to] = merged
				queue = append(queue, to)
			}
		}
	}
	s.nativeCtx = attr
}

func mergeOwner(cur, in int32) int32 {
	switch {
	case cur == sharedNativeContext || in == sharedNativeContext:
		return sharedNativeContext
	case cur == noNativeContext:
		return in
	case cur == in:
		return cur
	}
	return sharedNativeContext
}

// stringIndex returns the index of the first string equal to v among the
// file's strings, or -1 (DevTools' strings.indexOf).
func (s builder) stringIndex(v string) int64 {
	for i := 0; i < len(s.offs)-1; i++ {
		if s.str(uint32(i)) == v {
			return int64(i)
		}
	}
	for i, x := range s.extra {
		if x == v {
			return int64(len(s.offs) - 1 + i)
		}
	}
	return -1
}

// NativeContext is one native context's sizes.
type NativeContext struct {
	NodeID         uint32
	NodeIndex      int
	NodeName       string
	AttributedSize float64
	RetainedSize   float64
	SelfSize       float64
}

// NativeContextSizes is how the heap divides among native contexts.
type NativeContextSizes struct {
	Contexts          []NativeContext // in node order
	SharedSize        float64
	NoAttributionSize float64
}

func (s builder) calculateNativeContextSizes() {
	byOrdinal := map[int32]int{}
	var out NativeContextSizes
	for _, o := range s.nativeContexts {
		byOrdinal[int32(o)] = len(out.Contexts)
		out.Contexts = append(out.Contexts, NativeContext{
			NodeID:       s.nID[o],
			NodeIndex:    int(o) * s.nodeFieldCount,
			NodeName:     s.nodeName(o),
			RetainedSize: s.retained[o],
			SelfSize:     float64(s.nSelf[o]),
		})
	}
	for o, owner := range s.nativeCtx {
		size := float64(s.nSelf[o])
		switch owner {
		case sharedNativeContext:
			out.SharedSize += size
		case noNativeContext:
			out.NoAttributionSize += size
		default:
			if i, ok := byOrdinal[owner]; ok {
				out.Contexts[i].AttributedSize += size
			}
		}
	}
	s.nativeSizes = out
}

// Statistics is DevTools' breakdown of the heap by kind.
type Statistics struct {
	Total  float64 `json:"total"`
	Native struct {
		Total       float64 `json:"total"`
		TypedArrays float64 `json:"typedArrays"`
	} `json:"native"`
	V8Heap struct {
		Total    float64 `json:"total"`
		Code     float64 `json:"code"`
		JSArrays float64 `json:"jsArrays"`
		Strings  float64 `json:"strings"`
		System   float64 `json:"system"`
	} `json:"v8heap"`
}

// StaticData is DevTools' summary of a snapshot's size.
type StaticData struct {
	NodeCount     int     `json:"nodeCount"`
	RootNodeIndex int     `json:"rootNodeIndex"`
	TotalSize     float64 `json:"totalSize"`
	MaxJSObjectID uint32  `json:"maxJSObjectId"`
}

// totalSize is the root's retained size plus the native bytes V8 reports
// outside the graph.
func (s *model) totalSize() float64 { return s.retained[s.root] + s.h.extraNativeBytes }

func (s builder) calculateStatistics() {
	var st Statistics
	native := s.h.extraNativeBytes
	var typed, code, strs, arrays, system float64
	for o := uint32(0); o < uint32(s.nodeCount); o++ {
		size := float64(s.nSelf[o])
		switch t := int(s.nType[o]); {
		case t == s.tHidden:
			system += size
		case t == s.tNative:
			native += size
			if s.name(o) == "system / JSArrayBufferData" {
				typed += size
			}
		case t == s.tCode:
			code += size
		case t == s.tConsString || t == s.tSlicedString || t == s.tString:
			strs += size
		case s.name(o) == "Array":
			arrays += s.arraySize(o)
		}
	}
	total := s.totalSize()
	st.Total = total
	st.Native.Total, st.Native.TypedArrays = native, typed
	st.V8Heap.Total, st.V8Heap.Code, st.V8Heap.JSArrays, st.V8Heap.Strings, st.V8Heap.System = total-native, code, arrays, strs, system
	s.stats = st

	maxID := uint32(0)
	for _, id := range s.nID {
		if id%2 == 1 && id > maxID {
			maxID = id
		}
	}
	s.static = StaticData{NodeCount: s.nodeCount, RootNodeIndex: int(s.root) * s.nodeFieldCount, TotalSize: total, MaxJSObjectID: maxID}
}

// arraySize is a JavaScript array's size with its elements store, when
// the array is the store's only retainer.
func (s builder) arraySize(o uint32) float64 {
	size := float64(s.nSelf[o])
	for ei := s.firstEdge[o]; ei < s.firstEdge[o+1]; ei++ {
		if int(s.eType[ei]) != s.eInternal || s.str(s.eName[ei]) != "elements" {
			continue
		}
		el := s.eTo[ei]
		if s.firstRetainer[el+1]-s.firstRetainer[el] == 1 {
			size += float64(s.nSelf[el])
		}
		break
	}
	return size
}

// Statistics returns the heap's breakdown by kind.
func (s *model) Statistics() Statistics { return s.stats }

// StaticData returns the snapshot's counts and total size.
func (s *model) StaticData() StaticData { return s.static }

// NativeContextSizes returns how the heap divides among native contexts.
func (s *model) NativeContextSizes() NativeContextSizes {
	out := s.nativeSizes
	out.Contexts = slices.Clone(out.Contexts)
	return out
}
