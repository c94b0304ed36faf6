package storagestate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// PendingScript returns the document-start script that gives a top-level
// document the localStorage of its origin when origins names it: it
// replaces the origin's localStorage with the named items, before any of
// the page's own scripts run (the browser's localStorage and JSON are
// still in place then), and does nothing in a frame, in a document of
// another origin, or where storage is refused. It returns "" for no
// origins.
//
// The origins' items are one JSON string literal, parsed only in a
// document whose origin it names: a state of 3,000 origins of one item
// each is some 150 KB of script, compiled once per top-level document.
func PendingScript(origins map[string][]Item) (string, error) {
	if len(origins) == 0 {
		return "", nil
	}
	m := make(map[string][][2]string, len(origins))
	for o, items := range origins {
		pairs := make([][2]string, len(items))
		for i, it := range items {
			pairs[i] = [2]string{it.Name, it.Value}
		}
		m[o] = pairs
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode the pending storage: %w", err)
	}
	lit, err := json.Marshal(string(b))
	if err != nil {
		return "", fmt.Errorf("encode the pending storage: %w", err)
	}
	return strings.Replace(pendingJS, "__ITEMS__", string(lit), 1), nil
}
