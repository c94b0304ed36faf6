package page

import (
	"context"
	"testing"
	"time"
)

// shotCtx is a call's context in the tests that drive a page at length:
// three minutes at most, cancelled when the test ends.
func shotCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return c
}
