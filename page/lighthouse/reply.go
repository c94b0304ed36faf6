package lighthouse

// lighthouse_audit's reply: its text and its structuredContent, as
// chrome-devtools-mcp words and shapes them.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// replyLines are the reply's lines, as chrome-devtools-mcp formats them.
func replyLines(mode, device string, s Summary, reports []string) []string {
	var lines []string
	line := func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }
	line("## Lighthouse audit results")
	line("Mode: %s", mode)
	line("Device: %s", device)
	line("URL: %s", s.URL)
	line("### Category scores")
	for _, c := range s.Scores {
		score := "n/a"
		if c.Score != nil {
			score = strconv.Itoa(int(math.Floor(*c.Score*100 + 0.5)))
		}
		line("- %s: %s (%s)", c.Title, score, c.ID)
	}
	line("### Audit summary")
	line("Passed: %d", s.Passed)
	line("Failed: %d", len(s.Failed))
	line("Total timing: %sms", strconv.FormatFloat(s.TotalTimingMS, 'f', -1, 64))
	if len(s.Failed) > 0 {
		line("### Failed audits")
		for _, f := range s.Failed {
			lines = append(lines, failedLines(f)...)
		}
	}
	line("### Reports")
	for _, p := range reports {
		line("- %s", p)
	}
	return lines
}

// failedLines are the reply's lines for one failed audit: its title and
// score, its description, and the nodes it flags.
func failedLines(f Failed) []string {
	var lines []string
	line := func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }
	cats, display := "", ""
	if len(f.Categories) > 0 {
		cats = " [" + strings.Join(f.Categories, ", ") + "]"
	}
	if f.DisplayValue != "" {
		display = " (" + f.DisplayValue + ")"
	}
	line("- %s%s: %s%s (score: %s)", f.ID, cats, f.Title, display, strconv.FormatFloat(f.Score, 'f', -1, 64))
	if f.Description != "" {
		line("  %s", collapseSpace(f.Description))
	}
	if f.TotalNodes > 0 {
		shown := ""
		if f.TotalNodes > len(f.Nodes) {
			shown = fmt.Sprintf(", showing %d", len(f.Nodes))
		}
		line("  Nodes (%d%s):", f.TotalNodes, shown)
	}
	for _, n := range f.Nodes {
		var parts []string
		if n.Selector != "" {
			parts = append(parts, "selector="+jsQuote(n.Selector))
		}
		if n.NodeLabel != "" {
			parts = append(parts, "label="+jsQuote(collapseSpace(n.NodeLabel)))
		}
		if n.Snippet != "" {
			parts = append(parts, "snippet="+jsQuote(collapseSpace(n.Snippet)))
		}
		line("  - %s", strings.Join(parts, " "))
		if n.Explanation != "" {
			line("    %s", collapseSpace(n.Explanation))
		}
	}
	return lines
}

// structured is the reply's structuredContent, in upstream's shape.
func structured(mode, device string, s Summary, reports []string) map[string]any {
	scores := []map[string]any{}
	for _, c := range s.Scores {
		scores = append(scores, map[string]any{"id": c.ID, "title": c.Title, "score": c.Score})
	}
	failed := []map[string]any{}
	for _, f := range s.Failed {
		nodes := []map[string]any{}
		for _, n := range f.Nodes {
			node := map[string]any{}
			for k, v := range map[string]string{"selector": n.Selector, "snippet": n.Snippet, "nodeLabel": n.NodeLabel, "explanation": n.Explanation} {
				if v != "" {
					node[k] = v
				}
			}
			nodes = append(nodes, node)
		}
		a := map[string]any{"id": f.ID, "title": f.Title, "score": f.Score, "categories": append([]string{}, f.Categories...),
			"nodes": nodes, "totalNodes": f.TotalNodes}
		if f.Description != "" {
			a["description"] = f.Description
		}
		if f.DisplayValue != "" {
			a["displayValue"] = f.DisplayValue
		}
		failed = append(failed, a)
	}
	return map[string]any{
		"summary": map[string]any{
			"mode": mode, "device": device, "url": s.URL, "scores": scores,
			"audits": map[string]any{"failed": len(s.Failed), "passed": s.Passed},
			"timing": map[string]any{"total": s.TotalTimingMS},
		},
		"failedAudits": failed,
		"reports":      reports,
	}
}

// collapseSpace turns each run of white space into one space and trims
// the ends, as upstream's collapseWhitespace.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// jsQuote quotes s nearly as JavaScript's JSON.stringify does: it leaves
// <, > and & as they are, but encoding/json escapes U+2028 and U+2029,
// which JSON.stringify (and jsfmt.Quote) would not. Kept so that the
// audit's reply reads as it always has.
func jsQuote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
