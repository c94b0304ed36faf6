// Package transport is tabhive's MCP server: the tool schemas, per-session
// state (the selected page), argument validation, turning each tool call into
// a message with a deadline for the supervisor or a page actor, and the reply
// text. It serves stdio; transport/httpserve serves it over streamable HTTP,
// through the few methods of its Core ([Server.MCP],
// [Server.RemoteSessionOpened], [Server.BrowserReadiness],
// [Server.MetricsGatherer]).
//
// It never reaches into actor state: it calls [browser.Supervisor] and
// [page.Actor] methods, each of which is a message to an actor. Calls of
// one session run concurrently (the SDK does not serialise them); calls to
// one page are ordered by that page's actor, and calls to different pages
// run in parallel. There is no tool-wide lock.
package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/internal/devtools/heap/heapcache"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/devtools"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/screencast"
	"github.com/tabhive/tabhive/page/screenshot"
	"github.com/tabhive/tabhive/transport/sandbox"
	kit "github.com/tabhive/tabhive/transport/tool"
)

// Config configures the MCP server. The zero value of each field means its
// documented default.
type Config struct {
	// Version is reported to clients as the server's version.
	Version string
	// Logger receives a line per tool call and the server's diagnostics.
	Logger zerolog.Logger
	// LaunchTimeout bounds starting the browser on the first call that needs
	// it, before the call's own budget starts. If zero, 60s.
	LaunchTimeout time.Duration
	// Unrestricted lets file tools read and write anywhere but in the
	// browser's profile when the client declares no MCP roots
	// (--allow-unrestricted-paths); otherwise such a client may use only
	// the workspaces and its session's private directory.
	Unrestricted bool
	// TrustClientRoots lets a client's MCP roots widen what its file tools
	// may read and write when it connects over streamable HTTP
	// (--trust-client-roots). Over HTTP the client is remote: its roots
	// name its own machine, not the server's, so by default they are
	// ignored and a session has its private directory and the workspaces
	// only. Over stdio (a session without an Mcp-Session-Id) roots always
	// apply: the client runs on the machine as its owner.
	TrustClientRoots bool
	// Workspaces are directories every session's file tools may read and
	// write, besides the client's MCP roots and the session's private
	// directory, $TMPDIR/tabhive-files-XXXXXXXX/session-XXXXXXXX, where
	// relative paths and screenshots over 2 MB go (--workspace,
	// --filesystem-root; repeatable). Check them at start with
	// [sandbox.CheckRoots]: one that does not exist is otherwise skipped.
	Workspaces []string
	// ProfileDir is the browser profile given with --user-data-dir, if any.
	// No file tool reads or writes inside it, whatever the roots and
	// workspaces, nor inside the launched browser's profile
	// ([browser.Supervisor.ProfileDir]) or the default profile
	// ($XDG_CACHE_HOME/tabhive/chrome-profile), which are protected without
	// it.
	ProfileDir string
	// Input sets which input tools are offered (--experimental-vision).
	Input input.Config
	// Screenshot sets take_screenshot's defaults and size limits.
	Screenshot screenshot.Config
	// IsolateSessions gives each MCP session a browser context of its own
	// (--isolate-sessions): it sees and touches only its own pages, which
	// are closed when the session ends. Otherwise sessions share the pages
	// but never each other's selection.
	IsolateSessions bool
	// MaxPagesPerSession limits the pages one session may have open; 0 means
	// no limit.
	MaxPagesPerSession int
	// Metrics receives the server's counters; pass the same Metrics's
	// PageHooks to the supervisor so that page events are counted too. If
	// nil, the server keeps metrics of its own.
	Metrics *Metrics
	// Policy is the URL policy (--allowed-url-pattern, --blocked-url-pattern,
	// --file-navigations, --javascript-evaluation). The browser enforces it
	// on every request; the tools refuse up front, with its sentence, a URL
	// it refuses and the agent's own JavaScript when it is off
	// (evaluate_script is then not offered). If nil, everything is allowed.
	Policy *urlpolicy.Policy
	// MaxReplyBytes bounds the text of every tool reply, in bytes: a longer
	// reply is cut and says how to get the rest (see [DefaultMaxReplyBytes]).
	// Zero or negative means the default, so that a reply is never
	// unbounded; values under [MinReplyBytes] are raised to it.
	MaxReplyBytes int
	// SessionID, if not nil, makes the id of each HTTP session: transport/httpserve's
	// SessionIDs, which starts each with the
	// instance's id, so that a router in front of several instances can
	// tell from the Mcp-Session-Id header alone which one holds a session
	// (--instance-id). If nil, session ids are random only.
	SessionID func() string
	// MemoryDebugging adds the heap-snapshot analysis tools
	// (--memory-debugging, --experimental-memory), as chrome-devtools-mcp's
	// --memoryDebugging does; take_heapsnapshot is there without it.
	MemoryDebugging bool
	// HeapSnapshotMemory bounds the memory the loaded heap snapshots of all
	// sessions take together, in bytes (--heap-snapshot-memory-bytes): the
	// least recently used are dropped to load another, and one that does
	// not fit alone is refused. If zero, [DefaultHeapSnapshotMemory].
	HeapSnapshotMemory int64
	// HeapSnapshotBudget, if not nil, returns how long take_heapsnapshot
	// may take on a page whose JavaScript heap uses heapBytes. If nil,
	// [memory.Budget], at most 30 minutes.
	HeapSnapshotBudget func(heapBytes int64) time.Duration
	// SnapshotMaxBytes bounds a snapshot's text in a reply
	// (--snapshot-max-bytes): a longer one is saved to a file in the
	// session's private directory and the reply gives its outline instead.
	// If zero, [DefaultSnapshotMaxBytes]; negative means no bound.
	SnapshotMaxBytes int
	// MaxSessionDisk bounds what the files one session writes hold on
	// disk together, in bytes (--max-session-disk; sandbox.Config.MaxBytes,
	// files.go). If zero, no bound.
	MaxSessionDisk int64
	// Screencast sets how screencast_start records (package page/screencast).
	Screencast screencast.Config
	// DevTools sets how the console and network tools show what they
	// collected (package page/devtools): --redact-network-headers.
	DevTools devtools.Config
	// Surface says which tools are listed and how (--slim, --category-*,
	// --page-id-routing, --experimental-structured-content).
	Surface SurfaceConfig
}

