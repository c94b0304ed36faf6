// Package memory is the heap capability: take_heapsnapshot, which writes a
// snapshot of a page's JavaScript heap as Chrome sends it, and the tools
// that analyse snapshot files with tabhive's own engine
// (internal/devtools/heap), which need no browser.
//
// A page's slice holds the snapshot being written. Goroutines: a snapshot
// call's HeapProfiler.takeHeapSnapshot runs on an Await goroutine, ended by
// Chrome's answer or the page's end (at most an hour); the progress
// forwarder of a call runs on the transport's side (tool.Call.Progress).
package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mafredri/cdp/protocol/heapprofiler"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/jsfmt"
	"github.com/tabhive/tabhive/page"
)

// A heap snapshot is written as Chrome sends it: V8 serialises the heap
// into HeapProfiler.addHeapSnapshotChunk events (about 1 MB each) before
// it answers HeapProfiler.takeHeapSnapshot. The run goroutine applies
// them as it applies every event, writing each chunk to the caller's
// writer at once, so the server never holds more than the chunks queued
// since its last batch, whatever the size of the heap.

// slices finds a page's heap snapshot slice; it applies the HeapProfiler
// events a snapshot in progress needs.
var slices = page.Register(page.Capability[*Slice]{
	Name:   "memory",
	Events: []string{"HeapProfiler.addHeapSnapshotChunk", "HeapProfiler.reportHeapSnapshotProgress"},
	New:    func(h *page.Host) *Slice { return &Slice{h: h} },
})

// Of returns page a's heap snapshot slice.
func Of(a *page.Actor) *Slice { return slices.Of(a) }

// Slice is a page's heap snapshots: its methods may be called from any
// goroutine, and run on the page's run goroutine, which owns its state.
type Slice struct {
	h *page.Host
	// heap is the heap snapshot being written, non-nil while
	// TakeHeapSnapshot runs. busy is set while Chrome has not answered a
	// HeapProfiler.takeHeapSnapshot, even one whose call gave up.
	heap *heapCapture
	busy bool
}

// heapCapture is the snapshot being written, owned by the run goroutine.
type heapCapture struct {
	w        io.Writer
	written  int64
	err      error // the first write error; later chunks are dropped
	progress func(done, total int)
	buf      []byte // the last chunk's text, decoded; reused
}

