package keys_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/page/internal/keys"
)

var (
	shiftLeft    = keys.Key{Key: "Shift", Code: "ShiftLeft", KeyCode: 16, Location: 1}
	controlLeft  = keys.Key{Key: "Control", Code: "ControlLeft", KeyCode: 17, Location: 1}
	controlRight = keys.Key{Key: "Control", Code: "ControlRight", KeyCode: 17, Location: 2}
	altLeft      = keys.Key{Key: "Alt", Code: "AltLeft", KeyCode: 18, Location: 1}
	metaLeft     = keys.Key{Key: "Meta", Code: "MetaLeft", KeyCode: 91, Location: 1}
	enter        = keys.Key{Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"}
	space        = keys.Key{Key: " ", Code: "Space", KeyCode: 32, Text: " "}
	plus         = keys.Key{Key: "+", Code: "Equal", KeyCode: 187, Text: "+", Shifted: true}
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		want keys.Key
	}{
		{"a", keys.Key{Key: "a", Code: "KeyA", KeyCode: 65, Text: "a"}},
		{"A", keys.Key{Key: "A", Code: "KeyA", KeyCode: 65, Text: "A", Shifted: true}},
		{"z", keys.Key{Key: "z", Code: "KeyZ", KeyCode: 90, Text: "z"}},
		{"1", keys.Key{Key: "1", Code: "Digit1", KeyCode: 49, Text: "1"}},
		{"!", keys.Key{Key: "!", Code: "Digit1", KeyCode: 49, Text: "!", Shifted: true}},
		{"(", keys.Key{Key: "(", Code: "Digit9", KeyCode: 57, Text: "(", Shifted: true}},
		{"-", keys.Key{Key: "-", Code: "Minus", KeyCode: 189, Text: "-"}},
		{"+", plus},
		{"*", keys.Key{Key: "*", Code: "Digit8", KeyCode: 56, Text: "*", Shifted: true}},
		{"/", keys.Key{Key: "/", Code: "Slash", KeyCode: 191, Text: "/"}},
		{`"`, keys.Key{Key: `"`, Code: "Quote", KeyCode: 222, Text: `"`, Shifted: true}},
		{"~", keys.Key{Key: "~", Code: "Backquote", KeyCode: 192, Text: "~", Shifted: true}},
		{" ", space},
		{"Space", space},
		{"Enter", enter},
		{"\r", enter},
		{"\n", enter},
		{"Tab", keys.Key{Key: "Tab", Code: "Tab", KeyCode: 9}},
		{"Backspace", keys.Key{Key: "Backspace", Code: "Backspace", KeyCode: 8}},
		{"Delete", keys.Key{Key: "Delete", Code: "Delete", KeyCode: 46}},
		{"Escape", keys.Key{Key: "Escape", Code: "Escape", KeyCode: 27}},
		{"Esc", keys.Key{Key: "Escape", Code: "Escape", KeyCode: 27}},
		{"PageDown", keys.Key{Key: "PageDown", Code: "PageDown", KeyCode: 34}},
		{"ArrowLeft", keys.Key{Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37}},
		{"ArrowDown", keys.Key{Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40}},
		{"F5", keys.Key{Key: "F5", Code: "F5", KeyCode: 116}},
		{"F12", keys.Key{Key: "F12", Code: "F12", KeyCode: 123}},
		{"Shift", shiftLeft},
		{"ShiftRight", keys.Key{Key: "Shift", Code: "ShiftRight", KeyCode: 16, Location: 2}},
		{"Control", controlLeft},
		{"Ctrl", controlLeft},
		{"ControlRight", controlRight},
		{"Alt", altLeft},
		{"Option", altLeft},
		{"Meta", metaLeft},
		{"Cmd", metaLeft},
		{"Command", metaLeft},
		{"MetaRight", keys.Key{Key: "Meta", Code: "MetaRight", KeyCode: 92, Location: 2}},
		{"CapsLock", keys.Key{Key: "CapsLock", Code: "CapsLock", KeyCode: 20}},
		{"ContextMenu", keys.Key{Key: "ContextMenu", Code: "ContextMenu", KeyCode: 93}},
		{"KeyA", keys.Key{Key: "a", Code: "KeyA", KeyCode: 65, Text: "a"}},
		{"Digit1", keys.Key{Key: "1", Code: "Digit1", KeyCode: 49, Text: "1"}},
		{"Equal", keys.Key{Key: "=", Code: "Equal", KeyCode: 187, Text: "="}},
		{"Numpad5", keys.Key{Key: "5", Code: "Numpad5", KeyCode: 101, Text: "5", Location: 3}},
		{"NumpadAdd", keys.Key{Key: "+", Code: "NumpadAdd", KeyCode: 107, Text: "+", Location: 3}},
		{"NumpadEnter", keys.Key{Key: "Enter", Code: "NumpadEnter", KeyCode: 13, Text: "\r", Location: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := keys.Lookup(tt.name)
			if !ok || got != tt.want {
				t.Errorf("Lookup(%q) = %+v, %t, want %+v, true", tt.name, got, ok, tt.want)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{
		"", "enter", "ENTER", "arrowleft", "ctrl", "Return", "Foo", "F13", "\t", "é", "😀",
		"ab", "  ", "Control+A",
	} {
		if got, ok := keys.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %+v, true, want false", name, got)
		}
	}
}

// TestLookupASCII checks the whole printable ASCII range: each character is its own key
// value and text, and needs Shift exactly when a US keyboard does.
func TestLookupASCII(t *testing.T) {
	const shifted = `ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()_+{}|:"<>?~`
	for r := rune(' '); r <= '~'; r++ {
		s := string(r)
		got, ok := keys.Lookup(s)
		if !ok {
			t.Errorf("Lookup(%q) = _, false, want true", s)
			continue
		}
		if got.Key != s || got.Text != s {
			t.Errorf("Lookup(%q) has Key %q, Text %q, want both %q", s, got.Key, got.Text, s)
		}
		if want := strings.ContainsRune(shifted, r); got.Shifted != want {
			t.Errorf("Lookup(%q).Shifted = %t, want %t", s, got.Shifted, want)
		}
		if got.Location != 0 {
			t.Errorf("Lookup(%q).Location = %d, want 0", s, got.Location)
		}
		// The unshifted key on the same code must be reachable by its code.
		byCode, ok := keys.Lookup(got.Code)
		if !ok || byCode.KeyCode != got.KeyCode || byCode.Shifted {
			t.Errorf("Lookup(%q) = %+v, %t, want the unshifted key of %q", got.Code, byCode, ok, s)
		}
	}
}

func TestModifierOf(t *testing.T) {
	tests := []struct {
		name   string
		want   keys.Modifier
		wantOK bool
	}{
		{"Alt", keys.ModAlt, true},
		{"Control", keys.ModControl, true},
		{"Meta", keys.ModMeta, true},
		{"Shift", keys.ModShift, true},
		{"ShiftRight", keys.ModShift, true},
		{"ControlLeft", keys.ModControl, true},
		{"Ctrl", keys.ModControl, true},
		{"Cmd", keys.ModMeta, true},
		{"Option", keys.ModAlt, true},
		{"shift", 0, false},
		{"a", 0, false},
		{"Enter", 0, false},
		{"CapsLock", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := keys.ModifierOf(tt.name)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ModifierOf(%q) = %d, %t, want %d, %t", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestModifierBits(t *testing.T) {
	// CDP's Input.dispatchKeyEvent: Alt=1, Ctrl=2, Meta/Command=4, Shift=8.
	tests := []struct {
		name string
		got  keys.Modifier
		want int
	}{
		{"ModAlt", keys.ModAlt, 1},
		{"ModControl", keys.ModControl, 2},
		{"ModMeta", keys.ModMeta, 4},
		{"ModShift", keys.ModShift, 8},
	}
	for _, tt := range tests {
		if int(tt.got) != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want keys.Combo
	}{
		{"Enter", keys.Combo{Key: enter}},
		{"a", keys.Combo{Key: keys.Key{Key: "a", Code: "KeyA", KeyCode: 65, Text: "a"}}},
		{"A", keys.Combo{Key: keys.Key{Key: "A", Code: "KeyA", KeyCode: 65, Text: "A", Shifted: true}}},
		{"+", keys.Combo{Key: plus}},
		{" ", keys.Combo{Key: space}},
		{"Shift", keys.Combo{Key: shiftLeft}},
		{"Control+A", keys.Combo{
			Modifiers: []keys.Key{controlLeft},
			Key:       keys.Key{Key: "A", Code: "KeyA", KeyCode: 65, Shifted: true},
		}},
		{"Control+a", keys.Combo{
			Modifiers: []keys.Key{controlLeft},
			Key:       keys.Key{Key: "a", Code: "KeyA", KeyCode: 65},
		}},
		{"Control+Shift+R", keys.Combo{
			Modifiers: []keys.Key{controlLeft, shiftLeft},
			Key:       keys.Key{Key: "R", Code: "KeyR", KeyCode: 82, Shifted: true},
		}},
		{"Control+Shift+r", keys.Combo{
			Modifiers: []keys.Key{controlLeft, shiftLeft},
			Key:       keys.Key{Key: "R", Code: "KeyR", KeyCode: 82, Shifted: true},
		}},
		{"Control++", keys.Combo{
			Modifiers: []keys.Key{controlLeft},
			Key:       keys.Key{Key: "+", Code: "Equal", KeyCode: 187, Shifted: true},
		}},
		{"Shift++", keys.Combo{Modifiers: []keys.Key{shiftLeft}, Key: plus}},
		{"Meta+Shift+ArrowLeft", keys.Combo{
			Modifiers: []keys.Key{metaLeft, shiftLeft},
			Key:       keys.Key{Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37},
		}},
		{"Shift+a", keys.Combo{
			Modifiers: []keys.Key{shiftLeft},
			Key:       keys.Key{Key: "A", Code: "KeyA", KeyCode: 65, Text: "A", Shifted: true},
		}},
		{"Shift+1", keys.Combo{
			Modifiers: []keys.Key{shiftLeft},
			Key:       keys.Key{Key: "!", Code: "Digit1", KeyCode: 49, Text: "!", Shifted: true},
		}},
		{"Shift+Enter", keys.Combo{Modifiers: []keys.Key{shiftLeft}, Key: enter}},
		{"Alt+Enter", keys.Combo{
			Modifiers: []keys.Key{altLeft},
			Key:       keys.Key{Key: "Enter", Code: "Enter", KeyCode: 13},
		}},
		{"Control+ ", keys.Combo{
			Modifiers: []keys.Key{controlLeft},
			Key:       keys.Key{Key: " ", Code: "Space", KeyCode: 32},
		}},
		{"Ctrl+c", keys.Combo{
			Modifiers: []keys.Key{controlLeft},
			Key:       keys.Key{Key: "c", Code: "KeyC", KeyCode: 67},
		}},
		{"ControlRight+Tab", keys.Combo{
			Modifiers: []keys.Key{controlRight},
			Key:       keys.Key{Key: "Tab", Code: "Tab", KeyCode: 9},
		}},
		{"Control+Shift", keys.Combo{Modifiers: []keys.Key{controlLeft}, Key: shiftLeft}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := keys.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseError(t *testing.T) {
	const howTo = `use a key name such as Enter, Tab or ArrowDown, or a single character, ` +
		`optionally after modifiers Control, Shift, Alt, Meta joined with "+", as in "Control+Shift+R"`
	const modifiersOnly = `only the modifiers Control, Shift, Alt and Meta may come before the key, ` +
		`each once, as in "Control+Shift+R"`
	const missing = `: end with the key to press, as in "Control+A", or write "Control++" for the plus key`
	tests := []struct {
		in   string
		want string
	}{
		{"", "empty key: " + howTo},
		{"Control+", `missing key after the last "+" in "Control+"` + missing},
		{"Control+Shift+", `missing key after the last "+" in "Control+Shift+"` + missing},
		{"++", `missing key after the last "+" in "++"` + missing},
		{"Control+++", `missing key after the last "+" in "Control+++"` + missing},
		{"Foo", `unknown key "Foo" in "Foo": ` + howTo},
		{"Control+Foo", `unknown key "Foo" in "Control+Foo": ` + howTo},
		{"Control+enter", `unknown key "enter" in "Control+enter": names are case-sensitive, write "Enter"`},
		{"arrowleft", `unknown key "arrowleft" in "arrowleft": names are case-sensitive, write "ArrowLeft"`},
		{"Return", `unknown key "Return" in "Return": ` + howTo},
		{"Control+é", `unknown key "é" in "Control+é": the character is not on a US keyboard, ` +
			`so no key types it; enter such text by filling or typing it instead`},
		{"Control++a", `unknown key "+a" in "Control++a": ` + howTo},
		{"Foo+a", `unknown modifier "Foo" in "Foo+a": ` + modifiersOnly},
		{"control+a", `unknown modifier "control" in "control+a": names are case-sensitive, write "Control"`},
		{"CTRL+a", `unknown modifier "CTRL" in "CTRL+a": names are case-sensitive, write "Control"`},
		{"enter+a", `unknown modifier "enter" in "enter+a": ` + modifiersOnly},
		{"a+b", `"a" in "a+b" is not a modifier: ` + modifiersOnly},
		{"Control+Enter+a", `"Enter" in "Control+Enter+a" is not a modifier: ` + modifiersOnly},
		{"Control+Control+A", `modifier Control appears twice in "Control+Control+A": ` +
			`name each modifier once, as in "Control+A"`},
		{"Control+Shift+Ctrl+A", `modifier Control appears twice in "Control+Shift+Ctrl+A": ` +
			`name each modifier once, as in "Control+Shift+A"`},
		{"Shift+Shift", `modifier Shift appears twice in "Shift+Shift": ` +
			`name each modifier once, as in "Shift"`},
		{"Control+ControlRight", `modifier Control appears twice in "Control+ControlRight": ` +
			`name each modifier once, as in "Control"`},
		{"Control + A", `unexpected space in "Control + A": write "Control+A" (the Space key is " " or "Space")`},
		{" Enter", `unexpected space in " Enter": write "Enter" (the Space key is " " or "Space")`},
		{"Enter\n", `unexpected space in "Enter\n": write "Enter" (the Space key is " " or "Space")`},
		{"  ", `unknown key "  " in "  ": ` + howTo},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := keys.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error %q", tt.in, got, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error:\n got %s\nwant %s", tt.in, err, tt.want)
			}
			if !errors.Is(err, keys.ErrInvalid) {
				t.Errorf("errors.Is(Parse(%q) error, ErrInvalid) = false, want true", tt.in)
			}
		})
	}
}

func TestComboMask(t *testing.T) {
	tests := []struct {
		in   string
		want keys.Modifier
	}{
		{"Enter", 0},
		{"A", 0},
		{"Shift", 0},
		{"Shift+a", keys.ModShift},
		{"Control+A", keys.ModControl},
		{"Alt+F4", keys.ModAlt},
		{"Meta+c", keys.ModMeta},
		{"Control+Shift+R", keys.ModControl | keys.ModShift},
		{"Meta+Shift+ArrowLeft", keys.ModMeta | keys.ModShift},
		{"Control+Alt+Meta+Shift+Delete", 15},
		{"ShiftRight+ControlRight+Tab", keys.ModShift | keys.ModControl},
	}
	for _, tt := range tests {
		c, err := keys.Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q) error: %v", tt.in, err)
			continue
		}
		if got := c.Mask(); got != tt.want {
			t.Errorf("Parse(%q).Mask() = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestForText(t *testing.T) {
	tests := []struct {
		r      rune
		want   keys.Key
		wantOK bool
	}{
		{'a', keys.Key{Key: "a", Code: "KeyA", KeyCode: 65, Text: "a"}, true},
		{'Q', keys.Key{Key: "Q", Code: "KeyQ", KeyCode: 81, Text: "Q", Shifted: true}, true},
		{'7', keys.Key{Key: "7", Code: "Digit7", KeyCode: 55, Text: "7"}, true},
		{'&', keys.Key{Key: "&", Code: "Digit7", KeyCode: 55, Text: "&", Shifted: true}, true},
		{'?', keys.Key{Key: "?", Code: "Slash", KeyCode: 191, Text: "?", Shifted: true}, true},
		{'\\', keys.Key{Key: `\`, Code: "Backslash", KeyCode: 220, Text: `\`}, true},
		{' ', space, true},
		{'\n', enter, true},
		{'\r', enter, true},
		{'\t', keys.Key{}, false},
		{'é', keys.Key{}, false},
		{'€', keys.Key{}, false},
		{'😀', keys.Key{}, false},
		{0, keys.Key{}, false},
		{-1, keys.Key{}, false},
	}
	for _, tt := range tests {
		got, ok := keys.ForText(tt.r)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ForText(%q) = %+v, %t, want %+v, %t", tt.r, got, ok, tt.want, tt.wantOK)
		}
	}
}
