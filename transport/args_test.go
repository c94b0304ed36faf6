package transport

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tabhive/tabhive/page"
)

// Bounds in the tags reach the schema, and decoding enforces the same
// bounds with one sentence that says what to send.
func TestBounds(t *testing.T) {
	type args struct {
		Rate  *float64 `json:"rate" min:"1" max:"20"`
		Size  *int     `json:"size" min:"1"`
		Index *int     `json:"index" min:"0"`
	}
	props := inputSchema(reflect.TypeFor[args]())["properties"].(map[string]any)
	rate := props["rate"].(map[string]any)
	if rate["minimum"] != 1.0 || rate["maximum"] != 20.0 {
		t.Errorf("schema of rate = %v, want minimum 1 and maximum 20", rate)
	}
	if _, ok := props["index"].(map[string]any)["maximum"]; ok {
		t.Errorf("schema of index has a maximum: %v", props["index"])
	}
	for _, c := range []struct{ raw, want string }{
		{`{"rate": 1, "size": 1, "index": 0}`, ""},
		{`{"rate": 20.0}`, ""},
		{`{}`, ""},
		{`{"rate": 0.5}`, `Invalid argument "rate" for tool "t": expected a number from 1 to 20, got 0.5.`},
		{`{"rate": 21}`, `Invalid argument "rate" for tool "t": expected a number from 1 to 20, got 21.`},
		{`{"size": 0}`, `Invalid argument "size" for tool "t": expected a positive integer, got 0.`},
		{`{"index": -1}`, `Invalid argument "index" for tool "t": expected a non-negative integer, got -1.`},
	} {
		var a args
		err := decodeArgs("t", json.RawMessage(c.raw), &a)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("decode %s = %q, want %q", c.raw, got, c.want)
		}
	}
}

// resize_page's bound is the page package's.
func TestResizeBoundIsMaxViewportSide(t *testing.T) {
	for _, p := range params(reflect.TypeFor[resizeArgs]()) {
		if p.max == nil || *p.max != page.MaxViewportSide {
			t.Errorf("resize_page %s: max tag %v, want page.MaxViewportSide (%d)", p.name, p.max, page.MaxViewportSide)
		}
	}
}
