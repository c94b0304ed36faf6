package page

// Loads: loading the page anew, and the pace it loads at. The emulation
// (page/emulation) publishes the pace and reloads the page when its touch
// support changes; a performance trace (page/performance) reads the pace
// and leaves the page and loads it again.

import (
	"context"

	"github.com/mafredri/cdp/protocol/page"
)

// Loads is the handle on the page's navigations and their pace:
// [Host.Loads].
type Loads struct{ a *Actor }

// Loads returns the handle on the page's navigations and their pace.
func (h *Host) Loads() Loads { return Loads{h.a} }

// Navigate loads nav in the page's main frame, as navigate_page does, and
// returns once it has loaded and settled. Run goroutine only (a
// performance trace leaves the page and loads it again).
func (l Loads) Navigate(ctx context.Context, nav Navigation) (NavigationResult, error) {
	return l.a.navigate(ctx, nav)
}

// Reload reloads the page and waits for it as navigate_page's reload
// does, under the page's default navigation timeout, accepting a
// beforeunload dialog: for a change that only a new document sees (the
// emulated touch support).
func (l Loads) Reload(ctx context.Context) error {
	a := l.a
	opts := actionOptions{
		navigationTimeout: a.pace.load().Timeouts.Navigation,
		handleDialog: func(typ string) (dialogAnswer, bool) {
			return dialogAnswer{accept: true}, typ == "beforeunload"
		},
	}
	_, err := a.perform(ctx, opts, func(ctx context.Context, _ *Progress) error {
		return a.c.Page.Reload(ctx, page.NewReloadArgs())
	})
	return err
}

// SetPace publishes the page's pace, after each change of the emulation.
// Run goroutine only; [Actor.Timeouts] loads it from any goroutine.
func (l Loads) SetPace(p Pace) { l.a.pace.Store(&p) }

// Throttling is the CPU slowdown and the network conditions the page
// emulates, as a performance trace's report names them. Run goroutine
// only.
func (l Loads) Throttling() (cpu float64, network string) {
	p := l.a.pace.load()
	return p.CPU, p.Network
}