// Server is tabhive's MCP server. It is safe for concurrent use by any
// number of sessions.
type Server struct {
	cfg   Config
	log   zerolog.Logger
	sup   *browser.Supervisor
	mcp   *mcp.Server
	tools []*tool

	metrics  *Metrics
	heaps    *heapcache.Cache   // the sessions' loaded heap snapshots
	seen     *seenLedger        // what all sessions keep for diffs
	sessions sync.Map           // *mcp.ServerSession → *session
	nextCtx  atomic.Int64       // numbers isolated sessions' browser contexts
	watchers sync.WaitGroup     // one per session, ends with it; and roots requests
	closing  atomic.Bool        // set when Close starts
	life     context.Context    // ends when Close starts
	stop     context.CancelFunc // ends life: the metrics summary, a browser start from /readyz
	done     sync.WaitGroup     // the metrics summary goroutine

	inflight atomic.Int64 // tool calls in flight, for /metrics

	warmMu  sync.Mutex // guards warming and warmErr (remote.go)
	warming bool       // a browser start from /readyz is under way
	warmErr string     // why the last one failed, "" if it did not
}

// New returns a server whose tools drive the pages of sup.
func New(cfg Config, sup *browser.Supervisor) *Server {
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.LaunchTimeout == 0 {
		cfg.LaunchTimeout = 60 * time.Second
	}
	s := &Server{cfg: cfg, log: cfg.Logger, sup: sup, metrics: cfg.Metrics, seen: newSeenLedger(maxServerSeenBytes),
		heaps: heapcache.New(cfg.HeapSnapshotMemory)}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	s.metrics.gauges(sup.Count, s.sessionCount, func() int { return int(s.inflight.Load()) }, sup.Connected)
	ctx, stop := context.WithCancel(context.Background())
	s.life, s.stop = ctx, stop
	s.done.Add(1)
	go func() { defer s.done.Done(); s.metrics.logEvery(ctx, s.log, time.Minute) }()
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "tabhive", Title: "tabhive: parallel Chrome for AI agents", Version: cfg.Version},
		&mcp.ServerOptions{
			GetSessionID: cfg.SessionID,
			Instructions: "tabhive drives Chrome for AI agents, many tabs in parallel. It speaks chrome-devtools-mcp's tools. " +
				"Pass pageId to any page tool to act on that page regardless of the selected one: the safe way for parallel agents.",
			RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) {
				s.session(req.Session).rootsChanged()
			},
			// Ask for the client's roots as soon as it is ready, so that a
			// file-writing tool seldom has to wait for them.
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				sess := s.session(req.Session)
				if sess.rootsCapable {
					sess.fetchRoots()
				} else if sess.rootsIgnored {
					s.log.Debug().Msg("The client declared MCP roots over HTTP; they are ignored (they name the client's machine, not this one): " +
						"its file tools use its private directory and the workspaces. Start the server with --trust-client-roots to honour them.")
				} else if !s.cfg.Unrestricted {
					s.log.Warn().Msg("The connecting client did not negotiate the MCP roots capability. " +
						"File-writing tools will be restricted to the server's workspaces and a private directory under the OS temp directory. " +
						"To allow other paths, start the server with --allow-unrestricted-paths.")
				}
			},
		})
	for _, t := range s.toolList() {
		s.add(t)
	}
	s.serveFiles()
	return s
}

