package heaptext

import (
	"errors"
	"fmt"

	"github.com/tabhive/tabhive/internal/devtools/heap"
)

// Error is a memory tool's failure whose text is the whole sentence the
// agent reads: upstream's words where chrome-devtools-mcp has them,
// tabhive's own otherwise.
type Error struct{ Sentence string }

func (e *Error) Error() string { return e.Sentence }

// AgentSentence implements agenterr.Error: the text, verbatim.
func (e *Error) AgentSentence() string { return e.Sentence }

// QueryError words an error of a snapshot's query as chrome-devtools-mcp
// does where it has a sentence, and as one of tabhive's own where it
// crashes; any other error (a [heap.PatternError], the context's) is
// returned as it is, for the caller to word.
func QueryError(err error) error {
	var (
		nf *heap.NodeNotFoundError
		cf *heap.ClassNotFoundError
		fe *heap.FilterError
		ni *heap.NoInstancesError
	)
	switch {
	case errors.As(err, &nf), errors.As(err, &cf), errors.As(err, &fe):
		return &Error{err.Error()}
	case errors.As(err, &ni):
		return &Error{fmt.Sprintf("Class %s has no objects that filter %s keeps; call get_heapsnapshot_details with that filterName to list the classes it keeps.", ni.ClassName, ni.Filter)}
	}
	return err
}
