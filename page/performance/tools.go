package performance

// The capability's MCP tools: performance_start_trace,
// performance_stop_trace and performance_analyze_insight. Recording takes
// the browser's trace slot first, so that pages take turns: Chrome records
// one trace at a time.

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/internal/agenterr"
	ptrace "github.com/tabhive/tabhive/internal/devtools/trace"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

const (
	// startTraceBudget bounds performance_start_trace: leaving the page,
	// loading it again and letting it settle (a navigation's budget,
	// stretched by emulation as every page tool's is), the quiet period,
	// then stopping as performance_stop_trace does.
	startTraceBudget = traceWait + 30*time.Second + traceQuiet + stopTraceBudget
	// traceWait bounds how long a recording waits for another page's to
	// end: Chrome records one trace at a time per browser.
	traceWait = 60 * time.Second
	// stopTraceBudget bounds performance_stop_trace: Chrome flushing its
	// trace buffers, then streaming the trace and analysing it on the way.
	// A 100 MB trace takes seconds on a quiet machine, and minutes on one
	// loaded ten times over.
	stopTraceBudget = 5 * time.Minute
	// traceHeadroom is what stopping leaves of its budget for the reply,
	// so that a trace cut short says so instead of the generic timeout.
	traceHeadroom = 2 * time.Second
	// analyzeBudget bounds performance_analyze_insight, which reads a
	// report already made.
	analyzeBudget = 10 * time.Second
	// traceQuiet is how long autoStop keeps recording after the page has
	// loaded (or, without reload, after the trace started), as
	// chrome-devtools-mcp does: late work such as a banner inserted a
	// second after load, and its layout shifts, is in the trace.
	traceQuiet = 5 * time.Second
)

// Tools returns the tools that record and analyse performance traces.
func Tools() []*tool.Tool {
	start := tool.Tool{Name: "performance_start_trace", Page: true, Action: true,
		Description: "Start a performance trace on the target webpage. Use to find frontend performance issues, Core Web Vitals (LCP, INP, CLS), and improve page load speed."}
	stop := tool.Tool{Name: "performance_stop_trace", Page: true,
		Description: "Stop the active performance trace recording on the target webpage."}
	analyze := tool.Tool{Name: "performance_analyze_insight", Page: true, ReadOnly: true,
		Description: "Provides more detailed information on a specific Performance Insight of an insight set that was highlighted in the results of a trace recording."}
	return []*tool.Tool{
		tool.Define(start, tool.Fixed[startTraceArgs](startTraceBudget), runStartTrace),
		tool.Define(stop, tool.Fixed[stopTraceArgs](stopTraceBudget), runStopTrace),
		tool.Define(analyze, tool.Fixed[analyzeInsightArgs](analyzeBudget), runAnalyzeInsight),
	}
}

type startTraceArgs struct {
	Reload      *bool  `json:"reload" desc:"Determines if, once tracing has started, the target page should be automatically reloaded. Navigate the page to the right URL using the navigate_page tool BEFORE starting the trace if reload or autoStop is set to true. Defaults to true."`
	AutoStop    *bool  `json:"autoStop" desc:"Determines if the trace recording should be automatically stopped. Defaults to true."`
	IgnoreCache bool   `json:"ignoreCache" desc:"Whether to bypass the HTTP cache when reloading the page, to measure a cold page load. Only applies if reload is true."`
	FilePath    string `json:"filePath" desc:"The absolute file path, or a file path relative to the current working directory, to save the raw trace data. For example, trace.json.gz (compressed) or trace.json (uncompressed). If omitted, the trace is saved, compressed, in the session's private directory."`
}

type stopTraceArgs struct {
	FilePath string `json:"filePath" desc:"The absolute file path, or a file path relative to the current working directory, to save the raw trace data. For example, trace.json.gz (compressed) or trace.json (uncompressed). If omitted, the trace is saved, compressed, in the session's private directory."`
}

