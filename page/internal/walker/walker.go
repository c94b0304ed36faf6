// Package walker calls the in-page snapshot walker (page/js's Snapshot) in
// a frame's isolated world: installing it once per document ([Call]) and
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
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/snapshot"
)

// World is the name of the isolated world the walker runs in. The page
// cannot see it, and its state (node ids) lives as long as the document.
const World = "__tabhive_snapshot"

// ErrNodeGone is the error of a DOM node that has left the page.
var ErrNodeGone = errors.New("the node left the page")

// js.WalkerCall calls the walker (js.Snapshot, whose walk the package
// snapshot decodes with [snapshot.DecodeWalk]) once it is installed in the
// isolated world, and answers missing when it is not. install installs it
// (in a global of the isolated world, which lives as long as the
// document) and calls it. So the walker's source is sent and compiled
// once per document, and V8 keeps its type feedback and optimized code
// from one snapshot to the next.
const missing = "\u0000install"

var install = strings.Replace(js.WalkerInstall, "__WALKER__", js.Snapshot, 1)

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