// MCP returns the underlying MCP server, for transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close ends every session and waits for their bookkeeping to finish.
func (s *Server) Close() {
	s.closing.Store(true)
	s.stop()
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	s.watchers.Wait()
	s.heaps.Close()
	s.done.Wait()
}

// Metrics returns the server's metrics.
func (s *Server) Metrics() *Metrics { return s.metrics }

func (s *Server) sessionCount() int {
	n := 0
	s.sessions.Range(func(any, any) bool { n++; return true })
	return n
}

// session returns the state of an MCP session, creating it on first use.
func (s *Server) session(ss *mcp.ServerSession) *session {
	if v, ok := s.sessions.Load(ss); ok {
		return v.(*session)
	}
	v, loaded := s.sessions.LoadOrStore(ss, s.newSession(ss))
	if !loaded && ss != nil {
		s.watchers.Add(1)
		sess := v.(*session)
		go func() { // owned by the session: ends when it closes
			defer s.watchers.Done()
			ss.Wait()
			s.sessions.Delete(ss)
			s.heaps.DropOwner(sess)
			s.seen.dropSession(sess) // what it kept for diffs goes with it
			if sess.remote.Load() {
				// Its client could reach the files only through the
				// session, as resources; they go with it.
				if err := sess.sandbox.RemovePrivate(); err != nil {
					s.log.Warn().Err(err).Msg("removing an ended session's files")
				}
			}
			if sess.isolated != "" {
				// The session's pages go with it.
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := s.sup.CloseContexts(ctx, sess.isolated); err != nil {
					ev := s.log.Warn()
					if s.closing.Load() {
						// Shutting down: the browser is being closed too,
						// and its contexts with it.
						ev = s.log.Debug()
					}
					ev.Err(err).Str("context", sess.isolated).Msg("closing an ended session's pages")
				}
			}
		}()
	}
	return v.(*session)
}

