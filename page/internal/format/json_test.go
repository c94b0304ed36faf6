package format

import (
	"encoding/json"
	"reflect"
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
