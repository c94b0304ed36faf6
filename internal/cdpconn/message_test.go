package cdpconn

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestParseMessage: the reader's walk of a message's top level finds what
// a full decode finds, with result and params left as their text.
func TestParseMessage(t *testing.T) {
	chunk := `{"snapshot":{"meta":{"node_fields":["type","name"]}},"strings":["a\"b","c\\","\u005c"]}`
	quoted, _ := json.Marshal(chunk)
	for _, in := range []string{
		`{"id":7,"result":{"value":"}\"]{"},"sessionId":"AB12"}`,
		`{"id":8,"error":{"code":-32000,"message":"Session with given id not found"}}`,
		`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":` + string(quoted) + `},"sessionId":"CD34"}`,
		`{"method":"Target.detachedFromTarget","params":{"sessionId":"S1","targetId":"T1"}}`,
		` { "method" : "Runtime.consoleAPICalled" , "params" : { "args" : [ 1 , true , null , -2.5e3 , "\\" ] } , "sessionId" : "EF56" } `,
		`{"id":9,"result":{}}`,
		`{"method":"M\u002eN","params":[],"sessionId":"x\"y","extra":{"a":[{}]}}`,
		`{}`,
	} {
		var want message
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var got message
		if !parseMessage([]byte(in), &got) {
			t.Errorf("parseMessage(%s) failed", in)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parseMessage(%s)\n = %+v\nwant %+v", in, got, want)
		}
	}
	for _, in := range []string{
		``, `[]`, `{`, `{"id":1`, `{"id":1,}`, `{"id":x}`, `{"method":"M","params":{"a":"b}}`,
		`{"method":"M"} x`, `{"id":1 "method":"M"}`, `{"params":{"a":[1,2}`, `{"method":"M\"}`,
	} {
		var m message
		if parseMessage([]byte(in), &m) {
			t.Errorf("parseMessage(%q) = %+v, want false", in, m)
		}
	}
	// A chunk's text is not decoded: the params are the message's own bytes.
	in := []byte(`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"` + strings.Repeat(`[1,2,\"x\"],`, 1000) + `"},"sessionId":"S"}`)
	var m message
	if !parseMessage(in, &m) || m.SessionID != "S" || &m.Params[0] != &in[strings.Index(string(in), `{"chunk"`)] {
		t.Errorf("the params of a chunk are not a slice of the message: %v %q", m.SessionID, m.Params[:20])
	}
}