// chunk returns the text of a HeapProfiler.addHeapSnapshotChunk event,
// {"chunk":"..."}, decoded into hc.buf. Chunks are a megabyte each and
// come as fast as the renderer writes them, so a chunk is decoded with
// bulk copies between its escapes rather than by encoding/json, which
// walks it byte by byte twice: a page that decodes slower than the
// channel reads keeps the chunks in between in memory. Anything laid out
// otherwise is decoded by encoding/json.
func (hc *heapCapture) chunk(params []byte) ([]byte, error) {
	s, ok := bytes.CutPrefix(params, []byte(`{"chunk":"`))
	if ok {
		s, ok = bytes.CutSuffix(s, []byte(`"}`))
	}
	if ok {
		if out, ok := unescape(hc.buf[:0], s); ok {
			hc.buf = out
			return out, nil
		}
	}
	var e struct {
		Chunk string `json:"chunk"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return nil, err
	}
	return []byte(e.Chunk), nil
}

// unescape appends the JSON string text s (without its quotes) to out,
// decoded: the text between escapes copied whole, each escape decoded by
// jsfmt.AppendEscape. It reports false for text it does not take (an
// unescaped quote, an escape JSON does not have); the caller then decodes
// it otherwise.
func unescape(out, s []byte) ([]byte, bool) {
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			i = len(s)
		}
		if bytes.IndexByte(s[:i], '"') >= 0 {
			return out, false
		}
		out = append(out, s[:i]...)
		if s = s[i:]; len(s) == 0 {
			break
		}
		var n int
		if out, n = jsfmt.AppendEscape(out, s); n == 0 {
			return out, false
		}
		s = s[n:]
	}
	return out, true
}

// Options says where a heap snapshot goes.
type Options struct {
	// Out receives the snapshot's JSON as it arrives. It is written from
	// the page's goroutine; a write error ends the snapshot.
	Out io.Writer
	// Progress, if not nil, is told how many of the heap's objects V8 has
	// serialised so far (done of total). It runs on the page's goroutine
	// and must not block.
	Progress func(done, total int)
	// Budget returns how long the snapshot may take, given the bytes the
	// page's JavaScript heap uses. If nil, [Budget].
	Budget func(heapBytes int64) time.Duration
}

// Result is a heap snapshot written.
type Result struct {
	Bytes     int64         // written to Out
	HeapBytes int64         // the JavaScript heap's used size before the snapshot
	Budget    time.Duration // what the snapshot was allowed
	State     page.State
}

// BudgetError is returned when a snapshot takes longer than its
// budget. The page's renderer goes on serialising it until it is done; the
// chunks that follow are dropped.
type BudgetError struct {
	Budget    time.Duration
	HeapBytes int64
	Written   int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("heap snapshot not finished within %v (heap %d bytes, %d bytes written)", e.Budget, e.HeapBytes, e.Written)
}

// ErrBusy is returned by [Slice.Take] while the page's
// renderer still writes an earlier snapshot whose call gave up (its budget
// ran out, or its caller went away).
var ErrBusy = errors.New("the page's renderer is still writing an earlier heap snapshot")

// maxHeapSnapshotCall bounds HeapProfiler.takeHeapSnapshot itself, past any
// budget a caller gives: a renderer that has not answered in an hour is
// not coming back.
const maxHeapSnapshotCall = time.Hour

// Budget is the default time a heap snapshot may take: two
// minutes, plus ten seconds per megabyte of JavaScript heap. V8 writes
// about two megabytes of snapshot per megabyte of heap, in seconds on a
// quiet machine; on one loaded to 40 on 2 cores, a 92 MB heap took over ten
// minutes. The client sees progress meanwhile, if it asked for it.
func Budget(heapBytes int64) time.Duration {
	return 2*time.Minute + time.Duration(heapBytes>>20)*10*time.Second
}

// usageTimeout bounds the heap usage query that sizes the budget.
const usageTimeout = 10 * time.Second

// Take writes a snapshot of the page's JavaScript heap to opts.Out, under
// ctx and a budget sized to the heap. It fails fast with a
// [*page.DialogError] while a dialog is open; with a [*BudgetError] when
// the budget runs out first.
func (sl *Slice) Take(ctx context.Context, opts Options) (Result, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (Result, error) {
		if err := h.NeedRenderer(); err != nil {
			return Result{}, err
		}
		if sl.busy {
			return Result{}, ErrBusy
		}
		budgetFor := opts.Budget
		if budgetFor == nil {
			budgetFor = Budget
		}
		var used int64
		uctx, cancel := context.WithTimeout(ctx, usageTimeout)
		err := h.Call(uctx, func(ctx context.Context) error {
			u, err := h.Client().Runtime.GetHeapUsage(ctx)
			if err == nil {
				used = int64(u.UsedSize)
			}
			return err
		})
		cancel()
		if err != nil && ctx.Err() != nil {
			return Result{}, err
		}
		// A page whose heap size is unknown still gets the base budget.
		res := Result{HeapBytes: used, Budget: budgetFor(used)}
		hc := &heapCapture{w: opts.Out, progress: opts.Progress}
		sl.heap = hc
		defer func() { sl.heap = nil }()
		err = sl.snapshot(ctx, res.Budget, hc)
		res.Bytes = hc.written
		res.State = h.State()
		var budgetHit *BudgetError
		if errors.As(err, &budgetHit) {
			budgetHit.HeapBytes = used
		}
		return res, err
	})
}

// snapshot runs HeapProfiler.takeHeapSnapshot under budget, writing chunks
// into hc as they come.
func (sl *Slice) snapshot(ctx context.Context, budget time.Duration, hc *heapCapture) error {
	h := sl.h
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	if err := h.Call(bctx, func(ctx context.Context) error { return h.Client().HeapProfiler.Enable(ctx) }); err != nil {
		return heapError(ctx, bctx, budget, hc, err)
	}
	// HeapProfiler stays enabled: V8 follows the objects the garbage
	// collector moves only while it is, so that an object keeps its id
	// from one snapshot to the next and two snapshots compare (upstream
	// disables it after each snapshot, and then objects the collector
	// moved in between look deleted and new).
	if err := h.Call(bctx, func(ctx context.Context) error { return h.Client().HeapProfiler.CollectGarbage(ctx) }); err != nil {
		return heapError(ctx, bctx, budget, hc, err)
	}
	mark := h.Dialogs().Mark()
	// The call runs under a context of its own, not the budget's: when the
	// budget runs out the renderer goes on writing the snapshot, and the
	// page must know when it is done (busy) so that a new snapshot does
	// not take the old one's chunks. Chrome's answer, or the end of the
	// page, ends the call.
	hctx, hcancel := context.WithTimeout(h.Life(), maxHeapSnapshotCall)
	sl.busy = true
	err := h.Await(bctx, func(context.Context) error {
		defer hcancel()
		err := h.Client().HeapProfiler.TakeHeapSnapshot(hctx, heapprofiler.NewTakeHeapSnapshotArgs().SetReportProgress(hc.progress != nil))
		h.Post(func() { sl.busy = false })
		return err
	}, func() error {
		if hc.err != nil {
			return hc.err
		}
		return h.Dialogs().Interrupted(mark)
	})
	if err == nil {
		// Chrome sends every chunk before its answer; those queued
		// behind the answer are applied now.
		h.ApplyEvents()
		err = hc.err
	}
	if err != nil {
		return heapError(ctx, bctx, budget, hc, err)
	}
	return nil
}

// heapError turns the end of the budget into a *BudgetError.
func heapError(ctx, bctx context.Context, budget time.Duration, hc *heapCapture, err error) error {
	if ctx.Err() == nil && bctx.Err() != nil {
		return &BudgetError{Budget: budget, Written: hc.written}
	}
	if hc.err != nil {
		return fmt.Errorf("write heap snapshot: %w", hc.err)
	}
	return err
}

// Apply applies a HeapProfiler event: a chunk goes to the snapshot being
// written, if any (one that arrives after its snapshot gave up is
// dropped).
func (sl *Slice) Apply(_ *page.Session, ev cdpconn.Event) error {
	hc := sl.heap
	if hc == nil {
		return nil
	}
	switch ev.Method {
	case "HeapProfiler.addHeapSnapshotChunk":
		if hc.err != nil {
			return nil
		}
		text, err := hc.chunk(ev.Params)
		if err != nil {
			return err
		}
		n, err := hc.w.Write(text)
		hc.written += int64(n)
		if err != nil {
			hc.err = err
		}
	case "HeapProfiler.reportHeapSnapshotProgress":
		if hc.progress == nil {
			return nil
		}
		var e struct {
			Done  int `json:"done"`
			Total int `json:"total"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		hc.progress(e.Done, e.Total)
	}
	return nil
}
