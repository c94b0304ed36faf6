// Package walker calls the in-page snapshot walker (page/js's Snapshot) in
// a frame's isolated world: installing it in each document as it starts
// ([InstallOnNewDocuments]; [Call] for a document that began before) and
// finding the DOM node a walker ref names ([Object]). The page's core
// uses it to resolve uids; the snapshot capability (page/axsnapshot) to
// walk frames. It holds no state and starts no goroutines: what it keeps
// lives in the page, in the isolated world of each document.
package walker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/snapshot"
)

// World is the name of the isolated world the walker runs in. The page
// cannot see it, and its state (node ids) lives as long as the document.
const World = "__tabhive_snapshot"

// IsWorld reports whether an execution context Chrome announced
// (Runtime.executionContextCreated: its name and auxData's type) is the
// walker's isolated world. The page's frame tree keeps its id, so that a
// walk makes no call to find it.
func IsWorld(name, kind string) bool { return kind == "isolated" && name == World }

// ErrNodeGone is the error of a DOM node that has left the page.
var ErrNodeGone = errors.New("the node left the page")

// js.WalkerCall calls the walker (js.Snapshot, whose walk the package
// snapshot decodes with [snapshot.DecodeWalk]) once it is installed in the
// isolated world, and answers missing when it is not: a document that
// began before [InstallOnNewDocuments] (a page tabhive adopts). install
// installs it there (in a global of the isolated world, which lives as
// long as the document) and calls it. Either way the walker is compiled
// once per document, and V8 keeps its type feedback and optimized code
// from one snapshot to the next.
const missing = "\u0000install"

var install = strings.Replace(js.WalkerInstall, "__WALKER__", js.Snapshot, 1)

// documentScript sets, as a document starts, the global install would set.
// The function is parenthesized, which has V8 compile its outer body with
// the script rather than at the first snapshot: measured with Chromium
// 156 (go run ./bench/cdpceiling -features walker-doc -walk-trace 12),
// compiling it lazily at the first call re-parses all 96 KB and costs a
// new renderer's first snapshot about 2.8 ms more on the main thread,
// where compiling it with the script adds nothing measurable to the
// document's start. The inner functions still compile as the walk first
// calls them, and the compilation cache spares the renderer's next
// documents both.
var documentScript = "globalThis.__tabhiveWalker ??= (" + js.Snapshot + ");\n//# sourceURL=tabhive://walker.js\n"

// InstallOnNewDocuments has every new document of the session's target
// install the walker in its isolated world as it starts, before the
// page's own scripts run, so that [Call] finds it there. The source then
// crosses the DevTools connection once per session rather than with the
// first call in each document, and each document runs it as a script,
// which V8's compilation cache serves again within a renderer, where a
// function sent with Runtime.callFunctionOn is compiled anew in every
// document (bench/cdpceiling -features walker-doc against walker: about
// 5 % less Chromium CPU per interact iteration). A document that began
// before (a page tabhive adopts) still gets it from Call's first call.
func InstallOnNewDocuments(ctx context.Context, c *cdp.Client) error {
	_, err := c.Page.AddScriptToEvaluateOnNewDocument(ctx, page.NewAddScriptToEvaluateOnNewDocumentArgs(documentScript).SetWorldName(World))
	return err
}

// Call runs the walker with op and args, on the element obj if set, else
// in the isolated world context, installing it first if the document
// does not have it yet. byValue returns the result as JSON rather than as
// a remote object. An exception the walker throws is an [Error].
func Call(ctx context.Context, c *cdp.Client, world runtime.ExecutionContextID, obj runtime.RemoteObjectID, byValue bool, op string, args ...runtime.CallArgument) (*runtime.CallFunctionOnReply, error) {
	opArg, _ := json.Marshal(op)
	call := func(fn string) (*runtime.CallFunctionOnReply, error) {
		a := runtime.NewCallFunctionOnArgs(fn).
			SetArguments(append([]runtime.CallArgument{{Value: opArg}}, args...)).
			SetReturnByValue(byValue).SetSilent(true)
		if obj != "" {
			a.SetObjectID(obj)
		} else {
			a.SetExecutionContextID(world)
		}
		return c.Runtime.CallFunctionOn(ctx, a)
	}
	r, err := call(js.WalkerCall)
	if err != nil {
		return nil, err
	}
	if r.ExceptionDetails == nil && r.Result.Type == "string" {
		var s string
		if json.Unmarshal(r.Result.Value, &s) == nil && s == missing {
			r, err = call(install)
			if err != nil {
				return nil, err
			}
		}
	}
	if r.ExceptionDetails != nil {
		return nil, Error(r.ExceptionDetails)
	}
	return r, nil
}

// Object returns the DOM node a walker ref names, as a remote object of
// the walker's isolated world, or [ErrNodeGone]. The caller releases it.
func Object(ctx context.Context, c *cdp.Client, ref snapshot.Ref) (runtime.RemoteObjectID, error) {
	doc, _ := json.Marshal(ref.Doc)
	id, _ := json.Marshal(ref.ID)
	r, err := Call(ctx, c, runtime.ExecutionContextID(ref.Context), "", false, "node",
		runtime.CallArgument{Value: doc}, runtime.CallArgument{Value: id})
	if err != nil {
		// The isolated world went with its document.
		if ContextGone(err) {
			return "", ErrNodeGone
		}
		return "", err
	}
	if r.Result.ObjectID == nil {
		return "", ErrNodeGone
	}
	return *r.Result.ObjectID, nil
}

// ContextGone reports whether err says an execution context no longer
// exists: its document was replaced.
func ContextGone(err error) bool {
	var re *rpcc.ResponseError
	return errors.As(err, &re) && strings.Contains(re.Message, "Cannot find context")
}

// Error reports an exception the walker threw, stack included: it is a
// bug of ours, not of the page.
func Error(e *runtime.ExceptionDetails) error {
	if e.Exception != nil && e.Exception.Description != nil {
		return fmt.Errorf("snapshot walker: %s", *e.Exception.Description)
	}
	return fmt.Errorf("snapshot walker: %s", e.Text)
}
