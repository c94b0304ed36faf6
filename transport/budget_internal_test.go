package transport

import (
	"testing"
	"time"
)

// TestSnapshotAddsToBudget: an action that ends with a snapshot or a diff
// has take_snapshot's budget on top of its own; without one, its own.
func TestSnapshotAddsToBudget(t *testing.T) {
	s := &Server{}
	tools := map[string]*tool{}
	for _, tl := range s.toolList() {
		tools[tl.name] = tl
	}
	for _, tc := range []struct {
		tool string
		args any
		want time.Duration
	}{
		{"click", &clickArgs{}, inputBudget},
		{"click", &clickArgs{IncludeDiff: true}, inputBudget + snapshotBudget},
		{"click", &clickArgs{IncludeSnapshot: true}, inputBudget + snapshotBudget},
		{"fill_form", &fillFormArgs{IncludeSnapshot: true}, inputBudget + snapshotBudget},
		{"handle_dialog", &handleDialogArgs{IncludeDiff: true}, listBudget + snapshotBudget}, // its own budget counts it
	} {
		if got := tools[tc.tool].budget(tc.args); got != tc.want {
			t.Errorf("%s(%+v) budget = %v, want %v", tc.tool, tc.args, got, tc.want)
		}
	}
}
