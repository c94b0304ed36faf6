// Package waiter waits for the consequences of one action on a page: a
// navigation it started, the DOM settling, the requests it sent, or a dialog
// cutting everything short (ARCHITECTURE.md §8).
//
// A [Waiter] serves one action and is then thrown away. The page actor
// creates it before the action, feeds it the page's events from its own
// goroutine (the feed methods never block), and calls [Waiter.Run] from the
// goroutine that performs the action. Run owns all of the waiter's state; the
// feed methods only append to its queue.
//
// What "settled" means, in order of precedence:
//
//  1. A dialog opened: return at once (the renderer is paused; nothing else
//     can make progress).
//  2. A cross-document navigation of the main frame started (the page said
//     it was starting one, or Chrome reported it): wait for it to finish, up
//     to the navigation timeout, then for the new document's DOM to go
//     quiet (100 ms × CPU at least, the last 50 ms × CPU without mutation).
//  3. Otherwise the action's own work is done: nothing it caused is pending
//     in the page, and the DOM has then been quiet for a short tail
//     (15 ms × CPU); and every document request the action sent, and every
//     script the document loaded meanwhile, has finished, up to 3 s ×
//     network.
//
// # Causal settle
//
// What the action caused is followed in the page itself ([Page.Track]; the
// page package's tracker, js/causal.js): from the moment the action starts
// until its input is delivered, and then from inside the work it caused,
// the page's timers (setTimeout, an interval's first tick), animation
// frames, fetches and XMLHttpRequests and the reading of their responses,
// whole or streamed, promise-based APIs that resolve later (crypto.subtle,
// Blob reads, createImageBitmap, IndexedDB), posted messages, scripts the
// document loads (a lazily imported module: [Waiter.ScriptStarted]), and a
// navigation the document starts are counted as pending until they have
// run, transitively: a timer that starts a fetch that sets a timer is one
// chain. The wait ends when none is pending and the DOM has been quiet for
// the tail. So a click that causes nothing settles a few milliseconds after
// its input, and an effect that lands 600 ms later, or after 30 animation
// frames, is waited for.
//
// The tracker is installed in every document at its start, before the
// page's own scripts, and is dormant between actions: its wrappers check
// one flag and call the browser's function. Installing it at document
// start is what lets it follow code that kept its own reference to
// setTimeout or fetch, and lets it hold the browser's own built-ins whatever
// the page replaces later. Its wrappers are proxies of the browser's
// functions; the page's callbacks are never wrapped (companion timers and
// frames of the same delay mark when they run, and a promise of the same
// outcome stands in for a followed one), so that a page reads the same
// names, lengths, source texts and stacks as without tabhive, and its
// unhandled rejections are reported as they would be.
//
// Bounds: a timer set more than the horizon (1 s × CPU) ahead, an
// interval's later ticks, timers or frames that run on for a horizon
// without changing the DOM (a poll), and those that change it every time
// for a horizon of page time (an endless animation) are not waited for;
// what of them is still scheduled when the wait ends is reported in
// [Result.Pending], one line per kind. "Run on for a horizon" is counted in
// the time the page asked for (timer delays, 1/60 s a frame) as well as in
// wall time since the DOM last changed or a response arrived, so that work
// a loaded machine merely runs late is still waited for (up to three
// horizons of wall time). Requests are waited for up to 3 s × network. The
// whole wait stays inside the caller's context, and following stops on
// every path ([Page.Stop]).
//
// A page that cannot be followed (a document that predates the tracker,
// whose scripts broke what it relies on) is tried once more, then given
// the probe window for a navigation to start, and [Result.Unfollowed] says
// why.
//
// Limits, where the DOM-quiet tail is all there is: work scheduled by other
// means (workers, observers, CSS transitions, window.postMessage, idle
// callbacks), work in other frames of the page's process, and effects that
// land later than the tail without the page scheduling anything (an image
// that loads). Unrelated work that happens to run inside the action's
// window is counted too, a bounded over-approximation.
//
// # Constants
//
// Each timing is multiplied by the emulated CPU or network slowdown as
// shown. The measurements are in docs/BENCHMARKS.md ("Causal settle" and
// "Causal settle, hardened") unless said otherwise.
//
//	constant            value          reason; measurement
//	causalTail          15 ms × CPU    what follows the last counted callback: a
//	                                   microtask, mutation records, a style change.
//	                                   The zoo passes with it under -race at load
//	                                   30–55 on 2 cores; a click that causes
//	                                   nothing settles in 29–30 ms (median, load
//	                                   38–47).
//	horizon             1 s × CPU      work further ahead is not what the action
//	                                   waits on (a toast's timeout, a poll). The
//	                                   effects of actions in six real web apps
//	                                   landed 120–600 ms after them; a 600 ms
//	                                   timer is waited for, a 5 s one reported.
//	3 horizons          3 s × CPU      wall time without a change after which late
//	                                   work is given up: five frames of 250 ms
//	                                   each (the zoo's heavyFrames) still finish
//	                                   on a loaded machine.
//	4 ms a timer        page time      HTML clamps nested timers to 4 ms: the
//	                                   least page time a timer stands for.
//	1000/60 ms a frame  page time      one frame at 60 Hz, headless Chromium's
//	                                   rate; 30 frames (the zoo's frames30) take
//	                                   528 ms.
//	250 ms a frame      moving time    the most a late frame of an animation
//	                                   that changes the page counts: an endless
//	                                   one returns after about a horizon, not at
//	                                   the 3 s cap (zoo: animate).
//	probeWindow         100 ms × CPU   without following the page, a navigation
//	                                   must start within this; chrome-devtools-mcp
//	                                   1.11's expectNavigationIn is the same.
//	form window         100 ms         a form's submission navigates a task after
//	                                   its submit event, or never (another
//	                                   target): the zoo's submit case.
//	navStartWait        1 s × CPU      the page said it navigates: Chrome reports
//	                                   the start within this (the zoo's navigate).
//	quietWindow         100 ms × CPU   a new document's effects are given this
//	quietTail           50 ms × CPU    long, and this without a mutation: as
//	                                   chrome-devtools-mcp's stableDomFor (100 ms).
//	quietCap            3 s × CPU      the DOM is given up after this, as
//	                                   chrome-devtools-mcp's stableDomTimeout.
//	navigationCap       3 s × network  default wait for a started navigation.
//	requestCap          3 s × network  requests and scripts are given up after
//	                                   this; the zoo's 1.3 s response is waited
//	                                   for.
//	stopCap             500 ms × CPU   one call that stops or holds following:
//	                                   a round trip, taken in under 5 ms idle.
//	lifetime            5 min          a tracker nobody stopped stops itself: for
//	                                   a renderer that did not answer the stop.
package waiter
