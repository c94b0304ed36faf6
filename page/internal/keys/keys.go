package keys

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Key is one key as CDP's Input.dispatchKeyEvent needs it.
type Key struct {
	Key      string // DOM key value, e.g. "a", "A", "Enter"
	Code     string // DOM code, e.g. "KeyA", "Enter"
	KeyCode  int    // windowsVirtualKeyCode and nativeVirtualKeyCode
	Text     string // text the key inserts; "" for keys that insert none
	Location int    // CDP location: 0 standard, 1 left, 2 right, 3 numpad
	Shifted  bool   // reaching Key on the layout needs Shift, e.g. "A", "!"
}

// Lookup returns the key called name: a single character on the layout, a DOM key value or
// code, or an alias (see the package doc). It reports false for any other name; matching is
// case-sensitive.
func Lookup(name string) (Key, bool) {
	p, shifted, ok := find(name)
	if !ok {
		return Key{}, false
	}
	return p.variant(shifted), true
}

// ForText returns the key that types r on the layout: letters, digits, punctuation, space,
// and Enter for '\r' and '\n' (a caller typing "\r\n" should fold it to one newline first).
// It reports false for every other character, such as 'é', '\t' or an emoji, which the caller
// should insert with Input.insertText instead.
func ForText(r rune) (Key, bool) {
	return Lookup(string(r))
}

// Modifier is a set of modifier keys as CDP's modifiers bit field encodes it.
type Modifier int

// The modifier bits of CDP's Input.dispatchKeyEvent and Input.dispatchMouseEvent.
const (
	ModAlt     Modifier = 1
	ModControl Modifier = 2
	ModMeta    Modifier = 4
	ModShift   Modifier = 8
)

// ModifierOf returns the modifier bit of the key called name if that key is a modifier:
// "Shift", "Control", "Alt", "Meta", their left and right codes such as "ControlRight", or
// the aliases "Ctrl", "Cmd", "Command" and "Option". It reports false for any other name.
func ModifierOf(name string) (Modifier, bool) {
	k, ok := Lookup(name)
	if !ok {
		return 0, false
	}
	switch k.Key {
	case "Alt":
		return ModAlt, true
	case "Control":
		return ModControl, true
	case "Meta":
		return ModMeta, true
	case "Shift":
		return ModShift, true
	}
	return 0, false
}

// Combo is a key pressed while modifier keys are held, as [Parse] reads it from "Control+A".
type Combo struct {
	// Modifiers are the modifier keys in press order; nil if there are none.
	Modifiers []Key
	// Key is the key to press, as it is dispatched while Modifiers are held: shifted when
	// Shift is held ("Shift+a" gives "A"), and with empty Text when Control, Alt or Meta is
	// held, since those combinations insert no text (Puppeteer does the same).
	Key Key
}

// Mask returns the CDP modifiers bit field for c.Key: the bits of c.Modifiers. A shifted
// key such as "A" or "!" does not add ModShift on its own; only a Shift in Modifiers does.
func (c Combo) Mask() Modifier {
	var m Modifier
	for _, k := range c.Modifiers {
		bit, _ := ModifierOf(k.Key) // Parse put only modifiers here; others add 0.
		m |= bit
	}
	return m
}

// ErrInvalid is matched, with [errors.Is], by every error [Parse] returns: the input is not a
// key combination. The error's text says what is wrong and what to write instead.
var ErrInvalid = errors.New("invalid key combination")

// invalidError is an agent-facing sentence that matches ErrInvalid.
type invalidError string

func (e invalidError) Error() string { return string(e) }

func (e invalidError) Is(target error) bool { return target == ErrInvalid }

func invalidf(format string, args ...any) error {
	return invalidError(fmt.Sprintf(format, args...))
}

// howTo ends the errors that cannot suggest one precise fix.
const howTo = `use a key name such as Enter, Tab or ArrowDown, or a single character, ` +
	`optionally after modifiers Control, Shift, Alt, Meta joined with "+", as in "Control+Shift+R"`

// modifiersOnly ends the errors about the parts before the key.
const modifiersOnly = `only the modifiers Control, Shift, Alt and Meta may come before the key, ` +
	`each once, as in "Control+Shift+R"`

