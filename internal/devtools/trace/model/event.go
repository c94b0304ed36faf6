package model

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// event is one trace event as the scanner found it. Its strings are
// copies; Args points into the scanner's buffer and is valid only while
// the event is being handled.
type event struct {
	// Index is the event's position in the file's list of events, which
	// DevTools' event keys ("r-123") are made of.
	Index int
	Name  string
	Cat   string
	Ph    string
	TS    float64 // microseconds
	Dur   float64 // microseconds; 0 when absent (see HasDur)
	// HasDur reports whether the event has a "dur" field.
	HasDur bool
	PID    int64
	TID    int64
	// ID is "id", or else "id2"'s global or local id, as a string.
	ID   string
	Args []byte // raw JSON object, or nil

	// raw is the whole event as the file has it; valid only while the
	// event is being handled.
	raw []byte

	// url and reqID memoise eventURL: several handlers ask.
	urlDone    bool
	url, reqID string
}

var errBadEvent = errors.New("malformed event")

// interner interns event names, categories and phases: a trace has
// millions of events and a few hundred distinct names. One analysis owns
// one.
type interner map[string]string

// get returns the string the JSON literal v holds, interned.
func (in interner) get(v []byte) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		inner := v[1 : len(v)-1]
		if s, ok := in[string(inner)]; ok {
			return s
		}
		s, _ := jsfmt.Unquote(v)
		if len(in) < 1<<16 {
			in[string(inner)] = s
		}
		return s
	}
	return string(v)
}

// parse fills ev from the JSON object b.
func (ev *event) parse(b []byte, index int, in interner) error {
	*ev = event{Index: index}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errBadEvent
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return errBadEvent
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '"' {
			return errBadEvent
		}
		kEnd := skipString(b, i)
		if kEnd < 0 {
			return errBadEvent
		}
		key := b[i+1 : kEnd-1]
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return errBadEvent
		}
		i = skipSpace(b, i+1)
		vEnd := skipValue(b, i)
		if vEnd < 0 {
			return errBadEvent
		}
		v := b[i:vEnd]
		switch string(key) {
		case "name":
			ev.Name = in.get(v)
		case "cat":
			ev.Cat = in.get(v)
		case "ph":
			ev.Ph = in.get(v)
		case "ts":
			ev.TS = number(v)
		case "dur":
			ev.Dur = number(v)
			ev.HasDur = true
		case "pid":
			ev.PID = int64(number(v))
		case "tid":
			ev.TID = int64(number(v))
		case "id":
			ev.ID = idString(v)
		case "id2":
			if ev.ID == "" {
				var id2 struct {
					Global json.RawMessage `json:"global"`
					Local  json.RawMessage `json:"local"`
				}
				if json.Unmarshal(v, &id2) == nil {
					if id2.Global != nil {
						ev.ID = idString(id2.Global)
					} else if id2.Local != nil {
						ev.ID = idString(id2.Local)
					}
				}
			}
		case "args":
			if len(v) > 0 && v[0] == '{' {
				ev.Args = v
			}
		}
		i = vEnd
	}
}

// number parses a JSON number, or a string holding one; anything else is 0.
func number(v []byte) float64 {
	if len(v) > 0 && v[0] == '"' {
		s, _ := jsfmt.Unquote(v)
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	return f
}

// idString turns a JSON id (a string or a number) into a string.
func idString(v []byte) string {
	if len(v) > 0 && v[0] == '"' {
		s, _ := jsfmt.Unquote(v)
		return s
	}
	return string(v)
}

// JSString formats a decoded JSON scalar as JavaScript's String() would:
// DevTools builds its keys of ids (a script's, an isolate's) that way.
func JSString(v any) string {
	switch x := v.(type) {
	case nil:
		return "undefined"
	case string:
		return x
	case float64:
		return jsfmt.Number(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// eventData decodes the data object of the event's args (args.data), as
// unmarshalArgs does; ok is false when the args are missing or malformed.
func eventData[T any](ev *event) (data T, ok bool) {
	var a struct {
		Data T `json:"data"`
	}
	ok = ev.unmarshalArgs(&a)
	return a.Data, ok
}

// unmarshalArgs decodes the event's args into dst; a malformed args object
// leaves dst as it was (DevTools reads what it can and ignores the rest).
func (ev *event) unmarshalArgs(dst any) bool {
	if ev.Args == nil {
		return false
	}
	return json.Unmarshal(ev.Args, dst) == nil
}
