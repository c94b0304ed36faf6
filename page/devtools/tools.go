package devtools

// The capability's MCP tools: list_console_messages, get_console_message,
// list_network_requests and get_network_request, with chrome-devtools-mcp's
// names, arguments and reply text (render.go).

import (
	"context"
	"errors"
	"time"

	"github.com/tabhive/tabhive/browser/extensions"
	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/transport/tool"
)

// Config sets how the tools show what they collected. The zero value shows
// everything as collected.
type Config struct {
	// RedactHeaders replaces the values of sensitive headers
	// (authorization, cookies, ...) with <redacted> in network request
	// details (--redact-network-headers).
	RedactHeaders bool
}

// requestBudget is get_network_request's budget: reading two bodies from
// the page, and writing them to files. The listings and
// get_console_message have tool.ListBudget.
const requestBudget = 30 * time.Second

// notFound is upstream's reply to a msgid or reqid it does not know. It is
// reported bare (no "Error: "), as upstream reports errors raised while
// building its reply.
const notFound = "Request not found for selected page"

// tools are the debugging tools of one server.
type tools struct{ cfg Config }

// Tools returns the tools that read what a page logged and fetched,
// showing it as cfg says.
func Tools(cfg Config) []*tool.Tool {
	t := &tools{cfg: cfg}
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "list_console_messages", Description: "List all console messages for the target page since the last navigation.", Page: true, ReadOnly: true},
			tool.Fixed[consoleListArgs](tool.ListBudget), runListConsole),
		tool.Define(tool.Tool{Name: "get_console_message", Description: "Gets a console message by its ID. You can get all messages by calling list_console_messages.", Page: true, ReadOnly: true},
			tool.Fixed[consoleGetArgs](tool.ListBudget), runGetConsole),
		tool.Define(tool.Tool{Name: "list_network_requests", Description: "Lists the most recent requests for the target page since the last navigation.", Page: true, ReadOnly: true},
			tool.Fixed[networkListArgs](tool.ListBudget), runListNetwork),
		tool.Define(tool.Tool{Name: "get_network_request", Description: "Gets a network request by an optional reqid, if omitted returns the currently selected request in the DevTools Network panel. Useful for inspecting request headers (including 'Cookie') and response headers (including 'Set-Cookie' and directives).", Page: true},
			tool.Fixed[networkGetArgs](requestBudget), t.runGetNetwork),
	}
}

func pageOptions(pageSize, pageIdx *int) collectors.PageOptions {
	return collectors.PageOptions{PageSize: pageSize, PageIdx: pageIdx}
}

type consoleListArgs struct {
	PageSize                 *int     `json:"pageSize" min:"1" desc:"Maximum number of messages to return. When omitted, returns all messages."`
	PageIdx                  *int     `json:"pageIdx" min:"0" desc:"Page number to return (0-based). When omitted, returns the first page."`
	Types                    []string `json:"types" enum:"log,debug,info,error,warn,dir,dirxml,table,trace,clear,startGroup,startGroupCollapsed,endGroup,assert,profile,profileEnd,count,timeEnd,verbose,issue" desc:"Filter messages to only return messages of the specified resource types. When omitted or empty, returns all messages."`
	IncludePreservedMessages bool     `json:"includePreservedMessages" desc:"Set to true to return the preserved messages over the last 3 navigations."`
	IncludeStackTraces       bool     `json:"includeStackTraces" desc:"Set to true to include the stack trace for each message when available. Increases the response size."`
	ServiceWorkerID          string   `json:"serviceWorkerId" desc:"Filter messages to only return messages of the specified service worker."`
}

func runListConsole(ctx context.Context, c tool.Call, a *consoleListArgs) error {
	opts := pageOptions(a.PageSize, a.PageIdx)
	if a.ServiceWorkerID != "" {
		// A service worker's console, since it was attached.
		w, err := extensions.Worker(ctx, c, a.ServiceWorkerID)
		if err != nil {
			return err
		}
		msgs, err := w.ConsoleMessages(ctx, a.Types)
		if err != nil {
			return err
		}
		c.Reply().Section(consoleSection(msgs, opts, a.IncludeStackTraces))
		return nil
	}
	list, err := Of(c.Page()).ConsoleMessages(ctx, ConsoleFilter{
		Types:            a.Types,
		IncludePreserved: a.IncludePreservedMessages,
		StackTraces:      a.IncludeStackTraces,
	})
	if err != nil {
		return err
	}
	c.Reply().State(list.State)
	c.Reply().Section(consoleSection(list.Messages, opts, a.IncludeStackTraces))
	return nil
}