// Parse reads a key combination as chrome-devtools-mcp's press_key takes it, such as
// "Enter", "a", "Control+A", "Control+Shift+R", "Control++" or "Meta+Shift+ArrowLeft"; the
// package doc gives the rules. Every error it returns matches [ErrInvalid].
func Parse(s string) (Combo, error) {
	if s == "" {
		return Combo{}, invalidf("empty key: %s", howTo)
	}
	parts, ok := split(s)
	if !ok {
		return Combo{}, invalidf(`missing key after the last "+" in %q: end with the key to press, `+
			`as in "Control+A", or write "Control++" for the plus key`, s)
	}
	if fixed, ok := trimParts(parts); ok {
		return Combo{}, invalidf(`unexpected space in %q: write %q (the Space key is " " or "Space")`,
			s, fixed)
	}

	var c Combo
	var held Modifier
	last := len(parts) - 1
	for _, part := range parts[:last] {
		k, ok := Lookup(part)
		if !ok {
			if name, ok := caseHint(part); ok && isModifier(name) {
				return Combo{}, invalidf("unknown modifier %q in %q: names are case-sensitive, write %q",
					part, s, name)
			}
			return Combo{}, invalidf("unknown modifier %q in %q: %s", part, s, modifiersOnly)
		}
		bit, ok := ModifierOf(k.Key)
		if !ok {
			return Combo{}, invalidf("%q in %q is not a modifier: %s", part, s, modifiersOnly)
		}
		if held&bit != 0 {
			return Combo{}, duplicate(s, parts, k.Key)
		}
		held |= bit
		c.Modifiers = append(c.Modifiers, k)
	}

	name := parts[last]
	p, shifted, ok := find(name)
	if !ok {
		if hint, ok := caseHint(name); ok {
			return Combo{}, invalidf("unknown key %q in %q: names are case-sensitive, write %q",
				name, s, hint)
		}
		if utf8.RuneCountInString(name) == 1 {
			return Combo{}, invalidf("unknown key %q in %q: the character is not on a US keyboard, "+
				"so no key types it; enter such text by filling or typing it instead", name, s)
		}
		return Combo{}, invalidf("unknown key %q in %q: %s", name, s, howTo)
	}
	if bit, ok := ModifierOf(p.key); ok && held&bit != 0 {
		return Combo{}, duplicate(s, parts, p.key)
	}
	c.Key = p.variant(shifted || held&ModShift != 0)
	if held&(ModAlt|ModControl|ModMeta) != 0 {
		c.Key.Text = ""
	}
	return c, nil
}

