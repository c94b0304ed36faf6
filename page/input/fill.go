package input

import (
	"context"
	"fmt"
	"strings"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	cdpinput "github.com/mafredri/cdp/protocol/input"

	"github.com/tabhive/tabhive/page"
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

// BadInput marks the error as the agent's to fix ([page.BadInput]).
func (e *UnsupportedFillError) BadInput() {}

// FillValueError reports a value the element cannot take. Its message is
// chrome-devtools-mcp's sentence.
type FillValueError struct{ Msg string }

func (e *FillValueError) Error() string         { return e.Msg }
func (e *FillValueError) AgentSentence() string { return e.Msg }

// BadInput marks the error as the agent's to fix ([page.BadInput]).
func (e *FillValueError) BadInput() {}

// option is an option of a combobox, from the latest snapshot.
type option struct {
	name string
	id   dom.BackendNodeID
}

// fillPlan is what a fill needs, gathered on the run goroutine so that
// the action itself touches no page state.
type fillPlan struct {
	value   string
	options []option // a combobox's options; nil for other elements
}

// planFill reads, from the snapshot, the options of a combobox: upstream
// picks a combobox's option by its accessible name.
func planFill(ctx context.Context, h *page.Host, t page.Element, value string) (fillPlan, error) {
	p := fillPlan{value: value}
	if t.Node().Role != "combobox" {
		return p, nil
	}
	var opts []*snapshot.Node
	for _, c := range t.Node().Children {
		if c.Role == "option" {
			opts = append(opts, c)
		}
	}
	// One round of lookups for all options rather than one after another.
	ids, err := h.Elements().BackendNodeIDs(ctx, opts)
	if err != nil {
		return p, err
	}
	for i, c := range opts {
		p.options = append(p.options, option{name: c.Name, id: ids[i]})
	}
	return p, nil
}

// Fill sets the element uid names on page a to value, as a user would,
// and waits for the consequences: text fields get value typed in place of
// their content; checkboxes, radios and switches take "true" or "false";
// a <select> or combobox takes the text of one of its options.
func Fill(ctx context.Context, a *page.Actor, uid, value string, opts page.InputOptions) (page.InputResult, error) {
	h := key.Of(a).h
	return page.Do(ctx, h, func(ctx context.Context) (page.InputResult, error) {
		if err := h.NeedRenderer(); err != nil {
			return page.InputResult{}, err
		}
		res, err := fill(ctx, h, uid, value)
		return h.Elements().FinishInput(ctx, res, err, opts)
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
	page.InputResult
	Interrupted string
}

// FillForm fills fields of page a one after another, each in its own wait
// for consequences, and reports the last one's. It stops at the first
// error, or at a dialog a fill opened.
func FillForm(ctx context.Context, a *page.Actor, fields []FormField, opts page.InputOptions) (FillFormResult, error) {
	h := key.Of(a).h
	return page.Do(ctx, h, func(ctx context.Context) (FillFormResult, error) {
		var out FillFormResult
		if err := h.NeedRenderer(); err != nil {
			return out, err
		}
		var res page.ActionResult
		for _, f := range fields {
			r, err := fill(ctx, h, f.UID, f.Value)
			if err != nil {
				out.State = h.State()
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
		in, err := h.Elements().FinishInput(ctx, res, nil, opts)
		out.InputResult = in
		return out, err
	})
}

// fill runs one fill on the run goroutine.
func fill(ctx context.Context, h *page.Host, uid, value string) (page.ActionResult, error) {
	t, err := h.Elements().Element(ctx, uid)
	if err != nil {
		return page.ActionResult{}, err
	}
	plan, err := planFill(ctx, h, t, value)
	if err != nil {
		return page.ActionResult{}, err
	}
	top := h.Client()
	return h.Elements().ActOn(ctx, t, "fill", func(ctx context.Context, t page.Element, p *page.Progress) error {
		return fillAction(ctx, top, t, plan, p)
	})
}

// fillAction sets one field. It runs on the waiter's goroutine and uses only
// the CDP clients (top, the page's session's) and the plan; progress is
// marked as in setField.
func fillAction(ctx context.Context, top *cdp.Client, t page.Element, plan fillPlan, p *page.Progress) error {
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
		if err := page.CallOnNode(ctx, t.Client(), picked.id, js.Value, &v); err != nil {
			return err
		}
		if v == nil {
			return &FillValueError{Msg: fmt.Sprintf("Could not find option with text %q", plan.value)}
		}
		return setField(ctx, top, t, *v, p)
	}
	return setField(ctx, top, t, plan.value, p)
}

// setField sets a field to value according to its kind. Setting the value
// (the click of a toggle, the insertion of text) is the fill's decisive
// step, marked on p. Scripts and text go to the field's own session (an
// out-of-process iframe's, if it is in one); keys to the page's (top),
// which Chrome routes to the frame with the focus.
func setField(ctx context.Context, top *cdp.Client, t page.Element, value string, p *page.Progress) error {
	c, id := t.Client(), t.BackendNodeID()
	var field struct {
		Kind string `json:"kind"`
		On   bool   `json:"on"`
	}
	if err := page.CallOnNode(ctx, c, id, js.Field, &field); err != nil {
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
		x, y, err := t.Point(ctx)
		if err != nil {
			return err
		}
		return mouseClick(ctx, c, x, y, 1, p)
	case "select":
		var v *string
		if err := page.CallOnNode(ctx, c, id, js.SelectByText, &v, value); err != nil {
			return err
		}
		if v == nil {
			return &FillValueError{Msg: fmt.Sprintf("Could not find option with text %q", value)}
		}
		p.Commit()
		return page.CallOnNode(ctx, c, id, js.SetValue, nil, *v)
	case "direct":
		p.Commit()
		return page.CallOnNode(ctx, c, id, js.SetValue, nil, value)
	case "text":
		if err := page.CallOnNode(ctx, c, id, js.FocusText, nil); err != nil {
			return err
		}
		p.Commit()
		if value == "" {
			return pressKey(ctx, top, keys.Combo{Key: mustKey("Backspace")}, p)
		}
		return c.Input.InsertText(ctx, cdpinput.NewInsertTextArgs(value))
	}
	return &UnsupportedFillError{Kind: strings.TrimPrefix(field.Kind, "unsupported:")}
}
