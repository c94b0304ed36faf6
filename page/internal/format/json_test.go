package format

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/tabhive/tabhive/collectors"
)

func TestHeaders(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []collectors.Header
	}{
		{"in the page's order", `{"X-B": "2", "Content-Type": "text/html", "a": "1"}`,
			[]collectors.Header{{Name: "X-B", Value: "2"}, {Name: "Content-Type", Value: "text/html"}, {Name: "a", Value: "1"}}},
		{"escapes decoded", `{"Set-Cookie": "a=1\nb=2", "X": "caf\u00e9"}`,
			[]collectors.Header{{Name: "Set-Cookie", Value: "a=1\nb=2"}, {Name: "X", Value: "café"}}},
		{"a value that is not a string", `{"X-Count": 3, "X-On": true}`,
			[]collectors.Header{{Name: "X-Count", Value: "3"}, {Name: "X-On", Value: "true"}}},
		{"duplicate names kept", `{"a": "1", "a": "2"}`,
			[]collectors.Header{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}}},
		{"empty object", `{}`, nil},
		{"not an object", `["a", "b"]`, nil},
		{"absent", ``, nil},
		{"malformed after the first member", `{"a": "1", "b": }`, []collectors.Header{{Name: "a", Value: "1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Headers(json.RawMessage(tt.raw)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Headers(%s) = %+v, want %+v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestStringify(t *testing.T) {
	dropTopErrorType := func(path []string) bool { return slices.Equal(path, []string{"errorType"}) }
	dropNestedID := func(path []string) bool { return slices.Equal(path, []string{"request", "requestId"}) }
	tests := []struct {
		name string
		raw  string
		skip func([]string) bool
		want string
	}{
		{"compact, in order", `{ "b" : 1 , "a" : [ true, false, null ] }`, nil, `{"b":1,"a":[true,false,null]}`},
		{"numbers as JavaScript prints them", `[1.50, 1e21, 1E-7, 0.000001, -0, 100]`, nil, `[1.5,1e+21,1e-7,0.000001,0,100]`},
		{"large integer", `12345678901234567890`, nil, `12345678901234567000`},
		{"strings escaped only where JSON requires", `"caf\u00e9 \u2028 <&> \/ \" \\ \b\f\n\r\t \u0001"`, nil, "\"café \u2028 <&> / \\\" \\\\ \\b\\f\\n\\r\\t \\u0001\""},
		{"keys escaped too", `{"a\"b": 1}`, nil, `{"a\"b":1}`},
		{"empty containers", `{"a": {}, "b": []}`, nil, `{"a":{},"b":[]}`},
		{"skip a top-level member", `{"errorType": "x", "frameId": "F", "errorTypes": 2}`, dropTopErrorType, `{"frameId":"F","errorTypes":2}`},
		{"skip only the first member", `{"errorType": "x", "b": 1}`, dropTopErrorType, `{"b":1}`},
		{"skip a nested member by path", `{"requestId": "1", "request": {"requestId": "2", "url": "u"}}`, dropNestedID, `{"requestId":"1","request":{"url":"u"}}`},
		{"array elements keep their object's path", `{"request": [{"requestId": "2"}]}`, dropNestedID, `{"request":[{}]}`},
		{"invalid JSON is returned as it is", `{"a": `, nil, `{"a": `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stringify(json.RawMessage(tt.raw), tt.skip); got != tt.want {
				t.Errorf("Stringify(%s) = %s, want %s", tt.raw, got, tt.want)
			}
		})
	}
}
