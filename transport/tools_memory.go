package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/internal/devtools/heap"
	"github.com/tabhive/tabhive/internal/devtools/heap/heapcache"
	"github.com/tabhive/tabhive/internal/devtools/heap/heaptext"
	"github.com/tabhive/tabhive/page"
)

// The memory tools: take_heapsnapshot, listed by default, and with
// --memory-debugging (--experimental-memory) the thirteen tools that
// analyse snapshots, as chrome-devtools-mcp 1.11 has them. The analysis is
// tabhive's own, so it needs no browser: those tools never start one. The
// handlers here decode the arguments, find the snapshot in the server's
// cache (internal/devtools/heap/heapcache), ask the engine
// (internal/devtools/heap) and reply with its text
// (internal/devtools/heap/heaptext).

// DefaultHeapSnapshotMemory is the memory budget for loaded heap
// snapshots when [Config.HeapSnapshotMemory] is zero.
const DefaultHeapSnapshotMemory = heapcache.DefaultBudget

const (
	// heapSnapshotBudget bounds take_heapsnapshot from outside; the page
	// gives the snapshot a budget of its own, scaled to the heap's size
	// (see page.HeapSnapshotBudget), at most maxHeapSnapshotBudget.
	heapSnapshotBudget    = maxHeapSnapshotBudget + overhead
	maxHeapSnapshotBudget = 30 * time.Minute
	// analysisBudget bounds an analysis call; loading a big snapshot is
	// most of it, and goes on for the next call if this runs out.
	analysisBudget = 5 * time.Minute
)

// memoryTools returns take_heapsnapshot, and the analysis tools when
// memory debugging is on.
func (s *Server) memoryTools() []*tool {
	tools := []*tool{
		define(tool{name: "take_heapsnapshot", page: true,
			description: "Capture a heap snapshot of the target page. Use to analyze the memory distribution of JavaScript objects and debug memory leaks."},
			fixed[takeHeapArgs](heapSnapshotBudget), s.takeHeapSnapshot),
	}
	if !s.cfg.MemoryDebugging {
		return tools
	}
	analysis := func(t tool) tool {
		t.readOnly, t.noBrowser = true, true
		return t
	}
	return append(tools,
		define(analysis(tool{name: "get_heapsnapshot_summary",
			description: "Loads and caches a memory heapsnapshot and returns snapshot summary stats, including native contexts and their sizes, and retained by context summary."}),
			fixed[heapSummaryArgs](analysisBudget), s.heapSummary),
		define(analysis(tool{name: "get_heapsnapshot_details",
			description: "Loads and caches a memory heapsnapshot and returns all available information including statistics, static data, and aggregated node information. Supports pagination for aggregates."}),
			fixed[heapDetailsArgs](analysisBudget), s.heapDetails),
		define(analysis(tool{name: "get_heapsnapshot_class_nodes",
			description: "Loads and caches a memory heapsnapshot and returns instances of a specific class with their IDs."}),
			fixed[heapClassNodesArgs](analysisBudget), s.heapClassNodes),
		define(analysis(tool{name: "get_heapsnapshot_retainers",
			description: "Loads and caches a memory heapsnapshot and returns retainers for a specific node ID."}),
			fixed[heapNodePagedArgs](analysisBudget), s.heapRetainers),
		define(tool{name: "close_heapsnapshot", noBrowser: true,
			description: "Closes a previously loaded and cached memory heapsnapshot, freeing its memory."},
			fixed[heapCloseArgs](listBudget), s.heapClose),
		define(analysis(tool{name: "get_heapsnapshot_retaining_paths",
			description: "Loads and caches a memory heapsnapshot and returns retaining paths for a specific node ID. This helps to understand why a node is not being garbage collected."}),
			fixed[heapPathsArgs](analysisBudget), s.heapPaths),
		define(analysis(tool{name: "get_heapsnapshot_edges",
			description: "Loads and caches a memory heapsnapshot and returns outgoing edges (references) for a specific node ID."}),
			fixed[heapEdgesArgs](analysisBudget), s.heapEdges),
		define(analysis(tool{name: "get_heapsnapshot_dominators",
			description: "Loads and caches a memory heapsnapshot and returns the dominator chain for a specific node ID. This helps to identify which objects are keeping the target node alive."}),
			fixed[heapNodeArgs](analysisBudget), s.heapDominators),
		define(analysis(tool{name: "compare_heapsnapshots",
			description: "Loads and caches two memory heapsnapshots and returns the comparison. If classIndex is provided, returns detailed diff for that class, otherwise returns summary diff."}),
			fixed[heapCompareArgs](analysisBudget), s.heapCompare),
		define(analysis(tool{name: "get_heapsnapshot_duplicate_strings",
			description: "Loads and caches a memory heapsnapshot and returns duplicate strings grouped by their value."}),
			fixed[heapPagedArgs](analysisBudget), s.heapDuplicates),
		define(analysis(tool{name: "get_heapsnapshot_object_details",
			description: "Loads and caches a memory heapsnapshot and returns detailed information about a specific object by its node ID, including size, type, distance, and DOM detachedness."}),
			fixed[heapNodeArgs](analysisBudget), s.heapObject),
		define(analysis(tool{name: "query_heapsnapshot_objects",
			description: "Loads and caches a memory heapsnapshot and queries objects matching specific filters (className, propertyName, nodeType, retainedSize, selfSize, isDetached, sortBy)."}),
			fixed[heapQueryArgs](analysisBudget), s.heapQuery),
		define(analysis(tool{name: "analyze_heapsnapshot_contexts",
			description: "Loads and caches a memory heapsnapshot to identify and rank closure contexts holding dead captured fields—variables no remaining live closure can read. Scopes are ranked globally by the retained size of these dead values to provide a prioritizing heuristic, rather than an exact measure of reclaimable bytes."}),
			fixed[heapContextsArgs](analysisBudget), s.heapContexts),
	)
}

