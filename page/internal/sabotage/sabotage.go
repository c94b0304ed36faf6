// Package sabotage holds a test page whose own script breaks the
// built-ins that a tracker installed after it, and evaluate_script's
// wrapper, used to rely on; the tests of package page and of page/script
// open it.
package sabotage

import _ "embed"

// HTML is the page's body.
//
//go:embed sabotage.html
var HTML string
