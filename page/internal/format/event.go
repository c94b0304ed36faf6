package format

import (
	"encoding/json"

	"github.com/tabhive/tabhive/collectors"
)

// ConsoleAPICalled decodes a Runtime.consoleAPICalled event's parameters
// into the console call it reports ([ConsoleEvent]). Object arguments keep
// their object ids as Ref, for the caller to qualify or drop.
func ConsoleAPICalled(params json.RawMessage) (collectors.ConsoleEvent, error) {
	var e struct {
		Type       string         `json:"type"`
		Args       []RemoteObject `json:"args"`
		StackTrace *StackTrace    `json:"stackTrace"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return collectors.ConsoleEvent{}, err
	}
	return ConsoleEvent(e.Type, e.Args, e.StackTrace), nil
}

// ExceptionThrown decodes a Runtime.exceptionThrown event's parameters
// into the uncaught exception it reports ([Uncaught], [Stack]), and returns
// the thrown value's object id apart ("" for a primitive), for the caller
// to keep as the exception's Ref or not.
func ExceptionThrown(params json.RawMessage) (x collectors.ExceptionEvent, objectID string, err error) {
	var e struct {
		ExceptionDetails ExceptionDetails `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return collectors.ExceptionEvent{}, "", err
	}
	d := e.ExceptionDetails
	if d.Exception != nil {
		objectID = d.Exception.ObjectID
	}
	return collectors.ExceptionEvent{Text: Uncaught(d), Stack: Stack(d.StackTrace)}, objectID, nil
}
