package page

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/input"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/page/internal/keys"
)

// actionabilityTimeout bounds the wait for an element to get a box that can
// be clicked (upstream's locator timeout: 5 s × CPU).
const actionabilityTimeout = 5 * time.Second

// errNotInteractive is the cause of an [*InteractError] for an element that
// never got a visible box within the actionability timeout.
var errNotInteractive = errors.New("the element did not become interactive")

// errNodeGone is the cause of a [*UIDError] for a node that left the DOM.
var errNodeGone = errors.New("the node left the page")

// InputOptions are the options every input tool shares.
type InputOptions struct {
	// IncludeSnapshot appends a fresh snapshot to the result.
	IncludeSnapshot bool
}

// InputResult is what an input action did.
type InputResult struct {
	ActionResult
	// Snapshot is the snapshot text when IncludeSnapshot was asked for.
	Snapshot string
}

// Click clicks the element uid names, twice for a double click, and waits
// for the consequences.
func (a *Actor) Click(ctx context.Context, uid string, double bool, opts InputOptions) (InputResult, error) {
	clicks := 1
	if double {
		clicks = 2
	}
	return a.onElement(ctx, uid, opts, func(ctx context.Context, node dom.BackendNodeID) error {
		x, y, err := clickablePoint(ctx, a.c, node)
		if err != nil {
			return err
		}
		return mouseClick(ctx, a.c, x, y, clicks)
	})
}

// Hover moves the mouse over the element uid names and waits for the
// consequences.
func (a *Actor) Hover(ctx context.Context, uid string, opts InputOptions) (InputResult, error) {
	return a.onElement(ctx, uid, opts, func(ctx context.Context, node dom.BackendNodeID) error {
		x, y, err := clickablePoint(ctx, a.c, node)
		if err != nil {
			return err
		}
		return a.c.Input.DispatchMouseEvent(ctx, input.NewDispatchMouseEventArgs("mouseMoved", x, y))
	})
}

// UnsupportedFillError reports an element fill cannot handle yet.
type UnsupportedFillError struct{ Kind string }

func (e *UnsupportedFillError) Error() string {
	return fmt.Sprintf("fill does not support %s elements", e.Kind)
}

// fillJS focuses a text field and selects its content, so that inserted
// text replaces it. It returns the kind of element.
const fillJS = `function () {
  const el = this;
  if (el instanceof HTMLSelectElement) return 'select';
  if (el instanceof HTMLInputElement) {
    const t = el.type;
    if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden'].includes(t)) return 'input type=' + t;
    if (['date', 'datetime-local', 'month', 'time', 'week', 'color', 'range'].includes(t)) return 'direct';
  } else if (!(el instanceof HTMLTextAreaElement) && !el.isContentEditable) {
    return '<' + el.localName + '>';
  }
  el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  el.focus();
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    el.select();
  } else {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  return 'text';
}`

// setValueJS sets the value of inputs that take no typing (date, color,
// range...) the way a user's pick would, with input and change events.
const setValueJS = `function (v) {
  this.focus();
  this.value = v;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
}`

// Fill replaces the content of a text input, textarea or editable element
// with value, as typing would, and waits for the consequences.
func (a *Actor) Fill(ctx context.Context, uid, value string, opts InputOptions) (InputResult, error) {
	return a.onElement(ctx, uid, opts, func(ctx context.Context, node dom.BackendNodeID) error {
		obj, err := resolveObject(ctx, a.c, node)
		if err != nil {
			return err
		}
		defer releaseObject(a.c, obj)
		r, err := a.c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(fillJS).
			SetObjectID(obj).SetReturnByValue(true))
		if err != nil {
			return err
		}
		if r.ExceptionDetails != nil {
			return fmt.Errorf("prepare field: %s", r.ExceptionDetails.Text)
		}
		kind := strings.Trim(string(r.Result.Value), `"`)
		switch kind {
		case "text":
		case "direct":
			arg, _ := jsonArg(value)
			_, err := a.c.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(setValueJS).
				SetObjectID(obj).SetArguments([]runtime.CallArgument{arg}))
			return err
		default:
			return &UnsupportedFillError{Kind: kind}
		}
		if value == "" {
			return pressKey(ctx, a.c, keys.Combo{Key: mustKey("Backspace")})
		}
		return a.c.Input.InsertText(ctx, input.NewInsertTextArgs(value))
	})
}