type analyzeInsightArgs struct {
	InsightSetID string `json:"insightSetId" required:"true" desc:"The id for the specific insight set. Only use the ids given in the \"Available insight sets\" list."`
	InsightName  string `json:"insightName" required:"true" desc:"The name of the Insight you want more information on. For example: \"DocumentLatency\" or \"LCPBreakdown\""`
}

func runStartTrace(ctx context.Context, c tool.Call, a *startTraceArgs) error {
	reload := a.Reload == nil || *a.Reload
	autoStop := a.AutoStop == nil || *a.AutoStop
	// A path the sandbox refuses fails before anything is recorded.
	if autoStop && a.FilePath != "" {
		if _, err := c.Sandbox(ctx).Resolve(a.FilePath); err != nil {
			return err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, traceWait)
	waitStart := time.Now()
	lease, waited, err := c.Browser().Traces().Acquire(wctx, c.PageID(), c.Page().Done())
	cancel()
	if err != nil {
		return traceError(c, err, false)
	}
	st, err := Of(c.Page()).StartTrace(ctx, TraceOptions{Reload: reload, IgnoreCache: a.IgnoreCache, Lease: lease})
	if err != nil {
		lease.Release()
		return traceError(c, err, false)
	}
	c.Reply().State(st)
	if waited {
		c.Reply().Line("Waited %s for another page's trace to finish first: Chrome records one trace at a time.", time.Since(waitStart).Round(100*time.Millisecond))
	}
	if !autoStop {
		c.Reply().Line("The performance trace is being recorded. Use performance_stop_trace to stop it.")
		return nil
	}
	t := time.NewTimer(traceQuiet)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.Page().Done():
		return traceError(c, c.Page().Err(), true)
	case <-ctx.Done():
		// Leave nothing recording: the caller gave up.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		Of(c.Page()).AbortTrace(actx)
		return context.Cause(ctx)
	}
	return stopTrace(ctx, c, a.FilePath)
}

func runStopTrace(ctx context.Context, c tool.Call, a *stopTraceArgs) error {
	if a.FilePath != "" {
		if _, err := c.Sandbox(ctx).Resolve(a.FilePath); err != nil {
			return err
		}
	}
	return stopTrace(ctx, c, a.FilePath)
}

// stopTrace stops the page's recording, saves the trace to filePath (a
// file in the session's private directory if empty), and replies with its
// summary. A trace cut short is removed, and the reply says so.
func stopTrace(ctx context.Context, c tool.Call, filePath string) error {
	f, err := createTraceFile(c.Sandbox(ctx), filePath)
	if err != nil {
		return err
	}
	out := &traceFile{f: f}
	if strings.HasSuffix(f.Name(), ".gz") {
		out.zw = gzip.NewWriter(f)
	}
	sctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadline(ctx, dl.Add(-traceHeadroom))
		defer cancel()
	}
	res, err := Of(c.Page()).StopTrace(sctx, TraceStop{Out: out, Options: ptrace.Options{}})
	if err == nil {
		err = out.Close()
	} else {
		out.Close()
	}
	if err != nil {
		os.Remove(f.Name())
		return traceError(c, err, true)
	}
	c.Reply().State(res.State)
	c.Reply().Line("The raw trace data was saved to %s.", f.Name())
	c.Reply().Line("The performance trace has been stopped.")
	if res.Report == nil {
		reason, ok := agenterr.Reason(res.AnalyzeErr)
		if !ok {
			return agenterr.Hide("The trace was saved but could not be analysed (tabhive's log has why); open it in DevTools' Performance panel instead.", res.AnalyzeErr)
		}
		return fmt.Errorf("The trace was saved but could not be analysed (%s); open it in DevTools' Performance panel instead.", reason)
	}
	c.Reply().Line("%s", res.Report.Summary())
	return nil
}

// createTraceFile makes the trace's file: filePath, with .json unless it
// ends in .gz, or a new compressed file in the session's private directory.
func createTraceFile(sb *sandbox.Sandbox, filePath string) (*sandbox.File, error) {
	if filePath == "" {
		return sb.CreateTemp("trace.json.gz")
	}
	ext := ".json"
	if strings.HasSuffix(filePath, ".gz") {
		ext = ".gz"
	}
	return sb.Create(filePath, ext)
}

