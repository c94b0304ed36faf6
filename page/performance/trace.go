// Package performance records performance traces of a page and serves
// the tools that do it: performance_start_trace, performance_stop_trace
// and performance_analyze_insight, with chrome-devtools-mcp's names,
// arguments and reply text.
//
// The page's [Slice] records (Tracing on the page's own session), streams
// the trace to the writer its caller gives, and analyses it on the way
// (package internal/devtools/trace; its model keeps only the page's part of
// the trace). Tracing is the page's business, like any other tool: a page
// that records holds no lock that other pages wait on, and its own calls
// keep running in order. Chrome records one trace at a time per browser:
// the tools take the browser's trace slot ([browser.Supervisor.Traces])
// before a page starts recording, and the recording gives it back when it
// ends.
//
// Goroutines: the trace analysis. StopTrace copies the trace from Chrome's
// stream on an Await goroutine ([page.Host.Await]), which starts one
// goroutine that analyses what the copy feeds it through a pipe, and waits
// for it (readTrace): the analysis ends when the pipe closes (the end of
// the trace, or an error), and closes the pipe for the copy when it stops
// early. The copy writes to the caller's writer through a gate StopTrace
// closes before it returns, so that a copy outliving an early return
// writes nothing more. The stream of a trace whose caller gave up before
// Chrome finished it is released by a command queued on the session
// without waiting (Apply, [page.Session.Send]), on no goroutine of its own.
package performance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/accessibility"
	"github.com/mafredri/cdp/protocol/dom"
	cdpio "github.com/mafredri/cdp/protocol/io"
	"github.com/mafredri/cdp/protocol/network"
	"github.com/mafredri/cdp/protocol/tracing"

	"github.com/tabhive/tabhive/internal/cdpconn"
	ptrace "github.com/tabhive/tabhive/internal/devtools/trace"
	tracemodel "github.com/tabhive/tabhive/internal/devtools/trace/model"
	"github.com/tabhive/tabhive/page"
)

// slices finds a page's recording state.
var slices = page.Register(page.Capability[*Slice]{
	Name:   "performance",
	Events: []string{"Tracing.tracingComplete"},
	New:    func(h *page.Host) *Slice { return &Slice{h: h} },
})

// Of returns page a's performance slice.
func Of(a *page.Actor) *Slice { return slices.Of(a) }

// Slice is a page's performance recording: at most one at a time. Its
// methods may be called from any goroutine; each runs on the page's run
// goroutine, which owns trace. lastTrace is published for any goroutine.
type Slice struct {
	h *page.Host
	// trace is the recording in progress, if any.
	trace traceState
	// lastTrace is the report of the page's last performance trace
	// (performance_analyze_insight reads it without waiting for the page).
	lastTrace atomic.Pointer[ptrace.Report]
}

// Apply applies Tracing.tracingComplete on the page's own session.
func (sl *Slice) Apply(s *page.Session, ev cdpconn.Event) error {
	if !s.IsTop() {
		return nil
	}
	return sl.traceComplete(s, ev.Params)
}

// ErrTraceRunning is returned by [Slice.StartTrace] when the page is
// already recording a trace.
var ErrTraceRunning = errors.New("a performance trace is already running on this page")

// ErrTracingElsewhere is returned by [Slice.StartTrace] when Chrome is
// already recording a trace that tabhive did not start (DevTools, or
// another client of the same browser): Chrome records one at a time.
var ErrTracingElsewhere = errors.New("Chrome is already recording a trace started elsewhere")

// ErrNoTrace is returned by [Slice.StopTrace] when the page is not
// recording a trace.
var ErrNoTrace = errors.New("no performance trace is running on this page")

// traceCategories are what DevTools' Performance panel records by default,
// with JavaScript sampling (which it turns on by default too) and without
// screenshots, which make a trace several times larger.
var traceCategories = []string{
	"blink.console",
	"blink.user_timing",
	"loading",
	"devtools.timeline",
	"disabled-by-default-devtools.target-rundown",
	"disabled-by-default-devtools.timeline.frame",
	"disabled-by-default-devtools.timeline.stack",
	"disabled-by-default-devtools.timeline",
	"disabled-by-default-devtools.v8-source-rundown-sources",
	"disabled-by-default-devtools.v8-source-rundown",
	"disabled-by-default-layout_shift.debug",
	"disabled-by-default-v8.inspector",
	"disabled-by-default-v8.cpu_profiler.hires",
	"disabled-by-default-lighthouse",
	"v8.execute",
	"v8",
	"cppgc",
	"navigation,rail",
	"disabled-by-default-v8.cpu_profiler",
}

