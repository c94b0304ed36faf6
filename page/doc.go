// Package page drives Chrome page targets, one actor per page. Every
// page-scoped tool of tabhive (navigate, click, fill, snapshot, evaluate,
// screenshot) is a method of [Actor] or of a capability's package
// (page/emulation, page/screencast, page/screenshot, page/script,
// page/devtools: the
// console and network listings); each call becomes a message that runs on that page's own
// goroutine, in arrival order, under the caller's deadline.
//
// The browser supervisor starts a page once Chrome has created its target,
// and stops it when the target goes away:
//
//	a := page.Start(page.Config{ID: 3, TargetID: targetID, Attach: attach})
//	res, err := a.Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: "https://example.com"})
//	...
//	a.Stop(page.ErrClosed)
//
// Methods return Go values and errors ([ActionResult], [Snapshot],
// [*DialogError], ...). The sentences agents read are made by package
// transport, or by the capabilities' own tools, including those that say
// what is emulated ([State.Parts]).
//
// # Files
//
// actor.go holds the actor, its lifecycle and the call helpers; events.go
// routes the page's CDP events to their owners (the frame tree, the child
// sessions, the dialog, the action in progress, then the slices);
// frames.go holds the frame tree (frames, their documents, execution
// contexts and sessions); slice.go the capabilities' registry, the
// optional interfaces a slice may implement and the page's sliceSet that
// loops over them; host.go the [Host] every slice holds and [Do];
// errors.go declares the errors methods
// return. Then a file per capability: navigate.go, input.go (the element
// a uid names and the input action run on it under the waiter, for
// page/input through host_input.go), dialog.go (the dialog state and
// handle_dialog), wait.go (the post-action
// waiter), tracker.go (the tracker every document gets at its
// start, which the waiter and page/script use), load.go; uid.go
// (uid resolution against the latest snapshot, which page/axsnapshot
// takes);
// oopif.go (out-of-process iframes: the child sessions, and placing
// their elements in the page); host_route.go (what
// page/route, the request routes, needs of the core, and the Explainer
// that lets a slice explain a call's error), origins.go
// (the origins the page's frames show),
// host_snapshot.go (the latest snapshot, which page/axsnapshot sets and
// takes for the core through [SnapshotTaker], and uid resolution for
// capabilities such as page/styles), host_script.go (frames' script
// contexts, the waiter answering a script's dialogs, the tracker, and the
// results and errors a page's and a worker's scripts share, for
// page/script), host_screenshot.go (placing an
// element of an out-of-process iframe, and streaming a reply, for
// page/screenshot), host_webmcp.go (the dialog state
// page/webmcp's invocations watch), host_lighthouse.go (the target and
// the relay page/lighthouse's audit needs); and host_worker.go (a thrown
// exception's text, for page/worker, the smaller actor of an extension's
// service worker). Package
// page/internal/format formats CDP's JavaScript values, stack traces and
// headers (JavaScript's own number and JSON rules are internal/jsfmt's);
// page/snapshot builds snapshot trees; page/internal/walker calls the
// in-page walker; package page/js holds the page-side scripts, one file
// each.
//
// # Capabilities
//
// What a page can do beyond its core (the session and its children, frames,
// dialogs, the crash state, the mailbox, the wait that keeps events
// flowing) moves into packages of its own, one per capability, each
// declaring its MCP tools beside its state (page/screencast,
// page/emulation, page/devtools). host_<capability>.go files hold what the
// core offers one capability beyond [Host]'s common methods. A capability registers a [Capability] from a package-level
// variable ([Register]): every page then holds one [Slice] of its state,
// made before the page starts and owned by the run goroutine. The
// capability names the CDP events it needs; the page's sessions queue
// them, and the run goroutine hands each to the slice's Apply after the
// core has applied it. Its calls run on the run goroutine through [Do],
// under the caller's deadline, and reach the page through the narrow
// [Host]: the page's session, its frames and the sessions that reach
// them, [Host.Call] and [Host.Await] (which keep events flowing and end
// on a dialog or a crash), and the renderer check. Host hands out the
// rest as small sub-handles on the same page, one job each:
// [Host.Elements] (the latest snapshot's uids and the actions on their
// elements under the post-action waiter), [Host.Dialogs] (the open dialog
// and whether one opened during a wait), [Host.Loads] (navigating and
// reloading the page, and the pace the emulation sets) and [Host.Owner]
// (what the page's [Config] gave it: the permission grant, the relay, the
// URL policy, the hooks, the word of a navigation). What the core and one
// capability need of each other is in a file of its own,
// host_<capability>.go (host_emulation.go: the pace the emulation sets).
// What any slice may do for the core, such as reporting its part of [State] ([Reporter]) or setting its
// settings again after Lighthouse ([Restorer]), is an optional interface
// in slice.go. Adding a capability touches its folder and one line of the transport's
// tool list.
//
// # What an actor owns
//
// Only the actor's run goroutine touches the page's state: its frame tree
// (frames, execution contexts and main-frame URL: a frameTree, frames.go),
// the sessions of its out-of-process iframes (children, oopif.go), the
// open dialog, the latest
// snapshot and its uid map, the capabilities'
// slices, and the waiter of the action in progress. No mutex
// guards them (ARCHITECTURE.md §2, law 1); other goroutines reach them only through
// a method, which is a message. What other goroutines do share is listed
// with [Actor]'s fields: the CDP session (conn, c, top), written once
// before the first message and read-only after; the pace the emulation
// implies (its default timeouts), published through an atomic pointer so
// that [Actor.Timeouts] never waits on a busy page; and what the goroutines that
// set up out-of-process iframes hand back (see Goroutines): the ready
// channel that wakes the run goroutine, the posted queue their results go
// through (safe from any goroutine), and the children's adopting wait
// group that counts them.
//
// # Frames in other processes
//
// A cross-site iframe runs in a renderer of its own, which the page's
// session cannot reach. The page's session auto-attaches to such iframes
// (Target.setAutoAttach with flat sessions; each waits for the debugger
// until the actor has enabled its domains), and so does each of theirs,
// for nested ones. The actor owns every child session as it owns its own:
// their events are applied on the run goroutine, their frames are in the
// page's frame tree, each knowing the session that reaches it, and the
// walker, uid resolution, wait_for, the collectors (page/devtools), dialogs, screenshots
// and evaluate_script each use the session of the frame they concern. No
// state is shared beyond the actor, and no lock is added: a child session
// is set up on a goroutine that posts its result back to the run
// goroutine (see Goroutines).
//
// # What an actor must never do
//
//   - Share state with another actor, or wait on one, except by message.
//   - Make a CDP call without a context that can end it. Every exchange runs
//     under the caller's deadline, through the actor runtime's Await or the
//     waiter, and inner waits leave headroom so that the page's own error,
//     not the caller's deadline, ends a call (ARCHITECTURE.md §2, law 3). Cleanup that
//     must happen even when the caller gave up (releasing a remote object,
//     removing an init script) runs under a short bound of its own.
//   - Block on the browser without listening. While an exchange or a wait is
//     in flight the run goroutine keeps applying events (law 5), which is
//     how a dialog cuts a wait short (law 6) and why the collectors miss
//     nothing.
//   - Ask a paused renderer for anything: while a dialog is open, a call
//     that needs the page's JavaScript or layout fails at once with a
//     [*DialogError] instead of hanging.
//   - Act on a node of another document: a uid resolves only against the
//     latest snapshot, and only while its frame still shows the document it
//     was taken from.
//
// # Goroutines
//
// Every goroutine the page starts, by whom, and what ends it:
//
//   - The run goroutine (package actor). [Start] starts it. It attaches to
//     the target and enables the domains (init), then runs messages one at a
//     time, applying events between and during them. [Actor.Stop] ends it
//     with a cause and waits for it; it also ends when init fails, when a
//     handler panics, and when the connection watcher stops it. On its way
//     out it answers every queued message with an error, waits (2 s at
//     most) for the Await goroutines, closes the CDP session and calls
//     [Config.OnExit].
//   - Await goroutines (package actor). The run goroutine starts one for
//     each blocking exchange: every a.call, the steps of init, the waited
//     action of perform, and cleanups such as removing an init script or
//     turning drag interception off (these under a second of their own,
//     whether or not the caller's context has ended). Each ends when its
//     exchange
//     returns. Await cancels its context when it returns early (a dialog, a
//     crash, the deadline), and the run goroutine waits for all of them
//     before it exits.
//   - The heap snapshot call (page/memory), an Await goroutine whose
//     HeapProfiler.takeHeapSnapshot runs under the actor's lifetime context
//     and an hour, not under its caller's budget: when the budget runs out
//     the renderer goes on writing the snapshot, and the page refuses a new
//     one until Chrome answers. It ends with Chrome's answer, posting that
//     the page is free again, or when the actor stops.
//   - Adopt goroutines (oopif.go). The run goroutine starts one for each
//     out-of-process iframe Chrome attaches: it enables the child
//     session's domains, asks for its own iframes, reads its frame tree and
//     lets its renderer run, under a.timeout and the actor's lifetime
//     context, then posts the result to the run goroutine (a queue that
//     Apply drains) and ends. The actor's exit closes the child sessions,
//     which ends their calls at once, and waits for these goroutines, a
//     second at most (children.close, from OnExit; the goroutine that
//     waits for them there ends with the last of them).
//   - The connection watcher. init starts it once the session is attached.
//     When the session closes (the tab closed, the browser went away) it
//     leaves the owner one second (goneWait) to stop the actor with the real
//     cause, then stops it with [ErrDisconnected] itself. It returns as soon
//     as the actor's lifetime context ends, which happens first thing when
//     the actor stops; nothing waits for it, and it holds nothing.
//   - The waiter's action goroutine (package waiter). perform runs the
//     waiter on an Await goroutine, and the waiter runs the action (mouse
//     and key events, a script, a navigation command) on a goroutine of its
//     own, to watch for dialogs meanwhile. It ends when the action returns;
//     the waiter cancels the action's context when it stops watching (a
//     dialog, the deadline), which ends the action's CDP call.
//   - The settle wait (package waiter, through causalProbe and the
//     document's tracker, js/causal.js). The waiter starts it after the
//     action, and again on a new document after a navigation: one Runtime
//     call that resolves once nothing the action caused is pending in the
//     page and the DOM has been quiet, bounded in the page (requests 3 s ×
//     network, the rest 3 s × CPU). A navigation or the end of the wait
//     cancels it; it reports on a buffered channel, so it never blocks.
//     The waiter stops the tracker as it returns, on every path; when it
//     returns with a dialog open, the actor stops it once the dialog is
//     closed (stopLeftTrackers).
//   - Find-text, for wait_for. findText, on the Await goroutine of its
//     call, starts one goroutine per execution context, each a
//     Runtime.callFunctionOn of js/findtext.js that resolves with the text
//     found or after a slice of at most a second. The first text found
//     cancels the others, and findText waits for all of them before it
//     returns; WaitForText then starts another slice if nothing was found.
//   - The script call of evaluate_script: page/script's, started on the
//     waiter's action goroutine (Elements.PerformAnswering); see that
//     package.
//   - The frame tracker of an action on an element of an out-of-process
//     iframe (framesProbe, in wait.go). Settling such an action waits on a
//     tracker in the frame's document beside the page's; the frame's runs
//     on a goroutine of its own, which Settle waits for before it returns.
//   - A capability's own goroutines, listed in its package's doc comment
//     (a screencast's recorder: page/screencast; a performance trace's
//     analysis: page/performance). A capability's slice is
//     closed in OnExit, after the last call, and each Close is bounded.
//   - The navigation report. Once a navigation completes, navigated tells
//     the owner (Config.OnNavigated) on an Await goroutine, so that the run
//     goroutine keeps applying events while the supervisor records the new
//     title; it ends when OnNavigated returns, under the call's context.
//   - Fan-outs within one exchange, each waited for before its exchange
//     returns: enabling the domains in init, and a child session's in its
//     adopt goroutine (with what the slices set on a new session,
//     [ChildSetUp]); one goroutine per session, the page's and each
//     out-of-process iframe's, for a setting that applies to the whole page
//     (onAll: the emulated network, CPU, user agent, media features and
//     headers); one per frame for a snapshot, walked or
//     read from the AX tree, and for inViewport's boxes; closed shadow
//     roots and opaque AX subtrees of a walk; uid lookups of a combobox's
//     options (16 at a time); waiting for out-of-process iframes to paint
//     before a drag or a screenshot (painted, two seconds at most); and
//     the goroutine waitGroup starts to wait on a WaitGroup with a bound,
//     which ends with the group.
//
// The goroutines that read the CDP session and route its events belong to
// the connection [Config.Attach] returns, not to the page. [Hooks] run on
// the goroutine that sees the event: DialogOpened and EvaluateDone on the
// run goroutine, ScriptTerminated on the waiter's action goroutine,
// StaleDropped on the run goroutine.
package page