func (s *Server) newSession(ss *mcp.ServerSession) *session {
	sess := &session{ss: ss, background: &s.watchers, ledger: s.seen}
	cfg := s.sandboxConfig()
	cfg.Written = func(path string) { sess.written.add(path) }
	sess.sandbox = sandbox.New(cfg)
	if s.cfg.IsolateSessions {
		sess.isolated = fmt.Sprintf("session-%d", s.nextCtx.Add(1))
	}
	if ss != nil {
		// The SDK decodes a client's "roots" capability only into the
		// deprecated Roots struct, whose one field is listChanged: a client
		// that declares roots without it cannot be told from one without
		// roots, and is treated as having none (temp dir only).
		if p := ss.InitializeParams(); p != nil && p.Capabilities != nil && (p.Capabilities.RootsV2 != nil || p.Capabilities.Roots.ListChanged) {
			// A session over streamable HTTP has an Mcp-Session-Id; one
			// over stdio (or in process) has none. Over HTTP the roots
			// are the remote client's and are not asked for unless the
			// operator trusts them.
			if ss.ID() != "" && !s.cfg.TrustClientRoots {
				sess.rootsIgnored = true
			} else {
				sess.rootsCapable = true
				sess.rootsStale = true
			}
		}
	}
	return sess
}

// sandbox returns the file sandbox of the call's session, as a view that
// records the files the call writes: its reply links them (resources.go).
func (c *call) sandbox(ctx context.Context) *sandbox.Sandbox {
	return c.sess.files(ctx).Observe(c.files.add)
}

// tool is one MCP tool: its schema, its budget and its handler.
type tool struct {
	name        string
	description string
	readOnly    bool
	// page marks a page-scoped tool: it takes an optional pageId, runs on
	// that page or the session's selected one, and its reply carries the
	// page's open-dialog notice.
	page bool
	// action marks a tool that changes the page: when it runs out of
	// budget, the reply says the action may still take effect.
	action bool
	// noBrowser marks a tool that never needs the browser (it reads
	// files): calling it does not start one.
	noBrowser bool
	argType   reflect.Type
	// budget returns the call's deadline from its decoded arguments.
	budget func(args any) time.Duration
	run    func(ctx context.Context, c *call, args any) error
}

// pageArg is the optional pageId of every page-scoped tool.
type pageArg struct {
	PageID *int `json:"pageId" jsonType:"number" desc:"Targets a specific page by ID, whatever page is selected. Call list_pages to see ids. Defaults to the selected page."`
}

// call is one tool call in progress.
type call struct {
	s      *Server
	sess   *session
	r      *reply
	budget time.Duration // the call's deadline, from its start
	pageID int
	page   *page.Actor
	files  callFiles // written through c.sandbox, linked in the reply
	// progressToken is the client's token for progress notifications, nil
	// if it asked for none.
	progressToken any
	// pageGiven reports that the call named its page (pageId).
	pageGiven bool
	// err is the call's error, once finished, for structuredContent.
	err error
}

// define makes a tool from a typed handler.
func define[A any](t tool, budget func(*A) time.Duration, run func(ctx context.Context, c *call, a *A) error) *tool {
	t.argType = reflect.TypeFor[A]()
	t.budget = withSnapshotBudget(func(a any) time.Duration { return budget(a.(*A)) })
	t.run = func(ctx context.Context, c *call, a any) error { return run(ctx, c, a.(*A)) }
	return &t
}

// withSnapshotBudget adds the snapshot's budget to a call that ends with
// one.
func withSnapshotBudget(budget func(args any) time.Duration) func(args any) time.Duration {
	return func(a any) time.Duration {
		d := budget(a)
		if sn, ok := a.(kit.Snapshotter); ok && sn.WithSnapshot() {
			d += snapshotBudget
		}
		return d
	}
}

// fixed is a budget that does not depend on the arguments.
func fixed[A any](d time.Duration) func(*A) time.Duration { return func(*A) time.Duration { return d } }

func (s *Server) add(t *tool) {
	schema := inputSchema(t.argType)
	if t.page {
		s.pageIDSchema(t, schema)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("transport: schema of %s: %v", t.name, err))
	}
	s.tools = append(s.tools, t)
	s.mcp.AddTool(&mcp.Tool{
		Name:        t.name,
		Description: t.description,
		InputSchema: json.RawMessage(raw),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.handle(ctx, t, req), nil
	})
}

