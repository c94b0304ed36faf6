package transport

import (
	"context"
	"errors"
	"time"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/page"
)

// requestBudget is get_network_request's budget: reading two bodies from
// the page, and writing them to files.
const requestBudget = 30 * time.Second

// notFound is upstream's reply to a msgid or reqid it does not know. It is
// reported bare (no "Error: "), as upstream reports errors raised while
// building its reply.
const notFound = "Request not found for selected page"

// debugTools read what a page logged and fetched.
func (s *Server) debugTools() []*tool {
	return []*tool{
		define(tool{name: "list_console_messages", description: "List all console messages for the target page since the last navigation.", page: true, readOnly: true},
			fixed[consoleListArgs](listBudget), runListConsole),
		define(tool{name: "get_console_message", description: "Gets a console message by its ID. You can get all messages by calling list_console_messages.", page: true, readOnly: true},
			fixed[consoleGetArgs](listBudget), runGetConsole),
		define(tool{name: "list_network_requests", description: "Lists the most recent requests for the target page since the last navigation.", page: true, readOnly: true},
			fixed[networkListArgs](listBudget), runListNetwork),
		define(tool{name: "get_network_request", description: "Gets a network request by an optional reqid, if omitted returns the currently selected request in the DevTools Network panel. Useful for inspecting request headers (including 'Cookie') and response headers (including 'Set-Cookie' and directives).", page: true},
			fixed[networkGetArgs](requestBudget), s.runGetNetwork),
	}
}

// pagingArgs are the list tools' pagination arguments.
type pagingArgs struct {
	PageSize, PageIdx *int
}

func (a pagingArgs) options() collectors.PageOptions {
	return collectors.PageOptions{PageSize: a.PageSize, PageIdx: a.PageIdx}
}

type consoleListArgs struct {
	PageSize                 *int     `json:"pageSize" min:"1" desc:"Maximum number of messages to return. When omitted, returns all messages."`
	PageIdx                  *int     `json:"pageIdx" min:"0" desc:"Page number to return (0-based). When omitted, returns the first page."`
	Types                    []string `json:"types" enum:"log,debug,info,error,warn,dir,dirxml,table,trace,clear,startGroup,startGroupCollapsed,endGroup,assert,profile,profileEnd,count,timeEnd,verbose,issue" desc:"Filter messages to only return messages of the specified resource types. When omitted or empty, returns all messages."`
	IncludePreservedMessages bool     `json:"includePreservedMessages" desc:"Set to true to return the preserved messages over the last 3 navigations."`
	IncludeStackTraces       bool     `json:"includeStackTraces" desc:"Set to true to include the stack trace for each message when available. Increases the response size."`
	ServiceWorkerID          string   `json:"serviceWorkerId" desc:"Filter messages to only return messages of the specified service worker."`
}

func runListConsole(ctx context.Context, c *call, a *consoleListArgs) error {
	const name = "list_console_messages"
	paging := pagingArgs{a.PageSize, a.PageIdx}
	filter := page.ConsoleFilter{
		Types:            a.Types,
		IncludePreserved: a.IncludePreservedMessages,
		StackTraces:      a.IncludeStackTraces,
	}
	if a.ServiceWorkerID != "" {
		return runWorkerConsole(ctx, c, a.ServiceWorkerID, filter, paging)
	}
	list, err := c.page.ConsoleMessages(ctx, filter)
	if err != nil {
		return err
	}
	c.r.state(list.State)
	c.r.sections = append(c.r.sections, consoleSection(list.Messages, paging.options(), a.IncludeStackTraces))
	return nil
}

type consoleGetArgs struct {
	MsgID int `json:"msgid" required:"true" jsonType:"number" desc:"The msgid of a console message on the page from the listed console messages"`
}

func runGetConsole(ctx context.Context, c *call, a *consoleGetArgs) error {
	d, err := c.page.ConsoleMessage(ctx, a.MsgID)
	if errors.Is(err, page.ErrNoMessage) {
		return &argError{Msg: notFound}
	}
	if err != nil {
		return err
	}
	c.r.state(d.State)
	c.r.sections = append(c.r.sections, consoleDetail(d))
	return nil
}

type networkListArgs struct {
	PageSize                 *int     `json:"pageSize" min:"1" desc:"Maximum number of requests to return. When omitted, returns all requests."`
	PageIdx                  *int     `json:"pageIdx" min:"0" desc:"Page number to return (0-based). When omitted, returns the first page."`
	ResourceTypes            []string `json:"resourceTypes" enum:"document,stylesheet,image,media,font,script,texttrack,xhr,fetch,prefetch,eventsource,websocket,manifest,signedexchange,ping,cspviolationreport,preflight,fedcm,other" desc:"Filter requests to only return requests of the specified resource types. When omitted or empty, returns all requests."`
	IncludePreservedRequests bool     `json:"includePreservedRequests" desc:"Set to true to return the preserved requests over the last 3 navigations."`
}

func runListNetwork(ctx context.Context, c *call, a *networkListArgs) error {
	const name = "list_network_requests"
	paging := pagingArgs{a.PageSize, a.PageIdx}
	list, err := c.page.NetworkRequests(ctx, page.NetworkFilter{ResourceTypes: a.ResourceTypes, IncludePreserved: a.IncludePreservedRequests})
	if err != nil {
		return err
	}
	c.r.state(list.State)
	c.r.sections = append(c.r.sections, networkSection(list.Requests, paging.options()))
	return nil
}

type networkGetArgs struct {
	ReqID            *int   `json:"reqid" jsonType:"number" desc:"The reqid of the network request. If omitted returns the currently selected request in the DevTools Network panel."`
	RequestFilePath  string `json:"requestFilePath" desc:"The absolute or relative path to a .network-request file to save the request body to. If omitted, the body is returned inline."`
	ResponseFilePath string `json:"responseFilePath" desc:"The absolute or relative path to a .network-response file to save the response body to. If omitted, the body is returned inline."`
}

func (s *Server) runGetNetwork(ctx context.Context, c *call, a *networkGetArgs) error {
	// Paths are checked before anything is read, as upstream checks them
	// before the tool runs.
	for _, p := range []string{a.RequestFilePath, a.ResponseFilePath} {
		if p != "" {
			if _, err := c.sandbox(ctx).Resolve(p); err != nil {
				return err
			}
		}
	}
	id := 0
	if a.ReqID != nil {
		id = *a.ReqID
	}
	d, err := c.page.NetworkRequest(ctx, id)
	if errors.Is(err, page.ErrNoRequest) {
		if id == 0 {
			// Upstream shows the request selected in DevTools' Network
			// panel; there is no DevTools window here.
			st, err := c.page.State(ctx)
			if err != nil {
				return err
			}
			c.r.state(st)
			c.r.line("Nothing is currently selected in the DevTools Network panel.")
			return nil
		}
		return &argError{Msg: notFound}
	}
	if err != nil {
		return err
	}
	c.r.state(d.State)

	var bodies requestBodies
	if d.HasPostData {
		bodies.request = requestBodyText(d.PostData, d.PostDataOK)
		if a.RequestFilePath != "" && d.PostDataOK && len(d.PostData) > 0 {
			path, err := c.sandbox(ctx).WriteFile(a.RequestFilePath, d.PostData, ".network-request")
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
				path, err := c.sandbox(ctx).WriteFile(a.ResponseFilePath, d.Body, ".network-response")
				if err != nil {
					return err
				}
				bodies.response = "Saved to " + path + "."
			}
		}
	}
	c.r.sections = append(c.r.sections, networkDetail(d.Request, bodies, s.cfg.RedactNetworkHeaders))
	return nil
}
