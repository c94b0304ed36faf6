// Package js holds the JavaScript tabhive runs in pages, one source per
// file of this folder, embedded here and nowhere else, so that every script
// can be read, linted and parsed as JavaScript (scripts/jscheck.sh) rather
// than hidden in Go strings.
//
// A source is sent as it is stored: a file holds exactly the text the page
// receives (the small ones end without a newline). Sources called with
// Runtime.callFunctionOn are function declarations, named for what they do
// on this (the element or object they are called on); the others are
// expressions for Runtime.evaluate. A template holds placeholders written
// as identifiers (__SOURCE__), so that it parses as JavaScript too; its
// caller replaces them with strings.NewReplacer.
//
// The package has no state beyond these strings and starts no goroutines.
package js

import _ "embed" // the sources below

// The snapshot walker and its calls.
var (
	// Snapshot is the in-page snapshot walker: a function (op, ...) that,
	// called with op "walk" in a frame's isolated world, returns the kept
	// nodes of the default snapshot of that document; with op "id" on an
	// element, that element's walker id; with op "root" on an element,
	// takes the element's closed shadow root; with op "node" (doc, id), the
	// DOM node a walker id names, or null.
	//
	//go:embed snapshot.js
	Snapshot string

	// WalkerCall calls the walker once it is installed in the isolated
	// world, and returns "\x00install" when it is not.
	//
	//go:embed walker_call.js
	WalkerCall string

	// WalkerInstall is a template: with __WALKER__ replaced by [Snapshot],
	// it installs the walker in a global of the isolated world (which lives
	// as long as the document) and calls it.
	//
	//go:embed walker_install.js
	WalkerInstall string

	// InView tells which walker ids of a document intersect its frame's
	// viewport: one character per id, '1' in, '2' out, '0' unknown.
	//
	//go:embed inview.js
	InView string
)

// The causal tracker (package page's tracker.go) and the calls on its
// controller.
var (
	// Causal is the source of the causal tracker and evaluate_script's
	// machinery; __TABHIVE_KEY__ in it is replaced by the key of the
	// document's private field that holds the controller.
	//
	//go:embed causal.js
	Causal string

	// TrackerBegin begins following an action: (whether the tracker counts
	// the work the action causes, the horizon in ms).
	//
	//go:embed tracker_begin.js
	TrackerBegin string

	// TrackerState returns the tracker's state: active, observing, and the
	// built-ins a late install could not take (missing).
	//
	//go:embed tracker_state.js
	TrackerState string

	// TrackerEnd says the action's input is done: what the page does from
	// now on is no longer the action's.
	//
	//go:embed tracker_end.js
	TrackerEnd string

	// TrackerHold counts work of the agent's, under key k, as pending until
	// [TrackerRelease].
	//
	//go:embed tracker_hold.js
	TrackerHold string

	// TrackerRelease releases the hold of key k.
	//
	//go:embed tracker_release.js
	TrackerRelease string

	// TrackerSettle resolves once the page has settled under options o
	// (tail, min, horizon, requests, max in ms), with the reason and what
	// was still pending; the tracker then stops itself.
	//
	//go:embed tracker_settle.js
	TrackerSettle string

	// TrackerBeginSettle begins following a document with a tracker that
	// counts nothing (the horizon in ms) and waits for it to settle under
	// options o, in one call: [TrackerBegin] then [TrackerSettle].
	//
	//go:embed tracker_begin_settle.js
	TrackerBeginSettle string

	// TrackerEndSettle says the action's input is done and waits for the
	// page to settle under options o, in one call: [TrackerEnd] then
	// [TrackerSettle].
	//
	//go:embed tracker_end_settle.js
	TrackerEndSettle string

	// TrackerStop stops the tracker, whatever it follows.
	//
	//go:embed tracker_stop.js
	TrackerStop string

	// FindText is a function (texts, ms) that resolves with the first of
	// texts found in its frame, or null after ms.
	//
	//go:embed findtext.js
	FindText string
)

// evaluate_script and its results.
var (
	// FunctionWrapper is a template: it runs the agent's function, put in
	// place of __SOURCE__, through the tracker __c with its arguments, under
	// a timer of the tracker's that rejects a promise still pending at the
	// deadline. It ends, as [ScriptWrapper] does, with checks made of syntax
	// alone (typeof, the length of a string), which no page can replace: no
	// more than the limit __l crosses CDP by value.
	//
	//go:embed function_wrapper.js
	FunctionWrapper string

	// ScriptWrapper runs classic script text through the tracker (this): an
	// indirect eval, so that its completion value is serialised and bounded
	// in the page like a function's. It ends with [FunctionWrapper]'s
	// checks.
	//
	//go:embed script_wrapper.js
	ScriptWrapper string

	// ResultSize returns the size in bytes of a kept result (the tracker's
	// keepResult), or null when the result is undefined.
	//
	//go:embed result_size.js
	ResultSize string

	// ReadChunk returns the UTF-16 code units [from, from+n) of a kept
	// result, one fewer when the slice would end between the two halves of
	// a surrogate pair (the tracker's chunk), or null if what it got is not
	// a string of at most n units. It returns a bare string: Chrome
	// serialises one faster than an object holding it.
	//
	//go:embed read_chunk.js
	ReadChunk string

	// WorkerWrapper is a template: it runs a script in a worker and returns
	// its result as JSON text, cut to a length: __RUN__ is the call that
	// runs the script (the function called, or the script text given to
	// eval), __MAX__ the most characters of JSON returned.
	//
	//go:embed worker_wrapper.js
	WorkerWrapper string

	// Identity returns its argument: called on a remote object with that
	// object as argument, it reads the object by value.
	//
	//go:embed identity.js
	Identity string
)

