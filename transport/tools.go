package transport

import "time"

// Descriptions shared by several tools.
const (
	uidDesc             = "The uid of an element on the page from the page content snapshot"
	includeSnapshotDesc = "Whether to include a snapshot in the response. Default is false."
	timeoutDesc         = "Maximum wait time in milliseconds. If set to 0, the default timeout will be used."
)

// Budgets: how long a call may take when the tool has no timeout argument,
// or on top of it. Each is generous enough for its slowest legitimate case
// on a loaded machine.
const (
	listBudget     = 10 * time.Second
	inputBudget    = 20 * time.Second // 5 s actionability + navigation wait + settle + snapshot
	snapshotBudget = 30 * time.Second
	overhead       = 10 * time.Second // added to a tool's own timeout
)

// millis turns a timeout argument (0 or negative: default) into a duration.
func millis(ms *int, def time.Duration) time.Duration {
	if ms == nil || *ms <= 0 {
		return def
	}
	return time.Duration(*ms) * time.Millisecond
}

// toolList returns every tool. Each family lives in its own file; the SDK
// lists them sorted by name, as chrome-devtools-mcp registers them.
func (s *Server) toolList() []*tool {
	var all []*tool
	for _, family := range [][]*tool{
		s.pageTools(), s.inputTools(), s.snapshotTools(),
		s.screenshotTools(), s.emulationTools(), s.scriptTools(), s.debugTools(),
	} {
		for _, t := range family {
			if t.name == "evaluate_script" && s.cfg.Policy.Evaluation(t.name) != nil {
				continue // --javascript-evaluation=false: not offered at all
			}
			all = append(all, t)
		}
	}
	return all
}
