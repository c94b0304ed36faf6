package page

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/page/internal/format"
	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/waiter"
)

// The causal tracker and evaluate_script's machinery live in every
// document from its start (js/causal.js): the actor registers them with
// Page.addScriptToEvaluateOnNewDocument as it attaches, before the page's
// first document, so that they hold the browser's own built-ins whatever
// the page's scripts do later, and follow code that kept its own reference
// to setTimeout or fetch. They stay dormant until an action begins.
//
// Their controller is kept in a private field of the document named by
// trackerKey, a secret of this process: a page can neither enumerate the
// field nor plant one under the same name for tabhive to take for its own.
// tabhive reads it over CDP (Runtime.getProperties lists private fields).
// A document that predates the registration (a tab that was open before
// the actor attached) gets the same script evaluated late, on first use: it
// then holds what the page left in place, and whatever it could not take
// (a deleted MessageChannel, a replaced MutationObserver) is reported.

// trackerKey is the name of the document's private field that holds the
// controller.
var trackerKey = func() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "t" + hex.EncodeToString(b)
}()

// TrackerURL is the source URL of the tracker's script: frames of it in a
// stack trace (the asynchronous caller of a timer set through one of its
// wrappers) are tabhive's, not the page's, and are left out of what the
// console collector reports.
const TrackerURL = format.TrackerURL

// trackerLifetime bounds how long a tracker stays active in a page that
// nobody stopped: longer than any wait it serves. Every wait stops it
// itself; this is for a renderer that did not answer the stop.
const trackerLifetime = 5 * time.Minute

// trackerScript is js.Causal, with the key, called: the init script, and
// the expression a late install evaluates (it yields the controller). Its
// text is the same in every document of the process, so that V8 compiles
// it once per renderer and its compilation cache serves the documents
// after: nothing in it may vary per document or per call.
var trackerScript = "(" + strings.TrimSpace(strings.ReplaceAll(js.Causal, "__TABHIVE_KEY__", trackerKey)) +
	fmt.Sprintf(")(%d)\n//# sourceURL=%s\n", trackerLifetime.Milliseconds(), TrackerURL)

// installTracker registers the tracker for every new document of the
// session's target, before its own scripts.
func installTracker(ctx context.Context, c *cdp.Client) error {
	_, err := c.Page.AddScriptToEvaluateOnNewDocument(ctx, page.NewAddScriptToEvaluateOnNewDocumentArgs(trackerScript))
	return err
}

// trackerOf returns the tracker's controller in the document of execution
// context ec (0: the main frame's main world), as a remote object of
// object group group, which the caller releases. A document without one
// gets one now (late reports that). An exception the page's state causes
// in a late install is an error wrapping [waiter.ErrUnfollowable]; other
// errors mean the document cannot be reached (it went away).
func trackerOf(ctx context.Context, c *cdp.Client, ec runtime.ExecutionContextID, group string) (id runtime.RemoteObjectID, late bool, err error) {
	evaluate := func(expr string) (*runtime.EvaluateReply, error) {
		args := runtime.NewEvaluateArgs(expr).SetObjectGroup(group)
		if ec != 0 {
			args.SetContextID(ec)
		}
		return c.Runtime.Evaluate(ctx, args)
	}
	d, err := evaluate("document")
	if err != nil {
		return "", false, err
	}
	if d.ExceptionDetails != nil || d.Result.ObjectID == nil {
		return "", false, fmt.Errorf("%w: the document cannot be reached", waiter.ErrUnfollowable)
	}
	props, err := c.Runtime.GetProperties(ctx, runtime.NewGetPropertiesArgs(*d.Result.ObjectID).SetOwnProperties(true))
	if err != nil {
		return "", false, err
	}
	for _, p := range props.PrivateProperties {
		if p.Name == "#"+trackerKey && p.Value != nil && p.Value.ObjectID != nil {
			return *p.Value.ObjectID, false, nil
		}
	}
	r, err := evaluate(trackerScript)
	if err != nil {
		return "", false, err
	}
	if r.ExceptionDetails != nil {
		return "", true, fmt.Errorf("%w: %s", waiter.ErrUnfollowable, exceptionText(r.ExceptionDetails))
	}
	if r.Result.ObjectID == nil {
		return "", true, fmt.Errorf("%w: the tracker could not be installed", waiter.ErrUnfollowable)
	}
	return *r.Result.ObjectID, true, nil
}

// contextOf returns the execution context remote object id lives in, as
// V8 names its remote objects ("<isolate>.<context>.<n>"), or 0 if id has
// another shape: a controller is cached only for the document it was found
// in (frame.trackerIn), so a navigation, which brings a new context, drops
// it. Context ids are numbered per renderer, but a remote object resolves
// only in the renderer that named it: a controller left in another
// process fails its first call, and is looked up again (causalProbe.begin).
func contextOf(id runtime.RemoteObjectID) runtime.ExecutionContextID {
	parts := strings.Split(string(id), ".")
	if len(parts) != 3 {
		return 0
	}
	n, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return runtime.ExecutionContextID(n)
}

// trackerCall calls fn on the controller tracker with args, and decodes its
// value into out if out is not nil. An exception is an error wrapping
// [waiter.ErrUnfollowable]: the page broke what the controller needs.
func trackerCall(ctx context.Context, c *cdp.Client, tracker runtime.RemoteObjectID, fn string, out any, args ...any) error {
	call := make([]runtime.CallArgument, 0, len(args))
	for _, v := range args {
		a, err := jsonArg(v)
		if err != nil {
			return err
		}
		call = append(call, a)
	}
	r, err := c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(fn).SetObjectID(tracker).
		SetArguments(call).SetAwaitPromise(true).SetReturnByValue(true))
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("%w: %s", waiter.ErrUnfollowable, exceptionText(r.ExceptionDetails))
	}
	if out == nil {
		return nil
	}
	if err := decodeValue(r.Result.Value, out); err != nil {
		return fmt.Errorf("%w: %v", waiter.ErrUnfollowable, err)
	}
	return nil
}

// releaseGroup releases an object group under a short bound of its own:
// cleanup that must happen whether or not the caller's context has ended.
func releaseGroup(c *cdp.Client, ctx context.Context, group string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	c.Runtime.ReleaseObjectGroup(ctx, runtime.NewReleaseObjectGroupArgs(group))
}

// decodeValue decodes a value the page returned by value into out. What a
// page returns is not trusted to have the shape asked for: the error says
// so in words, never in the decoder's.
func decodeValue(raw json.RawMessage, out any) error {
	if err := json.Unmarshal(raw, out); err != nil {
		return errUnreadable
	}
	return nil
}

// errUnreadable is a page's answer that does not have the expected shape.
var errUnreadable = errors.New("the page's answer could not be read")

// groupSeq numbers the object groups of probes and evaluations.
var groupSeq atomic.Int64

// newGroup returns a fresh object group name.
func newGroup(what string) string { return fmt.Sprintf("tabhive-%s-%d", what, groupSeq.Add(1)) }
