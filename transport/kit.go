package transport

// Tools that capabilities declare in their own packages (package
// transport/tool), served as the transport's own are.

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/internal/devtools/heap/heapcache"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
	kit "github.com/tabhive/tabhive/transport/tool"
)

// fromKit serves a capability's tool.
func fromKit(kt *kit.Tool) *tool {
	return &tool{
		name:        kt.Name,
		description: kt.Description,
		readOnly:    kt.ReadOnly,
		page:        kt.Page,
		action:      kt.Action,
		noBrowser:   kt.NoBrowser,
		argType:     kt.ArgType(),
		budget:      withSnapshotBudget(kt.Budget),
		run:         func(ctx context.Context, c *call, a any) error { return kt.Run(ctx, c, a) },
	}
}

// fromKits serves each of a capability's tools.
func fromKits(kts []*kit.Tool) []*tool {
	ts := make([]*tool, len(kts))
	for i, kt := range kts {
		ts[i] = fromKit(kt)
	}
	return ts
}

// *call is the kit's Call.
var _ kit.Call = (*call)(nil)

// Page is the page a page-scoped call runs on.
func (c *call) Page() *page.Actor { return c.page }

// Sandbox is the session's file sandbox, recording what the call writes.
func (c *call) Sandbox(ctx context.Context) *sandbox.Sandbox { return c.sandbox(ctx) }

// Line adds a line to the reply.
func (c *call) Line(format string, a ...any) { c.r.line(format, a...) }

// State reports the page's state at the end of the call.
func (c *call) State(s page.State) { c.r.state(s) }

// Section adds a rendered block after the reply's snapshot.
func (c *call) Section(text string) { c.r.sections = append(c.r.sections, text) }

// PageID is the id of the call's page.
func (c *call) PageID() int { return c.pageID }

// Browser is the server's browser supervisor.
func (c *call) Browser() *browser.Supervisor { return c.s.sup }

// NoPage turns browser.ErrNoPage into the call's no-page sentence.
func (c *call) NoPage(err error) error { return noPage(err, c.pageID) }

// Budget is the call's deadline, from its start.
func (c *call) Budget() time.Duration { return c.budget }

// OutOfBudget reports whether err is the call's budget running out.
func (c *call) OutOfBudget(err error) bool { return isBudget(err) }

// Lines adds formatted lines to the reply.
func (c *call) Lines(lines ...string) { c.r.lines = append(c.r.lines, lines...) }

// Owner is the call's session, which keys what the server keeps for it.
func (c *call) Owner() any { return c.sess }

// Progress forwards the call's progress reports to its client, if it asked
// for them.
func (c *call) Progress(ctx context.Context, message func(done, total int) string) (func(done, total int), func()) {
	if c.progressToken == nil || c.sess.ss == nil {
		return nil, func() {}
	}
	p := startProgress(ctx, c.sess.ss, c.progressToken, message)
	return p.report, p.stop
}

// Pages appends the page list to the reply.
func (c *call) Pages() { c.r.pages = true }

// Acted records what every input tool reports: its own line, then the
// navigation, the page state and the snapshot, or what changed, when asked
// for.
func (c *call) Acted(ctx context.Context, res page.InputResult, diff bool, line string) {
	c.r.line("%s", line)
	c.r.navigatedTo = res.NavigatedTo
	c.r.pending, c.r.unfollowed = res.Pending, res.Unfollowed
	c.r.state(res.State)
	if res.Snapshot == "" {
		return
	}
	if diff {
		c.showDiff(ctx, res.Snapshot)
	} else {
		c.showSnapshot(ctx, "", res.Snapshot)
	}
	c.sess.sawSnapshot(c.pageID, res.SnapshotSeq, res.Snapshot)
}

// Sentence is the sentence an agent reads for err.
func (c *call) Sentence(err error) string { return sentence(err) }

// DefaultHeapSnapshotMemory is the memory budget for loaded heap
// snapshots when [Config.HeapSnapshotMemory] is zero.
const DefaultHeapSnapshotMemory = heapcache.DefaultBudget

// inlineResultLimit is the most of a script's result evaluate_script
// returns inline, in bytes of JSON, under a reply cap of limit bytes: a
// quarter of it, 1 MiB by default. A result is data; past what an agent
// reads at once (1 MiB is a few hundred thousand tokens) it belongs in a
// file. The quarter also bounds what parallel calls hold: four calls
// returning 50 MB each grow the heap of this process (and of a client in
// it) by about 40 MB, where results as large as the reply cap took 130.
func inlineResultLimit(limit int) int { return limit / 4 }

// ResultLimit is the most of a script's result the reply holds inline.
func (c *call) ResultLimit() int { return inlineResultLimit(c.s.replyLimit()) }

// Navigated reports where an action took the page and what it left
// pending.
func (c *call) Navigated(to string, pending []string) { c.r.navigatedTo, c.r.pending = to, pending }

// Snapshot puts a snapshot in the reply, bounded.
func (c *call) Snapshot(ctx context.Context, text string) { c.showSnapshot(ctx, "", text) }

// SnapshotDiff puts in the reply what changed since the session's previous
// snapshot of the page.
func (c *call) SnapshotDiff(ctx context.Context, full string) { c.showDiff(ctx, full) }

// SawSnapshot records the snapshot of the call's page the session received.
func (c *call) SawSnapshot(seq int64, full string) { c.sess.sawSnapshot(c.pageID, seq, full) }

// HasSnapshot reports whether the session has a snapshot of the call's
// page to diff against.
func (c *call) HasSnapshot() bool {
	_, ok := c.sess.lastSnapshot(c.pageID)
	return ok
}

// SavedSnapshot reports the file the snapshot was saved to.
func (c *call) SavedSnapshot(path string) { c.r.savedTo = path }

// Isolated reports whether the call's session has a browser context of
// its own.
func (c *call) Isolated() bool { return c.sess.isolated != "" }

// Opened records a page the call opened as the session's.
func (c *call) Opened(id int) { c.sess.recordOpened(id, false) }

// Image attaches an image to the reply; the SDK base64-encodes it on the
// wire.
func (c *call) Image(data []byte, mimeType string) {
	c.r.images = append(c.r.images, &mcp.ImageContent{Data: data, MIMEType: mimeType})
}

// Data sets one of the reply's structuredContent fields.
func (c *call) Data(name string, v any) {
	if c.r.data == nil {
		c.r.data = map[string]any{}
	}
	c.r.data[name] = v
}

// PageGiven reports whether the call named its page.
func (c *call) PageGiven() bool { return c.pageGiven }

// TargetRequired reports whether a call must name a page or a service
// worker: pages are routed by id and workers offered.
func (c *call) TargetRequired() bool {
	surface := c.s.cfg.Surface
	return surface.PageIDRouting && surface.Category("extensions")
}

// Unfollowed reports why an action's work could not be followed.
func (c *call) Unfollowed(reason string) { c.r.unfollowed = reason }
