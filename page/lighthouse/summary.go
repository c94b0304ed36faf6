package lighthouse

import (
	"encoding/json"
	"maps"
	"slices"
)

// MaxNodes is how many of a failed audit's elements the reply lists, as
// upstream; the reports have them all.
const MaxNodes = 10

// Score is one category's score, nil when Lighthouse could not score it.
type Score struct {
	ID, Title string
	Score     *float64
}

// Node is an element a failed audit flags.
type Node struct {
	Selector, Snippet, NodeLabel, Explanation string
}

// Failed is an audit that did not pass.
type Failed struct {
	ID, Title, Description, DisplayValue string
	Score                                float64
	Categories                           []string
	Nodes                                []Node // at most MaxNodes
	TotalNodes                           int
}

// Summary is what the reply says of a report.
type Summary struct {
	URL           string
	Scores        []Score
	Passed        int
	Failed        []Failed
	TotalTimingMS float64
	Version       string
}

// Summarize reads the scores and the failed audits from a report, the way
// chrome-devtools-mcp does: an audit failed when it has a score below 1;
// its elements are the "node" items anywhere in its details except
// sub-items (for axe audits, the context of a failing element rather than
// another failing one), each element once.
func Summarize(r *Report) Summary {
	s := Summary{URL: r.FinalDisplayedURL, TotalTimingMS: r.Timing.Total, Version: r.LighthouseVersion}
	byAudit := map[string][]string{}
	for _, id := range r.categoryOrder {
		c := r.Categories[id]
		if c == nil {
			continue
		}
		s.Scores = append(s.Scores, Score{ID: c.ID, Title: c.Title, Score: c.Score})
		for _, ref := range c.AuditRefs {
			byAudit[ref.ID] = append(byAudit[ref.ID], c.ID)
		}
	}
	for _, id := range r.auditOrder {
		a := r.Audits[id]
		if a == nil || a.Score == nil {
			continue
		}
		if *a.Score >= 1 {
			s.Passed++
			continue
		}
		nodes := &nodeSet{index: map[string]int{}}
		var details any
		if len(a.Details) > 0 {
			json.Unmarshal(a.Details, &details)
		}
		nodes.collect(details)
		f := Failed{ID: a.ID, Title: a.Title, Description: a.Description, DisplayValue: a.DisplayValue,
			Score: *a.Score, Categories: byAudit[a.ID], TotalNodes: len(nodes.list)}
		f.Nodes = nodes.list[:min(len(nodes.list), MaxNodes)]
		s.Failed = append(s.Failed, f)
	}
	return s
}

// nodeSet is the distinct elements of an audit, in the order first met.
type nodeSet struct {
	list  []Node
	index map[string]int
}

func (n *nodeSet) collect(v any) {
	switch v := v.(type) {
	case []any:
		for _, item := range v {
			n.collect(item)
		}
	case map[string]any:
		switch v["type"] {
		case "debugdata", "subitems":
			return
		case "node":
			n.add(v)
			return
		}
		// Sorted, so that the order is the same from run to run.
		for _, name := range slices.Sorted(maps.Keys(v)) {
			if name != "subItems" {
				n.collect(v[name])
			}
		}
	}
}

// add records an element, merging it with an earlier sighting of the
// same one (by its Lighthouse id or path, else selector and snippet) so
// that fields such as the explanation are kept from either.
func (n *nodeSet) add(v map[string]any) {
	str := func(k string) string { s, _ := v[k].(string); return s }
	node := Node{Selector: str("selector"), Snippet: str("snippet"), NodeLabel: str("nodeLabel"), Explanation: str("explanation")}
	key := ""
	switch {
	case str("lhId") != "":
		key = "id:" + str("lhId")
	case str("path") != "":
		key = "id:" + str("path")
	case node.Selector != "" || node.Snippet != "":
		key = "selector:" + node.Selector + "|" + node.Snippet
	}
	if i, ok := n.index[key]; ok && key != "" {
		old := &n.list[i]
		for _, f := range []struct {
			dst *string
			src string
		}{
			{&old.Selector, node.Selector}, {&old.Snippet, node.Snippet},
			{&old.NodeLabel, node.NodeLabel}, {&old.Explanation, node.Explanation},
		} {
			if *f.dst == "" {
				*f.dst = f.src
			}
		}
		return
	}
	if key != "" {
		n.index[key] = len(n.list)
	}
	n.list = append(n.list, node)
}
