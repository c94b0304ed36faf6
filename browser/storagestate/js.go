package storagestate

import _ "embed" // the page-side sources below

// The page-side JavaScript of the package, one source per file of js/.

// storageJS is an object whose collect(withIndexedDB, limit) resolves to
// the JSON text of the page's origin's entry ({localStorage, indexedDB},
// without its origin), or rejects with a sentence when that is longer than
// limit characters; and whose restore(origin) replaces the origin's
// localStorage and IndexedDB with an [Origin]'s.
//
//go:embed js/storage.js
var storageJS string

// pendingJS is [PendingScript]'s script, with __ITEMS__ in place of the
// JSON string literal of the pending origins' items.
//
//go:embed js/pending.js
var pendingJS string
