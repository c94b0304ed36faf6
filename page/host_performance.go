package page

import "context"

// Navigate loads nav in the page's main frame, as navigate_page does, and
// returns once it has loaded and settled. Run goroutine only (a
// performance trace leaves the page and loads it again).
func (h *Host) Navigate(ctx context.Context, nav Navigation) (NavigationResult, error) {
	return h.a.navigate(ctx, nav)
}

// Navigated tells the page's owner of a navigation [Host.Navigate] made
// (Config.OnNavigated), so that the page list shows its new title. Run
// goroutine only; the page keeps applying events while the owner records
// it.
func (h *Host) Navigated(ctx context.Context, res NavigationResult) { h.a.navigated(ctx, res) }

// Throttling is the CPU slowdown and the network conditions the page
// emulates, as a performance trace's report names them. Run goroutine
// only.
func (h *Host) Throttling() (cpu float64, network string) {
	p := h.a.pace.load()
	return p.CPU, p.Network
}
