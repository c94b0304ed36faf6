package browser

import _ "embed" // the page-side sources below

// The page-side JavaScript of the package, one source per file of js/.
// A template holds placeholders written as identifiers (__ORIGIN__), so
// that it parses as JavaScript; its caller replaces them.

// originGuardJS is a template: it evaluates __EXPR__ in a document of
// origin __ORIGIN__ (a JSON string) and resolves with {v: its value}, or
// is null in a document of another origin.
//
//go:embed js/origin_guard.js
var originGuardJS string
