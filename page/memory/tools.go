package memory

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/internal/devtools/heap"
	"github.com/tabhive/tabhive/internal/devtools/heap/heapcache"
	"github.com/tabhive/tabhive/internal/devtools/heap/heaptext"
	"github.com/tabhive/tabhive/transport/tool"
)

// The memory tools: take_heapsnapshot, listed by default, and with
// --memory-debugging (--experimental-memory) the thirteen tools that
// analyse snapshots, as chrome-devtools-mcp 1.11 has them. The analysis is
// tabhive's own, so it needs no browser: those tools never start one. The
// handlers here decode the arguments, find the snapshot in the server's
// cache (internal/devtools/heap/heapcache), ask the engine
// (internal/devtools/heap) and reply with its text
// (internal/devtools/heap/heaptext).

// Config says which memory tools a server offers and how long a snapshot
// may take.
type Config struct {
	// Debugging adds the heap-snapshot analysis tools
	// (--memory-debugging, --experimental-memory).
	Debugging bool
	// SnapshotBudget, if not nil, returns how long take_heapsnapshot may
	// take for a heap of heapBytes. If nil, [Budget], at most 30 minutes.
	SnapshotBudget func(heapBytes int64) time.Duration
}

// tools are the memory tools of one server.
type tools struct {
	cfg Config
	// heaps are the sessions' loaded snapshots, the server's (it drops a
	// session's when the session ends).
	heaps *heapcache.Cache
}

const (
	// heapSnapshotBudget bounds take_heapsnapshot from outside; the page
	// gives the snapshot a budget of its own, scaled to the heap's size
	// (see [Budget]), at most maxHeapSnapshotBudget.
	heapSnapshotBudget    = maxHeapSnapshotBudget + tool.Overhead
	maxHeapSnapshotBudget = 30 * time.Minute
	// analysisBudget bounds an analysis call; loading a big snapshot is
	// most of it, and goes on for the next call if this runs out.
	analysisBudget = 5 * time.Minute
)

// Tools returns take_heapsnapshot, and the analysis tools when memory
// debugging is on, which load snapshots into heaps.
func Tools(cfg Config, heaps *heapcache.Cache) []*tool.Tool {
	s := &tools{cfg: cfg, heaps: heaps}
	tools := []*tool.Tool{
		tool.Define(tool.Tool{Name: "take_heapsnapshot", Page: true,
			Description: "Capture a heap snapshot of the target page. Use to analyze the memory distribution of JavaScript objects and debug memory leaks."},
			tool.Fixed[takeHeapArgs](heapSnapshotBudget), s.takeHeapSnapshot),
	}
	if !s.cfg.Debugging {
		return tools
	}
	analysis := func(t tool.Tool) tool.Tool {
		t.ReadOnly, t.NoBrowser = true, true
		return t
	}
	return append(tools,
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_summary",
			Description: "Loads and caches a memory heapsnapshot and returns snapshot summary stats, including native contexts and their sizes, and retained by context summary."}),
			tool.Fixed[heapSummaryArgs](analysisBudget), s.heapSummary),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_details",
			Description: "Loads and caches a memory heapsnapshot and returns all available information including statistics, static data, and aggregated node information. Supports pagination for aggregates."}),
			tool.Fixed[heapDetailsArgs](analysisBudget), s.heapDetails),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_class_nodes",
			Description: "Loads and caches a memory heapsnapshot and returns instances of a specific class with their IDs."}),
			tool.Fixed[heapClassNodesArgs](analysisBudget), s.heapClassNodes),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_retainers",
			Description: "Loads and caches a memory heapsnapshot and returns retainers for a specific node ID."}),
			tool.Fixed[heapNodePagedArgs](analysisBudget), s.heapRetainers),
		tool.Define(tool.Tool{Name: "close_heapsnapshot", NoBrowser: true,
			Description: "Closes a previously loaded and cached memory heapsnapshot, freeing its memory."},
			tool.Fixed[heapCloseArgs](tool.ListBudget), s.heapClose),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_retaining_paths",
			Description: "Loads and caches a memory heapsnapshot and returns retaining paths for a specific node ID. This helps to understand why a node is not being garbage collected."}),
			tool.Fixed[heapPathsArgs](analysisBudget), s.heapPaths),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_edges",
			Description: "Loads and caches a memory heapsnapshot and returns outgoing edges (references) for a specific node ID."}),
			tool.Fixed[heapEdgesArgs](analysisBudget), s.heapEdges),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_dominators",
			Description: "Loads and caches a memory heapsnapshot and returns the dominator chain for a specific node ID. This helps to identify which objects are keeping the target node alive."}),
			tool.Fixed[heapNodeArgs](analysisBudget), s.heapDominators),
		tool.Define(analysis(tool.Tool{Name: "compare_heapsnapshots",
			Description: "Loads and caches two memory heapsnapshots and returns the comparison. If classIndex is provided, returns detailed diff for that class, otherwise returns summary diff."}),
			tool.Fixed[heapCompareArgs](analysisBudget), s.heapCompare),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_duplicate_strings",
			Description: "Loads and caches a memory heapsnapshot and returns duplicate strings grouped by their value."}),
			tool.Fixed[heapPagedArgs](analysisBudget), s.heapDuplicates),
		tool.Define(analysis(tool.Tool{Name: "get_heapsnapshot_object_details",
			Description: "Loads and caches a memory heapsnapshot and returns detailed information about a specific object by its node ID, including size, type, distance, and DOM detachedness."}),
			tool.Fixed[heapNodeArgs](analysisBudget), s.heapObject),
		tool.Define(analysis(tool.Tool{Name: "query_heapsnapshot_objects",
			Description: "Loads and caches a memory heapsnapshot and queries objects matching specific filters (className, propertyName, nodeType, retainedSize, selfSize, isDetached, sortBy)."}),
			tool.Fixed[heapQueryArgs](analysisBudget), s.heapQuery),
		tool.Define(analysis(tool.Tool{Name: "analyze_heapsnapshot_contexts",
			Description: "Loads and caches a memory heapsnapshot to identify and rank closure contexts holding dead captured fields—variables no remaining live closure can read. Scopes are ranked globally by the retained size of these dead values to provide a prioritizing heuristic, rather than an exact measure of reclaimable bytes."}),
			tool.Fixed[heapContextsArgs](analysisBudget), s.heapContexts),
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
func (s *tools) snapshot(ctx context.Context, c tool.Call, path string) (*heap.Snapshot, func(), error) {
	return s.heaps.Use(ctx, c.Owner(), c.Sandbox(ctx), path)
}