// Input: fill, select, upload, drag.
var (
	// Field tells what kind of field this is, and for checkboxes, radios
	// and switches whether it is on: "toggle", "select", "text", "direct"
	// (inputs set by value: date, color, range...), or
	// "unsupported:<what>".
	//
	//go:embed field.js
	Field string

	// FocusText focuses a text field and selects its content, so that
	// inserted text replaces it.
	//
	//go:embed focus_text.js
	FocusText string

	// SetValue sets the value of a field that takes no typing (a select, a
	// date or colour input) the way a user's pick does, with input and
	// change events. For a select, v is an option's value.
	//
	//go:embed set_value.js
	SetValue string

	// SelectByText picks the option of this <select> whose text is v (or,
	// failing that, whose value is v) and returns its value, or null.
	//
	//go:embed select_by_text.js
	SelectByText string

	// Value returns this element's value property.
	//
	//go:embed value.js
	Value string

	// SelectOption selects this <option> through its <select>, if it
	// belongs to an enabled single-choice one, firing input and change as a
	// user's pick does. It returns whether it did.
	//
	//go:embed select_option.js
	SelectOption string

	// FileInput reports whether this is a file input, and whether it takes
	// several files.
	//
	//go:embed file_input.js
	FileInput string

	// DragStart listens, in the walker's isolated world (where the page's
	// scripts cannot replace what it calls), for the next dragstart in the
	// element's window, first of the page's own listeners but for those a
	// capture listener on the window registered earlier, and returns the
	// listener's state for [DragStarted].
	//
	//go:embed drag_start.js
	DragStart string

	// DragStarted reports whether the dragstart [DragStart] listens for
	// fired and was not cancelled; called with true, it stops listening.
	//
	//go:embed drag_started.js
	DragStarted string
)

// Documents, viewports and frames.
var (
	// Loaded resolves once the document has loaded: at once if it has.
	//
	//go:embed loaded.js
	Loaded string

	// Title reads the document's title.
	//
	//go:embed title.js
	Title string

	// Painted resolves true after the document has drawn two animation
	// frames (a frame it had not drawn when asked has been drawn since),
	// and at once false for a document that is not shown: it runs no
	// animation frames, so there is nothing to wait for. It runs in the
	// walker's isolated world, so the page's own requestAnimationFrame or
	// Promise, whatever it has made of them, are not the ones called.
	//
	//go:embed painted.js
	Painted string

	// Viewport returns the viewport in page coordinates, scrollbars
	// included (what a capture without a clip shows), and the device pixel
	// ratio: Page.getLayoutMetrics reports neither an emulated nor a forced
	// device scale factor.
	//
	//go:embed viewport.js
	Viewport string

	// WindowSize returns the window's inner size as "WxH".
	//
	//go:embed window_size.js
	WindowSize string
)

// get_css_styles.
var (
	// Styles is get_css_styles' page side (the file says what it returns).
	//
	//go:embed styles.js
	Styles string

	// Enclosing returns the element whose styles a node stands for: itself,
	// or a text node's parent element, as DevTools picks it; null
	// otherwise.
	//
	//go:embed enclosing.js
	Enclosing string

	// Ancestors returns this element and its ancestors in the flat tree
	// (slots and shadow hosts included), as [Styles] lists them.
	//
	//go:embed ancestors.js
	Ancestors string
)

// WebMCP and the page's own developer tools.
var (
	// HasModelContext reports whether the document has
	// document.modelContext.
	//
	//go:embed has_model_context.js
	HasModelContext string

	// Discover3P is a function that dispatches devtoolstooldiscovery and
	// resolves with the tool groups the page answered with.
	//
	//go:embed discover3p.js
	Discover3P string

	// Execute3P is a function (name, args, ...elements) that runs one of
	// the discovered tools and resolves with its result, made JSON-safe.
	//
	//go:embed execute3p.js
	Execute3P string

	// RunDevTool is a template: a function (...elements) that calls
	// __TOOL__ (replaced by [Execute3P]) with __NAME__ and __ARGS__ (JSON)
	// and the elements.
	//
	//go:embed run_devtool.js
	RunDevTool string
)
