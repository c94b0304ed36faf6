package main

// -features: the loop with what tabhive turns on in the browser, so that the
// distance between tabhive and the loop splits into what those features
// cost Chromium (the loop with them against the loop without) and what
// tabhive's own driving costs (tabhive against the loop with them).
//
//	domains  Runtime, Network, Inspector and Audits enabled on each page,
//	         and asynchronous stacks 32 deep, as tabhive's page actors do;
//	         one at a time: runtime, network, inspector (Inspector and
//	         Audits), async (Runtime, with asynchronous stacks)
//	tracker-follow  the tracker, and the calls tabhive makes on it around
//	         each action (follow.go): the settle waits, with what they cost
//	         the page and the connection
//	tracker  tabhive's causal tracker (page/js/causal.js) added to run at
//	         the start of every document, dormant, as tabhive installs it;
//	         its cost split: tracker-compile (the same source as a
//	         function never called: only compiled), tracker-bare (run, but
//	         no function wrapped: the install without its proxies),
//	         tracker-empty (a script that does nothing: what any script at
//	         the start of every document costs)
//	walker   snapshots taken by tabhive's in-page walker (page/js/snapshot.js)
//	         in an isolated world instead of Accessibility.getFullAXTree; a
//	         click resolves the walker's id to a DOM node as tabhive
//	         resolves a uid. The walker is installed once per document, as
//	         the first snapshot's call finds it missing: its source sent
//	         with Runtime.callFunctionOn (walker-call, an alias)
//	walker-doc      the same walker, installed at the start of every
//	         document by Page.addScriptToEvaluateOnNewDocument in the
//	         isolated world (its source sent once per tab; V8 compiles it
//	         again only in a renderer that has not seen it). As tabhive
//	         finds that world: from Runtime.executionContextCreated when
//	         the Runtime domain is on (domains, tabhive), else by
//	         Page.createIsolatedWorld once per document
//	walker-doc-create  walker-doc with the world asked for by
//	         Page.createIsolatedWorld before every call, as tabhive did
//	         before it kept the world from events
//	walker-compile  the same walker, installed as the first call finds it
//	         missing by Runtime.compileScript and Runtime.runScript (a
//	         script, which V8's per-process compilation cache can serve,
//	         rather than a function sent with each call)
//	walker-lazy     the same walker, its world made at the first snapshot
//	         of each document by Page.createIsolatedWorld and its context
//	         id kept for the document, the walker installed there as the
//	         first call finds it missing by Runtime.evaluate of its script
//	         (which V8's compilation cache serves within a renderer)
//	walker-world    the walker's isolated world alone: an empty script
//	         added at the start of every document in that world, snapshots
//	         read from the AX tree
//	walker-parse    walker-doc's install alone: the walker's script added
//	         at the start of every document in its world (pre-parsed, never
//	         called), snapshots read from the AX tree
//	walker-parse-lazy  walker-parse with the walker not parenthesized
//	         (V8 pre-parses its outer function instead of compiling it)
//	walker-pad      an empty script as long as the walker's (a comment)
//	         at the start of every document in the walker's world:
//	         what the source's size costs without its parse
//	tabhive  domains, tracker and walker-doc: what tabhive turns on (before
//	         it installed the walker at document start: domains,tracker,walker)
//
// The scripts are read from -js (the repository's page/js).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mafredri/cdp/protocol/accessibility"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/page/snapshot"
)

type features struct {
	// The domains, each enabled on its own (domains: all).
	runtime, network, inspector, async bool
	// tracker is how the causal tracker is added: "" (not), "full",
	// "compile", "bare" or "empty" (see the package comment).
	tracker string
	// follow: the loop waits on the tracker around each action as tabhive
	// does (tracker-follow, follow.go).
	follow bool
	// walker is how snapshots are taken: "" (the AX tree), "call", "doc",
	// "compile" or "lazy" (see the package comment).
	walker string
	// worldEach: the walker's world asked for before every call
	// (walker-doc-create), not kept per document.
	worldEach bool
	// atStart is what runs in the walker's world at the start of every
	// document: "" (nothing, no world made), "world" (an empty script),
	// "parse" (the walker's script, not called).
	atStart                  string
	trackerJS, walkerInstall string
	walkerScript             string // the install as a script, for "doc", "compile", "lazy" and "parse"
	walkerScriptLazy         string // the same, not parenthesized ("parse-lazy")
}

