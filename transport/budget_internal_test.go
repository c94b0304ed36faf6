package transport

import (
	"encoding/json"
	"reflect"
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
		args string // JSON
		want time.Duration
	}{
		{"click", `{}`, inputBudget},
		{"click", `{"includeDiff": true}`, inputBudget + snapshotBudget},
		{"click", `{"includeSnapshot": true}`, inputBudget + snapshotBudget},
		{"fill_form", `{"includeSnapshot": true}`, inputBudget + snapshotBudget},
		{"handle_dialog", `{"includeDiff": true}`, listBudget + snapshotBudget}, // its own budget counts it
	} {
		// The input tools' arguments are their package's (page/input):
		// made from JSON, as a call's are.
		tl := tools[tc.tool]
		args := reflect.New(tl.argType).Interface()
		if err := json.Unmarshal([]byte(tc.args), args); err != nil {
			t.Fatal(err)
		}
		if got := tl.budget(args); got != tc.want {
			t.Errorf("%s(%s) budget = %v, want %v", tc.tool, tc.args, got, tc.want)
		}
	}
}
