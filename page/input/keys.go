package input

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/mafredri/cdp"
	cdpinput "github.com/mafredri/cdp/protocol/input"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/internal/keys"
)

// KeyError reports a key or key combination press_key cannot press. Its
// message says what to write instead.
type KeyError struct{ Err error }

func (e *KeyError) Error() string { return e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// AgentSentence is the message, as a sentence.
func (e *KeyError) AgentSentence() string { return agenterr.Capitalize(e.Error()) + "." }

// PressKey presses a key or combination such as "Enter" or
// "Control+Shift+R" on the focused element of page a. Modifiers are
// released in reverse order even when the key press fails.
func PressKey(ctx context.Context, a *page.Actor, key string, opts page.InputOptions) (page.InputResult, error) {
	combo, err := keys.Parse(key)
	if err != nil {
		return page.InputResult{}, &KeyError{Err: err}
	}
	return onPage(ctx, a, "key press", opts, func(ctx context.Context, c *cdp.Client, p *page.Progress) error {
		return pressKey(ctx, c, combo, p)
	})
}

// TypeText types text into the focused element of page a, key by key
// where the keyboard has the character and as inserted text where it does
// not, then presses submitKey if it is not empty.
func TypeText(ctx context.Context, a *page.Actor, text, submitKey string, opts page.InputOptions) (page.InputResult, error) {
	var submit *keys.Combo
	if submitKey != "" {
		combo, err := keys.Parse(submitKey)
		if err != nil {
			return page.InputResult{}, &KeyError{Err: err}
		}
		submit = &combo
	}
	return onPage(ctx, a, "typing", opts, func(ctx context.Context, c *cdp.Client, p *page.Progress) error {
		if submit == nil {
			return typeText(ctx, c, text, p)
		}
		// The submit key, not the last character, decides the typing.
		if err := typeText(ctx, c, text, nil); err != nil {
			return err
		}
		return pressKey(ctx, c, *submit, p)
	})
}

// onPage runs an action that needs no element (keys, coordinates) through
// the page's own session, under the waiter; what names the action in the
// sentence of a dialog that cut it short.
func onPage(ctx context.Context, a *page.Actor, what string, opts page.InputOptions, action func(ctx context.Context, c *cdp.Client, p *page.Progress) error) (page.InputResult, error) {
	h := key.Of(a).h
	return page.Do(ctx, h, func(ctx context.Context) (page.InputResult, error) {
		c := h.Client()
		return h.Elements().Act(ctx, what, opts, func(ctx context.Context, p *page.Progress) error { return action(ctx, c, p) })
	})
}

// pressKey presses combo. Modifiers pressed are released in reverse order
// whatever happens, under their own short deadline, so a failed press never
// leaves Control held for the next input (upstream #2309). The key itself,
// after its modifiers, is the decisive step, marked on p.
func pressKey(ctx context.Context, c *cdp.Client, combo keys.Combo, p *page.Progress) (err error) {
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
	p.Commit()
	if err := c.Input.DispatchKeyEvent(ctx, keyEvent(down, combo.Key, combo.Mask())); err != nil {
		return err
	}
	return c.Input.DispatchKeyEvent(ctx, keyEvent("keyUp", combo.Key, combo.Mask()))
}

func keyEvent(typ string, k keys.Key, mask keys.Modifier) *cdpinput.DispatchKeyEventArgs {
	ev := cdpinput.NewDispatchKeyEventArgs(typ).
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
		panic("input: no key " + name)
	}
	return k
}

// typeText sends text as key presses; characters the keyboard layout lacks
// (accents, emoji) are inserted as text, as an IME would.
//
// The last character is the typing's decisive step, marked on p; a caller
// that has one after it (a submit key) passes nil.
func typeText(ctx context.Context, c *cdp.Client, text string, p *page.Progress) error {
	_, size := utf8.DecodeLastRuneInString(text)
	last := len(text) - size
	if text == "" {
		p.Commit()
	}
	for i, r := range text {
		if i == last {
			p.Commit()
		}
		k, ok := keys.ForText(r)
		if !ok {
			if err := c.Input.InsertText(ctx, cdpinput.NewInsertTextArgs(string(r))); err != nil {
				return err
			}
			continue
		}
		if err := c.Input.DispatchKeyEvent(ctx, keyEvent("keyDown", k, 0)); err != nil {
			return err
		}
		if err := c.Input.DispatchKeyEvent(ctx, keyEvent("keyUp", k, 0)); err != nil {
			return err
		}
	}
	return nil
}