// String names the features as -features does.
func (f features) String() string {
	var on []string
	if f.runtime && f.network && f.inspector && f.async {
		on = append(on, "domains")
	}
	for _, d := range []struct {
		on   bool
		name string
	}{{f.runtime && !f.async, "runtime"}, {f.network, "network"}, {f.inspector, "inspector"}, {f.async, "async"}} {
		if d.on && (len(on) == 0 || on[0] != "domains") {
			on = append(on, d.name)
		}
	}
	switch f.tracker {
	case "full":
		on = append(on, "tracker")
		if f.follow {
			on[len(on)-1] = "tracker-follow"
		}
	case "compile", "bare", "empty":
		on = append(on, "tracker-"+f.tracker)
	}
	if f.walker != "" {
		w := "walker-" + f.walker
		if f.worldEach {
			w += "-create"
		}
		on = append(on, w)
	}
	if f.atStart != "" && f.walker != "doc" {
		on = append(on, "walker-"+f.atStart)
	}
	return strings.Join(on, ",")
}

const walkerWorld = "__tabhive_snapshot"

// walkerCall is tabhive's call of an installed walker (page/internal/walker).
const walkerCall = `function (op, a, b) {
  const w = globalThis.__tabhiveWalker;
  return w ? w.call(this, op, a, b) : '\u0000install';
}`

func parseFeatures(list, jsDir string) (features, error) {
	var f features
	for _, name := range strings.Split(list, ",") {
		switch strings.TrimSpace(name) {
		case "":
		case "domains":
			f.runtime, f.network, f.inspector, f.async = true, true, true, true
		case "runtime":
			f.runtime = true
		case "network":
			f.network = true
		case "inspector":
			f.inspector = true
		case "async":
			f.runtime, f.async = true, true
		case "tracker":
			f.tracker = "full"
		case "tracker-follow":
			f.tracker, f.follow = "full", true
		case "tracker-compile", "tracker-bare", "tracker-empty":
			f.tracker = strings.TrimPrefix(strings.TrimSpace(name), "tracker-")
		case "walker", "walker-call":
			f.walker = "call"
		case "walker-doc":
			f.walker = "doc"
		case "walker-doc-create":
			f.walker, f.worldEach = "doc", true
		case "walker-compile":
			f.walker = "compile"
		case "walker-lazy":
			f.walker = "lazy"
		case "walker-world":
			f.atStart = "world"
		case "walker-parse":
			f.atStart = "parse"
		case "walker-parse-lazy":
			f.atStart = "parse-lazy"
		case "walker-pad":
			f.atStart = "pad"
		case "tabhive":
			f.runtime, f.network, f.inspector, f.async, f.tracker, f.walker = true, true, true, true, "full", "doc"
		default:
			return f, fmt.Errorf("-features: no feature %q (domains, runtime, network, inspector, async, tracker, tracker-compile, tracker-bare, tracker-empty, tracker-follow, walker, walker-doc, walker-doc-create, walker-compile, walker-lazy, walker-world, walker-parse, walker-parse-lazy, walker-pad, tabhive)", name)
		}
	}
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(jsDir, name))
		if err != nil {
			return "", fmt.Errorf("-features needs tabhive's scripts: %w (set -js to the repository's page/js)", err)
		}
		return string(b), nil
	}
	if f.tracker != "" {
		src, err := read("causal.js")
		if err != nil {
			return f, err
		}
		// As page/tracker.go calls it: a key of its own, a 5 min lifetime.
		src = strings.ReplaceAll(src, "__TABHIVE_KEY__", "tcdpceiling")
		call := "(300000)"
		switch f.tracker {
		case "compile":
			call = ""
		case "bare":
			const wrap = "const wrap = (obj, name, body) => {"
			if !strings.Contains(src, wrap) {
				return f, fmt.Errorf("-features tracker-bare: causal.js has no %q to disable", wrap)
			}
			src = strings.Replace(src, wrap, wrap+" return;", 1)
		case "empty":
			src, call = "function () {}", ""
		}
		f.trackerJS = "(" + strings.TrimSpace(src) + ")" + call + "\n//# sourceURL=tabhive://tracker.js\n"
	}
	if f.walker == "doc" {
		f.atStart = "parse"
	}
	if f.walker != "" || f.atStart != "" {
		src, err := read("snapshot.js")
		if err != nil {
			return f, err
		}
		f.walkerInstall = "function (op, a, b) {\nconst w = globalThis.__tabhiveWalker ??= (" + src + ");\nreturn w.call(this, op, a, b);\n}"
		// As page/internal/walker's: parenthesized, so that V8 compiles
		// the outer function with the script, not lazily at the first
		// snapshot.
		f.walkerScript = "globalThis.__tabhiveWalker ??= (" + src + ");\n//# sourceURL=tabhive://walker.js\n"
		// Not parenthesized: V8 pre-parses the outer function and
		// compiles it at its first call (walker-parse-lazy).
		f.walkerScriptLazy = "globalThis.__tabhiveWalker ??= " + src + ";\n//# sourceURL=tabhive://walker.js\n"
	}
	return f, nil
}

