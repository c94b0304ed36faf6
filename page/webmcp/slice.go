// Package webmcp is the capability of a page's own tools: those it
// registers with WebMCP, and the developer tools it offers for its own
// debugging (devtools.go).
//
// WebMCP: the tools a page registers with document.modelContext.registerTool
// (Chrome's WebMCP, behind --enable-features=WebMCP in Chromium 156), as
// the WebMCP domain reports them, and their invocation. The domain is
// enabled on the page's own session the first time a tool asks; Chrome
// then reports every tool already registered, and each later one, as
// events the actor applies like any other. A frame's tools go with its
// document: they are dropped when the frame navigates or detaches.
//
// It starts no goroutines of its own: an invocation's wait runs in
// [page.Host.Await], which the page's actor owns.
package webmcp

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
	tpage "github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/js"
)

// slices finds a page's WebMCP state. Page.frameNavigated and
// Page.frameDetached, which the page's core applies first, are seen here
// too: a frame's tools go with its document.
var pages = tpage.Register(tpage.Capability[*Slice]{
	Name: "webmcp",
	Events: []string{"WebMCP.toolsAdded", "WebMCP.toolsRemoved", "WebMCP.toolResponded",
		"Page.frameNavigated", "Page.frameDetached"},
	New: func(h *tpage.Host) *Slice { return &Slice{h: h} },
})

// Of returns page a's WebMCP state.
func Of(a *tpage.Actor) *Slice { return pages.Of(a) }

// Tool is a tool a page registered with WebMCP.
type Tool struct {
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

// Result is how a WebMCP tool's invocation ended.
type Result struct {
	// Status is Chrome's: Completed, Canceled or Error.
	Status string
	// Output is the tool's result as JSON, or empty.
	Output json.RawMessage
	// Error is the exception's description or value, or the error text,
	// when the tool failed.
	Error string
}

// ErrNoTool is returned for a tool name the page has not registered.
var ErrNoTool = errors.New("no WebMCP tool with that name")

// ErrNoModelContext is returned when the page has no WebMCP tools and no
// document.modelContext: the browser runs without WebMCP.
var ErrNoModelContext = errors.New("the page has no document.modelContext")

// Slice is a page's WebMCP bookkeeping. The page's run goroutine owns
// it: its methods run there, through [tpage.Do], as the events it applies
// do.
type Slice struct {
	h *tpage.Host
	// enabled is set once WebMCP.enable has succeeded on the page's
	// session.
	enabled bool
	// tools are the registered tools in the order Chrome reported them.
	tools []Tool
	// responses holds the outcomes Chrome reported, by invocation id,
	// until the invoking call takes its own. A tool can answer before the
	// reply that names its invocation has been read, so every outcome is
	// kept; order lists them oldest first, and past maxResponses the
	// oldest (of calls that gave up) go.
	responses map[string]Result
	order     []string
}

// maxResponses bounds the outcomes kept for calls that no longer wait.
const maxResponses = 64

// Apply updates the WebMCP state from one event of session s. Only the
// page's own session has the domain enabled.
func (w *Slice) Apply(s *tpage.Session, ev cdpconn.Event) error {
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
		if !s.IsTop() {
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
			w.tools = append(w.tools, Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
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
		r := Result{Status: e.Status, Output: e.Output, Error: e.ErrorText}
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
			w.responses = map[string]Result{}
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
func (w *Slice) take(id string) (Result, bool) {
	r, ok := w.responses[id]
	if ok {
		delete(w.responses, id)
		w.order = slices.DeleteFunc(w.order, func(o string) bool { return o == id })
	}
	return r, ok
}

func (w *Slice) remove(frameID, name string) {
	w.tools = slices.DeleteFunc(w.tools, func(t Tool) bool { return t.frameID == frameID && t.Name == name })
}

func (w *Slice) dropFrame(frameID string) {
	w.tools = slices.DeleteFunc(w.tools, func(t Tool) bool { return t.frameID == frameID })
}

// enable turns the WebMCP domain on for the page's session, once, and
// applies the tools Chrome reports on enabling it. Run goroutine only.
func (w *Slice) enable(ctx context.Context) error {
	h := w.h
	if w.enabled {
		h.ApplyEvents()
		return nil
	}
	err := h.Call(ctx, func(ctx context.Context) error {
		return rpcc.Invoke(ctx, "WebMCP.enable", nil, nil, h.Top().RPC())
	})
	if err != nil {
		var re *rpcc.ResponseError
		if errors.As(err, &re) {
			return fmt.Errorf("%w (WebMCP.enable: %s)", ErrNoModelContext, re.Message)
		}
		return err
	}
	w.enabled = true
	// The tools registered so far came before the reply.
	h.ApplyEvents()
	return nil
}

// Tools returns the tools the page registered with WebMCP. When it has
// none and the page has no document.modelContext at all (the browser runs
// without WebMCP), it returns [ErrNoModelContext].
func (w *Slice) Tools(ctx context.Context) ([]Tool, tpage.State, error) {
	type out struct {
		tools []Tool
		state tpage.State
	}
	h := w.h
	o, err := tpage.Do(ctx, h, func(ctx context.Context) (out, error) {
		if err := w.enable(ctx); err != nil {
			return out{}, err
		}
		tools := slices.Clone(w.tools)
		if len(tools) == 0 && h.Dialogs().Open() == nil {
			has, err := w.hasModelContext(ctx)
			if err == nil && !has {
				return out{}, ErrNoModelContext
			}
		}
		return out{tools, h.State()}, nil
	})
	return o.tools, o.state, err
}

// hasModelContext reports whether the main frame's document has
// document.modelContext, asked in an isolated world so that the page's
// scripts cannot answer for it.
func (w *Slice) hasModelContext(ctx context.Context) (bool, error) {
	var has bool
	h := w.h
	c := h.Client()
	err := h.Call(ctx, func(ctx context.Context) error {
		world, err := c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(h.MainFrame())).SetWorldName("tabhive-webmcp"))
		if err != nil {
			return err
		}
		r, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.HasModelContext).
			SetContextID(world.ExecutionContextID).SetReturnByValue(true))
		if err != nil {
			return err
		}
		return json.Unmarshal(r.Result.Value, &has)
	})
	return has, err
}