type takeHeapArgs struct {
	FilePath string `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to save the heapsnapshot to."`
}

type heapSummaryArgs struct {
	FilePath      string `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	MaxNameLength *int   `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
}

type heapDetailsArgs struct {
	FilePath      string   `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	FilterName    string   `json:"filterName" enum:"objectsRetainedByDetachedDomNodes,objectsRetainedByConsole,objectsRetainedByEventHandlers,objectsRetainedByContexts,sharedNativeContext,noNativeContext,attributedToSpecificNativeContext" desc:"An optional filter to apply to the aggregates."`
	ObjectID      *float64 `json:"objectId" desc:"The object ID (nodeId) of the specific native context to filter by when filterName is attributedToSpecificNativeContext."`
	MaxNameLength *int     `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
	PageIdx       *int     `json:"pageIdx" min:"0" desc:"The page index for pagination of aggregates."`
	PageSize      *int     `json:"pageSize" min:"1" desc:"The page size for pagination of aggregates."`
}

type heapClassNodesArgs struct {
	FilePath      string   `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	ID            *float64 `json:"id" required:"true" desc:"The ID for the class, obtained from details."`
	FilterName    string   `json:"filterName" enum:"objectsRetainedByDetachedDomNodes,objectsRetainedByConsole,objectsRetainedByEventHandlers,objectsRetainedByContexts,sharedNativeContext,noNativeContext,attributedToSpecificNativeContext" desc:"An optional filter to apply to the nodes."`
	ObjectID      *float64 `json:"objectId" desc:"The object ID (nodeId) of the specific native context to filter by when filterName is attributedToSpecificNativeContext."`
	MaxNameLength *int     `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
	PageIdx       *int     `json:"pageIdx" min:"0" desc:"The page index for pagination."`
	PageSize      *int     `json:"pageSize" min:"1" desc:"The page size for pagination."`
}

type heapNodePagedArgs struct {
	FilePath      string   `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	NodeID        *float64 `json:"nodeId" required:"true" desc:"The node ID to get retainers for."`
	MaxNameLength *int     `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
	PageIdx       *int     `json:"pageIdx" min:"0" desc:"The page index for pagination."`
	PageSize      *int     `json:"pageSize" min:"1" desc:"The page size for pagination."`
}

type heapCloseArgs struct {
	FilePath string `json:"filePath" required:"true" desc:"A path to the .heapsnapshot file to close."`
}

type heapPathsArgs struct {
	FilePath      string   `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	NodeID        *float64 `json:"nodeId" required:"true" desc:"The node ID to get retaining paths for."`
	MaxDepth      *float64 `json:"maxDepth" desc:"The maximum depth to search for retaining paths."`
	MaxNodes      *float64 `json:"maxNodes" desc:"The maximum number of nodes to return."`
	MaxSiblings   *float64 `json:"maxSiblings" desc:"The maximum number of siblings to return."`
	MaxNameLength *int     `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
}