// enable turns on the features' state in a new page, before its first
// navigation.
func (f features) enable(ctx context.Context, p *tab) error {
	c := p.conn.Client
	for _, d := range []struct {
		on     bool
		enable func() error
	}{
		{f.runtime, func() error { return c.Runtime.Enable(ctx) }},
		{f.network, func() error { return c.Network.Enable(ctx, nil) }},
		{f.inspector, func() error { return c.Inspector.Enable(ctx) }},
		{f.inspector, func() error { return c.Audits.Enable(ctx) }},
		{f.async, func() error {
			return rpcc.Invoke(ctx, "Runtime.setAsyncCallStackDepth", map[string]any{"maxDepth": 32}, nil, p.conn.RPC())
		}},
	} {
		if !d.on {
			continue
		}
		if err := d.enable(); err != nil {
			return fmt.Errorf("enable domains: %w", err)
		}
	}
	if f.tracker != "" {
		if _, err := c.Page.AddScriptToEvaluateOnNewDocument(ctx, page.NewAddScriptToEvaluateOnNewDocumentArgs(f.trackerJS)); err != nil {
			return fmt.Errorf("add tracker: %w", err)
		}
	}
	if f.atStart != "" {
		src := f.walkerScript
		switch f.atStart {
		case "world":
			src = ";"
		case "pad":
			// As many bytes as the walker's script, in a comment: what
			// the source's size costs without its parse.
			src = ";//" + strings.Repeat("x", len(f.walkerScript)) + "\n"
		case "parse-lazy":
			src = f.walkerScriptLazy
		}
		if _, err := c.Page.AddScriptToEvaluateOnNewDocument(ctx, page.NewAddScriptToEvaluateOnNewDocumentArgs(src).SetWorldName(walkerWorld)); err != nil {
			return fmt.Errorf("add walker: %w", err)
		}
	}
	return nil
}

// compileWalker installs the walker in world as a script (walker-compile).
func (f features) compileWalker(ctx context.Context, p *tab, world runtime.ExecutionContextID) error {
	c := p.conn.Client
	s, err := c.Runtime.CompileScript(ctx, runtime.NewCompileScriptArgs(f.walkerScript, "tabhive://walker.js", true).SetExecutionContextID(world))
	if err != nil {
		return fmt.Errorf("compile walker: %w", err)
	}
	if s.ExceptionDetails != nil || s.ScriptID == nil {
		return fmt.Errorf("compile walker: %v", s.ExceptionDetails)
	}
	r, err := c.Runtime.RunScript(ctx, runtime.NewRunScriptArgs(*s.ScriptID).SetExecutionContextID(world).SetSilent(true))
	if err != nil {
		return fmt.Errorf("run walker: %w", err)
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("run walker: %s", r.ExceptionDetails.Text)
	}
	return nil
}

// evalWalker installs the walker in world as a script evaluated there
// (walker-lazy).
func (f features) evalWalker(ctx context.Context, p *tab, world runtime.ExecutionContextID) error {
	r, err := p.conn.Client.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(f.walkerScript).SetContextID(world).SetSilent(true))
	if err != nil {
		return fmt.Errorf("install walker: %w", err)
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("install walker: %s", r.ExceptionDetails.Text)
	}
	return nil
}