// handle runs one tool call from arguments to reply.
func (s *Server) handle(ctx context.Context, t *tool, req *mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	c := &call{s: s, sess: s.session(req.Session), r: &reply{}, progressToken: req.Params.GetProgressToken()}
	res, outcome := s.run(ctx, t, c, req.Params.Arguments)
	s.capReply(t, res, req.Params.Arguments)
	s.linkFiles(c, res)
	if s.cfg.Surface.StructuredContent {
		res.StructuredContent = c.r.structured(c.err, res)
	}
	s.metrics.observe(t.name, outcome, time.Since(start))
	ev := s.log.Debug()
	if res.IsError {
		ev = s.log.Info()
	}
	ev.Str("tool", t.name).Int("page", c.pageID).Str("outcome", outcome).
		Dur("took", time.Since(start)).Msg("tool call")
	return res
}

func (s *Server) run(ctx context.Context, t *tool, c *call, raw json.RawMessage) (*mcp.CallToolResult, string) {
	args := reflect.New(t.argType).Interface()
	var pa pageArg
	if t.page {
		// pageId travels with the tool's own arguments; split it off.
		var err error
		if raw, err = splitPageID(t.name, raw, &pa); err != nil {
			return c.r.render(nil, "", err), "bad-args"
		}
		if err := s.requirePageID(t, pa); err != nil {
			return c.r.render(nil, "", err), "bad-args"
		}
		c.pageGiven = pa.PageID != nil
	}
	if err := decodeArgs(t.name, raw, args); err != nil {
		return c.r.render(nil, "", err), "bad-args"
	}

	// Starting the browser has its own bound; the call's budget starts once
	// the browser is up.
	if !t.noBrowser {
		lctx, cancel := context.WithTimeout(ctx, s.cfg.LaunchTimeout)
		err := s.sup.Ensure(lctx)
		cancel()
		if err != nil {
			s.logInternal(t.name, 0, err)
			return c.r.render(nil, "", &argError{Msg: sentence(err)}), "no-browser"
		}
		if c.sess.browserChanged(s.sup.Generation()) {
			c.r.notice = reconnectNotice
		}
	}
	if c.sess.isolated != "" && !c.sess.contextReady.Load() {
		// So has making an isolated session's browser context, which
		// loads the storage state of --storage-state, if any.
		lctx, cancel := context.WithTimeout(ctx, s.cfg.LaunchTimeout)
		err := s.sup.Storage().PrepareContext(lctx, c.sess.isolated)
		cancel()
		if err != nil {
			return c.r.render(nil, "", &argError{Msg: sentence(err)}), "no-browser"
		}
		c.sess.contextReady.Store(true)
	}

	budget := t.budget(args)
	if t.page {
		// The page comes first, under a bound of its own: the CPU and
		// network it emulates stretch its own waits (as chrome-devtools-mcp's
		// do), and the
		// budget stretches as much as the longest of them, a navigation's.
		rctx, cancel := context.WithTimeout(ctx, listBudget)
		err := c.resolvePage(rctx, pa.PageID)
		cancel()
		if err != nil {
			return c.finish(ctx, t, err), "no-page"
		}
		budget += c.page.Timeouts().Navigation - page.DefaultNavigationTimeout
	}
	c.budget = budget
	ctx, cancel := context.WithTimeoutCause(ctx, budget, &budgetError{tool: t.name, budget: budget, action: t.action})
	defer cancel()

	started := time.Now()
	err := t.run(ctx, c, args)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		err = context.Cause(ctx)
	case errors.Is(err, context.Canceled) && c.page != nil:
		// The caller did not cancel (ctx is live): the page's actor is
		// stopping under the call, and its handler saw its own context
		// end. Say why the page went, not "cancelled".
		select {
		case <-c.page.Done():
			if perr := c.page.Err(); perr != nil {
				err = perr
			}
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
		}
	case errors.Is(err, context.DeadlineExceeded) && nearDeadline(ctx):
		// An inner wait, whose deadline is the call's minus headroom, ran
		// out first: the call ran out of its budget.
		err = &budgetError{tool: t.name, budget: budget, action: t.action}
	case errors.Is(err, context.DeadlineExceeded):
		// A step with a bound of its own (a page's setup, a browser's
		// start) ran out long before the call's budget: saying the budget
		// ran out would be untrue.
		err = &stepTimeoutError{tool: t.name, after: time.Since(started).Round(time.Second), budget: budget, action: t.action}
	}
	if t.noBrowser {
		return c.finish(ctx, t, err), outcome(err)
	}
	c.closeExcessPopups(ctx)
	if err == nil && c.sess.browserChanged(s.sup.Generation()) {
		// The browser was relaunched while the call ran (another call
		// found it gone): what the reply lists is the new browser's.
		c.r.notice = reconnectNotice
	}
	return c.finish(ctx, t, err), outcome(err)
}

