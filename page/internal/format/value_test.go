package format

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tabhive/tabhive/collectors"
)

func ptr[T any](v T) *T { return &v }

func TestValue(t *testing.T) {
	tests := []struct {
		name string
		o    RemoteObject
		want string
	}{
		{"undefined", RemoteObject{Type: "undefined"}, "undefined"},
		{"null", RemoteObject{Type: "object", Subtype: "null", Value: json.RawMessage("null")}, "null"},
		{"string", RemoteObject{Type: "string", Value: json.RawMessage(`"a\nb"`)}, "a\nb"},
		{"empty string", RemoteObject{Type: "string", Value: json.RawMessage(`""`)}, ""},
		{"number", RemoteObject{Type: "number", Value: json.RawMessage("1e21")}, "1e+21"},
		{"small number", RemoteObject{Type: "number", Value: json.RawMessage("0.0000001")}, "1e-7"},
		{"boolean", RemoteObject{Type: "boolean", Value: json.RawMessage("true")}, "true"},
		{"bigint", RemoteObject{Type: "bigint", UnserializableValue: "10n"}, "10"},
		{"negative zero", RemoteObject{Type: "number", UnserializableValue: "-0"}, "0"},
		{"NaN", RemoteObject{Type: "number", UnserializableValue: "NaN"}, "NaN"},
		{"-Infinity", RemoteObject{Type: "number", UnserializableValue: "-Infinity"}, "-Infinity"},
		{"symbol", RemoteObject{Type: "symbol", Description: ptr("Symbol(x)")}, "Symbol(x)"},
		{"object by value", RemoteObject{Type: "object", Value: json.RawMessage(`{"a":1}`)}, `{"a":1}`},
		{"nothing known", RemoteObject{Type: "object"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Value(tt.o); got != tt.want {
				t.Errorf("Value(%+v) = %q, want %q", tt.o, got, tt.want)
			}
		})
	}
}

