package page

// WebMCP: the tools a page registers with document.modelContext.registerTool
// (Chrome's WebMCP, behind --enable-features=WebMCP in Chromium 156), as
// the WebMCP domain reports them, and their invocation. The domain is
// enabled on the page's own session the first time a tool asks; Chrome
// then reports every tool already registered, and each later one, as
// events the actor applies like any other. A frame's tools go with its
// document: they are dropped when the frame navigates or detaches.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page/js"
)

// webmcpEvents are the WebMCP domain's events the actor applies.
// Page.frameNavigated and Page.frameDetached, which events.go applies,
// are seen here too: a frame's tools go with its document.
var webmcpEvents = map[string]bool{
	"WebMCP.toolsAdded":    true,
	"WebMCP.toolsRemoved":  true,
	"WebMCP.toolResponded": true,
}

// WebMCPTool is a tool a page registered with WebMCP.
type WebMCPTool struct {
	Name        string
	Description string
	// InputSchema and Annotations are the page's, as JSON; Annotations is
	// empty when the page gave none.
	InputSchema json.RawMessage
	Annotations json.RawMessage
	// Debugging reports the annotation debugging: true, which marks a tool
	// for developer tooling (list_3p_developer_tools) rather than for the
	// page's users (list_webmcp_tools).
	Debugging bool
	frameID   string
}

// WebMCPResult is how a WebMCP tool's invocation ended.
type WebMCPResult struct {
	// Status is Chrome's: Completed, Canceled or Error.
	Status string
	// Output is the tool's result as JSON, or empty.
	Output json.RawMessage
	// Error is the exception's description or value, or the error text,
	// when the tool failed.
	Error string
}

// ErrNoWebMCPTool is returned for a tool name the page has not registered.
var ErrNoWebMCPTool = errors.New("no WebMCP tool with that name")

// ErrNoModelContext is returned when the page has no WebMCP tools and no
// document.modelContext: the browser runs without WebMCP.
var ErrNoModelContext = errors.New("the page has no document.modelContext")

// webmcpState is the actor's WebMCP bookkeeping, owned by the run
// goroutine.
type webmcpState struct {
	// enabled is set once WebMCP.enable has succeeded on the page's
	// session.
	enabled bool
	// tools are the registered tools in the order Chrome reported them.
	tools []WebMCPTool
	// responses holds the outcomes Chrome reported, by invocation id,
	// until the invoking call takes its own. A tool can answer before the
	// reply that names its invocation has been read, so every outcome is
	// kept; order lists them oldest first, and past maxResponses the
	// oldest (of calls that gave up) go.
	responses map[string]WebMCPResult
	order     []string
}

// maxResponses bounds the outcomes kept for calls that no longer wait.
const maxResponses = 64

