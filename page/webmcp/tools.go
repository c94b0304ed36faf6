package webmcp

// The capability's tools: list_webmcp_tools and execute_webmcp_tool
// (--category-experimental-webmcp), list_3p_developer_tools and
// execute_3p_developer_tool (--category-experimental-third-party).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/tool"
)

// Budgets: running a page's tool is the page's own code, which may fetch
// or wait, as a script may (evaluate_script's 30 s); discovering its
// developer tools runs a script in it, as a snapshot does.
const (
	runBudget      = 30 * time.Second
	discoverBudget = 30 * time.Second
)

// Tools returns the tools that list and run the tools a page registers
// with WebMCP, and the developer tools it offers: WebMCP tools annotated
// for debugging, and those its devtoolstooldiscovery listeners describe.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "list_webmcp_tools", Description: "Lists all WebMCP tools the page exposes (excluding debugging tools, which are exposed via 'list_3p_developer_tools').", Page: true, ReadOnly: true},
			tool.Fixed[struct{}](tool.ListBudget), runListWebMCPTools),
		tool.Define(tool.Tool{Name: "execute_webmcp_tool", Description: "Executes a WebMCP tool exposed by the page (for debugging tools, use 'execute_3p_developer_tool').", Page: true, Action: true},
			tool.Fixed[executeWebMCPArgs](runBudget), runExecuteWebMCPTool),
		tool.Define(tool.Tool{Name: "list_3p_developer_tools", Description: list3pDescription, Page: true, ReadOnly: true},
			tool.Fixed[struct{}](discoverBudget), runList3pTools),
		tool.Define(tool.Tool{Name: "execute_3p_developer_tool", Description: "Executes a third-party developer tool exposed by the page.", Page: true, Action: true},
			tool.Fixed[execute3pArgs](runBudget), runExecute3pTool),
	}
}

const list3pDescription = `Lists all third-party developer tools the page exposes for providing runtime information (including debugging WebMCP tools and tools exposed via the 'devtoolstooldiscovery' event).
Third-party developer tools can be called via the 'execute_3p_developer_tool()' MCP tool.
Alternatively, third-party developer tools exposed via the 'devtoolstooldiscovery' event can be executed by calling 'evaluate_script' and adding the
following command to the script:
` + "`window.__dtmcp.executeTool(toolName, params)`" + `
This might be helpful when the third-party developer tools return non-serializable values or when composing
third-party developer tools with additional functionality.`

type executeWebMCPArgs struct {
	ToolName string `json:"toolName" required:"true" desc:"The name of the WebMCP tool to execute"`
	Input    string `json:"input" desc:"The JSON-stringified parameters to pass to the WebMCP tool"`
}

type execute3pArgs struct {
	ToolName string `json:"toolName" required:"true" desc:"The name of the tool to execute"`
	Params   string `json:"params" desc:"The JSON-stringified parameters to pass to the tool"`
}

