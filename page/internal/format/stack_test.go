package format

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tabhive/tabhive/collectors"
)

// stackOf decodes a CDP stack trace written as JSON.
func stackOf(t *testing.T, js string) *StackTrace {
	t.Helper()
	var st *StackTrace
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return st
}

func TestStack(t *testing.T) {
	tests := []struct {
		name string
		js   string
		want []collectors.CallFrame
	}{
		{"none", `null`, nil},
		{
			name: "synchronous frames",
			js:   `{"callFrames": [{"functionName": "inner", "scriptId": "3", "url": "http://x/a.js", "lineNumber": 4, "columnNumber": 9}, {"functionName": "", "scriptId": "3", "url": "http://x/a.js", "lineNumber": 10, "columnNumber": 0}]}`,
			want: []collectors.CallFrame{
				{Function: "inner", URL: "http://x/a.js", ScriptID: "3", Line: 4, Column: 9},
				{URL: "http://x/a.js", ScriptID: "3", Line: 10},
			},
		},
		{
			name: "asynchronous parents",
			js: `{"callFrames": [{"functionName": "tick", "scriptId": "1", "url": "u", "lineNumber": 1, "columnNumber": 1}],
			      "parent": {"description": "setTimeout", "callFrames": [{"functionName": "schedule", "scriptId": "1", "url": "u", "lineNumber": 2, "columnNumber": 2}],
			        "parent": {"callFrames": [{"functionName": "start", "scriptId": "1", "url": "u", "lineNumber": 3, "columnNumber": 3}]}}}`,
			want: []collectors.CallFrame{
				{Function: "tick", URL: "u", ScriptID: "1", Line: 1, Column: 1},
				{Async: "setTimeout"},
				{Function: "schedule", URL: "u", ScriptID: "1", Line: 2, Column: 2},
				{Async: "async"},
				{Function: "start", URL: "u", ScriptID: "1", Line: 3, Column: 3},
			},
		},
		{
			name: "a parent without frames is left out",
			js: `{"callFrames": [{"functionName": "a", "scriptId": "1", "url": "u", "lineNumber": 1, "columnNumber": 1}],
			      "parent": {"description": "await", "callFrames": [],
			        "parent": {"description": "Promise.then", "callFrames": [{"functionName": "b", "scriptId": "1", "url": "u", "lineNumber": 2, "columnNumber": 2}]}}}`,
			want: []collectors.CallFrame{
				{Function: "a", URL: "u", ScriptID: "1", Line: 1, Column: 1},
				{Async: "Promise.then"},
				{Function: "b", URL: "u", ScriptID: "1", Line: 2, Column: 2},
			},
		},
		{
			name: "tabhive's own frames are left out",
			js: `{"callFrames": [{"functionName": "tick", "scriptId": "1", "url": "u", "lineNumber": 1, "columnNumber": 1}],
			      "parent": {"description": "setTimeout", "callFrames": [{"functionName": "apply", "scriptId": "9", "url": "tabhive://tracker.js", "lineNumber": 5, "columnNumber": 5}, {"functionName": "schedule", "scriptId": "1", "url": "u", "lineNumber": 2, "columnNumber": 2}],
			        "parent": {"description": "Promise.then", "callFrames": [{"functionName": "", "scriptId": "9", "url": "tabhive://tracker.js", "lineNumber": 6, "columnNumber": 6}]}}}`,
			want: []collectors.CallFrame{
				{Function: "tick", URL: "u", ScriptID: "1", Line: 1, Column: 1},
				{Async: "setTimeout"},
				{Function: "schedule", URL: "u", ScriptID: "1", Line: 2, Column: 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stack(stackOf(t, tt.js)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Stack(%s) =\n%+v\nwant\n%+v", tt.js, got, tt.want)
			}
		})
	}
}

// TestStackBoundsAsyncParents: a malformed chain of parents is followed only
// so far.
func TestStackBoundsAsyncParents(t *testing.T) {
	st := stackOf(t, `{"callFrames": [{"functionName": "f", "scriptId": "1", "url": "u", "lineNumber": 0, "columnNumber": 0}]}`)
	st.Parent = st // circular
	got := Stack(st)
	if want := 2*maxStackFragments - 1; len(got) != want {
		t.Errorf("Stack(circular) has %d frames, want %d (%d fragments)", len(got), want, maxStackFragments)
	}
}
