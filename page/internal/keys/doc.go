// Package keys turns key names, as agents write them for press_key, into the values CDP's
// Input.dispatchKeyEvent needs: the DOM key and code, the Windows virtual key code, the text
// the key inserts and its location.
//
// The layout is a US keyboard modelled on Puppeteer's USKeyboardLayout, which
// chrome-devtools-mcp uses. The table is written here, not generated. The package is pure
// data and parsing: it sends nothing to Chrome and holds no state.
//
// # Names
//
// [Lookup] accepts:
//
//   - a single character on the layout: "a", "A", "1", "!", " ", ";", "\n" (Enter);
//   - a DOM key value as Puppeteer spells it: "Enter", "Tab", "ArrowLeft", "PageDown", "F5",
//     "Shift", "Control", "Alt", "Meta";
//   - a DOM code: "KeyA", "Digit1", "Space", "Minus", "ShiftRight", "ControlRight", "Numpad5",
//     "NumpadAdd"; a code names the key without Shift ("KeyA" is "a");
//   - the aliases "Ctrl" (Control), "Cmd" and "Command" (Meta), "Option" (Alt) and "Esc"
//     (Escape), which agents write often and which mean one thing only.
//
// Lookup is case-sensitive: "a" and "A" are different keys, and "enter" is not a name.
// Errors from [Parse] point out the right spelling.
//
// # Combinations
//
// [Parse] reads what press_key takes: a key, optionally after modifiers, joined with "+", such
// as "Enter", "Control+A", "Control+Shift+R" or "Meta+Shift+ArrowLeft". The last part is the
// key; every part before it must be a modifier (Control, Shift, Alt, Meta, their left and
// right codes, or their aliases), each named once. A "+" directly after a "+" or at the start
// is the plus key, so "Control++" is Control with "+", and "+" alone is the plus key.
// Whitespace is not trimmed: "Control + A" is an error that says to write "Control+A", and " "
// is the Space key, so "Control+ " is Control with Space.
//
// Every error Parse returns matches [ErrInvalid] and is one lowercase sentence that tells the
// agent what to write instead.
//
// # Dispatching a Combo
//
// A caller presses a [Combo] the way Puppeteer does:
//
//  1. For each key in Modifiers, in order, send keyDown with modifiers set to the mask of the
//     modifiers pressed so far, this one included ([ModifierOf] of its Key).
//  2. For Key, send keyDown (type "keyDown" if Text is not empty, otherwise "rawKeyDown") and
//     then keyUp, both with modifiers [Combo.Mask].
//  3. Release Modifiers in reverse order, each keyUp with the mask of those still held.
//
// Each event carries the [Key]'s Key, Code, Location, KeyCode (as both windowsVirtualKeyCode
// and nativeVirtualKeyCode) and Text (also as unmodifiedText), and isKeypad when Location is 3.
//
// # Differences from Puppeteer
//
//   - "+", "-", "*" and "/" are the keys a US typist uses: Shift+Equal, Minus, Shift+Digit8 and
//     Slash. Puppeteer sends numpad keys for them; those are still there as "NumpadAdd",
//     "NumpadSubtract", "NumpadMultiply" and "NumpadDivide".
//   - Numpad digits behave as with NumLock on: "Numpad5" is key "5", keyCode 101, text "5".
//     Puppeteer sends NumLock-off values ("Clear", keyCode 12).
//   - Shift in a combination shifts the key: "Shift+a" presses "A" and "Shift+1" presses "!".
//     Puppeteer does that only for code names ("Shift+KeyA").
//   - The parts before the key must be modifiers, and "Control+" is an error;
//     chrome-devtools-mcp would hold "a" while pressing "b" for "a+b", and press Control
//     alone for "Control+".
//   - Keys nobody presses through an agent are left out: media and volume keys, F13 to F24,
//     IME keys (Convert, NonConvert), Power, Eject and the like.
package keys