// traceFile is the trace being written: gzip-compressed when its name ends
// in .gz.
type traceFile struct {
	f  *sandbox.File
	zw *gzip.Writer
}

func (t *traceFile) Write(p []byte) (int, error) {
	if t.zw != nil {
		return t.zw.Write(p)
	}
	return t.f.Write(p)
}

// Close finishes and closes the file, reporting the first error.
func (t *traceFile) Close() error {
	var err error
	if t.zw != nil {
		err = t.zw.Close()
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("could not write %s: %w", t.f.Name(), err)
	}
	return nil
}

var _ io.WriteCloser = (*traceFile)(nil)

// traceError turns a tracing error into its sentence. stopping tells
// whether a trace was being saved (its partial data is discarded).
func traceError(c tool.Call, err error, stopping bool) error {
	var de *TraceDiscardedError
	discarded := errors.As(err, &de)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrTracingElsewhere):
		return &tool.ArgError{Msg: "Chrome is already recording a trace that this server did not start (DevTools, or another client of this browser); Chrome records one at a time. Stop that recording, then start again."}
	case errors.Is(err, browser.ErrTraceHeld), errors.Is(err, ErrTraceRunning):
		return &tool.ArgError{Msg: fmt.Sprintf("A performance trace is already running on page %d. Use performance_stop_trace to stop it: one trace at a time can run on a page.", c.PageID())}
	case errors.Is(err, ErrNoTrace):
		return &tool.ArgError{Msg: fmt.Sprintf("No performance trace is running on page %d. Start one with performance_start_trace.", c.PageID())}
	case errors.Is(err, page.ErrClosed), errors.Is(err, page.ErrDisconnected), errors.Is(err, page.ErrStopped):
		if discarded || stopping {
			return &tool.ArgError{Msg: fmt.Sprintf("Page %d was closed while its performance trace was recording; the partial trace was discarded. Call list_pages to see open pages.", c.PageID())}
		}
	}
	if be := (*browser.TraceBusyError)(nil); errors.As(err, &be) {
		return &tool.ArgError{Msg: fmt.Sprintf("Page %d is recording a performance trace, and Chrome records one at a time: stop it with performance_stop_trace (pageId %d), or start this one again once it has finished.", be.Page, be.Page)}
	}
	if discarded && c.OutOfBudget(err) {
		stopping = true
	}
	if stopping && (c.OutOfBudget(err) || errors.Is(err, context.DeadlineExceeded)) {
		return &tool.ArgError{Msg: fmt.Sprintf("The performance trace of page %d could not be saved within the %v budget; the partial trace was discarded.", c.PageID(), c.Budget())}
	}
	return err
}

func runAnalyzeInsight(ctx context.Context, c tool.Call, a *analyzeInsightArgs) error {
	rep := Of(c.Page()).LastTrace()
	if rep == nil {
		// Not an error, as in chrome-devtools-mcp, whose sentence comes
		// first; tabhive keeps a trace per page, so the reply says which.
		c.Reply().Line("No recorded traces found. Record a performance trace so you have Insights to analyze.")
		c.Reply().Line("No trace was recorded on page %d: record one with performance_start_trace, or pass the pageId of a page that recorded one.", c.PageID())
		return nil
	}
	text, setFound, ok := rep.Insight(a.InsightSetID, a.InsightName)
	if !setFound {
		var ids []string
		for _, set := range rep.Sets {
			ids = append(ids, set.ID)
		}
		return &tool.ArgError{Msg: fmt.Sprintf("No insight set %q in the last trace of page %d. Only use ids from its \"Available insight sets\" list: %s.", a.InsightSetID, c.PageID(), strings.Join(ids, ", "))}
	}
	if !ok {
		return &tool.ArgError{Msg: fmt.Sprintf("No insight named %q in insight set %s. Use a name from its list of available insights, or one of %s.", a.InsightName, a.InsightSetID, strings.Join(ptrace.InsightNames, ", "))}
	}
	c.Reply().Line("%s", text)
	return nil
}
