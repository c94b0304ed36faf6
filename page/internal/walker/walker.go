// Package walker calls the in-page snapshot walker (page/js's Snapshot) in
// a frame's isolated world ([Call]), installing it in the world the first
// time a document's walker is called, and finds the DOM node a walker ref
// names ([Object]). The page's core uses it to resolve uids; the snapshot
// capability (page/axsnapshot) to walk frames.
//
// The world is made lazily, by the first snapshot or uid of a document
// that needs it (Page.createIsolatedWorld): a document no snapshot looks
// at costs Chromium no isolated world and no walker. The page's frame tree
// keeps the world's context id as Runtime.executionContextCreated reports
// it ([IsWorld]), so that later walks of the document make no call to find
// it. The package holds no state and starts no goroutines: what it keeps
// lives in the page, in the isolated world of each document.
package walker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mafredri/cdp"
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
// walker's isolated world.
func IsWorld(name, kind string) bool { return kind == "isolated" && name == World }

// ErrNodeGone is the error of a DOM node that has left the page.
var ErrNodeGone = errors.New("the node left the page")

// js.WalkerCall calls the walker (js.Snapshot, whose walk the package
// snapshot decodes with [snapshot.DecodeWalk]) once it is installed in the
// isolated world, and answers missing when it is not: the document's
// first call. script then installs it, in a global of the isolated world
// (which lives as long as the document). It is evaluated as a script, which
// V8's compilation cache serves again within a renderer (a function sent
// with Runtime.callFunctionOn would be compiled anew in every document),
// and the function is not parenthesized, so that V8 compiles it lazily, at
// its first call, and keeps its type feedback and optimized code from one
// snapshot to the next.
const missing = "\u0000install"

var script = "globalThis.__tabhiveWalker ??= " + js.Snapshot + ";\n//# sourceURL=tabhive://walker.js\n"

// Call runs the walker with op and args in the isolated world context
// world, on the element obj of that world if set, installing it first if
// the document does not have it yet. byValue returns the result as JSON
// rather than as a remote object. An exception the walker throws is an
// [Error].
func Call(ctx context.Context, c *cdp.Client, world runtime.ExecutionContextID, obj runtime.RemoteObjectID, byValue bool, op string, args ...runtime.CallArgument) (*runtime.CallFunctionOnReply, error) {
	opArg, _ := json.Marshal(op)
	a := runtime.NewCallFunctionOnArgs(js.WalkerCall).
		SetArguments(append([]runtime.CallArgument{{Value: opArg}}, args...)).
		SetReturnByValue(byValue).SetSilent(true)
	if obj != "" {
		a.SetObjectID(obj)
	} else {
		a.SetExecutionContextID(world)
	}
	r, err := c.Runtime.CallFunctionOn(ctx, a)
	if err != nil {
		return nil, err
	}
	if r.ExceptionDetails == nil && r.Result.Type == "string" {
		var s string
		if json.Unmarshal(r.Result.Value, &s) == nil && s == missing {
			if err := install(ctx, c, world); err != nil {
				return nil, err
			}
			if r, err = c.Runtime.CallFunctionOn(ctx, a); err != nil {
				return nil, err
			}
		}
	}
	if r.ExceptionDetails != nil {
		return nil, Error(r.ExceptionDetails)
	}
	return r, nil
}

// install installs the walker in the isolated world context world.
func install(ctx context.Context, c *cdp.Client, world runtime.ExecutionContextID) error {
	r, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(script).SetContextID(world).SetSilent(true))
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return Error(r.ExceptionDetails)
	}
	return nil
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
