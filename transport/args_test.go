package transport

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/page/emulation"
	kit "github.com/tabhive/tabhive/transport/tool"
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

// resize_page's bound is the emulation package's.
func TestResizeBoundIsMaxViewportSide(t *testing.T) {
	i := slices.IndexFunc(emulation.Tools(), func(kt *kit.Tool) bool { return kt.Name == "resize_page" })
	if i < 0 {
		t.Fatal("no resize_page tool")
	}
	for _, p := range params(emulation.Tools()[i].ArgType()) {
		if p.max == nil || *p.max != emulation.MaxViewportSide {
			t.Errorf("resize_page %s: max tag %v, want emulation.MaxViewportSide (%d)", p.name, p.max, emulation.MaxViewportSide)
		}
	}
}

// Every timeout argument is decoded under the same rule, so that no
// agent can hold the server with an absurd one: 0 or
// absent is the tool's default, up to maxTimeout as given, up to
// absurdTimeout lowered to maxTimeout, and negative or absurd values (one
// that would overflow a time.Duration included) refused with one sentence.
func TestTimeoutClamp(t *testing.T) {
	const def = 7 * time.Second
	tests := []struct {
		raw     string
		want    time.Duration // when accepted
		wantErr string
	}{
		{`{}`, def, ""},
		{`{"timeout": null}`, def, ""},
		{`{"timeout": 0}`, def, ""},
		{`{"timeout": 1}`, time.Millisecond, ""},
		{`{"timeout": 1500}`, 1500 * time.Millisecond, ""},
		{`{"timeout": 300000}`, 5 * time.Minute, ""},
		{`{"timeout": 300001}`, 5 * time.Minute, ""},
		{`{"timeout": 600000}`, 5 * time.Minute, ""},
		{`{"timeout": 3600000}`, 5 * time.Minute, ""},
		{`{"timeout": 3600001}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got 3600001.`},
		{`{"timeout": 9223372036854}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got 9223372036854.`},
		{`{"timeout": 9223372036854775807}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got 9223372036854775807.`},
		{`{"timeout": 99999999999999999999}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got 99999999999999999999.`},
		{`{"timeout": -1}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got -1.`},
		{`{"timeout": 1.5}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got 1.5.`},
		{`{"timeout": "1000"}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got "1000".`},
		{`{"timeout": 1e3}`, 0, `Invalid argument "timeout" for tool "t": expected an integer from 0 to 3600000, got 1e3.`},
	}
	for _, ty := range timeoutArgTypes(t) {
		for _, tt := range tests {
			v := reflect.New(ty)
			err := decodeArgs("t", json.RawMessage(tt.raw), v.Interface())
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("%v: decode %s = %q, want %q", ty, tt.raw, got, tt.wantErr)
				continue
			}
			if err != nil {
				continue
			}
			ms := v.Elem().FieldByName("Timeout").Interface().(*int)
			if d := millis(ms, def); d != tt.want {
				t.Errorf("%v: %s gives a budget of %v, want %v", ty, tt.raw, d, tt.want)
			}
		}
	}
}

// timeoutArgTypes returns the argument types of every tool that takes a
// timeout, checking that each declares the bounds TestTimeoutClamp relies
// on, so that a new tool with a timeout cannot miss them.
func timeoutArgTypes(t *testing.T) []reflect.Type {
	t.Helper()
	var out []reflect.Type
	for _, tl := range everyTool() {
		for _, p := range params(tl.argType) {
			if p.name != "timeout" {
				continue
			}
			if p.min == nil || *p.min != 0 || p.max == nil || *p.max != float64(absurdTimeout.Milliseconds()) {
				t.Errorf("%s: timeout has bounds %v..%v, want the tags min:\"0\" max:\"%d\"", tl.name, p.min, p.max, absurdTimeout.Milliseconds())
			}
			if !strings.Contains(p.desc, "At most 300000 (5 minutes)") {
				t.Errorf("%s: timeout's description does not give the maximum: %q", tl.name, p.desc)
			}
			// The tool's timeout field alone, tags and all, so that the
			// tool's other arguments (some required) stay out of the way.
			f := tl.argType.FieldByIndex(p.field)
			out = append(out, reflect.StructOf([]reflect.StructField{{Name: "Timeout", Type: f.Type, Tag: f.Tag}}))
		}
	}
	if len(out) < 4 {
		t.Fatalf("found %d tools with a timeout, want at least 4 (navigate_page, new_page, wait_for, evaluate_script)", len(out))
	}
	return out
}

// FuzzDecodeArgs: decoding any JSON as any tool's arguments never panics,
// fails only with an argument error (one sentence for the agent), and what
// it accepts respects the declared bounds and gives a positive budget of at
// most an hour.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, ``, `[]`, `"x"`, `{"pageId": 1}`, `{"pageId": -1}`, `{"pageId": 1e400}`,
		`{"timeout": 9223372036854}`, `{"timeout": -1}`, `{"timeout": 300001}`,
		`{"uid": "1_2", "includeSnapshot": true}`, `{"text": []}`, `{"text": ["a"], "timeout": 0}`,
		`{"function": "() => 1", "args": ["1_1"], "timeout": 1000}`,
		`{"cpuThrottlingRate": 20.0000001}`, `{"cpuThrottlingRate": NaN}`, `{"width": 1e10, "height": 1}`,
		`{"elements": [{"uid": "1_1", "value": "v"}]}`, `{"elements": [null]}`,
		`{"url": "x", "url": "y"}`, `{"type": "url", "pageId": "1"}`,
	} {
		f.Add([]byte(s))
	}
	tools := everyTool()
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, tl := range tools {
			args := reflect.New(tl.argType).Interface()
			in := json.RawMessage(raw)
			var err error
			if tl.page {
				var pa pageArg
				in, err = splitPageID(tl.name, in, &pa)
			}
			if err == nil {
				err = decodeArgs(tl.name, in, args)
			}
			if err != nil {
				var ae *argError
				if !errors.As(err, &ae) || ae.Msg == "" {
					t.Fatalf("%s: decoding %q failed with %T %v, want an argument error", tl.name, raw, err, err)
				}
				continue
			}
			checkBounds(t, tl.name, reflect.ValueOf(args).Elem(), raw)
			if d := tl.budget(args); d <= 0 || d > time.Hour {
				t.Fatalf("%s: decoding %q gives a budget of %v", tl.name, raw, d)
			}
		}
	})
}

// checkBounds fails the test if a decoded argument breaks its tags.
func checkBounds(t *testing.T, tool string, v reflect.Value, raw []byte) {
	t.Helper()
	for _, p := range params(v.Type()) {
		fv := v.FieldByIndex(p.field)
		if n, ok := numericValue(fv); ok && (p.min != nil && n < *p.min || p.max != nil && n > *p.max || math.IsNaN(n)) {
			t.Fatalf("%s: decoding %q accepted %s = %v, out of its bounds", tool, raw, p.name, n)
		}
		if p.minItems > 0 && fv.Kind() == reflect.Slice && fv.Len() > 0 && fv.Len() < p.minItems {
			t.Fatalf("%s: decoding %q accepted %d item(s) of %s", tool, raw, fv.Len(), p.name)
		}
		if s, ok := fv.Interface().(string); ok && p.enum != nil && s != "" && !slices.Contains(p.enum, s) {
			t.Fatalf("%s: decoding %q accepted %s = %q, not one of its values", tool, raw, p.name, s)
		}
	}
}
