//go:build !unix

package lighthouse

import "context"

// lockFile does not lock: two processes installing at once each install
// into a directory of their own, and the last rename wins.
func lockFile(context.Context, string) (func(), error) { return func() {}, nil }
