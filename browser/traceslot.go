package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// TraceSlot is the browser's one performance recording. Chrome records
// one trace at a time per browser: Tracing.start on a second page fails
// ("Tracing has already been started (possibly in another tab)"). Pages
// take the slot before they record and give it back when they stop, so
// that a second recording waits for the first instead of failing; nothing
// else waits on it, and other pages' calls run as usual.
//
// The zero value is a free slot. It is safe for concurrent use.
type TraceSlot struct {
	mu     sync.Mutex // guards holder; never held while waiting
	holder *traceLease
}

// traceLease is one page's hold on the slot.
type traceLease struct {
	slot     *TraceSlot
	page     int
	pageDone <-chan struct{} // closed when the page's actor stops
	released chan struct{}   // closed by Release
	once     sync.Once
}

// Release gives the slot back. It may be called more than once.
func (l *traceLease) Release() {
	l.once.Do(func() {
		close(l.released)
		l.slot.mu.Lock()
		if l.slot.holder == l {
			l.slot.holder = nil
		}
		l.slot.mu.Unlock()
	})
}

// free reports whether the lease no longer holds the slot: released, or
// its page gone (a page closed while recording gives the slot back).
func (l *traceLease) free() bool {
	select {
	case <-l.released:
		return true
	case <-l.pageDone:
		return true
	default:
		return false
	}
}

// ErrTraceHeld is the cause of a [*TraceBusyError] for a page that already
// holds the slot.
var ErrTraceHeld = errors.New("the page already holds the trace slot")

// TraceBusyError reports that another page held the slot for as long as
// the caller could wait.
type TraceBusyError struct {
	// Page is the page recording.
	Page int
	Err  error // why the wait ended
}

func (e *TraceBusyError) Error() string {
	return fmt.Sprintf("page %d is recording a performance trace: %v", e.Page, e.Err)
}

func (e *TraceBusyError) Unwrap() error { return e.Err }

// Acquire takes the slot for page, whose actor's Done channel is pageDone,
// waiting while another page records. waited reports whether it had to.
// It fails with a [*TraceBusyError] when ctx ends first.
func (s *TraceSlot) Acquire(ctx context.Context, page int, pageDone <-chan struct{}) (lease interface{ Release() }, waited bool, err error) {
	for {
		s.mu.Lock()
		h := s.holder
		if h == nil || h.free() {
			l := &traceLease{slot: s, page: page, pageDone: pageDone, released: make(chan struct{})}
			s.holder = l
			s.mu.Unlock()
			return l, waited, nil
		}
		s.mu.Unlock()
		if h.page == page {
			// The page already records: waiting for itself would never end.
			return nil, false, &TraceBusyError{Page: page, Err: ErrTraceHeld}
		}
		waited = true
		select {
		case <-h.released:
		case <-h.pageDone:
		case <-ctx.Done():
			return nil, waited, &TraceBusyError{Page: h.page, Err: context.Cause(ctx)}
		}
	}
}
