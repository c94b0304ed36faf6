package transport

import (
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool surface: which of chrome-devtools-mcp's tools the server lists
// under which flags (--slim, --category-*), whether page tools require
// pageId (--page-id-routing), and whether results also carry
// structuredContent. The groups and their defaults are chrome-devtools-mcp
// 1.11's; testdata/cdm-1.11-tools.json holds its tools/list under each flag
// set, and the command's tests compare tabhive's with it.

// SurfaceConfig says which tools the server lists and how their results
// look. The zero value is chrome-devtools-mcp's default surface, with
// tabhive's optional pageId.
type SurfaceConfig struct {
	// Slim lists only evaluate, navigate and screenshot (--slim), as
	// chrome-devtools-mcp's slim mode does; the categories still apply to
	// them.
	Slim bool
	// Categories turns tool groups on or off, by chrome-devtools-mcp's
	// category name (the keys of [Categories]); a category it does not name
	// keeps its default.
	Categories map[string]bool
	// PageIDRouting makes pageId a required argument of the page tools
	// where chrome-devtools-mcp requires it (--page-id-routing). Otherwise
	// pageId is optional, and a call without it acts on the session's
	// selected page.
	PageIDRouting bool
	// StructuredContent adds a structuredContent object to every result
	// (--experimental-structured-content): the tool's message, the page
	// list and the open dialog, as chrome-devtools-mcp names them.
	StructuredContent bool
}

// Categories are chrome-devtools-mcp's tool groups, each with whether it
// is on by default. Its flags are --category-NAME (kebab-case of the
// camelCase name, as in --category-experimental-webmcp).
var Categories = map[string]bool{
	"input":                  true,
	"navigation":             true,
	"emulation":              true,
	"performance":            true,
	"network":                true,
	"debugging":              true,
	"memory":                 true,
	"extensions":             false,
	"pwa":                    false,
	"experimentalWebmcp":     false,
	"experimentalThirdParty": false,
}

// toolCategory is the group of each of chrome-devtools-mcp's tools. A tool
// that is in none is listed whatever the category flags say.
var toolCategory = map[string]string{
	"click": "input", "click_at": "input", "drag": "input", "fill": "input", "fill_form": "input",
	"hover": "input", "press_key": "input", "type_text": "input", "upload_file": "input", "handle_dialog": "input",

	"close_page": "navigation", "list_pages": "navigation", "navigate_page": "navigation",
	"new_page": "navigation", "select_page": "navigation", "wait_for": "navigation", "navigate": "navigation",

	"emulate": "emulation", "resize_page": "emulation",

	"performance_analyze_insight": "performance", "performance_start_trace": "performance", "performance_stop_trace": "performance",

	"get_network_request": "network", "list_network_requests": "network",

	"evaluate_script": "debugging", "get_console_message": "debugging", "list_console_messages": "debugging",
	"get_css_styles": "debugging", "lighthouse_audit": "debugging", "screencast_start": "debugging",
	"screencast_stop": "debugging", "take_screenshot": "debugging", "take_snapshot": "debugging",
	"evaluate": "debugging", "screenshot": "debugging",

	"take_heapsnapshot": "memory", "analyze_heapsnapshot_contexts": "memory", "close_heapsnapshot": "memory",
	"compare_heapsnapshots": "memory", "get_heapsnapshot_class_nodes": "memory", "get_heapsnapshot_details": "memory",
	"get_heapsnapshot_dominators": "memory", "get_heapsnapshot_duplicate_strings": "memory",
	"get_heapsnapshot_edges": "memory", "get_heapsnapshot_object_details": "memory",
	"get_heapsnapshot_retainers": "memory", "get_heapsnapshot_retaining_paths": "memory",
	"get_heapsnapshot_summary": "memory", "query_heapsnapshot_objects": "memory",

	"install_extension": "extensions", "list_extensions": "extensions", "reload_extension": "extensions",
	"trigger_extension_action": "extensions", "uninstall_extension": "extensions",

	"install_pwa": "pwa", "launch_pwa": "pwa", "uninstall_pwa": "pwa", "get_os_app_state": "pwa",

	"list_webmcp_tools": "experimentalWebmcp", "execute_webmcp_tool": "experimentalWebmcp",

	"list_3p_developer_tools": "experimentalThirdParty", "execute_3p_developer_tool": "experimentalThirdParty",

	// tabhive's own tools, which chrome-devtools-mcp lacks, in the group
	// nearest to what they touch: what requests carry and get (cookies,
	// storage states, request routes) is network; a page's script-visible
	// storage and its printout are debugging, beside evaluate_script and
	// take_screenshot.
	"list_cookies": "network", "set_cookie": "network", "delete_cookies": "network",
	"get_cookie": "network", "clear_cookies": "network",
	"save_storage_state": "network", "load_storage_state": "network",
	"route_requests": "network", "list_routes": "network", "unroute_requests": "network",
	"get_web_storage": "debugging", "set_web_storage": "debugging", "delete_web_storage": "debugging",
	"save_pdf": "debugging",
}

// slimTools are the tools of --slim; they are listed only then, and the
// others only without it.
var slimTools = []string{"evaluate", "navigate", "screenshot"}

// unroutedPageTools are tabhive's page tools whose chrome-devtools-mcp
// counterpart takes no pageId: --page-id-routing leaves it optional there.
// (tabhive gives them an optional pageId all the same, so that a parallel
// agent can name its page.)
var unroutedPageTools = []string{"evaluate", "navigate", "screenshot", "trigger_extension_action"}

// Category reports whether a tool group is on under c.
func (c SurfaceConfig) Category(name string) bool {
	if on, ok := c.Categories[name]; ok {
		return on
	}
	return Categories[name]
}

// listed reports whether the server lists tool t.
func (s *Server) listed(t *tool) bool {
	surface := s.cfg.Surface
	if slices.Contains(slimTools, t.name) != surface.Slim {
		return false
	}
	if cat := toolCategory[t.name]; cat != "" && !surface.Category(cat) {
		return false
	}
	return true
}

// routed reports whether tool t requires pageId.
func (s *Server) routed(t *tool) bool {
	if !t.page || !s.cfg.Surface.PageIDRouting || slices.Contains(unroutedPageTools, t.name) {
		return false
	}
	// With extensions, evaluate_script runs in a page or in a service
	// worker: it takes one of pageId and serviceWorkerId.
	if t.name == "evaluate_script" && s.cfg.Surface.Category("extensions") {
		return false
	}
	return true
}

// requirePageID refuses a call of a routed tool that names no page, as
// chrome-devtools-mcp's schema does under page-id routing.
func (s *Server) requirePageID(t *tool, pa pageArg) error {
	if pa.PageID != nil || !s.routed(t) {
		return nil
	}
	return badArgs("Missing required argument %q for tool %q: this server routes by page (--page-id-routing). Call list_pages to see ids.", "pageId", t.name)
}

// pageIDSchema adds the pageId argument to the schema of page tool t,
// required when the tool is routed.
func (s *Server) pageIDSchema(t *tool, schema map[string]any) {
	props := schema["properties"].(map[string]any)
	props["pageId"] = pageIDProperty()
	if !s.routed(t) {
		return
	}
	req, _ := schema["required"].([]string)
	schema["required"] = append([]string{"pageId"}, req...)
}

// pageIDProperty is the schema of pageArg's one property.
func pageIDProperty() any {
	return inputSchema(reflect.TypeFor[pageArg]())["properties"].(map[string]any)["pageId"]
}

// structured is the structuredContent of a result
// (--experimental-structured-content): the tool's own lines as "message",
// the page list as "pages" and the open dialog as "dialog", under
// chrome-devtools-mcp's names. Listings and snapshots stay in the text.
func (r *reply) structured(err error, res *mcp.CallToolResult) map[string]any {
	out := map[string]any{}
	if len(r.lines) > 0 {
		out["message"] = strings.Join(r.lines, "\n")
	}
	if r.rendered != nil {
		pages := make([]map[string]any, 0, len(r.rendered))
		for _, p := range r.rendered {
			pages = append(pages, map[string]any{"id": p.info.ID, "url": p.info.URL, "title": p.info.Title, "selected": p.selected})
		}
		out["pages"] = pages
	}
	if d := r.dialog; d != nil {
		out["dialog"] = map[string]any{"type": d.Type, "message": d.Message, "defaultValue": d.DefaultPrompt}
	}
	for k, v := range r.data {
		out[k] = v
	}
	switch {
	case err != nil:
		out["error"] = sentence(err)
	case res.IsError:
		// Refused before it ran (bad arguments): the reply is the sentence.
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			out["error"] = tc.Text
		}
	}
	return out
}