// traceChunk is how much of a trace one IO.read asks for. All pages share
// one channel to Chromium, and a reply holds it while it passes (escaped
// JSON, larger than the chunk): small enough that other pages' messages
// pass between chunks without waiting long on a loaded machine, large
// enough that a 100 MB trace takes a few hundred round trips, not
// thousands.
const traceChunk = 512 << 10

// traceState is the page's recording, owned by the run goroutine.
type traceState struct {
	// running is set from Tracing.start until Tracing.end.
	running bool
	// lease is the browser's trace slot while running (TraceOptions.Lease),
	// released when the recording ends.
	lease interface{ Release() }
	// complete, when non-nil, receives the stream of the trace Chrome
	// finished (Tracing.tracingComplete); set while StopTrace waits for it.
	complete chan cdpio.StreamHandle
}

// TraceDiscardedError reports a recording that ended before it could be
// saved: the reload that StartTrace made for it failed (the page closed,
// the deadline passed), and the partial trace was dropped.
type TraceDiscardedError struct{ Err error }

func (e *TraceDiscardedError) Error() string {
	return "the trace was discarded: " + e.Err.Error()
}

func (e *TraceDiscardedError) Unwrap() error { return e.Err }

// TraceOptions say how [Slice.StartTrace] records.
type TraceOptions struct {
	// Reload loads the page again once recording has started, so that the
	// trace covers a whole page load: first about:blank, then the page's
	// URL, waiting for it to load and settle.
	Reload bool
	// IgnoreCache bypasses the HTTP cache for that load (a cold load).
	IgnoreCache bool
	// Lease, if set, is the browser's trace slot (Chrome records one trace
	// at a time), which the caller took for this recording. StartTrace
	// takes charge of it: it is released when the recording ends, stopped
	// or discarded, and when StartTrace fails. (A page that goes away while
	// recording frees the slot by going.)
	Lease interface{ Release() }
}

// StartTrace starts recording a performance trace of the page. With
// Reload it returns once the page has loaded again and settled. It fails
// with [ErrTraceRunning] if the page is already recording; a dialog open
// on the page fails it with a [*DialogError].
func (sl *Slice) StartTrace(ctx context.Context, opts TraceOptions) (page.State, error) {
	st, err := page.Do(ctx, sl.h, func(ctx context.Context) (page.State, error) {
		if sl.trace.running {
			return page.State{}, ErrTraceRunning
		}
		if err := sl.h.NeedRenderer(); err != nil {
			return page.State{}, err
		}
		target := sl.h.URL()
		if opts.Reload {
			// Leave the page first, so that the trace starts on a clean
			// slate and its first navigation is the page's load.
			if _, err := sl.h.Loads().Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: "about:blank"}); err != nil {
				return page.State{}, err
			}
		}
		// A tab that is not in front draws nothing in headless Chromium:
		// its trace would hold no frame, no paint, no LCP. Best effort:
		// the trace goes on without it.
		sl.h.Call(ctx, func(ctx context.Context) error { return sl.h.Client().Page.BringToFront(ctx) })
		cfg := tracing.TraceConfig{IncludedCategories: traceCategories, ExcludedCategories: []string{"*"}}
		err := sl.h.Call(ctx, func(ctx context.Context) error {
			return sl.h.Client().Tracing.Start(ctx, tracing.NewStartArgs().
				SetTraceConfig(cfg).
				SetTransferMode("ReturnAsStream").
				SetStreamFormat(tracing.StreamFormatJSON).
				SetStreamCompression(tracing.StreamCompressionNone))
		})
		if err != nil {
			if strings.Contains(err.Error(), "already been started") {
				return page.State{}, ErrTracingElsewhere
			}
			return page.State{}, fmt.Errorf("start tracing: %w", err)
		}
		sl.trace.running, sl.trace.lease = true, opts.Lease
		if opts.Reload {
			if err := sl.traceReload(ctx, target, opts.IgnoreCache); err != nil {
				sl.discardTrace(ctx)
				return page.State{}, &TraceDiscardedError{Err: err}
			}
		}
		return sl.h.State(), nil
	})
	if err != nil && opts.Lease != nil {
		// Whatever failed — the page, its deadline, or the call that never
		// ran because the page had crashed or the caller gave up while it
		// was queued — the slot goes back. (Released twice is harmless: a
		// recording that ended keeps no lease.)
		opts.Lease.Release()
	}
	return st, err
}