type heapEdgesArgs struct {
	FilePath          string   `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	NodeID            *float64 `json:"nodeId" required:"true" desc:"The node ID to get outgoing edges for."`
	SortBy            string   `json:"sortBy" enum:"retainedSize,selfSize,name" desc:"Sort order for edges. Default is retainedSize."`
	RetainedSize      *string  `json:"retainedSize" desc:"Inclusive retained size range (e.g. \"1MB-2MB\", \"-1MB\", or \"1MB-\") for target nodes. A single value is treated as a minimum. Currently, only the lower bound is applied."`
	ExcludePrimitives *bool    `json:"excludePrimitives" desc:"Whether to exclude primitive target nodes. Default is true."`
	MaxNameLength     *int     `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
	PageIdx           *int     `json:"pageIdx" min:"0" desc:"The page index for pagination."`
	PageSize          *int     `json:"pageSize" min:"1" desc:"The page size for pagination."`
}

type heapNodeArgs struct {
	FilePath      string   `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	NodeID        *float64 `json:"nodeId" required:"true" desc:"The node ID."`
	MaxNameLength *int     `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
}

type heapCompareArgs struct {
	BaseFilePath    string   `json:"baseFilePath" required:"true" desc:"A path to the base .heapsnapshot file (earlier snapshot)."`
	CurrentFilePath string   `json:"currentFilePath" required:"true" desc:"A path to the current .heapsnapshot file (later snapshot)."`
	ClassIndex      *float64 `json:"classIndex" desc:"Optional 0-based index of the class in the summary list to filter results, showing individual objects."`
	MaxNameLength   *int     `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
	PageIdx         *int     `json:"pageIdx" min:"0" desc:"The page index for pagination."`
	PageSize        *int     `json:"pageSize" min:"1" desc:"The page size for pagination."`
}

type heapPagedArgs struct {
	FilePath      string `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	PageIdx       *int   `json:"pageIdx" min:"0" desc:"The page index for pagination."`
	PageSize      *int   `json:"pageSize" min:"1" desc:"The page size for pagination."`
	MaxNameLength *int   `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
}

type heapQueryArgs struct {
	FilePath      string  `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	ClassName     string  `json:"className" desc:"Optional regex or text matching object class name."`
	PropertyName  string  `json:"propertyName" desc:"Optional property name filter for outgoing reference edges."`
	NodeType      string  `json:"nodeType" desc:"Optional V8 node type filter (e.g. object, closure, string, array, code)."`
	RetainedSize  *string `json:"retainedSize" desc:"Inclusive retained size range (e.g. \"1MB-2MB\", \"-1MB\", or \"1MB-\"). A single value is treated as a minimum."`
	SelfSize      *string `json:"selfSize" desc:"Inclusive self size range (e.g. \"1MB-2MB\", \"-1MB\", or \"1MB-\"). A single value is treated as a minimum."`
	IsDetached    *bool   `json:"isDetached" desc:"Whether to filter for detached DOM nodes."`
	SortBy        string  `json:"sortBy" enum:"retainedSize,selfSize,id" desc:"Sort order for results. Default is retainedSize."`
	PageIdx       *int    `json:"pageIdx" min:"0" desc:"The page index for pagination."`
	PageSize      *int    `json:"pageSize" min:"1" desc:"The page size for pagination."`
	MaxNameLength *int    `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
}

type heapContextsArgs struct {
	FilePath        string  `json:"filePath" required:"true" desc:"A path to a .heapsnapshot file to read."`
	RetainedSize    *string `json:"retainedSize" desc:"Inclusive range for the dead-field score of a context (e.g. \"10KB\", \"1MB-2MB\", \"-1MB\", or \"1MB-\"). A single value is treated as a minimum."`
	ScopeInfoNodeID *int    `json:"scopeInfoNodeId" desc:"Only return contexts declared by the scope with this ScopeInfo node id, as reported in the scope header of a previous call."`
	MaxNameLength   *int    `json:"maxNameLength" min:"1" desc:"Maximum length of names before truncation. Defaults to 100."`
	PageIdx         *int    `json:"pageIdx" min:"0" desc:"The zero-based page index. Defaults to 0."`
	PageSize        *int    `json:"pageSize" min:"1" desc:"The number of contexts to return per page. Defaults to 20."`
}

// snapshot loads (or finds loaded) the call's session's snapshot at path.
func (c *call) snapshot(ctx context.Context, path string) (*heap.Snapshot, func(), error) {
	return c.s.heaps.Use(ctx, c.sess, c.sandbox(ctx), path)
}

func (s *Server) heapSummary(ctx context.Context, c *call, a *heapSummaryArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	lines, err := heaptext.Summary(ctx, snap, heaptext.MaxNameLength(a.MaxNameLength))
	if err != nil {
		return err
	}
	c.r.lines = append(c.r.lines, lines...)
	return nil
}

func (s *Server) heapDetails(ctx context.Context, c *call, a *heapDetailsArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	aggs, err := snap.Aggregates(ctx, a.FilterName, a.ObjectID)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.Details(aggs, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapClassNodes(ctx context.Context, c *call, a *heapClassNodesArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	nodes, err := snap.ClassNodes(ctx, *a.ID, a.FilterName, a.ObjectID)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.Nodes(nodes, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapRetainers(ctx context.Context, c *call, a *heapNodePagedArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	edges, err := snap.Retainers(ctx, *a.NodeID)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.Edges(edges, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapClose(ctx context.Context, c *call, a *heapCloseArgs) error {
	canonical, err := c.sandbox(ctx).Resolve(a.FilePath)
	if err != nil || !s.heaps.CloseFile(c.sess, canonical) {
		return &heaptext.Error{Sentence: fmt.Sprintf("Failed to close heap snapshot: %s was not loaded.", a.FilePath)}
	}
	c.r.line("Closed heap snapshot: %s", a.FilePath)
	return nil
}

func (s *Server) heapPaths(ctx context.Context, c *call, a *heapPathsArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	paths, limits, err := snap.RetainingPaths(ctx, *a.NodeID, a.MaxDepth, a.MaxNodes, a.MaxSiblings)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.RetainingPaths(paths, limits, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapEdges(ctx context.Context, c *call, a *heapEdgesArgs) error {
	opts := heap.EdgeOptions{SortBy: a.SortBy, ExcludePrimitives: a.ExcludePrimitives == nil || *a.ExcludePrimitives}
	if opts.SortBy == "" {
		opts.SortBy = "retainedSize"
	}
	if a.RetainedSize != nil {
		r, err := byteRange("get_heapsnapshot_edges", "retainedSize", *a.RetainedSize)
		if err != nil {
			return err
		}
		// As upstream: only the lower bound applies here.
		opts.MinRetainedSize = &r.Min
	}
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	edges, err := snap.Edges(ctx, *a.NodeID, opts)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.Edges(edges, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapDominators(ctx context.Context, c *call, a *heapNodeArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	chain, err := snap.Dominators(ctx, *a.NodeID)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.Dominators(chain, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapCompare(ctx context.Context, c *call, a *heapCompareArgs) error {
	base, doneBase, err := c.snapshot(ctx, a.BaseFilePath)
	if err != nil {
		return err
	}
	defer doneBase()
	cur, doneCur, err := c.snapshot(ctx, a.CurrentFilePath)
	if err != nil {
		return err
	}
	defer doneCur()
	diffs, err := heap.Compare(ctx, base, cur)
	if err != nil {
		return err
	}
	lines, err := heaptext.Compare(diffs, a.ClassIndex, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))
	if err != nil {
		return err
	}
	c.r.lines = append(c.r.lines, lines...)
	return nil
}

func (s *Server) heapDuplicates(ctx context.Context, c *call, a *heapPagedArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	groups, err := snap.DuplicateStrings(ctx)
	if err != nil {
		return err
	}
	c.r.lines = append(c.r.lines, heaptext.DuplicateStrings(groups, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapObject(ctx context.Context, c *call, a *heapNodeArgs) error {
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	info, err := snap.ObjectInfo(ctx, *a.NodeID)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.Object(info, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapQuery(ctx context.Context, c *call, a *heapQueryArgs) error {
	q := heap.Query{ClassName: a.ClassName, PropertyName: a.PropertyName, NodeType: a.NodeType, IsDetached: a.IsDetached, SortBy: a.SortBy}
	if a.RetainedSize != nil {
		r, err := byteRange("query_heapsnapshot_objects", "retainedSize", *a.RetainedSize)
		if err != nil {
			return err
		}
		q.MinRetained, q.MaxRetained = &r.Min, r.Max
	}
	if a.SelfSize != nil {
		r, err := byteRange("query_heapsnapshot_objects", "selfSize", *a.SelfSize)
		if err != nil {
			return err
		}
		q.MinSelf, q.MaxSelf = &r.Min, r.Max
	}
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	nodes, err := snap.QueryObjects(ctx, q)
	if err != nil {
		return heapError(err)
	}
	c.r.lines = append(c.r.lines, heaptext.Nodes(nodes, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

func (s *Server) heapContexts(ctx context.Context, c *call, a *heapContextsArgs) error {
	var r *heaptext.ByteRange
	if a.RetainedSize != nil {
		v, err := byteRange("analyze_heapsnapshot_contexts", "retainedSize", *a.RetainedSize)
		if err != nil {
			return err
		}
		r = &v
	}
	snap, done, err := c.snapshot(ctx, a.FilePath)
	if err != nil {
		return err
	}
	defer done()
	analysis, err := snap.AnalyzeContexts(ctx)
	if err != nil {
		return err
	}
	c.r.lines = append(c.r.lines, heaptext.Contexts(analysis, r, a.ScopeInfoNodeID, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength))...)
	return nil
}

// heapError words the engine's errors: a pattern the engine cannot run
// is bad input; the rest are the memory tools' own sentences.
func heapError(err error) error {
	if pe, ok := errorsAs[*heap.PatternError](err); ok {
		return &argError{Msg: fmt.Sprintf("Invalid argument %q: %s is not a regular expression this server can run (%v); give plain text or a simpler pattern.", pe.Field, strconv.Quote(pe.Pattern), pe.Err)}
	}
	return heaptext.QueryError(err)
}

// byteRange reads a size argument of tool.
func byteRange(tool, arg, v string) (heaptext.ByteRange, error) {
	r, err := heaptext.ParseByteRange(v)
	if err != nil {
		return heaptext.ByteRange{}, badArgs("Invalid argument %q for tool %q: %v", arg, tool, agenterr.Period(err.Error()))
	}
	return r, nil
}

// takeHeapSnapshot writes a snapshot of the page's heap into the sandbox as
// Chrome sends it, with progress notifications when the client asked for
// them.
func (s *Server) takeHeapSnapshot(ctx context.Context, c *call, a *takeHeapArgs) error {
	f, err := c.sandbox(ctx).Create(a.FilePath, ".heapsnapshot")
	if err != nil {
		return err
	}
	path := f.Name()
	w := bufio.NewWriterSize(f, 1<<20)
	opts := page.HeapSnapshotOptions{
		Out: w,
		Budget: func(heapBytes int64) time.Duration {
			if f := s.cfg.HeapSnapshotBudget; f != nil {
				return f(heapBytes)
			}
			return min(page.HeapSnapshotBudget(heapBytes), maxHeapSnapshotBudget)
		},
	}
	var progress *progressForwarder
	if c.progressToken != nil && c.sess.ss != nil {
		progress = startProgress(ctx, c.sess.ss, c.progressToken)
		opts.Progress = progress.report
	}
	res, err := c.page.TakeHeapSnapshot(ctx, opts)
	if progress != nil {
		progress.stop()
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A cut-short snapshot is of no use to anyone: do not leave it.
		os.Remove(path)
		if errors.Is(err, page.ErrHeapSnapshotBusy) {
			return &heaptext.Error{Sentence: "The page's renderer is still writing an earlier heap snapshot, whose call ran out of its budget; retry take_heapsnapshot once it is done (the page's other tools answer when it is)."}
		}
		var be *page.HeapSnapshotBudgetError
		if errors.As(err, &be) {
			return &heaptext.Error{Sentence: fmt.Sprintf("The heap snapshot did not finish within its %v budget, scaled to the page's %d MB of JavaScript heap, so nothing was saved: the page's renderer finishes it in the background and answers again once it has; retry then, or shrink the heap first.", be.Budget, max(be.HeapBytes>>20, 1))}
		}
		return err
	}
	c.r.state(res.State)
	c.r.line("Heap snapshot saved to %s", path)
	return nil
}

// progressForwarder sends a call's progress notifications from a goroutine
// of its own, so that the page's goroutine, which reports progress, never
// waits on the client. Only the latest report waits to be sent.
type progressForwarder struct {
	latest chan [2]int
	done   chan struct{}
	wg     sync.WaitGroup
}

func startProgress(ctx context.Context, ss *mcp.ServerSession, token any) *progressForwarder {
	p := &progressForwarder{latest: make(chan [2]int, 1), done: make(chan struct{})}
	p.wg.Add(1)
	go func() { // owned by the call: stop waits for it
		defer p.wg.Done()
		for {
			select {
			case v := <-p.latest:
				// Best effort: a client that cannot take a notification
				// loses it, and the snapshot goes on.
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(v[0]), Total: float64(v[1]),
					Message: fmt.Sprintf("Serialized %d of %d heap objects", v[0], v[1])})
			case <-p.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return p
}

// report queues a progress report, replacing one not yet sent; it never
// blocks.
func (p *progressForwarder) report(done, total int) {
	for {
		select {
		case p.latest <- [2]int{done, total}:
			return
		default:
		}
		select {
		case <-p.latest:
		default:
		}
	}
}

func (p *progressForwarder) stop() {
	close(p.done)
	p.wg.Wait()
}