// PressKey presses a key or combination such as "Enter" or
// "Control+Shift+R" on the focused element. Modifiers are released in
// reverse order even when the key press fails.
func (a *Actor) PressKey(ctx context.Context, key string, opts InputOptions) (InputResult, error) {
	combo, err := keys.Parse(key)
	if err != nil {
		return InputResult{}, &KeyError{Err: err}
	}
	return ask(ctx, a, func(ctx context.Context) (InputResult, error) {
		if err := a.needRenderer(); err != nil {
			return InputResult{}, err
		}
		res, err := a.perform(ctx, actionOptions{}, func(ctx context.Context) error {
			return pressKey(ctx, a.c, combo)
		})
		return a.finishInput(ctx, res, err, opts)
	})
}

// onElement resolves uid and runs an input action on it under the waiter.
func (a *Actor) onElement(ctx context.Context, uid string, opts InputOptions, action func(ctx context.Context, node dom.BackendNodeID) error) (InputResult, error) {
	return ask(ctx, a, func(ctx context.Context) (InputResult, error) {
		if err := a.needRenderer(); err != nil {
			return InputResult{}, err
		}
		n, err := a.resolve(uid)
		if err != nil {
			return InputResult{}, err
		}
		node, err := a.nodeID(ctx, n)
		if err != nil {
			return InputResult{}, err
		}
		res, err := a.perform(ctx, actionOptions{}, func(ctx context.Context) error {
			return action(ctx, node)
		})
		if err != nil {
			var ue *UnsupportedFillError
			switch {
			case errors.Is(err, errNodeGone):
				err = &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: err}
			case errors.As(err, &ue), errors.Is(err, ErrCrashed), ctx.Err() != nil:
			default:
				err = &InteractError{UID: uid, Cause: err}
			}
		}
		return a.finishInput(ctx, res, err, opts)
	})
}

func (a *Actor) finishInput(ctx context.Context, res ActionResult, err error, opts InputOptions) (InputResult, error) {
	out := InputResult{ActionResult: res}
	if err != nil {
		out.State = a.state()
		return out, err
	}
	if opts.IncludeSnapshot && a.dialog == nil {
		text, err := a.snapshot(ctx, false)
		if err != nil {
			return out, err
		}
		out.Snapshot = text
	}
	return out, nil
}