// traceReload loads target, with the cache off if ignoreCache.
func (sl *Slice) traceReload(ctx context.Context, target string, ignoreCache bool) error {
	if ignoreCache {
		if err := sl.h.Call(ctx, func(ctx context.Context) error {
			return sl.h.Client().Network.SetCacheDisabled(ctx, network.NewSetCacheDisabledArgs(true))
		}); err != nil {
			return fmt.Errorf("disable the cache: %w", err)
		}
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			sl.h.Await(rctx, func(ctx context.Context) error {
				return sl.h.Client().Network.SetCacheDisabled(ctx, network.NewSetCacheDisabledArgs(false))
			}, nil)
		}()
	}
	res, err := sl.h.Loads().Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: target})
	if err != nil {
		return err
	}
	sl.h.Owner().Navigated(ctx, res)
	return nil
}

// TraceStop says where [Slice.StopTrace] writes the trace.
type TraceStop struct {
	// Out receives the trace file as Chrome streams it: the JSON
	// trace-event format, with Chrome's metadata, as DevTools and Perfetto
	// load it. A write error stops the copy.
	Out io.Writer
	// Options describe the recording, for the report. Zero fields are
	// filled from what the page emulates (its CPU slowdown and network
	// conditions), as chrome-devtools-mcp reports them.
	Options ptrace.Options
}

// TraceResult is a finished trace.
type TraceResult struct {
	// Report is the trace's analysis. It is nil when the trace could not
	// be analysed (AnalyzeErr says why); the file is complete all the same.
	Report     *ptrace.Report
	AnalyzeErr error
	// Bytes is the size of the trace written to Out.
	Bytes int64
	page.State
}

// StopTrace stops the page's recording, copies the trace to stop.Out and
// analyses it as it goes, never holding the whole trace in memory. The
// report is kept as the page's last ([Slice.LastTrace]). It fails with
// [ErrNoTrace] if the page is not recording. When it fails after the copy
// began (the page closed, the deadline passed, Out failed), what was
// written is a partial trace.
func (sl *Slice) StopTrace(ctx context.Context, stop TraceStop) (TraceResult, error) {
	// The copy runs on an Await goroutine, and ask returns when ctx ends
	// even if the actor is still at work: whichever way StopTrace returns,
	// the copy writes to stop.Out through a gate closed first, and hands
	// its result over a channel, so that nothing it does reaches the
	// caller afterwards.
	out := &gate{w: stop.Out}
	defer out.close()
	return page.Do(ctx, sl.h, func(ctx context.Context) (TraceResult, error) {
		var res TraceResult
		if !sl.trace.running {
			return res, ErrNoTrace
		}
		start := time.Now()
		handle, err := sl.endTrace(ctx)
		if err != nil {
			return res, err
		}
		sl.h.Log().Debug().Dur("took", time.Since(start)).Msg("trace ended")
		defer sl.closeStream(ctx, handle)
		done := make(chan readResult, 1)
		opts := stop.Options
		if opts.CPUThrottling == 0 && opts.NetworkThrottling == "" {
			opts.CPUThrottling, opts.NetworkThrottling = sl.h.Loads().Throttling()
		}
		err = sl.h.Await(ctx, func(ctx context.Context) error {
			r := readTrace(ctx, sl.h.Client(), handle, out, opts)
			done <- r
			return r.err
		}, nil)
		out.close()
		if err != nil {
			return res, err
		}
		r := <-done
		res.Report, res.AnalyzeErr, res.Bytes = r.report, r.analyzeErr, r.bytes
		sl.h.Log().Debug().Int64("bytes", r.bytes).Dur("took", time.Since(start)).Msg("trace saved and analysed")
		if res.Report != nil {
			sl.describeNodes(ctx, res.Report)
			sl.lastTrace.Store(res.Report)
		}
		res.State = sl.h.State()
		return res, nil
	})
}

// gate passes writes on to w until it is closed; close waits for a write
// in progress.
type gate struct {
	mu     sync.Mutex // guards closed, and serialises writes with close
	w      io.Writer
	closed bool
}

var errGateClosed = errors.New("the trace's output was closed")

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, errGateClosed
	}
	return g.w.Write(p)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// AbortTrace stops the page's recording, if any, and discards the trace. It
// is for a caller that gave up between StartTrace and StopTrace: it leaves
// nothing running.
func (sl *Slice) AbortTrace(ctx context.Context) error {
	_, err := page.Do(ctx, sl.h, func(ctx context.Context) (struct{}, error) {
		sl.discardTrace(ctx)
		return struct{}{}, nil
	})
	return err
}

