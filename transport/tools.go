package transport

import (
	"time"

	"github.com/tabhive/tabhive/browser/extensions"
	"github.com/tabhive/tabhive/browser/pwa"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/devtools"
	"github.com/tabhive/tabhive/page/emulation"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/lighthouse"
	"github.com/tabhive/tabhive/page/memory"
	"github.com/tabhive/tabhive/page/pdf"
	"github.com/tabhive/tabhive/page/performance"
	"github.com/tabhive/tabhive/page/route"
	"github.com/tabhive/tabhive/page/screencast"
	"github.com/tabhive/tabhive/page/screenshot"
	"github.com/tabhive/tabhive/page/script"
	"github.com/tabhive/tabhive/page/storage"
	"github.com/tabhive/tabhive/page/styles"
	"github.com/tabhive/tabhive/page/webmcp"
	kit "github.com/tabhive/tabhive/transport/tool"
)

// Budgets: how long a call may take when the tool has no timeout argument,
// or on top of it. Each is generous enough for its slowest legitimate case
// on a loaded machine.
const (
	listBudget     = kit.ListBudget
	inputBudget    = kit.InputBudget
	snapshotBudget = kit.SnapshotBudget
	overhead       = kit.Overhead
)

// A tool's timeout argument, in milliseconds, is clamped to maxTimeout and
// refused beyond absurdTimeout, so that no agent can hold the server with
// an absurd one. Every field named timeout
// carries the tags min:"0" max:"3600000" (absurdTimeout), so that decoding
// refuses a negative value, or one like 9223372036854 that would overflow
// a time.Duration into a negative budget, with one sentence; millis then
// lowers what is left to maxTimeout. Each such field's description gives
// the maximum (timeoutArgTypes in args_test.go holds every tool to it).
const (
	// maxTimeout is five minutes (see [kit.MaxTimeout]).
	maxTimeout = kit.MaxTimeout
	// absurdTimeout is an hour: past it, a timeout is a mistake (a unit
	// mix-up, a sentinel value) rather than a long wait, and is refused.
	absurdTimeout = time.Hour
)

// millis turns a timeout argument into a duration ([kit.Millis]).
func millis(ms *int, def time.Duration) time.Duration { return kit.Millis(ms, def) }

// toolList returns every tool. Each family lives in its own file, or in
// its capability's package (one line each below); the SDK lists them
// sorted by name, as chrome-devtools-mcp registers them.
func (s *Server) toolList() []*tool {
	var all []*tool
	for _, family := range [][]*tool{
		s.pageTools(),
		fromKits(axsnapshot.Tools()),
		fromKits(screenshot.Tools(s.cfg.Screenshot)),
		fromKits(emulation.Tools()),
		fromKits(script.Tools(s.cfg.Policy)),
		fromKits(devtools.Tools(s.cfg.DevTools)),
		fromKits(storage.Tools()),
		fromKits(route.Tools()),
		fromKits(pdf.Tools()),
		fromKits(styles.Tools()),
		fromKits(input.Tools(s.cfg.Input)),
		fromKits(screencast.Tools(s.cfg.Screencast, s.cfg.MaxSessionDisk)),
		s.slimTools(),
		fromKits(extensions.Tools()),
		fromKits(pwa.Tools(s.cfg.Policy)),
		fromKits(webmcp.Tools()),
		fromKits(performance.Tools()),
		fromKits(memory.Tools(memory.Config{Debugging: s.cfg.MemoryDebugging, SnapshotBudget: s.cfg.HeapSnapshotBudget}, s.heaps)),
		fromKits(lighthouse.Tools(s.log)),
	} {
		for _, t := range family {
			if (t.name == "evaluate_script" || t.name == "evaluate") && s.cfg.Policy.Evaluation(t.name) != nil {
				continue // --javascript-evaluation=false: not offered at all
			}
			if !s.listed(t) {
				continue // --slim, --category-*
			}
			all = append(all, t)
		}
	}
	return all
}