// clickablePoint scrolls a node into view and returns the centre of its
// first visible box, in the top frame's viewport. It waits up to the
// actionability timeout for the node to get a box.
func clickablePoint(ctx context.Context, c *cdp.Client, node dom.BackendNodeID) (x, y float64, err error) {
	ctx, cancel := context.WithTimeout(ctx, actionabilityTimeout)
	defer cancel()
	for {
		err := c.DOM.ScrollIntoViewIfNeeded(ctx, dom.NewScrollIntoViewIfNeededArgs().SetBackendNodeID(node))
		if isNodeGone(err) {
			return 0, 0, errNodeGone
		}
		if err == nil {
			q, err := c.DOM.GetContentQuads(ctx, dom.NewGetContentQuadsArgs().SetBackendNodeID(node))
			if isNodeGone(err) {
				return 0, 0, errNodeGone
			}
			if err == nil {
				for _, quad := range q.Quads {
					if len(quad) == 8 && area(quad) >= 1 {
						return (quad[0] + quad[2] + quad[4] + quad[6]) / 4, (quad[1] + quad[3] + quad[5] + quad[7]) / 4, nil
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return 0, 0, errNotInteractive
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func area(q dom.Quad) float64 {
	var s float64
	for i := 0; i < 4; i++ {
		j := (i + 1) % 4
		s += q[2*i]*q[2*j+1] - q[2*j]*q[2*i+1]
	}
	if s < 0 {
		s = -s
	}
	return s / 2
}

// isNodeGone reports whether a DOM command failed because the node no longer
// exists.
func isNodeGone(err error) bool {
	var re *rpcc.ResponseError
	return errors.As(err, &re) && (strings.Contains(re.Message, "No node") || strings.Contains(re.Message, "Could not find node"))
}

func mouseClick(ctx context.Context, c *cdp.Client, x, y float64, clicks int) error {
	if err := c.Input.DispatchMouseEvent(ctx, input.NewDispatchMouseEventArgs("mouseMoved", x, y)); err != nil {
		return err
	}
	for i := 1; i <= clicks; i++ {
		down := input.NewDispatchMouseEventArgs("mousePressed", x, y).
			SetButton(input.MouseButtonLeft).SetButtons(1).SetClickCount(i)
		if err := c.Input.DispatchMouseEvent(ctx, down); err != nil {
			return err
		}
		up := input.NewDispatchMouseEventArgs("mouseReleased", x, y).
			SetButton(input.MouseButtonLeft).SetButtons(0).SetClickCount(i)
		if err := c.Input.DispatchMouseEvent(ctx, up); err != nil {
			return err
		}
	}
	return nil
}

// pressKey presses combo. Modifiers pressed are released in reverse order
// whatever happens, under their own short deadline, so a failed press never
// leaves Control held for the next input (upstream #2309).
func pressKey(ctx context.Context, c *cdp.Client, combo keys.Combo) (err error) {
	var mask keys.Modifier
	var held []keys.Key
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		for i := len(held) - 1; i >= 0; i-- {
			m, _ := keys.ModifierOf(held[i].Key)
			mask &^= m
			if uerr := c.Input.DispatchKeyEvent(rctx, keyEvent("keyUp", held[i], mask)); uerr != nil && err == nil {
				err = uerr
			}
		}
	}()
	for _, m := range combo.Modifiers {
		bit, _ := keys.ModifierOf(m.Key)
		mask |= bit
		if err := c.Input.DispatchKeyEvent(ctx, keyEvent("rawKeyDown", m, mask)); err != nil {
			return err
		}
		held = append(held, m)
	}
	down := "rawKeyDown"
	if combo.Key.Text != "" {
		down = "keyDown"
	}
	if err := c.Input.DispatchKeyEvent(ctx, keyEvent(down, combo.Key, combo.Mask())); err != nil {
		return err
	}
	return c.Input.DispatchKeyEvent(ctx, keyEvent("keyUp", combo.Key, combo.Mask()))
}

func keyEvent(typ string, k keys.Key, mask keys.Modifier) *input.DispatchKeyEventArgs {
	ev := input.NewDispatchKeyEventArgs(typ).
		SetModifiers(int(mask)).
		SetKey(k.Key).
		SetCode(k.Code).
		SetWindowsVirtualKeyCode(k.KeyCode).
		SetNativeVirtualKeyCode(k.KeyCode).
		SetLocation(k.Location)
	if k.Location == 3 {
		ev.SetIsKeypad(true)
	}
	if typ == "keyDown" && k.Text != "" {
		ev.SetText(k.Text).SetUnmodifiedText(k.Text)
	}
	return ev
}

func mustKey(name string) keys.Key {
	k, ok := keys.Lookup(name)
	if !ok {
		panic("page: no key " + name)
	}
	return k
}

// resolveObject gives a node's JavaScript object in its frame's main world.
func resolveObject(ctx context.Context, c *cdp.Client, node dom.BackendNodeID) (runtime.RemoteObjectID, error) {
	r, err := c.DOM.ResolveNode(ctx, dom.NewResolveNodeArgs().SetBackendNodeID(node))
	if isNodeGone(err) {
		return "", errNodeGone
	}
	if err != nil {
		return "", err
	}
	if r.Object.ObjectID == nil {
		return "", errNodeGone
	}
	return *r.Object.ObjectID, nil
}

// releaseObject frees a remote object in the background of a short bound;
// failing to free one leaks only until the document goes away.
func releaseObject(c *cdp.Client, id runtime.RemoteObjectID) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Runtime.ReleaseObject(ctx, runtime.NewReleaseObjectArgs(id))
}
