package page

import (
	"testing"

	"github.com/mafredri/cdp/protocol/runtime"
)

// TestContextOf: the execution context of a controller is read from its
// remote object id as V8 names it; any other shape names none, so that
// the controller is not kept.
func TestContextOf(t *testing.T) {
	for id, want := range map[runtime.RemoteObjectID]runtime.ExecutionContextID{
		"-4160148876582510581.2.4": 2,
		"77.13.1":                  13,
		"":                         0,
		"12345":                    0,
		"1.x.2":                    0,
		"1.0.2":                    0,
		"1.-3.2":                   0,
		"1.2.3.4":                  0,
	} {
		if got := contextOf(id); got != want {
			t.Errorf("contextOf(%q) = %d, want %d", id, got, want)
		}
	}
}
