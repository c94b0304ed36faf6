package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	kit "github.com/tabhive/tabhive/transport/tool"
)

// Tool arguments are declared as structs whose fields carry the JSON name,
// the description an agent reads, and optional constraints:
//
//	type clickArgs struct {
//		UID string `json:"uid" required:"true" desc:"The uid of an element ..."`
//	}
//
// Supported tags besides json: required:"true", desc:"...", enum:"a,b",
// minItems:"1", min:"0" and max:"100" (inclusive bounds of a number),
// jsonType:"number" (to advertise a number for an int field, as
// chrome-devtools-mcp does for pageId). The schema is made from the tags,
// and decoding checks the same tags, so the two cannot drift apart.

// param is one declared argument.
type param struct {
	name     string
	field    []int // index path, through embedded structs
	typ      reflect.Type
	required bool
	desc     string
	enum     []string
	minItems int
	min, max *float64 // bounds of a number, nil when unbounded
	jsonType string
}

// params reads the declared arguments of an args struct type, those of
// embedded structs included.
func params(t reflect.Type) []param {
	var out []param
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		p := param{name: name, field: f.Index, typ: f.Type, required: f.Tag.Get("required") == "true", desc: f.Tag.Get("desc")}
		if e := f.Tag.Get("enum"); e != "" {
			p.enum = strings.Split(e, ",")
		}
		if m := f.Tag.Get("minItems"); m != "" {
			fmt.Sscan(m, &p.minItems)
		}
		p.min, p.max = bound(f.Tag.Get("min")), bound(f.Tag.Get("max"))
		p.jsonType = f.Tag.Get("jsonType")
		out = append(out, p)
	}
	return out
}

// bound parses a min or max tag; "" is no bound.
func bound(tag string) *float64 {
	if tag == "" {
		return nil
	}
	v, err := strconv.ParseFloat(tag, 64)
	if err != nil {
		panic(fmt.Sprintf("transport: bad bound %q", tag))
	}
	return &v
}

// schemaType returns the JSON Schema type of a Go field type.
func schemaType(t reflect.Type) map[string]any {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if a, ok := reflect.Zero(t).Interface().(ownSchema); ok {
		return a.Schema()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaType(t.Elem())}
	case reflect.Struct:
		return inputSchema(t)
	}
	panic(fmt.Sprintf("transport: no schema for argument type %s", t))
}

// ownSchema is an argument type that says its own JSON Schema, and what
// it expects in a sentence, such as one that takes more than one JSON
// type (it decodes itself, as a json.Unmarshaler).
type ownSchema interface {
	Schema() map[string]any
	Describe() string
}

// inputSchema builds the JSON Schema of an args struct type.
func inputSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for _, p := range params(t) {
		s := schemaType(p.typ)
		if p.jsonType != "" {
			s["type"] = p.jsonType
		}
		if p.desc != "" {
			s["description"] = p.desc
		}
		if p.enum != nil {
			if items, ok := s["items"].(map[string]any); ok {
				items["enum"] = p.enum // an array of enum values
			} else {
				s["enum"] = p.enum
			}
		}
		if p.minItems > 0 {
			s["minItems"] = p.minItems
		}
		if p.min != nil {
			s["minimum"] = *p.min
		}
		if p.max != nil {
			s["maximum"] = *p.max
		}
		props[p.name] = s
		if p.required {
			required = append(required, p.name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema
}

// argError is bad input, which a capability's tools report too.
type argError = kit.ArgError

func badArgs(format string, a ...any) error { return kit.BadArgs(format, a...) }

// decodeArgs checks raw tool arguments against the declared arguments of
// dst's type and decodes them into dst. Every error is one sentence that
// says what to send instead.
func decodeArgs(tool string, raw json.RawMessage, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	declared := params(v.Type())
	var got map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &got); err != nil {
			return badArgs("Invalid arguments for tool %q: the arguments must be a JSON object.", tool)
		}
	}
	var names []string
	for _, p := range declared {
		names = append(names, p.name)
	}
	var unknown []string
	for k := range got {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		if len(names) == 0 {
			return badArgs("Unknown argument for tool %q: %s. This tool does not accept any arguments.", tool, quoteAll(unknown))
		}
		word, them := "argument", "it"
		if len(unknown) > 1 {
			word, them = "arguments", "them"
		}
		return badArgs("Unknown %s for tool %q: %s. Expected arguments: %s. Remove %s and retry.", word, tool, quoteAll(unknown), quoteAll(names), them)
	}
	for _, p := range declared {
		rawv, ok := got[p.name]
		if !ok || bytes.Equal(bytes.TrimSpace(rawv), []byte("null")) {
			if p.required {
				return badArgs("Missing required argument %q for tool %q: %s", p.name, tool, p.desc)
			}
			continue
		}
		fv := v.FieldByIndex(p.field)
		target := fv.Addr().Interface()
		if err := json.Unmarshal(rawv, target); err != nil {
			return badArgs("Invalid argument %q for tool %q: expected %s, got %s.", p.name, tool, describe(p), kit.Abbreviate(rawv))
		}
		if p.enum != nil {
			values, _ := fv.Interface().([]string)
			if s, ok := fv.Interface().(string); ok {
				values = []string{s}
			}
			for _, v := range values {
				if !slices.Contains(p.enum, v) {
					return badArgs("Invalid argument %q for tool %q: %q is not one of %s.", p.name, tool, v, quoteAll(p.enum))
				}
			}
		}
		if p.minItems > 0 && fv.Kind() == reflect.Slice && fv.Len() < p.minItems {
			return badArgs("Invalid argument %q for tool %q: give at least %d item(s).", p.name, tool, p.minItems)
		}
		if n, ok := numericValue(fv); ok && (p.min != nil && n < *p.min || p.max != nil && n > *p.max) {
			// The value as sent: a float64 would misprint a large integer.
			return badArgs("Invalid argument %q for tool %q: expected %s, got %s.", p.name, tool, describe(p), kit.Abbreviate(rawv))
		}
	}
	return nil
}

// numericValue returns the value of a numeric field, through a pointer.
func numericValue(v reflect.Value) (float64, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}

func describe(p param) string {
	t := p.typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if a, ok := reflect.Zero(t).Interface().(ownSchema); ok {
		return a.Describe()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		switch {
		case p.max != nil:
			return fmt.Sprintf("an integer from %s to %s", fmtBound(p.min), fmtNum(*p.max))
		case p.min != nil && *p.min == 1:
			return "a positive integer"
		case p.min != nil && *p.min == 0:
			return "a non-negative integer"
		case p.min != nil:
			return fmt.Sprintf("an integer of at least %s", fmtNum(*p.min))
		}
		return "an integer"
	case reflect.Float64:
		switch {
		case p.max != nil:
			return fmt.Sprintf("a number from %s to %s", fmtBound(p.min), fmtNum(*p.max))
		case p.min != nil:
			return fmt.Sprintf("a number of at least %s", fmtNum(*p.min))
		}
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return "an array of objects"
		}
		return "an array of strings"
	}
	return t.String()
}

// fmtBound prints a lower bound; an upper bound alone reads "from -∞".
func fmtBound(b *float64) string {
	if b == nil {
		return "-∞"
	}
	return fmtNum(*b)
}

// fmtNum prints a number as an agent would write it: 10000000, not 1e+07.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// errorsAs is errors.As for a target type, returning the match.
func errorsAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