// world returns the context id of the main frame's isolated world: made by
// every call (walker-call, -compile, -doc-create), or kept per document
// (walker-doc, walker-lazy): from Runtime.executionContextCreated when the
// Runtime domain is on, as tabhive keeps it, else made by the document's
// first call and kept until the next navigation.
func (f features) world(ctx context.Context, p *tab) (runtime.ExecutionContextID, error) {
	keep := f.walker == "lazy" || (f.walker == "doc" && !f.worldEach)
	if keep && p.world == 0 && f.worldEvents() {
		p.absorb(p.conn.Take())
	}
	if keep && p.world != 0 {
		return p.world, nil
	}
	w, err := p.conn.Client.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(p.id)).SetWorldName(walkerWorld))
	if err != nil {
		return 0, fmt.Errorf("create isolated world: %w", err)
	}
	if keep {
		p.world = w.ExecutionContextID
	}
	return w.ExecutionContextID, nil
}

// worldEvents reports whether the walker's world is learnt from
// Runtime.executionContextCreated, as tabhive learns it.
func (f features) worldEvents() bool {
	return f.walker == "doc" && !f.worldEach && f.runtime
}

// callWalker calls the walker in the main frame's isolated world, installing
// it on the first call in a document, as tabhive does.
func (f features) callWalker(ctx context.Context, p *tab, byValue bool, args ...any) (*runtime.CallFunctionOnReply, error) {
	world, err := f.world(ctx, p)
	if err != nil {
		return nil, err
	}
	call := make([]runtime.CallArgument, len(args))
	for i, a := range args {
		call[i].Value, _ = json.Marshal(a)
	}
	run := func(fn string) (*runtime.CallFunctionOnReply, error) {
		return p.conn.Client.Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(fn).
			SetExecutionContextID(world).SetArguments(call).SetReturnByValue(byValue).SetSilent(true))
	}
	r, err := run(walkerCall)
	if err == nil && r.ExceptionDetails == nil && string(r.Result.Value) == `"\u0000install"` {
		// The document's first call (walker-doc: a document that began
		// before the script was added).
		switch f.walker {
		case "compile", "lazy":
			install := f.compileWalker
			if f.walker == "lazy" {
				install = f.evalWalker
			}
			if err := install(ctx, p, world); err != nil {
				return nil, err
			}
			r, err = run(walkerCall)
		default:
			r, err = run(f.walkerInstall)
		}
	}
	if err != nil {
		return nil, err
	}
	if r.ExceptionDetails != nil {
		return nil, fmt.Errorf("walker: %s", r.ExceptionDetails.Text)
	}
	return r, nil
}

// walk takes a snapshot with the walker. The nodes it returns carry the
// walker's id where a DOM node's would be; resolve turns one into the DOM
// node.
func (f features) walk(ctx context.Context, p *tab) ([]accessibility.AXNode, error) {
	r, err := f.callWalker(ctx, p, true, "walk")
	if err != nil {
		return nil, err
	}
	var text string
	if err := json.Unmarshal(r.Result.Value, &text); err != nil {
		return nil, fmt.Errorf("walker result: %w", err)
	}
	w, err := snapshot.DecodeWalk(text)
	if err != nil {
		return nil, err
	}
	p.doc = w.Doc
	nodes := make([]accessibility.AXNode, len(w.Nodes))
	for i, n := range w.Nodes {
		role, _ := json.Marshal(n.Role)
		name, _ := json.Marshal(n.Name)
		id := dom.BackendNodeID(n.ID)
		nodes[i] = accessibility.AXNode{
			Role:             &accessibility.AXValue{Value: role},
			Name:             &accessibility.AXValue{Value: name},
			BackendDOMNodeID: &id,
		}
	}
	return nodes, nil
}

// resolve returns the DOM node of the walker's id, as tabhive resolves a uid.
func (f features) resolve(ctx context.Context, p *tab, id dom.BackendNodeID) (dom.BackendNodeID, error) {
	r, err := f.callWalker(ctx, p, false, "node", p.doc, int(id))
	if err != nil {
		return 0, err
	}
	if r.Result.ObjectID == nil {
		return 0, fmt.Errorf("walker id %d: no node", id)
	}
	defer p.conn.Client.Runtime.ReleaseObject(ctx, runtime.NewReleaseObjectArgs(*r.Result.ObjectID))
	d, err := p.conn.Client.DOM.DescribeNode(ctx, dom.NewDescribeNodeArgs().SetObjectID(*r.Result.ObjectID))
	if err != nil {
		return 0, err
	}
	return d.Node.BackendNodeID, nil
}