// LastTrace returns the report of the page's last trace, or nil. It does
// not wait for the page: the report is published when StopTrace finishes.
func (sl *Slice) LastTrace() *ptrace.Report { return sl.lastTrace.Load() }

// discardTrace ends a recording and drops its data, under a bound of its
// own: it runs when the caller has given up, too.
func (sl *Slice) discardTrace(ctx context.Context) {
	if !sl.trace.running {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	handle, err := sl.endTrace(dctx)
	if err != nil {
		sl.h.Log().Debug().Err(err).Msg("end a discarded trace")
		return
	}
	sl.closeStream(dctx, handle)
}

// endTrace ends the recording and waits for Chrome to say where the trace
// is. The recording is over whatever happens.
func (sl *Slice) endTrace(ctx context.Context) (cdpio.StreamHandle, error) {
	sl.trace.running = false
	if l := sl.trace.lease; l != nil {
		// Chrome's recording is over once Tracing.end returns; the copy
		// that follows does not need the slot.
		defer l.Release()
		sl.trace.lease = nil
	}
	done := make(chan cdpio.StreamHandle, 1)
	sl.trace.complete = done
	defer func() { sl.trace.complete = nil }()
	if err := sl.h.Call(ctx, func(ctx context.Context) error { return sl.h.Client().Tracing.End(ctx) }); err != nil {
		return "", fmt.Errorf("end tracing: %w", err)
	}
	var handle cdpio.StreamHandle
	err := sl.h.Await(ctx, func(ctx context.Context) error {
		select {
		case handle = <-done:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}, nil)
	if err != nil {
		return "", fmt.Errorf("wait for the trace: %w", err)
	}
	if handle == "" {
		return "", errors.New("Chrome finished the trace without a stream")
	}
	return handle, nil
}

// traceComplete applies Tracing.tracingComplete.
func (sl *Slice) traceComplete(s *page.Session, params json.RawMessage) error {
	var e struct {
		Stream cdpio.StreamHandle `json:"stream"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	if sl.trace.complete != nil {
		select {
		case sl.trace.complete <- e.Stream:
		default:
		}
		return nil
	}
	if e.Stream != "" {
		// Nobody waits for it any more (the caller gave up while Chrome
		// was finishing): release it, or Chrome keeps the whole trace for
		// as long as the page lives. Queued without waiting for Chrome's
		// answer, which nothing needs: no goroutine outlives this event.
		sl.h.Log().Debug().Msg("close the stream of an abandoned trace")
		if err := s.Send("IO.close", cdpio.NewCloseArgs(e.Stream)); err != nil {
			sl.h.Log().Debug().Err(err).Msg("the stream of an abandoned trace stays open")
		}
	}
	return nil
}

// closeStream releases the trace's stream in Chrome, under a bound of its
// own (the caller may have given up).
func (sl *Slice) closeStream(ctx context.Context, handle cdpio.StreamHandle) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	sl.h.Await(cctx, func(ctx context.Context) error {
		return sl.h.Client().IO.Close(ctx, cdpio.NewCloseArgs(handle))
	}, nil)
}

// readResult is what readTrace found.
type readResult struct {
	report     *ptrace.Report
	analyzeErr error
	bytes      int64
	err        error
}

// readTrace copies the stream to out and to the analysis, which runs on a
// goroutine of its own that readTrace waits for. It runs on an Await
// goroutine.
//
// Chrome's trace is of the whole browser: every tab's renderer, with its
// URLs and script sources, whichever page recorded it. So the stream goes
// first to a file of the server's own, which says which frames and
// processes are the page's ([tracemodel.PageScope]); only those events reach
// out and the analysis ([tracemodel.Filter]). No agent sees another's pages in
// its trace. A trace that does not say which page it is of gives nothing.
func readTrace(ctx context.Context, c *cdp.Client, handle cdpio.StreamHandle, out io.Writer, opts ptrace.Options) readResult {
	var r readResult
	whole, err := os.CreateTemp("", "tabhive-trace-*.json")
	if err != nil {
		r.err = fmt.Errorf("keep the trace: %w", err)
		return r
	}
	defer func() {
		whole.Close()
		os.Remove(whole.Name())
	}()
	if r.err = copyStream(ctx, c, handle, whole); r.err != nil {
		return r
	}
	rewind := func() io.Reader {
		whole.Seek(0, io.SeekStart)
		return ctxReader{ctx, whole}
	}
	scope, err := tracemodel.PageScope(rewind())
	if err != nil {
		r.err = fmt.Errorf("read the trace: %w", err)
		return r
	}
	pr, pw := io.Pipe()
	analysed := make(chan struct{})
	go func() {
		defer close(analysed)
		r.report, r.analyzeErr = ptrace.Analyze(pr, opts)
		// Whatever the analysis left unread is not wanted: later writes
		// fail at once instead of blocking.
		pr.CloseWithError(errAnalysisDone)
	}()
	t := &tee{out: out, analysis: pw, analysing: true}
	r.err = tracemodel.Filter(rewind(), t, scope)
	r.bytes = t.n
	pw.CloseWithError(r.err) // nil: the analysis sees the end of the trace
	<-analysed
	if r.err != nil {
		r.report, r.analyzeErr = nil, nil
	}
	return r
}

var errAnalysisDone = errors.New("the analysis has finished")

// tee writes the page's trace to the caller's output, counting it, and to
// the analysis while the analysis reads: one that ended early leaves the
// file to go on.
type tee struct {
	out, analysis io.Writer
	analysing     bool
	n             int64
}

func (t *tee) Write(p []byte) (int, error) {
	n, err := t.out.Write(p)
	t.n += int64(n)
	if err != nil {
		return n, fmt.Errorf("write the trace: %w", err)
	}
	if t.analysing {
		if _, err := t.analysis.Write(p); err != nil {
			t.analysing = false
		}
	}
	return n, nil
}

// ctxReader reads r until ctx ends: filtering a large trace stops when the
// caller gives up.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// copyStream copies the trace Chrome streams to out.
func copyStream(ctx context.Context, c *cdp.Client, handle cdpio.StreamHandle, out io.Writer) error {
	for {
		r, err := c.IO.Read(ctx, cdpio.NewReadArgs(handle).SetSize(traceChunk))
		if err != nil {
			return fmt.Errorf("read the trace: %w", err)
		}
		data := []byte(r.Data)
		if r.Base64Encoded != nil && *r.Base64Encoded {
			if data, err = base64.StdEncoding.DecodeString(r.Data); err != nil {
				return fmt.Errorf("read the trace: %w", err)
			}
		}
		if len(data) > 0 {
			if _, err := out.Write(data); err != nil {
				return fmt.Errorf("keep the trace: %w", err)
			}
		}
		if r.EOF {
			return nil
		}
	}
}

// describeNodes describes the report's LCP elements as an agent finds them
// in a snapshot (role and accessible name), while the page still has them.
// Nodes of an earlier document are gone; they keep their tag name alone.
func (sl *Slice) describeNodes(ctx context.Context, r *ptrace.Report) {
	ids := r.LCPNodes()
	if len(ids) == 0 || sl.h.NeedRenderer() != nil {
		return
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out := map[int64]string{}
	sl.h.Call(dctx, func(ctx context.Context) error {
		for _, id := range ids {
			if d := describeNode(ctx, sl.h.Client(), dom.BackendNodeID(id)); d != "" {
				out[id] = d
			}
		}
		return nil
	})
	r.Describe(out)
}

func describeNode(ctx context.Context, c *cdp.Client, id dom.BackendNodeID) string {
	var role, name string
	if ax, err := c.Accessibility.GetPartialAXTree(ctx, accessibility.NewGetPartialAXTreeArgs().SetBackendNodeID(id).SetFetchRelatives(false)); err == nil {
		for _, n := range ax.Nodes {
			if n.BackendDOMNodeID == nil || *n.BackendDOMNodeID != id {
				continue
			}
			if n.Role != nil {
				json.Unmarshal(n.Role.Value, &role)
			}
			if n.Name != nil {
				json.Unmarshal(n.Name.Value, &name)
			}
		}
	}
	var tag string
	if d, err := c.DOM.DescribeNode(ctx, dom.NewDescribeNodeArgs().SetBackendNodeID(id)); err == nil {
		tag = strings.ToLower(d.Node.NodeName)
		for i := 0; i+1 < len(d.Node.Attributes); i += 2 {
			switch k, v := d.Node.Attributes[i], d.Node.Attributes[i+1]; k {
			case "id", "class", "src", "alt":
				if len(v) > 80 {
					v = v[:80] + "…"
				}
				tag += fmt.Sprintf(" %s=%q", k, v)
			}
		}
		tag = "<" + tag + ">"
	}
	switch {
	case role != "" && role != "none" && role != "generic" && name != "":
		if len(name) > 100 {
			name = name[:100] + "…"
		}
		return strings.TrimSpace(fmt.Sprintf("%s \"%s\" %s", role, name, tag))
	case tag != "":
		return tag
	}
	return ""
}