// jsonObject parses a tool's JSON-stringified arguments, which must be an
// object; "" is {}.
func jsonObject(what, raw string) (json.RawMessage, map[string]any, error) {
	if raw == "" {
		return json.RawMessage("{}"), map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, nil, fmt.Errorf("Failed to parse %s as JSON: %v. Give a JSON object, such as {\"a\": 1}.", what, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("Failed to parse %s as JSON: Parsed %s is not an object. Give a JSON object, such as {\"a\": 1}.", what, what)
	}
	return json.RawMessage(raw), m, nil
}

// webmcpError says in one sentence what stopped a WebMCP call.
func webmcpError(name string, err error) error {
	switch {
	case errors.Is(err, ErrNoTool):
		return fmt.Errorf("Tool %s not found", name)
	case errors.Is(err, ErrNoModelContext):
		return errors.New("This page has no WebMCP (document.modelContext): Chrome exposes it with --enable-features=WebMCP, which tabhive adds to the Chromium it launches with --category-experimental-webmcp; a browser it connects to must be started with it.")
	}
	return err
}

func runListWebMCPTools(ctx context.Context, c tool.Call, _ *struct{}) error {
	tools, state, err := Of(c.Page()).Tools(ctx)
	if err != nil {
		return webmcpError("", err)
	}
	c.Reply().State(state)
	c.Reply().Line("## WebMCP tools")
	n := 0
	for _, t := range tools {
		if t.Debugging {
			continue
		}
		n++
		ann := "undefined"
		if len(t.Annotations) > 0 {
			ann = compactJSON(t.Annotations)
		}
		c.Reply().Line("name=%q, description=%q, inputSchema=%s, annotations=%s", t.Name, t.Description, schemaText(t.InputSchema), ann)
	}
	if n == 0 {
		c.Reply().Line("No WebMCP tools available.")
	}
	return nil
}

// schemaText is an input schema as a reply prints it: compact JSON, {}
// when the tool gave none.
func schemaText(s json.RawMessage) string {
	if len(s) == 0 {
		return "{}"
	}
	return compactJSON(s)
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func runExecuteWebMCPTool(ctx context.Context, c tool.Call, a *executeWebMCPArgs) error {
	input, _, err := jsonObject("input", a.Input)
	if err != nil {
		return err
	}
	res, state, err := Of(c.Page()).Invoke(ctx, a.ToolName, input, false)
	if err != nil {
		return webmcpError(a.ToolName, err)
	}
	c.Reply().State(state)
	// {status, output, error}, indented, as chrome-devtools-mcp prints it;
	// absent members are left out.
	out := struct {
		Status string          `json:"status"`
		Output json.RawMessage `json:"output,omitempty"`
		Error  string          `json:"error,omitempty"`
	}{res.Status, res.Output, res.Error}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	c.Reply().Line("%s", b)
	return nil
}

func runList3pTools(ctx context.Context, c tool.Call, _ *struct{}) error {
	var groups []ToolGroup
	// WebMCP's debugging tools first, as one group, when WebMCP is there.
	tools, _, err := Of(c.Page()).Tools(ctx)
	if err != nil && !errors.Is(err, ErrNoModelContext) {
		return err
	}
	var dbg []GroupTool
	for _, t := range tools {
		if t.Debugging {
			dbg = append(dbg, GroupTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	if len(dbg) > 0 {
		groups = append(groups, ToolGroup{Name: "WebMCP Tools", Description: "Tools exposed via WebMCP", Tools: dbg})
	}
	found, state, err := DevToolGroups(ctx, c.Page())
	if err != nil {
		return err
	}
	c.Reply().State(state)
	groups = append(groups, found...)
	if len(groups) == 0 {
		c.Reply().Line("The page exposes no third-party developer tools: it registered no WebMCP tool annotated debugging: true, and no listener answered the devtoolstooldiscovery event.")
		return nil
	}
	c.Reply().Line("## Third-party developer tools")
	for _, g := range groups {
		c.Reply().Line("%s: %s", g.Name, g.Description)
		c.Reply().Line("Available tools:")
		for _, t := range g.Tools {
			c.Reply().Line("name=%q, description=%q, inputSchema=%s", t.Name, t.Description, schemaText(t.InputSchema))
		}
	}
	return nil
}

func runExecute3pTool(ctx context.Context, c tool.Call, a *execute3pArgs) error {
	params, values, err := jsonObject("params", a.Params)
	if err != nil {
		return err
	}
	// A WebMCP tool annotated for debugging, if the page has one by that
	// name; else one its devtoolstooldiscovery listeners describe.
	res, state, err := Of(c.Page()).Invoke(ctx, a.ToolName, params, true)
	switch {
	case err == nil:
		c.Reply().State(state)
		if res.Status != "Completed" {
			if res.Error != "" {
				return errors.New(agenterr.Period(res.Error))
			}
			return fmt.Errorf("Tool execution failed: %s", res.Status)
		}
		if len(res.Output) == 0 {
			c.Reply().Line("Tool returned no result.")
			return nil
		}
		c.Reply().Line("%s", indentJSON(res.Output))
		return nil
	case !errors.Is(err, ErrNoTool) && !errors.Is(err, ErrNoModelContext):
		return err
	}
	groups, _, err := DevToolGroups(ctx, c.Page())
	if err != nil {
		return err
	}
	var schema json.RawMessage
	found := false
	for _, g := range groups {
		for _, t := range g.Tools {
			if t.Name == a.ToolName && !found {
				schema, found = t.InputSchema, true
			}
		}
	}
	if !found {
		return fmt.Errorf("Tool %s not found", a.ToolName)
	}
	if err := validateParams(schema, values); err != nil {
		return fmt.Errorf("Invalid parameters for tool %s: %v", a.ToolName, err)
	}
	// {uid} values at the top level name elements of the latest snapshot.
	var uids []string
	for _, v := range orderedValues(params) {
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			if uid, ok := m["uid"].(string); ok {
				uids = append(uids, uid)
			}
		}
	}
	out, err := RunDevTool(ctx, c.Page(), a.ToolName, params, uids, c.ResultLimit())
	if err != nil {
		if se := (*page.ScriptError)(nil); errors.As(err, &se) {
			return errors.New(agenterr.Period(strings.TrimPrefix(se.Msg, "Error: ")))
		}
		return err
	}
	c.Reply().State(out.State)
	if out.JSON == "undefined" || out.JSON == "" {
		c.Reply().Line("Tool returned no result.")
	} else {
		c.Reply().Line("%s", indentJSON(json.RawMessage(out.JSON)))
	}
	c.Reply().Navigated(out.NavigatedTo, out.Pending)
	return nil
}

// validateParams checks a developer tool's arguments against the input
// schema the page gave, as chrome-devtools-mcp does. A schema that does
// not parse validates nothing: the tool receives the arguments as given.
func validateParams(schema json.RawMessage, values map[string]any) error {
	if len(schema) == 0 {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return rs.Validate(values)
}

// orderedValues returns the values of a JSON object in the order they are
// written, as the page sees its keys: {uid} arguments become elements in
// that order.
func orderedValues(raw json.RawMessage) []any {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []any
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			return out
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, v)
	}
	return out
}

// indentJSON prints a JSON value indented by two spaces, as
// JSON.stringify(v, null, 2) does.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}