// reconnectNotice heads a session's first reply from a relaunched or
// reconnected browser (chrome-devtools-mcp's wording).
const reconnectNotice = "Note: the browser was restarted or reconnected since the last call. Page ids have changed. Call list_pages to see open pages."

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case isBudget(err):
		return "timeout"
	}
	return "error"
}

func isBudget(err error) bool {
	_, ok := errorsAs[*budgetError](err)
	return ok
}

// splitPageID removes pageId from raw arguments into pa.
func splitPageID(tool string, raw json.RawMessage, pa *pageArg) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if len(raw) == 0 || string(raw) == "null" {
		return raw, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, badArgs("Invalid arguments for tool %q: the arguments must be a JSON object.", tool)
	}
	v, ok := m["pageId"]
	if !ok {
		return raw, nil
	}
	if err := decodeArgs(tool, json.RawMessage(`{"pageId":`+string(v)+`}`), pa); err != nil {
		return nil, err
	}
	delete(m, "pageId")
	return json.Marshal(m)
}

// resolvePage finds the page a page-scoped call acts on: pageId if given,
// else the session's selected page.
func (c *call) resolvePage(ctx context.Context, pageID *int) error {
	if pageID != nil {
		c.pageID = *pageID
	} else {
		pages, err := c.pages(ctx)
		if err != nil {
			return err
		}
		id, closed := c.sess.selectedPage(pages)
		if closed {
			return &argError{Msg: "The selected page has been closed. Call list_pages to see open pages."}
		}
		c.pageID = id
	}
	a, err := c.pageActor(ctx, c.pageID)
	if err != nil {
		return err
	}
	c.page = a
	return nil
}

// pages returns the pages the session may see, giving an isolated session
// its first page when it has none, as a fresh browser has one.
func (c *call) pages(ctx context.Context) ([]browser.PageInfo, error) {
	all, err := c.s.sup.Pages(ctx)
	if err != nil || c.sess.isolated == "" {
		return all, err
	}
	mine := c.visible(all)
	if len(mine) > 0 {
		return mine, nil
	}
	c.sess.firstPage.Lock()
	defer c.sess.firstPage.Unlock()
	if all, err = c.s.sup.Pages(ctx); err != nil {
		return nil, err
	}
	if mine = c.visible(all); len(mine) > 0 {
		return mine, nil
	}
	info, _, err := c.s.sup.NewPage(ctx, browser.NewPageOptions{Context: c.sess.isolated})
	if err != nil {
		return nil, err
	}
	c.sess.setGiven(info.ID)
	all, err = c.s.sup.Pages(ctx)
	return c.visible(all), err
}

// visible keeps the pages the session owns, with their contexts named as
// the session sees them.
func (c *call) visible(all []browser.PageInfo) []browser.PageInfo {
	var out []browser.PageInfo
	for _, p := range all {
		if c.sess.owns(p) {
			p.Context = c.sess.displayContext(p.Context)
			out = append(out, p)
		}
	}
	return out
}