// analyse runs query on the call's session's snapshot at path, loaded for
// as long as it runs, and replies with the lines it returns.
func (s *tools) analyse(ctx context.Context, c tool.Call, path string, query func(*heap.Snapshot) ([]string, error)) error {
	snap, done, err := s.snapshot(ctx, c, path)
	if err != nil {
		return err
	}
	defer done()
	lines, err := query(snap)
	if err != nil {
		return err
	}
	c.Reply().Lines(lines...)
	return nil
}

func (s *tools) heapSummary(ctx context.Context, c tool.Call, a *heapSummaryArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		return heaptext.Summary(ctx, snap, heaptext.MaxNameLength(a.MaxNameLength))
	})
}

func (s *tools) heapDetails(ctx context.Context, c tool.Call, a *heapDetailsArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		aggs, err := snap.Aggregates(ctx, a.FilterName, a.ObjectID)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.Details(aggs, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapClassNodes(ctx context.Context, c tool.Call, a *heapClassNodesArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		nodes, err := snap.ClassNodes(ctx, *a.ID, a.FilterName, a.ObjectID)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.Nodes(nodes, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapRetainers(ctx context.Context, c tool.Call, a *heapNodePagedArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		edges, err := snap.Retainers(ctx, *a.NodeID)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.Edges(edges, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapClose(ctx context.Context, c tool.Call, a *heapCloseArgs) error {
	canonical, err := c.Sandbox(ctx).Resolve(a.FilePath)
	if err != nil || !s.heaps.CloseFile(c.Owner(), canonical) {
		return &heaptext.Error{Sentence: fmt.Sprintf("Failed to close heap snapshot: %s was not loaded.", a.FilePath)}
	}
	c.Reply().Line("Closed heap snapshot: %s", a.FilePath)
	return nil
}

func (s *tools) heapPaths(ctx context.Context, c tool.Call, a *heapPathsArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		paths, limits, err := snap.RetainingPaths(ctx, *a.NodeID, a.MaxDepth, a.MaxNodes, a.MaxSiblings)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.RetainingPaths(paths, limits, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapEdges(ctx context.Context, c tool.Call, a *heapEdgesArgs) error {
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
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		edges, err := snap.Edges(ctx, *a.NodeID, opts)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.Edges(edges, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapDominators(ctx context.Context, c tool.Call, a *heapNodeArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		chain, err := snap.Dominators(ctx, *a.NodeID)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.Dominators(chain, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapCompare(ctx context.Context, c tool.Call, a *heapCompareArgs) error {
	base, doneBase, err := s.snapshot(ctx, c, a.BaseFilePath)
	if err != nil {
		return err
	}
	defer doneBase()
	cur, doneCur, err := s.snapshot(ctx, c, a.CurrentFilePath)
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
	c.Reply().Lines(lines...)
	return nil
}

func (s *tools) heapDuplicates(ctx context.Context, c tool.Call, a *heapPagedArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		groups, err := snap.DuplicateStrings(ctx)
		if err != nil {
			return nil, err
		}
		return heaptext.DuplicateStrings(groups, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapObject(ctx context.Context, c tool.Call, a *heapNodeArgs) error {
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		info, err := snap.ObjectInfo(ctx, *a.NodeID)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.Object(info, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapQuery(ctx context.Context, c tool.Call, a *heapQueryArgs) error {
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
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		nodes, err := snap.QueryObjects(ctx, q)
		if err != nil {
			return nil, queryError(err)
		}
		return heaptext.Nodes(nodes, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

func (s *tools) heapContexts(ctx context.Context, c tool.Call, a *heapContextsArgs) error {
	var r *heaptext.ByteRange
	if a.RetainedSize != nil {
		v, err := byteRange("analyze_heapsnapshot_contexts", "retainedSize", *a.RetainedSize)
		if err != nil {
			return err
		}
		r = &v
	}
	return s.analyse(ctx, c, a.FilePath, func(snap *heap.Snapshot) ([]string, error) {
		analysis, err := snap.AnalyzeContexts(ctx)
		if err != nil {
			return nil, err
		}
		return heaptext.Contexts(analysis, r, a.ScopeInfoNodeID, a.PageIdx, a.PageSize, heaptext.MaxNameLength(a.MaxNameLength)), nil
	})
}

// queryError words the engine's errors: a pattern the engine cannot run
// is bad input; the rest are the memory tools' own sentences.
func queryError(err error) error {
	if pe := (*heap.PatternError)(nil); errors.As(err, &pe) {
		return &tool.ArgError{Msg: fmt.Sprintf("Invalid argument %q: %s is not a regular expression this server can run (%v); give plain text or a simpler pattern.", pe.Field, strconv.Quote(pe.Pattern), pe.Err)}
	}
	return heaptext.QueryError(err)
}

// byteRange reads a size argument of tool.
func byteRange(toolName, arg, v string) (heaptext.ByteRange, error) {
	r, err := heaptext.ParseByteRange(v)
	if err != nil {
		return heaptext.ByteRange{}, tool.BadArgs("Invalid argument %q for tool %q: %v", arg, toolName, agenterr.Period(err.Error()))
	}
	return r, nil
}

// takeHeapSnapshot writes a snapshot of the page's heap into the sandbox as
// Chrome sends it, with progress notifications when the client asked for
// them.
func (s *tools) takeHeapSnapshot(ctx context.Context, c tool.Call, a *takeHeapArgs) error {
	f, err := c.Sandbox(ctx).Create(a.FilePath, ".heapsnapshot")
	if err != nil {
		return err
	}
	path := f.Name()
	w := bufio.NewWriterSize(f, 1<<20)
	opts := Options{
		Out: w,
		Budget: func(heapBytes int64) time.Duration {
			if f := s.cfg.SnapshotBudget; f != nil {
				return f(heapBytes)
			}
			return min(Budget(heapBytes), maxHeapSnapshotBudget)
		},
	}
	report, stop := c.Progress(ctx, func(done, total int) string {
		return fmt.Sprintf("Serialized %d of %d heap objects", done, total)
	})
	opts.Progress = report
	res, err := Of(c.Page()).Take(ctx, opts)
	stop()
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A cut-short snapshot is of no use to anyone: do not leave it.
		os.Remove(path)
		if errors.Is(err, ErrBusy) {
			return &heaptext.Error{Sentence: "The page's renderer is still writing an earlier heap snapshot, whose call ran out of its budget; retry take_heapsnapshot once it is done (the page's other tools answer when it is)."}
		}
		var be *BudgetError
		if errors.As(err, &be) {
			return &heaptext.Error{Sentence: fmt.Sprintf("The heap snapshot did not finish within its %v budget, scaled to the page's %d MB of JavaScript heap, so nothing was saved: the page's renderer finishes it in the background and answers again once it has; retry then, or shrink the heap first.", be.Budget, max(be.HeapBytes>>20, 1))}
		}
		return err
	}
	c.Reply().State(res.State)
	c.Reply().Line("Heap snapshot saved to %s", path)
	return nil
}
