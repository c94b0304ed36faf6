package format

import (
	"encoding/json"
	"strings"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/jsfmt"
)

// RemoteObject is CDP Runtime.RemoteObject, as much as formatting needs.
type RemoteObject struct {
	Type                string          `json:"type"`
	Subtype             string          `json:"subtype"`
	ClassName           *string         `json:"className"`
	Value               json.RawMessage `json:"value"`
	UnserializableValue string          `json:"unserializableValue"`
	Description         *string         `json:"description"`
	ObjectID            string          `json:"objectId"`
}

// ExceptionDetails is CDP Runtime.ExceptionDetails, as much as formatting
// needs.
type ExceptionDetails struct {
	Text       string        `json:"text"`
	StackTrace *StackTrace   `json:"stackTrace"`
	Exception  *RemoteObject `json:"exception"`
}

// ConsoleEvent converts a Runtime.consoleAPICalled event of type typ, with
// its arguments and stack. The text is what Puppeteer makes of the
// arguments (ConsoleMessage.text()), which is what chrome-devtools-mcp
// lists: primitives as JavaScript's String() gives them (null and undefined
// as nothing), an error as the first line of its description, any other
// object as "[<subtype or type> <class>]"; joined with spaces and without
// format specifiers applied. An object argument keeps its object id as the
// argument's Ref, so that its value can be read from the page later.
func ConsoleEvent(typ string, args []RemoteObject, st *StackTrace) collectors.ConsoleEvent {
	ev := collectors.ConsoleEvent{Type: typ, Stack: Stack(st), Args: make([]collectors.Arg, len(args))}
	tokens := make([]string, len(args))
	for i, o := range args {
		var arg collectors.Arg
		switch {
		case o.ObjectID != "":
			arg.Ref = o.ObjectID
			desc := deref(o.Description)
			if o.Subtype == "error" && desc != "" {
				desc, _, _ = strings.Cut(desc, "\n")
				arg.Value, arg.Error = desc, true
			} else {
				kind := o.Subtype
				if kind == "" {
					kind = o.Type
				}
				className := "undefined"
				if o.ClassName != nil {
					className = *o.ClassName
				}
				arg.Value = "[" + kind + " " + className + "]"
			}
			tokens[i] = arg.Value
		default:
			arg.Value = Value(o)
			if o.Type != "undefined" && o.Subtype != "null" {
				tokens[i] = arg.Value
			}
		}
		ev.Args[i] = arg
	}
	ev.Text = strings.Join(tokens, " ")
	return ev
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Value returns a primitive remote object as JavaScript's String() gives
// it, except that null is "null" (chrome-devtools-mcp prints it with
// JSON.stringify). An object is given by its description.
func Value(o RemoteObject) string {
	switch {
	case o.Type == "undefined":
		return "undefined"
	case o.Subtype == "null":
		return "null"
	case o.UnserializableValue != "":
		switch v := o.UnserializableValue; {
		case o.Type == "bigint":
			return strings.TrimSuffix(v, "n")
		case v == "-0":
			return "0"
		default:
			return v // NaN, Infinity, -Infinity
		}
	}
	switch o.Type {
	case "string":
		var s string
		json.Unmarshal(o.Value, &s) // a string that does not decode prints as ""
		return s
	case "number":
		var f float64
		if err := json.Unmarshal(o.Value, &f); err == nil {
			return jsfmt.Number(f)
		}
	}
	if len(o.Value) > 0 {
		return string(o.Value)
	}
	return deref(o.Description)
}

// Uncaught is the list text of an uncaught exception, as DevTools writes
// it: "Uncaught Error: boom". CDP says only "Uncaught" or "Uncaught (in
// promise)" and leaves the message to the exception object.
//
// chrome-devtools-mcp (SymbolizedError) adds the message only after a bare
// "Uncaught", so it lists a rejected promise as just "Uncaught (in promise)"
// and a thrown string as "Uncaught "; tabhive adds the message in both
// cases, as the DevTools console does.
func Uncaught(d ExceptionDetails) string {
	if d.Exception == nil || !strings.HasPrefix(d.Text, "Uncaught") {
		return d.Text
	}
	msg := Thrown(*d.Exception)
	if d.Text == "Uncaught" {
		return "Uncaught " + msg
	}
	if msg == "" {
		return d.Text
	}
	return d.Text + " " + msg
}

// Thrown is the message of a thrown value: an object's description up to
// its stack ("Error: boom"), a primitive's String().
func Thrown(o RemoteObject) string {
	if o.ObjectID == "" {
		return Value(o)
	}
	msg, _, _ := strings.Cut(deref(o.Description), "\n    at ")
	return msg
}
