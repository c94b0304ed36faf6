package page

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
)

// A heap snapshot is written as Chrome sends it: V8 serialises the heap
// into HeapProfiler.addHeapSnapshotChunk events (about 1 MB each) before
// it answers HeapProfiler.takeHeapSnapshot. The run goroutine applies
// them as it applies every event, writing each chunk to the caller's
// writer at once, so the server never holds more than the chunks queued
// since its last batch, whatever the size of the heap.

// heapEvents are the HeapProfiler events a snapshot in progress needs.
var heapEvents = map[string]bool{
	"HeapProfiler.addHeapSnapshotChunk":       true,
	"HeapProfiler.reportHeapSnapshotProgress": true,
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

// HeapSnapshotOptions says where a heap snapshot goes.
type HeapSnapshotOptions struct {
	// Out receives the snapshot's JSON as it arrives. It is written from
	// the page's goroutine; a write error ends the snapshot.
	Out io.Writer
	// Progress, if not nil, is told how many of the heap's objects V8 has
	// serialised so far (done of total). It runs on the page's goroutine
	// and must not block.
	Progress func(done, total int)
	// Budget returns how long the snapshot may take, given the bytes the
	// page's JavaScript heap uses. If nil, [HeapSnapshotBudget].
	Budget func(heapBytes int64) time.Duration
}

// HeapSnapshotResult is a heap snapshot written.
type HeapSnapshotResult struct {
	Bytes     int64         // written to Out
	HeapBytes int64         // the JavaScript heap's used size before the snapshot
	Budget    time.Duration // what the snapshot was allowed
	State     State
}

// HeapSnapshotBudgetError is returned when a snapshot takes longer than its
// budget. The page's renderer goes on serialising it until it is done; the
// chunks that follow are dropped.
type HeapSnapshotBudgetError struct {
	Budget    time.Duration
	HeapBytes int64
	Written   int64
}

func (e *HeapSnapshotBudgetError) Error() string {
	return fmt.Sprintf("heap snapshot not finished within %v (heap %d bytes, %d bytes written)", e.Budget, e.HeapBytes, e.Written)
}

// ErrHeapSnapshotBusy is returned by TakeHeapSnapshot while the page's
// renderer still writes an earlier snapshot whose call gave up (its budget
// ran out, or its caller went away).
var ErrHeapSnapshotBusy = errors.New("the page's renderer is still writing an earlier heap snapshot")

// maxHeapSnapshotCall bounds HeapProfiler.takeHeapSnapshot itself, past any
// budget a caller gives: a renderer that has not answered in an hour is
// not coming back.
const maxHeapSnapshotCall = time.Hour

// HeapSnapshotBudget is the default time a heap snapshot may take: two
// minutes, plus ten seconds per megabyte of JavaScript heap. V8 writes
// about two megabytes of snapshot per megabyte of heap, in seconds on a
// quiet machine; on one loaded to 40 on 2 cores, a 92 MB heap took over ten
// minutes. The client sees progress meanwhile, if it asked for it.
func HeapSnapshotBudget(heapBytes int64) time.Duration {
	return 2*time.Minute + time.Duration(heapBytes>>20)*10*time.Second
}

// usageTimeout bounds the heap usage query that sizes the budget.
const usageTimeout = 10 * time.Second

// TakeHeapSnapshot writes a snapshot of the page's JavaScript heap to
// opts.Out, under ctx and a budget sized to the heap. It fails fast with a
// [*DialogError] while a dialog is open; with a
// [*HeapSnapshotBudgetError] when the budget runs out first.
func (a *Actor) TakeHeapSnapshot(ctx context.Context, opts HeapSnapshotOptions) (HeapSnapshotResult, error) {
	return ask(ctx, a, func(ctx context.Context) (HeapSnapshotResult, error) {
		if err := a.needRenderer(); err != nil {
			return HeapSnapshotResult{}, err
		}
		if a.heapBusy {
			return HeapSnapshotResult{}, ErrHeapSnapshotBusy
		}
		budgetFor := opts.Budget
		if budgetFor == nil {
			budgetFor = HeapSnapshotBudget
		}
		var used int64
		uctx, cancel := context.WithTimeout(ctx, usageTimeout)
		err := a.call(uctx, func(ctx context.Context) error {
			u, err := a.c.Runtime.GetHeapUsage(ctx)
			if err == nil {
				used = int64(u.UsedSize)
			}
			return err
		})
		cancel()
		if err != nil && ctx.Err() != nil {
			return HeapSnapshotResult{}, err
		}
		// A page whose heap size is unknown still gets the base budget.
		res := HeapSnapshotResult{HeapBytes: used, Budget: budgetFor(used)}
		hc := &heapCapture{w: opts.Out, progress: opts.Progress}
		a.heap = hc
		defer func() { a.heap = nil }()
		err = a.snapshotHeap(ctx, res.Budget, hc)
		res.Bytes = hc.written
		res.State = a.state()
		var budgetHit *HeapSnapshotBudgetError
		if errors.As(err, &budgetHit) {
			budgetHit.HeapBytes = used
		}
		return res, err
	})
}

// snapshotHeap runs HeapProfiler.takeHeapSnapshot under budget, writing
// chunks into hc as they come.
func (a *Actor) snapshotHeap(ctx context.Context, budget time.Duration, hc *heapCapture) error {
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	if err := a.call(bctx, func(ctx context.Context) error { return a.c.HeapProfiler.Enable(ctx) }); err != nil {
		return a.heapError(ctx, bctx, budget, hc, err)
	}
	// HeapProfiler stays enabled: V8 follows the objects the garbage
	// collector moves only while it is, so that an object keeps its id
	// from one snapshot to the next and two snapshots compare (upstream
	// disables it after each snapshot, and then objects the collector
	// moved in between look deleted and new).
	if err := a.call(bctx, func(ctx context.Context) error { return a.c.HeapProfiler.CollectGarbage(ctx) }); err != nil {
		return a.heapError(ctx, bctx, budget, hc, err)
	}
	seq := a.dialogSeq
	// The call runs under a context of its own, not the budget's: when the
	// budget runs out the renderer goes on writing the snapshot, and the
	// page must know when it is done (heapBusy) so that a new snapshot
	// does not take the old one's chunks. Chrome's answer, or the end of
	// the actor, ends the call.
	hctx, hcancel := context.WithTimeout(a.act.Context(), maxHeapSnapshotCall)
	a.heapBusy = true
	err := a.act.Await(bctx, func(context.Context) error {
		defer hcancel()
		err := a.c.HeapProfiler.TakeHeapSnapshot(hctx, heapprofiler.NewTakeHeapSnapshotArgs().SetReportProgress(hc.progress != nil))
		a.posted.Push(func() { a.heapBusy = false })
		return err
	}, func() error {
		switch {
		case hc.err != nil:
			return hc.err
		case a.dialogSeq != seq && a.dialog != nil:
			return &DialogError{Dialog: *a.dialog}
		case a.crashed:
			return ErrCrashed
		}
		return nil
	})
	if err == nil {
		// Chrome sends every chunk before its answer; those queued
		// behind the answer are applied now.
		(*eventSource)(a).Apply()
		err = hc.err
	}
	if err != nil {
		return a.heapError(ctx, bctx, budget, hc, err)
	}
	return nil
}

// heapError turns the end of the budget into a *HeapSnapshotBudgetError.
func (a *Actor) heapError(ctx, bctx context.Context, budget time.Duration, hc *heapCapture, err error) error {
	if ctx.Err() == nil && bctx.Err() != nil {
		return &HeapSnapshotBudgetError{Budget: budget, Written: hc.written}
	}
	if hc.err != nil {
		return fmt.Errorf("write heap snapshot: %w", hc.err)
	}
	return err
}

// applyHeap applies a HeapProfiler event: a chunk goes to the snapshot
// being written, if any (one that arrives after its snapshot gave up is
// dropped).
func (a *Actor) applyHeap(ev cdpconn.Event) error {
	hc := a.heap
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