// Invoke runs the page's WebMCP tool name with input (a JSON
// object) and waits, under ctx, for its outcome. debugging picks the tools
// the lookup considers: those annotated for developer tooling, or the
// others. A dialog the tool opens ends the wait with a
// [*tpage.DialogError]; a call that gives up cancels the invocation.
func (w *Slice) Invoke(ctx context.Context, name string, input json.RawMessage, debugging bool) (Result, tpage.State, error) {
	type out struct {
		res   Result
		state tpage.State
	}
	h := w.h
	o, err := tpage.Do(ctx, h, func(ctx context.Context) (out, error) {
		if err := h.NeedRenderer(); err != nil {
			return out{}, err
		}
		if err := w.enable(ctx); err != nil {
			return out{}, err
		}
		i := slices.IndexFunc(w.tools, func(t Tool) bool { return t.Name == name && t.Debugging == debugging })
		if i < 0 {
			return out{}, ErrNoTool
		}
		tool := w.tools[i]
		var reply struct {
			InvocationID string `json:"invocationId"`
		}
		err := h.Call(ctx, func(ctx context.Context) error {
			return rpcc.Invoke(ctx, "WebMCP.invokeTool", map[string]any{"frameId": tool.frameID, "toolName": name, "input": input}, &reply, h.Top().RPC())
		})
		if err != nil {
			return out{}, err
		}
		id := reply.InvocationID
		h.ApplyEvents()
		if r, ok := w.take(id); ok {
			return out{r, h.State()}, nil
		}
		dialogs := h.Dialogs()
		seq := dialogs.Mark()
		errResponded := errors.New("responded")
		err = h.Await(ctx, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}, func() error {
			if _, ok := w.responses[id]; ok {
				return errResponded
			}
			if d := dialogs.Open(); dialogs.Mark() != seq && d != nil {
				return &tpage.DialogError{Dialog: *d}
			}
			return h.Crashed()
		})
		if err != errResponded {
			// Given up on: the page is told, so the tool's work stops.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupBudget)
			h.Await(cctx, func(ctx context.Context) error {
				return rpcc.Invoke(ctx, "WebMCP.cancelInvocation", map[string]any{"invocationId": id}, nil, h.Top().RPC())
			}, nil)
			cancel()
			return out{}, err
		}
		r, _ := w.take(id)
		return out{r, h.State()}, nil
	})
	return o.res, o.state, err
}

// cleanupBudget bounds a cleanup made after the caller gave up.
const cleanupBudget = time.Second
