package format

import "github.com/tabhive/tabhive/collectors"

// StackTrace is CDP Runtime.StackTrace: synchronous frames, then the
// asynchronous caller that scheduled them, if any, as Parent.
type StackTrace struct {
	Description string `json:"description"`
	CallFrames  []struct {
		FunctionName string `json:"functionName"`
		ScriptID     string `json:"scriptId"`
		URL          string `json:"url"`
		LineNumber   int    `json:"lineNumber"`
		ColumnNumber int    `json:"columnNumber"`
	} `json:"callFrames"`
	Parent *StackTrace `json:"parent"`
}

// maxStackFragments bounds the asynchronous parents followed in a stack
// trace; V8 bounds them too, this only guards against a malformed chain.
const maxStackFragments = 64

// TrackerURL is the source URL of tabhive's own script in every document
// (the causal tracker): its frames are tabhive's, not the page's, and are
// left out of stacks. They show, for instance, as the asynchronous caller
// of a timer the page set through one of its wrappers.
const TrackerURL = "tabhive://tracker.js"

// Stack flattens a CDP stack trace, innermost frame first: the synchronous
// frames, then for each asynchronous parent with frames a marker (the
// parent's description, or "async") and its frames, as DevTools shows them.
// Frames of [TrackerURL] are left out. A nil trace has no frames.
func Stack(st *StackTrace) []collectors.CallFrame {
	var out []collectors.CallFrame
	for i := 0; st != nil && i < maxStackFragments; i, st = i+1, st.Parent {
		n := 0
		for _, f := range st.CallFrames {
			if f.URL != TrackerURL {
				n++
			}
		}
		if n == 0 {
			continue
		}
		if i > 0 {
			desc := st.Description
			if desc == "" {
				desc = "async"
			}
			out = append(out, collectors.CallFrame{Async: desc})
		}
		for _, f := range st.CallFrames {
			if f.URL == TrackerURL {
				continue
			}
			out = append(out, collectors.CallFrame{Function: f.FunctionName, URL: f.URL, ScriptID: f.ScriptID, Line: f.LineNumber, Column: f.ColumnNumber})
		}
	}
	return out
}
