package page

// emulationState is the conditions a page is made to emulate (emulate,
// resize_page). It is owned by the actor goroutine. The zero value emulates
// nothing.
type emulationState struct{}

// cpu returns the CPU slowdown being emulated, 1 for none. Timeouts of
// waits that depend on the page's own speed scale with it (seed 003 §2.5).
func (e *emulationState) cpu() float64 { return 1 }

// network returns the network slowdown being emulated (Slow 3G = 10), 1
// for none. Timeouts of waits for the network scale with it.
func (e *emulationState) network() float64 { return 1 }

// lines returns what every page-scoped reply reports about the emulation
// in force, in chrome-devtools-mcp's wording (reference §3.2 item 4).
func (e *emulationState) lines() []string { return nil }
