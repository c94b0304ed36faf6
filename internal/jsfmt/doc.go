// Package jsfmt formats values as JavaScript prints them, so that replies
// read as chrome-devtools-mcp, Puppeteer and DevTools write them:
// numbers as Number.prototype.toString and toFixed give them, strings and
// JSON values as JSON.stringify writes them, and string lengths, cuts and
// order as JavaScript counts them, in UTF-16 code units.
//
// It is the one home of these rules: the page actor, the trace and heap
// engines and the transport's renderers all call it, so a quirk of
// JavaScript's is fixed in one place. It is pure: no state, no I/O, safe
// from any goroutine, and it starts no goroutines.
//
// # Go strings and UTF-16
//
// A Go string is UTF-8 and cannot hold half a UTF-16 surrogate pair. Where
// JavaScript would produce one (a cut through a pair, a lone "\ud800"
// escape), jsfmt gives U+FFFD, as the text would read once it reached Go
// through CDP. Bytes that are not UTF-8 count as one U+FFFD each.
//
// # Functions
//
//   - [Number] and [ToFixed]: a number as String(n) and n.toFixed(d) print it.
//   - [Quote]: a string as JSON.stringify quotes it.
//   - [Stringify]: a JSON value re-printed as JSON.stringify prints it.
//   - [Unquote]: a JSON string literal decoded.
//   - [Length], [Slice], [Prefix]: a string's length and its first code
//     units, as JavaScript counts them.
//   - [Compare] and [Less]: strings in JavaScript's order.
//
// The tests hold these to Node's own answers, kept in testdata/node.json
// (testdata/gen.mjs says how to regenerate it); Node is not needed to run
// them.
package jsfmt