// applyWebMCP updates the WebMCP state from one event of session s, on the
// actor goroutine. Only the page's own session has the domain enabled.
func (a *Actor) applyWebMCP(s *Session, ev cdpconn.Event) error {
	w := &a.webmcp
	switch ev.Method {
	case "Page.frameNavigated":
		var e page.FrameNavigatedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		w.dropFrame(string(e.Frame.ID))
	case "Page.frameDetached":
		var e page.FrameDetachedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		w.dropFrame(string(e.FrameID))
	case "WebMCP.toolsAdded":
		if s != a.top {
			return nil
		}
		var e struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Annotations json.RawMessage `json:"annotations"`
				FrameID     string          `json:"frameId"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		for _, t := range e.Tools {
			var ann struct {
				Debugging bool `json:"debugging"`
			}
			json.Unmarshal(t.Annotations, &ann)
			w.remove(t.FrameID, t.Name)
			w.tools = append(w.tools, WebMCPTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
				Annotations: t.Annotations, Debugging: ann.Debugging, frameID: t.FrameID})
		}
	case "WebMCP.toolsRemoved":
		var e struct {
			Tools []struct {
				Name    string `json:"name"`
				FrameID string `json:"frameId"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		for _, t := range e.Tools {
			w.remove(t.FrameID, t.Name)
		}
	case "WebMCP.toolResponded":
		var e struct {
			InvocationID string          `json:"invocationId"`
			Status       string          `json:"status"`
			Output       json.RawMessage `json:"output"`
			ErrorText    string          `json:"errorText"`
			Exception    *struct {
				Description string          `json:"description"`
				Value       json.RawMessage `json:"value"`
			} `json:"exception"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		r := WebMCPResult{Status: e.Status, Output: e.Output, Error: e.ErrorText}
		if x := e.Exception; x != nil {
			switch {
			case x.Description != "":
				r.Error = x.Description
			case len(x.Value) > 0:
				var s string
				if json.Unmarshal(x.Value, &s) != nil {
					s = string(x.Value)
				}
				r.Error = s
			}
		}
		if w.responses == nil {
			w.responses = map[string]WebMCPResult{}
		}
		w.responses[e.InvocationID] = r
		w.order = append(w.order, e.InvocationID)
		for len(w.order) > maxResponses {
			delete(w.responses, w.order[0])
			w.order = w.order[1:]
		}
	}
	return nil
}

// take removes and returns the outcome of invocation id, if reported.
func (w *webmcpState) take(id string) (WebMCPResult, bool) {
	r, ok := w.responses[id]
	if ok {
		delete(w.responses, id)
		w.order = slices.DeleteFunc(w.order, func(o string) bool { return o == id })
	}
	return r, ok
}

func (w *webmcpState) remove(frameID, name string) {
	w.tools = slices.DeleteFunc(w.tools, func(t WebMCPTool) bool { return t.frameID == frameID && t.Name == name })
}

func (w *webmcpState) dropFrame(frameID string) {
	w.tools = slices.DeleteFunc(w.tools, func(t WebMCPTool) bool { return t.frameID == frameID })
}

// enableWebMCP turns the WebMCP domain on for the page's session, once,
// and applies the tools Chrome reports on enabling it. Run goroutine only.
func (a *Actor) enableWebMCP(ctx context.Context) error {
	if a.webmcp.enabled {
		a.drainEvents()
		return nil
	}
	err := a.call(ctx, func(ctx context.Context) error {
		return rpcc.Invoke(ctx, "WebMCP.enable", nil, nil, a.conn.RPC())
	})
	if err != nil {
		var re *rpcc.ResponseError
		if errors.As(err, &re) {
			return fmt.Errorf("%w (WebMCP.enable: %s)", ErrNoModelContext, re.Message)
		}
		return err
	}
	a.webmcp.enabled = true
	// The tools registered so far came before the reply.
	a.drainEvents()
	return nil
}

// WebMCPTools returns the tools the page registered with WebMCP. When it
// has none and the page has no document.modelContext at all (the browser
// runs without WebMCP), it returns [ErrNoModelContext].
func (a *Actor) WebMCPTools(ctx context.Context) ([]WebMCPTool, State, error) {
	type out struct {
		tools []WebMCPTool
		state State
	}
	o, err := ask(ctx, a, func(ctx context.Context) (out, error) {
		if err := a.enableWebMCP(ctx); err != nil {
			return out{}, err
		}
		tools := slices.Clone(a.webmcp.tools)
		if len(tools) == 0 && a.dialog == nil {
			has, err := a.hasModelContext(ctx)
			if err == nil && !has {
				return out{}, ErrNoModelContext
			}
		}
		return out{tools, a.state()}, nil
	})
	return o.tools, o.state, err
}

// hasModelContext reports whether the main frame's document has
// document.modelContext, asked in an isolated world so that the page's
// scripts cannot answer for it.
func (a *Actor) hasModelContext(ctx context.Context) (bool, error) {
	var has bool
	err := a.call(ctx, func(ctx context.Context) error {
		w, err := a.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(a.mainFrame)).SetWorldName("tabhive-webmcp"))
		if err != nil {
			return err
		}
		r, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.HasModelContext).
			SetContextID(w.ExecutionContextID).SetReturnByValue(true))
		if err != nil {
			return err
		}
		return json.Unmarshal(r.Result.Value, &has)
	})
	return has, err
}

// InvokeWebMCPTool runs the page's WebMCP tool name with input (a JSON
// object) and waits, under ctx, for its outcome. debugging picks the tools
// the lookup considers: those annotated for developer tooling, or the
// others. A dialog the tool opens ends the wait with a [*DialogError]; a
// call that gives up cancels the invocation.
func (a *Actor) InvokeWebMCPTool(ctx context.Context, name string, input json.RawMessage, debugging bool) (WebMCPResult, State, error) {
	type out struct {
		res   WebMCPResult
		state State
	}
	o, err := ask(ctx, a, func(ctx context.Context) (out, error) {
		if err := a.needRenderer(); err != nil {
			return out{}, err
		}
		if err := a.enableWebMCP(ctx); err != nil {
			return out{}, err
		}
		i := slices.IndexFunc(a.webmcp.tools, func(t WebMCPTool) bool { return t.Name == name && t.Debugging == debugging })
		if i < 0 {
			return out{}, ErrNoWebMCPTool
		}
		tool := a.webmcp.tools[i]
		var reply struct {
			InvocationID string `json:"invocationId"`
		}
		err := a.call(ctx, func(ctx context.Context) error {
			return rpcc.Invoke(ctx, "WebMCP.invokeTool", map[string]any{"frameId": tool.frameID, "toolName": name, "input": input}, &reply, a.conn.RPC())
		})
		if err != nil {
			return out{}, err
		}
		id := reply.InvocationID
		w := &a.webmcp
		a.drainEvents()
		if r, ok := w.take(id); ok {
			return out{r, a.state()}, nil
		}
		seq := a.dialogSeq
		errResponded := errors.New("responded")
		err = a.act.Await(ctx, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}, func() error {
			if _, ok := w.responses[id]; ok {
				return errResponded
			}
			if a.dialogSeq != seq && a.dialog != nil {
				return &DialogError{Dialog: *a.dialog}
			}
			if a.crashed {
				return ErrCrashed
			}
			return nil
		})
		if err != errResponded {
			// Given up on: the page is told, so the tool's work stops.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupBudget)
			a.act.Await(cctx, func(ctx context.Context) error {
				return rpcc.Invoke(ctx, "WebMCP.cancelInvocation", map[string]any{"invocationId": id}, nil, a.conn.RPC())
			}, nil)
			cancel()
			return out{}, err
		}
		r, _ := w.take(id)
		return out{r, a.state()}, nil
	})
	return o.res, o.state, err
}

// cleanupBudget bounds a cleanup made after the caller gave up.
const cleanupBudget = time.Second
