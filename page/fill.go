package page

import (
	"context"
	"fmt"
	"strings"

	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/input"

	"github.com/tabhive/tabhive/page/internal/keys"
	"github.com/tabhive/tabhive/page/js"
	"github.com/tabhive/tabhive/page/snapshot"
)

// UnsupportedFillError reports an element fill cannot set.
type UnsupportedFillError struct{ Kind string }

func (e *UnsupportedFillError) Error() string {
	return fmt.Sprintf("fill does not support %s elements", e.Kind)
}

// AgentSentence says what to do instead.
func (e *UnsupportedFillError) AgentSentence() string {
	return fmt.Sprintf("fill cannot set a %s; use click, press_key or type the value into a text field.", e.Kind)
}

// FillValueError reports a value the element cannot take. Its message is
// chrome-devtools-mcp's sentence.
type FillValueError struct{ Msg string }

func (e *FillValueError) Error() string         { return e.Msg }
func (e *FillValueError) AgentSentence() string { return e.Msg }

// option is an option of a combobox, from the latest snapshot.
type option struct {
	name string
	id   dom.BackendNodeID
}

// fillPlan is what a fill needs, gathered on the actor goroutine so that
// the action itself touches no actor state.
type fillPlan struct {
	value   string
	options []option // a combobox's options; nil for other elements
}

// planFill reads, from the snapshot, the options of a combobox: upstream
// picks a combobox's option by its accessible name.
func (a *Actor) planFill(ctx context.Context, t elementRef, value string) (fillPlan, error) {
	p := fillPlan{value: value}
	if t.node.Role != "combobox" {
		return p, nil
	}
	var opts []*snapshot.Node
	for _, c := range t.node.Children {
		if c.Role == "option" {
			opts = append(opts, c)
		}
	}
	// One round of lookups for all options rather than one after another.
	ids, err := a.nodeIDs(ctx, opts)
	if err != nil {
		return p, err
	}
	for i, c := range opts {
		p.options = append(p.options, option{name: c.Name, id: ids[i]})
	}
	return p, nil
}

// Fill sets the element uid names to value, as a user would, and waits for
// the consequences: text fields get value typed in place of their content;
// checkboxes, radios and switches take "true" or "false"; a <select> or
// combobox takes the text of one of its options.
func (a *Actor) Fill(ctx context.Context, uid, value string, opts InputOptions) (InputResult, error) {
	return ask(ctx, a, func(ctx context.Context) (InputResult, error) {
		if err := a.needRenderer(); err != nil {
			return InputResult{}, err
		}
		res, err := a.fill(ctx, uid, value)
		return a.finishInput(ctx, res, err, opts)
	})
}

// FormField is one element of a fill_form call.
type FormField struct {
	UID   string
	Value string
}

// FillFormResult reports a fill_form call. Interrupted is the uid whose
// fill opened a dialog, when one did; the fields after it were not filled.
type FillFormResult struct {
	InputResult
	Interrupted string
}

// FillForm fills fields one after another, each in its own wait for
// consequences, and reports the last one's. It stops at the first error, or
// at a dialog a fill opened.
func (a *Actor) FillForm(ctx context.Context, fields []FormField, opts InputOptions) (FillFormResult, error) {
	return ask(ctx, a, func(ctx context.Context) (FillFormResult, error) {
		var out FillFormResult
		if err := a.needRenderer(); err != nil {
			return out, err
		}
		var res ActionResult
		for _, f := range fields {
			r, err := a.fill(ctx, f.UID, f.Value)
			if err != nil {
				out.State = a.state()
				return out, err
			}
			if r.NavigatedTo != "" {
				res.NavigatedTo = r.NavigatedTo
			}
			res.State, res.Dialog = r.State, r.Dialog
			if r.Dialog {
				out.Interrupted = f.UID
				break
			}
		}
		in, err := a.finishInput(ctx, res, nil, opts)
		out.InputResult = in
		return out, err
	})
}

// fill runs one fill on the actor goroutine.
func (a *Actor) fill(ctx context.Context, uid, value string) (ActionResult, error) {
	t, err := a.element(ctx, uid)
	if err != nil {
		return ActionResult{}, err
	}
	plan, err := a.planFill(ctx, t, value)
	if err != nil {
		return ActionResult{}, err
	}
	return a.actOn(ctx, t, actionOptions{gate: "fill"}, func(ctx context.Context, t elementRef, p *Progress) error {
		return a.fillAction(ctx, t, plan, p)
	})
}

// fillAction sets one field. It runs on the waiter's goroutine and uses only
// the CDP client and the plan; progress is marked as in setField.
func (a *Actor) fillAction(ctx context.Context, t elementRef, plan fillPlan, p *Progress) error {
	if len(plan.options) > 0 {
		var picked *option
		for i := range plan.options {
			if plan.options[i].name == plan.value {
				picked = &plan.options[i]
				break
			}
		}
		if picked == nil {
			return &FillValueError{Msg: fmt.Sprintf("Could not find option with text %q", plan.value)}
		}
		var v *string
		if err := callOn(ctx, t.c, picked.id, js.Value, &v); err != nil {
			return err
		}
		if v == nil {
			return &FillValueError{Msg: fmt.Sprintf("Could not find option with text %q", plan.value)}
		}
		return a.setField(ctx, t, *v, p)
	}
	return a.setField(ctx, t, plan.value, p)
}

// setField sets a field to value according to its kind. Setting the value
// (the click of a toggle, the insertion of text) is the fill's decisive
// step, marked on p. Scripts and text go to the field's own session (an
// out-of-process iframe's, if it is in one); clicks and keys to the page's,
// which Chrome routes to the frame under the point or with the focus.
func (a *Actor) setField(ctx context.Context, t elementRef, value string, p *Progress) error {
	id := t.id
	var field struct {
		Kind string `json:"kind"`
		On   bool   `json:"on"`
	}
	if err := callOn(ctx, t.c, id, js.Field, &field); err != nil {
		return err
	}
	switch field.Kind {
	case "toggle":
		if value != "true" && value != "false" {
			return &FillValueError{Msg: fmt.Sprintf(`Checkboxes, radio boxes and toggles require "true" or "false" value, but %s was used`, value)}
		}
		if field.On == (value == "true") {
			return nil
		}
		x, y, err := t.point(ctx)
		if err != nil {
			return err
		}
		return mouseClick(ctx, t.c, x, y, 1, p)
	case "select":
		var v *string
		if err := callOn(ctx, t.c, id, js.SelectByText, &v, value); err != nil {
			return err
		}
		if v == nil {
			return &FillValueError{Msg: fmt.Sprintf("Could not find option with text %q", value)}
		}
		p.Commit()
		return callOn(ctx, t.c, id, js.SetValue, nil, *v)
	case "direct":
		p.Commit()
		return callOn(ctx, t.c, id, js.SetValue, nil, value)
	case "text":
		if err := callOn(ctx, t.c, id, js.FocusText, nil); err != nil {
			return err
		}
		p.Commit()
		if value == "" {
			return pressKey(ctx, a.c, keys.Combo{Key: mustKey("Backspace")}, p)
		}
		return t.c.Input.InsertText(ctx, input.NewInsertTextArgs(value))
	}
	return &UnsupportedFillError{Kind: strings.TrimPrefix(field.Kind, "unsupported:")}
}
