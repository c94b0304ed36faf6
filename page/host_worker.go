package page

import "github.com/mafredri/cdp/protocol/runtime"

// ExceptionText is the message of an exception a script threw, as the page
// would print it, without its stack: what a service worker's script
// failure says (package page/worker). Any goroutine.
func ExceptionText(d *runtime.ExceptionDetails) string { return exceptionText(d) }
