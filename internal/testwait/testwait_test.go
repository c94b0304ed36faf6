package testwait_test

import (
	"testing"
	"time"

	"github.com/tabhive/tabhive/internal/testwait"
)

func TestPoll(t *testing.T) {
	n := 0
	if !testwait.Poll(time.Minute, func() bool { n++; return n == 3 }) {
		t.Fatal("Poll = false for a condition that held on its third look")
	}
	if n != 3 {
		t.Errorf("cond called %d times, want 3 (none after it held)", n)
	}
	if testwait.Poll(0, func() bool { return false }) {
		t.Error("Poll = true for a condition that never held")
	}
}