func TestConsoleEvent(t *testing.T) {
	str := func(s string) RemoteObject {
		b, _ := json.Marshal(s)
		return RemoteObject{Type: "string", Value: b}
	}
	num := func(n string) RemoteObject { return RemoteObject{Type: "number", Value: json.RawMessage(n)} }
	stack := &StackTrace{CallFrames: []struct {
		FunctionName string `json:"functionName"`
		ScriptID     string `json:"scriptId"`
		URL          string `json:"url"`
		LineNumber   int    `json:"lineNumber"`
		ColumnNumber int    `json:"columnNumber"`
	}{{FunctionName: "f", ScriptID: "7", URL: "http://x/", LineNumber: 1, ColumnNumber: 2}}}
	tests := []struct {
		name string
		typ  string
		args []RemoteObject
		st   *StackTrace
		want collectors.ConsoleEvent
	}{
		{
			name: "primitives",
			typ:  "log",
			args: []RemoteObject{str("hello"), num("1"), {Type: "boolean", Value: json.RawMessage("false")}},
			want: collectors.ConsoleEvent{Type: "log", Text: "hello 1 false",
				Args: []collectors.Arg{{Value: "hello"}, {Value: "1"}, {Value: "false"}}},
		},
		{
			name: "null and undefined print as nothing",
			typ:  "log",
			args: []RemoteObject{{Type: "object", Subtype: "null"}, {Type: "undefined"}, num("-0")},
			want: collectors.ConsoleEvent{Type: "log", Text: "  0",
				Args: []collectors.Arg{{Value: "null"}, {Value: "undefined"}, {Value: "0"}}},
		},
		{
			name: "objects by kind and class",
			typ:  "table",
			args: []RemoteObject{
				{Type: "object", ClassName: ptr("Object"), ObjectID: "o1", Description: ptr("Object")},
				{Type: "object", Subtype: "array", ClassName: ptr("Array"), ObjectID: "o2"},
				{Type: "function", ObjectID: "o3"},
			},
			want: collectors.ConsoleEvent{Type: "table", Text: "[object Object] [array Array] [function undefined]",
				Args: []collectors.Arg{
					{Value: "[object Object]", Ref: "o1"},
					{Value: "[array Array]", Ref: "o2"},
					{Value: "[function undefined]", Ref: "o3"},
				}},
		},
		{
			name: "an error by its first line",
			typ:  "error",
			args: []RemoteObject{str("failed:"), {Type: "object", Subtype: "error", ClassName: ptr("TypeError"), ObjectID: "e1",
				Description: ptr("TypeError: x is undefined\n    at f (http://x/:1:2)")}},
			st: stack,
			want: collectors.ConsoleEvent{Type: "error", Text: "failed: TypeError: x is undefined",
				Args:  []collectors.Arg{{Value: "failed:"}, {Value: "TypeError: x is undefined", Ref: "e1", Error: true}},
				Stack: []collectors.CallFrame{{Function: "f", URL: "http://x/", ScriptID: "7", Line: 1, Column: 2}}},
		},
		{
			name: "no arguments",
			typ:  "log",
			want: collectors.ConsoleEvent{Type: "log", Args: []collectors.Arg{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConsoleEvent(tt.typ, tt.args, tt.st)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ConsoleEvent() =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestUncaught(t *testing.T) {
	errObj := &RemoteObject{Type: "object", Subtype: "error", ObjectID: "e", Description: ptr("Error: boom\n    at thrower (http://x/:2:3)")}
	tests := []struct {
		name string
		d    ExceptionDetails
		want string
	}{
		{"error", ExceptionDetails{Text: "Uncaught", Exception: errObj}, "Uncaught Error: boom"},
		{"rejected with an error", ExceptionDetails{Text: "Uncaught (in promise)", Exception: errObj}, "Uncaught (in promise) Error: boom"},
		{"rejected with a string", ExceptionDetails{Text: "Uncaught (in promise)", Exception: &RemoteObject{Type: "string", Value: json.RawMessage(`"nope"`)}}, "Uncaught (in promise) nope"},
		{"rejected with an empty string", ExceptionDetails{Text: "Uncaught (in promise)", Exception: &RemoteObject{Type: "string", Value: json.RawMessage(`""`)}}, "Uncaught (in promise)"},
		{"thrown empty string", ExceptionDetails{Text: "Uncaught", Exception: &RemoteObject{Type: "string", Value: json.RawMessage(`""`)}}, "Uncaught "},
		{"thrown number", ExceptionDetails{Text: "Uncaught", Exception: &RemoteObject{Type: "number", Value: json.RawMessage("42")}}, "Uncaught 42"},
		{"no exception object", ExceptionDetails{Text: "Uncaught"}, "Uncaught"},
		{"not uncaught", ExceptionDetails{Text: "SyntaxError", Exception: errObj}, "SyntaxError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Uncaught(tt.d); got != tt.want {
				t.Errorf("Uncaught(%+v) = %q, want %q", tt.d, got, tt.want)
			}
		})
	}
}

func TestThrown(t *testing.T) {
	tests := []struct {
		name string
		o    RemoteObject
		want string
	}{
		{"error without its stack", RemoteObject{Type: "object", Subtype: "error", ObjectID: "e", Description: ptr("RangeError: too far\n    at f (http://x/:1:1)\n    at g (http://x/:2:1)")}, "RangeError: too far"},
		{"multi-line message kept", RemoteObject{Type: "object", Subtype: "error", ObjectID: "e", Description: ptr("Error: line 1\nline 2\n    at f (http://x/:1:1)")}, "Error: line 1\nline 2"},
		{"object without description", RemoteObject{Type: "object", ObjectID: "o"}, ""},
		{"string", RemoteObject{Type: "string", Value: json.RawMessage(`"plain"`)}, "plain"},
		{"undefined", RemoteObject{Type: "undefined"}, "undefined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Thrown(tt.o); got != tt.want {
				t.Errorf("Thrown(%+v) = %q, want %q", tt.o, got, tt.want)
			}
		})
	}
}