type consoleGetArgs struct {
	MsgID int `json:"msgid" required:"true" jsonType:"number" desc:"The msgid of a console message on the page from the listed console messages"`
}

func runGetConsole(ctx context.Context, c tool.Call, a *consoleGetArgs) error {
	d, err := Of(c.Page()).ConsoleMessage(ctx, a.MsgID)
	if errors.Is(err, ErrNoMessage) {
		return &tool.ArgError{Msg: notFound}
	}
	if err != nil {
		return err
	}
	c.Reply().State(d.State)
	c.Reply().Section(consoleDetail(d))
	return nil
}

type networkListArgs struct {
	PageSize                 *int     `json:"pageSize" min:"1" desc:"Maximum number of requests to return. When omitted, returns all requests."`
	PageIdx                  *int     `json:"pageIdx" min:"0" desc:"Page number to return (0-based). When omitted, returns the first page."`
	ResourceTypes            []string `json:"resourceTypes" enum:"document,stylesheet,image,media,font,script,texttrack,xhr,fetch,prefetch,eventsource,websocket,manifest,signedexchange,ping,cspviolationreport,preflight,fedcm,other" desc:"Filter requests to only return requests of the specified resource types. When omitted or empty, returns all requests."`
	IncludePreservedRequests bool     `json:"includePreservedRequests" desc:"Set to true to return the preserved requests over the last 3 navigations."`
}

func runListNetwork(ctx context.Context, c tool.Call, a *networkListArgs) error {
	list, err := Of(c.Page()).NetworkRequests(ctx, NetworkFilter{ResourceTypes: a.ResourceTypes, IncludePreserved: a.IncludePreservedRequests})
	if err != nil {
		return err
	}
	c.Reply().State(list.State)
	c.Reply().Section(networkSection(list.Requests, pageOptions(a.PageSize, a.PageIdx)))
	return nil
}

type networkGetArgs struct {
	ReqID            *int   `json:"reqid" jsonType:"number" desc:"The reqid of the network request. If omitted returns the currently selected request in the DevTools Network panel."`
	RequestFilePath  string `json:"requestFilePath" desc:"The absolute or relative path to a .network-request file to save the request body to. If omitted, the body is returned inline."`
	ResponseFilePath string `json:"responseFilePath" desc:"The absolute or relative path to a .network-response file to save the response body to. If omitted, the body is returned inline."`
}

func (t *tools) runGetNetwork(ctx context.Context, c tool.Call, a *networkGetArgs) error {
	// Paths are checked before anything is read, as upstream checks them
	// before the tool runs.
	for _, p := range []string{a.RequestFilePath, a.ResponseFilePath} {
		if p != "" {
			if _, err := c.Sandbox(ctx).Resolve(p); err != nil {
				return err
			}
		}
	}
	id := 0
	if a.ReqID != nil {
		id = *a.ReqID
	}
	d, err := Of(c.Page()).NetworkRequest(ctx, id)
	if errors.Is(err, ErrNoRequest) {
		if id == 0 {
			// Upstream shows the request selected in DevTools' Network
			// panel; there is no DevTools window here.
			st, err := c.Page().State(ctx)
			if err != nil {
				return err
			}
			c.Reply().State(st)
			c.Reply().Line("Nothing is currently selected in the DevTools Network panel.")
			return nil
		}
		return &tool.ArgError{Msg: notFound}
	}
	if err != nil {
		return err
	}
	c.Reply().State(d.State)

	var bodies requestBodies
	if d.HasPostData {
		bodies.request = requestBodyText(d.PostData, d.PostDataOK)
		if a.RequestFilePath != "" && d.PostDataOK && len(d.PostData) > 0 {
			path, err := c.Sandbox(ctx).WriteFile(a.RequestFilePath, d.PostData, ".network-request")
			if err != nil {
				return err
			}
			bodies.request = "Saved to " + path + "."
		}
	}
	if d.Response != nil {
		bodies.response = responseBodyText(d.Body, d.BodyOK)
		if a.ResponseFilePath != "" {
			bodies.response = "<Response body not available anymore>"
			if d.BodyOK {
				path, err := c.Sandbox(ctx).WriteFile(a.ResponseFilePath, d.Body, ".network-response")
				if err != nil {
					return err
				}
				bodies.response = "Saved to " + path + "."
			}
		}
	}
	c.Reply().Section(networkDetail(d.Request, bodies, t.cfg.RedactHeaders))
	return nil
}
