// Package format turns what CDP reports of a page's JavaScript values, stack
// traces and HTTP headers into the text chrome-devtools-mcp shows for them:
// values as JavaScript's String() prints them, console messages as
// Puppeteer words them, stack traces as DevTools lays them out, headers in
// the order the page sent them. JavaScript's own rules (a number's digits,
// JSON.stringify) are package jsfmt's; this package knows CDP's types.
//
// It is pure: it decodes JSON it is given and returns strings and the plain
// structs of package collectors. It sends nothing to Chrome, holds no state,
// and is safe to call from any goroutine.
//
// # Types
//
// [RemoteObject], [StackTrace] and [ExceptionDetails] are the parts of CDP's
// Runtime types that formatting reads, decoded straight from an event's or
// a reply's JSON.
//
// # Functions
//
//   - [Value]: a primitive as JavaScript's String() prints it.
//   - [ConsoleEvent]: a console call's text and arguments, as listed.
//   - [Uncaught] and [Thrown]: the text of an uncaught exception and of a
//     thrown value.
//   - [Stack]: a stack trace with its asynchronous parents, flattened.
//   - [Headers]: a CDP Headers object, keys in their order.
//   - [ConsoleAPICalled] and [ExceptionThrown]: the two Runtime events a
//     console collector applies, decoded, for a page and a service worker
//     alike.
package format