// split cuts s at each "+" that ends a part. A "+" that starts a part (at the start of s or
// right after a "+") belongs to it, so "Control++" is "Control" and "+". It reports false if s
// ends with a "+" that ends a part, as in "Control+", so that no key follows.
func split(s string) ([]string, bool) {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '+' && i > start {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	if start == len(s) {
		return nil, false
	}
	return append(parts, s[start:]), true
}

// trimParts reports whether any part has spaces around other text, and if so returns the
// parts joined again with those spaces removed. A part made only of whitespace is left alone:
// " " is the Space key and "\n" is Enter.
func trimParts(parts []string) (string, bool) {
	fixed := make([]string, len(parts))
	changed := false
	for i, part := range parts {
		fixed[i] = part
		if t := strings.TrimSpace(part); t != "" && t != part {
			fixed[i] = t
			changed = true
		}
	}
	return strings.Join(fixed, "+"), changed
}

// duplicate returns the error for s, split into parts, naming the modifier whose DOM key
// value is key twice, with s rewritten to name each modifier once.
func duplicate(s string, parts []string, key string) error {
	var kept []string
	var seen Modifier
	for _, part := range parts {
		bit, _ := ModifierOf(part) // 0 for the final, non-modifier key, which is always kept.
		if seen&bit != 0 {
			continue
		}
		seen |= bit
		kept = append(kept, part)
	}
	return invalidf("modifier %s appears twice in %q: name each modifier once, as in %q",
		key, s, strings.Join(kept, "+"))
}

// isModifier reports whether name is a modifier key.
func isModifier(name string) bool {
	_, ok := ModifierOf(name)
	return ok
}

// caseHint returns the name that matches name but for case, if there is one, so errors can
// suggest it. An alias suggests the name it stands for.
func caseHint(name string) (string, bool) {
	if utf8.RuneCountInString(name) < 2 {
		return "", false
	}
	for _, a := range aliases {
		if strings.EqualFold(name, a.alias) {
			return a.name, true
		}
	}
	for i := range layout {
		p := &layout[i]
		if utf8.RuneCountInString(p.key) > 1 && strings.EqualFold(name, p.key) {
			return p.key, true
		}
		if strings.EqualFold(name, p.code) {
			return p.code, true
		}
	}
	return "", false
}

// find returns the physical key called name and whether name is its shifted value. A single
// character is matched against key values, anything else against codes, named key values
// and aliases; the first match in layout wins.
func find(name string) (p *physKey, shifted, ok bool) {
	switch name {
	case "":
		return nil, false, false
	case "\r", "\n":
		name = "Enter"
	}
	if utf8.RuneCountInString(name) == 1 {
		for i := range layout {
			p := &layout[i]
			if p.key == name {
				return p, false, true
			}
			if p.shiftKey == name {
				return p, true, true
			}
		}
		return nil, false, false
	}
	for _, a := range aliases {
		if a.alias == name {
			name = a.name
			break
		}
	}
	for i := range layout {
		p := &layout[i]
		if p.code == name || p.key == name {
			return p, false, true
		}
	}
	return nil, false, false
}

// physKey is one key of the layout with its value without and with Shift.
type physKey struct {
	code     string // DOM code; Lookup also accepts it as a name
	keyCode  int    // Windows virtual key code
	key      string // DOM key value without Shift
	shiftKey string // DOM key value with Shift; "" if Shift does not change it
	location int    // CDP location
}

// variant returns p as a Key, with Shift applied if shifted and p changes with Shift.
func (p *physKey) variant(shifted bool) Key {
	k := Key{Key: p.key, Code: p.code, KeyCode: p.keyCode, Location: p.location}
	if shifted && p.shiftKey != "" {
		k.Key = p.shiftKey
		k.Shifted = true
	}
	switch {
	case k.Key == "Enter":
		k.Text = "\r"
	case utf8.RuneCountInString(k.Key) == 1:
		k.Text = k.Key
	}
	return k
}

// aliases are names agents often write that mean one key only. They are not Puppeteer's.
var aliases = [...]struct{ alias, name string }{
	{"Ctrl", "Control"},
	{"Cmd", "Meta"},
	{"Command", "Meta"},
	{"Option", "Alt"},
	{"Esc", "Escape"},
}

// layout is the US keyboard, after Puppeteer's USKeyboardLayout except where the package doc
// says otherwise. It is constant data: nothing writes it.
//
// Order matters where two keys share a name, since lookups take the first match: the main
// keys come before the numpad ("+" is Shift+Equal, not NumpadAdd; "Enter" is not
// NumpadEnter), and left modifiers before right ("Shift" is ShiftLeft).
var layout = [...]physKey{
	{"KeyA", 65, "a", "A", 0},
	{"KeyB", 66, "b", "B", 0},
	{"KeyC", 67, "c", "C", 0},
	{"KeyD", 68, "d", "D", 0},
	{"KeyE", 69, "e", "E", 0},
	{"KeyF", 70, "f", "F", 0},
	{"KeyG", 71, "g", "G", 0},
	{"KeyH", 72, "h", "H", 0},
	{"KeyI", 73, "i", "I", 0},
	{"KeyJ", 74, "j", "J", 0},
	{"KeyK", 75, "k", "K", 0},
	{"KeyL", 76, "l", "L", 0},
	{"KeyM", 77, "m", "M", 0},
	{"KeyN", 78, "n", "N", 0},
	{"KeyO", 79, "o", "O", 0},
	{"KeyP", 80, "p", "P", 0},
	{"KeyQ", 81, "q", "Q", 0},
	{"KeyR", 82, "r", "R", 0},
	{"KeyS", 83, "s", "S", 0},
	{"KeyT", 84, "t", "T", 0},
	{"KeyU", 85, "u", "U", 0},
	{"KeyV", 86, "v", "V", 0},
	{"KeyW", 87, "w", "W", 0},
	{"KeyX", 88, "x", "X", 0},
	{"KeyY", 89, "y", "Y", 0},
	{"KeyZ", 90, "z", "Z", 0},

	{"Digit0", 48, "0", ")", 0},
	{"Digit1", 49, "1", "!", 0},
	{"Digit2", 50, "2", "@", 0},
	{"Digit3", 51, "3", "#", 0},
	{"Digit4", 52, "4", "$", 0},
	{"Digit5", 53, "5", "%", 0},
	{"Digit6", 54, "6", "^", 0},
	{"Digit7", 55, "7", "&", 0},
	{"Digit8", 56, "8", "*", 0},
	{"Digit9", 57, "9", "(", 0},

	{"Minus", 189, "-", "_", 0},
	{"Equal", 187, "=", "+", 0},
	{"BracketLeft", 219, "[", "{", 0},
	{"BracketRight", 221, "]", "}", 0},
	{"Backslash", 220, `\`, "|", 0},
	{"Semicolon", 186, ";", ":", 0},
	{"Quote", 222, "'", `"`, 0},
	{"Comma", 188, ",", "<", 0},
	{"Period", 190, ".", ">", 0},
	{"Slash", 191, "/", "?", 0},
	{"Backquote", 192, "`", "~", 0},
	{"Space", 32, " ", "", 0},

	{"Enter", 13, "Enter", "", 0},
	{"Tab", 9, "Tab", "", 0},
	{"Backspace", 8, "Backspace", "", 0},
	{"Delete", 46, "Delete", "", 0},
	{"Escape", 27, "Escape", "", 0},
	{"Insert", 45, "Insert", "", 0},
	{"Home", 36, "Home", "", 0},
	{"End", 35, "End", "", 0},
	{"PageUp", 33, "PageUp", "", 0},
	{"PageDown", 34, "PageDown", "", 0},
	{"ArrowLeft", 37, "ArrowLeft", "", 0},
	{"ArrowUp", 38, "ArrowUp", "", 0},
	{"ArrowRight", 39, "ArrowRight", "", 0},
	{"ArrowDown", 40, "ArrowDown", "", 0},

	{"F1", 112, "F1", "", 0},
	{"F2", 113, "F2", "", 0},
	{"F3", 114, "F3", "", 0},
	{"F4", 115, "F4", "", 0},
	{"F5", 116, "F5", "", 0},
	{"F6", 117, "F6", "", 0},
	{"F7", 118, "F7", "", 0},
	{"F8", 119, "F8", "", 0},
	{"F9", 120, "F9", "", 0},
	{"F10", 121, "F10", "", 0},
	{"F11", 122, "F11", "", 0},
	{"F12", 123, "F12", "", 0},

	{"ShiftLeft", 16, "Shift", "", 1},
	{"ShiftRight", 16, "Shift", "", 2},
	{"ControlLeft", 17, "Control", "", 1},
	{"ControlRight", 17, "Control", "", 2},
	{"AltLeft", 18, "Alt", "", 1},
	{"AltRight", 18, "Alt", "", 2},
	{"MetaLeft", 91, "Meta", "", 1},
	{"MetaRight", 92, "Meta", "", 2},

	{"CapsLock", 20, "CapsLock", "", 0},
	{"NumLock", 144, "NumLock", "", 0},
	{"ScrollLock", 145, "ScrollLock", "", 0},
	{"Pause", 19, "Pause", "", 0},
	{"PrintScreen", 44, "PrintScreen", "", 0},
	{"ContextMenu", 93, "ContextMenu", "", 0},

	{"Numpad0", 96, "0", "", 3},
	{"Numpad1", 97, "1", "", 3},
	{"Numpad2", 98, "2", "", 3},
	{"Numpad3", 99, "3", "", 3},
	{"Numpad4", 100, "4", "", 3},
	{"Numpad5", 101, "5", "", 3},
	{"Numpad6", 102, "6", "", 3},
	{"Numpad7", 103, "7", "", 3},
	{"Numpad8", 104, "8", "", 3},
	{"Numpad9", 105, "9", "", 3},
	{"NumpadMultiply", 106, "*", "", 3},
	{"NumpadAdd", 107, "+", "", 3},
	{"NumpadSubtract", 109, "-", "", 3},
	{"NumpadDecimal", 110, ".", "", 3},
	{"NumpadDivide", 111, "/", "", 3},
	{"NumpadEnter", 13, "Enter", "", 3},
}
