// Package collectors keeps what a page has said since its last few navigations:
// network requests ([Network]) and console output, uncaught exceptions and
// browser issues ([Console]).
//
// The collectors are plain data structures. They do no I/O, start no
// goroutines and hold no locks: each page actor owns one [Network] and one
// [Console], converts the CDP events it receives into the plain structs of this
// package and feeds them in event order, from its own goroutine only
// (ARCHITECTURE.md §2, law 1). No CDP or MCP type appears here.
//
// # Segments
//
// Items are kept per navigation in a [Store]. The current document's items
// form the current segment; a main-frame cross-document navigation
// ([Navigation]) opens a new one. The current segment and the two before it
// are kept; older ones are dropped. Listing shows the current segment, or all
// kept segments oldest first when preserved data is asked for. Each segment is
// capped (see [Config]) and drops its oldest items first, so a page that logs
// or polls forever keeps the collectors' size flat.
//
// The network collector splits differently from the others: the request that
// loads a document is sent before the navigation commits, so the split moves
// that request, and everything that followed it, into the new segment
// ([Network.FrameNavigated]).
//
// # Network
//
// A request's headers are those CDP reports with it, completed by the raw
// headers sent on the wire (cookies and the like), as Puppeteer merges them;
// a response's are the raw headers received when CDP sends them. Chrome sends
// the raw headers on their own (Network.*ExtraInfo), before or after the
// events they belong to; they are matched to requests and redirect hops in
// order. Bodies are not kept: the owner reads them from the page when asked.
//
// # Console
//
// Console API calls, the browser's own messages (a resource that failed to
// load, from CDP's Log domain), uncaught exceptions and browser issues share
// one stream and one id sequence, in the order the page's session reported
// them. A message's object arguments are kept as opaque
// references ([Arg.Ref]) for the owner to read on demand; an exception's cause
// chain is read once and recorded ([Console.SetCauses]). Issues are
// de-duplicated and aggregated by code, with DevTools' titles
// ([IssueTitle]).
//
// # Ids
//
// Every item gets an id when it is collected: per collector (that is, per
// page), starting at 1, increasing, never reused. Paging, filtering and
// dropping never change an id, so the reqid or msgid an agent saw in one call
// still names the same item in the next, or names nothing.
//
// # Reading
//
// Accessors return copies. A copy shares the maps, slices and [Response] of
// the collected item, but the collectors never modify those once stored, so a
// copy may be handed to another goroutine (the transport rendering a reply)
// while the actor keeps feeding events.
//
// A listing is built in three steps: [Console.List] or [Network.List] select
// and filter, [Group] folds consecutive repeated console messages, and
// [Paginate] cuts the page and reports the numbers the reply text needs.
package collectors
