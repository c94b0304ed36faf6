package webmcp

// Third-party developer tools: the tools a page offers for its own
// debugging, through the devtoolstooldiscovery event (js/discover3p.js)
// and through WebMCP tools annotated debugging: true (slice.go). The
// event's tools live in the page's main world, where its listeners are:
// discovering and running them is a script there, run as evaluate_script's
// are (under the call's deadline, stopped when it passes, dialogs
// answered), whose result is the page's word about itself.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/script"
)

// ToolGroup is a group of developer tools a page offers.
type ToolGroup struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Tools       []GroupTool `json:"tools"`
}

// GroupTool is one developer tool of a [ToolGroup].
type GroupTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// maxDiscovery bounds the JSON of the tool groups a page may answer with.
const maxDiscovery = 1 << 20

// DevToolGroups asks page a for the developer tools it offers through
// the devtoolstooldiscovery event.
func DevToolGroups(ctx context.Context, a *page.Actor) ([]ToolGroup, page.State, error) {
	res, err := script.Evaluate(ctx, a, script.Script{Source: js.Discover3P, SkipStableDOM: true, MaxResult: maxDiscovery})
	if err != nil {
		return nil, page.State{}, err
	}
	if res.Cut {
		return nil, res.State, fmt.Errorf("the page's developer tools take more than %d bytes of JSON to describe", maxDiscovery)
	}
	var groups []ToolGroup
	if err := json.Unmarshal([]byte(res.JSON), &groups); err != nil {
		return nil, res.State, fmt.Errorf("read the page's developer tools: %w", err)
	}
	return groups, res.State, nil
}

// RunDevTool runs page a's developer tool name with args (a JSON
// object), whose top-level {uid} values are the elements uids names, in
// order. As chrome-devtools-mcp, it does not wait for the DOM to settle
// after the tool: a tool reports, it is not an action. The result's JSON
// is "undefined" when the tool returned nothing.
func RunDevTool(ctx context.Context, a *page.Actor, name string, args json.RawMessage, uids []string, maxResult int) (page.ScriptResult, error) {
	n, _ := json.Marshal(name)
	src := strings.NewReplacer("__TOOL__", js.Execute3P, "__NAME__", string(n), "__ARGS__", string(args)).Replace(js.RunDevTool)
	return script.Evaluate(ctx, a, script.Script{Source: src, Args: uids, MaxResult: maxResult, SkipStableDOM: true})
}