// pageActor returns the actor of page id if the session may act on it.
// It fails closed: a page the registry does not list is no page, even if
// the browser could find it (the browser not yet started, a tab not yet
// registered), because whose it is cannot be known.
func (c *call) pageActor(ctx context.Context, id int) (*page.Actor, error) {
	if err := c.s.sup.Ensure(ctx); err != nil {
		return nil, err
	}
	if info, ok := c.s.sup.Info(id); !ok || !c.sess.owns(info) {
		return nil, &noPageError{id}
	}
	a, err := c.s.sup.Page(ctx, id)
	return a, noPage(err, id)
}

// reservePage takes a place for the page new_page is about to open under
// --max-pages-per-session, refusing when the session has no place left.
// The caller must call the returned function with the id of the page it
// opened, or 0 if it opened none.
func (c *call) reservePage(ctx context.Context) (opened func(id int), err error) {
	limit := c.s.cfg.MaxPagesPerSession
	if limit <= 0 {
		return func(id int) { c.sess.recordOpened(id, false) }, nil
	}
	all, err := c.s.sup.Pages(ctx)
	if err != nil {
		return nil, err
	}
	if c.sess.isolated != "" {
		all = c.visible(all)
	}
	if !c.sess.reservePage(all, limit) {
		return nil, fmt.Errorf("This session already has %d open pages, the most allowed (--max-pages-per-session). Close one with close_page first.", limit)
	}
	return func(id int) { c.sess.recordOpened(id, true) }, nil
}

// closeExcessPopups closes the popups that took a session past
// --max-pages-per-session, newest first, and says so in the reply. It runs
// after each of the session's calls: a popup opened by a click is closed
// before the click's reply, one opened later by a timer before the next
// reply.
func (c *call) closeExcessPopups(ctx context.Context) {
	limit := c.s.cfg.MaxPagesPerSession
	if limit <= 0 || !c.sess.trimming.TryLock() {
		return
	}
	defer c.sess.trimming.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listBudget)
	defer cancel()
	all, err := c.s.sup.Pages(ctx)
	if err != nil {
		return
	}
	for _, id := range c.sess.excessPopups(c.visible(all), limit) {
		err := c.s.sup.ClosePage(ctx, id)
		if err != nil && !errors.Is(err, browser.ErrNoPage) {
			c.s.log.Warn().Err(err).Int("page", id).Msg("closing a popup past --max-pages-per-session")
			continue
		}
		c.r.line("Closed page %d, a popup opened by a page of this session: the session already had %d open pages, the most allowed (--max-pages-per-session).", id, limit)
	}
}

// finish renders the reply, with the page list when the tool asked for it.
func (c *call) finish(ctx context.Context, t *tool, err error) *mcp.CallToolResult {
	c.err = err
	c.s.logInternal(t.name, c.pageID, err)
	if errors.Is(err, page.ErrNoSnapshot) {
		err = fmt.Errorf("No snapshot found for page %d. Use take_snapshot to capture one.", c.pageID)
	}
	if de, ok := errorsAs[*page.DialogError](err); ok && c.r.dialog == nil {
		d := de.Dialog
		c.r.dialog = &d
	}
	if !c.r.pages {
		return c.r.render(nil, "", err)
	}
	// The list outlives the call's own deadline: a call that ran out of
	// time still lists the pages, as upstream's does. But listing can
	// open the first page of an isolated session, so it has a bound of its
	// own and ends when the server closes, not whenever it would.
	lctx, cancel := context.WithTimeout(c.s.life, listBudget)
	defer cancel()
	infos, perr := c.pages(lctx)
	if perr != nil {
		return c.r.render(nil, "", err)
	}
	if c.s.cfg.Surface.Category("extensions") && c.sess.isolated == "" {
		c.r.workers = c.s.sup.Workers().List()
	}
	selected, fell := c.sess.pageList(infos)
	note := ""
	if fell {
		note = fmt.Sprintf("Note: the previously selected page was closed. Page %d is now selected.", selected)
	}
	lines := make([]pageLine, len(infos))
	for i, p := range infos {
		lines[i] = pageLine{info: p, selected: p.ID == selected}
	}
	return c.r.render(lines, note, err)
}
