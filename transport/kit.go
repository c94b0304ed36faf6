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

// Reply is the call's reply, to which the tool adds its parts.
func (c *call) Reply() kit.Reply { return callReply{c.r} }

// Snapshots are the page snapshots of the call's session and the one in
// its reply.
func (c *call) Snapshots() kit.Snapshots { return callSnapshots{c} }

// callReply is the kit's Reply: the parts a tool adds to its call's
// reply.
type callReply struct{ r *reply }

// callReply and callSnapshots are the kit's Reply and Snapshots.
var (
	_ kit.Reply     = callReply{}
	_ kit.Snapshots = callSnapshots{}
)

// Line adds a line to the reply.
func (c callReply) Line(format string, a ...any) { c.r.line(format, a...) }

// State reports the page's state at the end of the call.
func (c callReply) State(s page.State) { c.r.state(s) }

// Section adds a rendered block after the reply's snapshot.
func (c callReply) Section(text string) { c.r.sections = append(c.r.sections, text) }

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
func (c callReply) Lines(lines ...string) { c.r.lines = append(c.r.lines, lines...) }

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
func (c callReply) Pages() { c.r.pages = true }

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
func (c callReply) Navigated(to string, pending []string) { c.r.navigatedTo, c.r.pending = to, pending }

// callSnapshots is the kit's Snapshots: the call's page's snapshots its
// session received, and the one in the call's reply.
type callSnapshots struct{ c *call }

// Show puts a snapshot in the reply, bounded.
func (s callSnapshots) Show(ctx context.Context, text string) { s.c.showSnapshot(ctx, "", text) }

// ShowDiff puts in the reply what changed since the session's previous
// snapshot of the page.
func (s callSnapshots) ShowDiff(ctx context.Context, full string) { s.c.showDiff(ctx, full) }

// Saw records the snapshot of the call's page the session received.
func (s callSnapshots) Saw(seq int64, full string) { s.c.sess.sawSnapshot(s.c.pageID, seq, full) }

// Has reports whether the session has a snapshot of the call's page to
// diff against.
func (s callSnapshots) Has() bool {
	_, ok := s.c.sess.lastSnapshot(s.c.pageID)
	return ok
}

// Saved reports the file the snapshot was saved to.
func (s callSnapshots) Saved(path string) { s.c.r.savedTo = path }

// Isolated reports whether the call's session has a browser context of
// its own.
func (c *call) Isolated() bool { return c.sess.isolated != "" }

// Opened records a page the call opened as the session's.
func (c *call) Opened(id int) { c.sess.recordOpened(id, false) }

// Image attaches an image to the reply; the SDK base64-encodes it on the
// wire.
func (c callReply) Image(data []byte, mimeType string) {
	c.r.images = append(c.r.images, &mcp.ImageContent{Data: data, MIMEType: mimeType})
}

// Data sets one of the reply's structuredContent fields.
func (c callReply) Data(name string, v any) {
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
func (c callReply) Unfollowed(reason string) { c.r.unfollowed = reason }
