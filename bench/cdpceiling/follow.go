package main

// -features tracker-follow: the calls tabhive makes on the causal tracker
// around each action, and the waits they are (page/wait.go, waiter):
// after a load, the new document's tracker is looked up (Runtime.evaluate
// of document, Runtime.getProperties for its private field) and begun and
// waited on in one call until the DOM has been quiet; before a click, the
// document's tracker (looked up once per document) is begun, and after it
// told the input is over and waited on until what the click caused is
// done. The settings are tabhive's defaults at no emulated slowdown.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mafredri/cdp/protocol/runtime"
)

// trackerField is the private field the loop's tracker stamps on its
// document (features.go gives it this key).
const trackerField = "#tcdpceiling"

var (
	// As waiter's fresh settle: 100 ms at least, 50 ms without a
	// mutation, 3 s at most.
	freshSettle = map[string]int{"tail": 50, "min": 100, "horizon": 0, "requests": 0, "max": 3000}
	// As waiter's followed settle: 15 ms without a mutation once the
	// action's work is done, a horizon of 1 s, 3 s for requests.
	followedSettle = map[string]int{"tail": 15, "min": 0, "horizon": 1000, "requests": 3000, "max": 3000}
)

// trackerOf returns the controller of the document's tracker, looked up
// once per document as tabhive caches it.
func (p *tab) trackerOf(ctx context.Context) (runtime.RemoteObjectID, error) {
	if p.tracker != "" {
		return p.tracker, nil
	}
	c := p.conn.Client
	d, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs("document").SetObjectGroup("cdpceiling-tracker"))
	if err != nil {
		return "", fmt.Errorf("tracker lookup: %w", err)
	}
	if d.Result.ObjectID == nil {
		return "", fmt.Errorf("tracker lookup: no document")
	}
	props, err := c.Runtime.GetProperties(ctx, runtime.NewGetPropertiesArgs(*d.Result.ObjectID).SetOwnProperties(true))
	if err != nil {
		return "", fmt.Errorf("tracker lookup: %w", err)
	}
	for _, pp := range props.PrivateProperties {
		if pp.Name == trackerField && pp.Value != nil && pp.Value.ObjectID != nil {
			p.tracker = *pp.Value.ObjectID
			return p.tracker, nil
		}
	}
	return "", fmt.Errorf("tracker lookup: the document has no tracker")
}

// trackerCall calls fn on the controller with args by value and awaits it.
func (p *tab) trackerCall(ctx context.Context, id runtime.RemoteObjectID, fn string, args ...any) error {
	call := make([]runtime.CallArgument, len(args))
	for i, a := range args {
		call[i].Value, _ = json.Marshal(a)
	}
	r, err := p.conn.Client.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(fn).SetObjectID(id).
		SetArguments(call).SetAwaitPromise(true).SetReturnByValue(true))
	if err != nil {
		return fmt.Errorf("tracker call: %w", err)
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("tracker call: %s", r.ExceptionDetails.Text)
	}
	return nil
}

// settleLoaded waits, as tabhive after a load, for the new document to
// settle (-features tracker-follow; nothing otherwise).
func (p *tab) settleLoaded(ctx context.Context) error {
	if !p.b.features.follow {
		return nil
	}
	id, err := p.trackerOf(ctx)
	if err != nil {
		return err
	}
	return p.trackerCall(ctx, id, "function (c, h, o) { this.begin(c, h); return this.settle(o) }", false, 1000, freshSettle)
}

// followed runs action as tabhive follows an input action: the document's
// tracker begun before it, and waited on after it; an action that loads
// a new document (navigates) waits on the new document's instead.
func (p *tab) followed(ctx context.Context, navigates bool, action func() error) error {
	if !p.b.features.follow {
		return action()
	}
	id, err := p.trackerOf(ctx)
	if err != nil {
		return err
	}
	if err := p.trackerCall(ctx, id, "function (c, h) { this.begin(c, h) }", true, 1000); err != nil {
		return err
	}
	if err := action(); err != nil {
		return err
	}
	if navigates {
		return p.settleLoaded(ctx)
	}
	return p.trackerCall(ctx, id, "function (o) { this.end(); return this.settle(o) }", followedSettle)
}
