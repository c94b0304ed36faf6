package input

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	cdpinput "github.com/mafredri/cdp/protocol/input"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/pagetest"
)

// TestDragStartProbe: the probe a drag waits by tells an HTML5 drag the
// page began (in an out-of-process iframe, where Chrome's report of it
// comes late on a loaded machine) from one the page cancelled and from a
// plain mouse drag; what it cannot see it reports as no drag, and the drag
// then waits as it did before.
func TestDragStartProbe(t *testing.T) {
	t.Parallel()
	inner := browsertest.ServeOwnSite(t, browsertest.HTML("Inner", `<style>div { width: 80px; height: 40px; margin: 10px; background: #ccc }</style>
<div draggable=true ondragstart="event.dataTransfer.setData('text/plain', 'x')" role=button aria-label="Source">src</div>
<div draggable=true ondragstart="event.preventDefault()" role=button aria-label="Cancelled">no</div>
<div role=button aria-label="Plain">plain</div>
<div role=button aria-label="Target">dst</div>`))
	top := browsertest.Serve(t, browsertest.HTML("Top", `<iframe title=Cross width=400 height=400 src="`+inner.URL+`/"></iframe>`))
	for _, tc := range []struct {
		source string
		want   bool
	}{{"Source", true}, {"Cancelled", false}, {"Plain", false}} {
		t.Run(tc.source, func(t *testing.T) {
			t.Parallel()
			a := pagetest.Open(t, top.URL+"/")
			h := key.Of(a).h
			s, err := axsnapshot.Take(pagetest.Ctx(t), a, false)
			if err != nil {
				t.Fatal(err)
			}
			uid := func(name string) string {
				m := regexp.MustCompile(`uid=(\S+) \S+ "` + name + `"`).FindStringSubmatch(s.Text)
				if m == nil {
					t.Fatalf("no %q in snapshot:\n%s", name, s.Text)
				}
				return m[1]
			}
			fromUID, toUID := uid(tc.source), uid("Target")
			got, err := page.Do(pagetest.Ctx(t), h, func(ctx context.Context) (bool, error) {
				from, err := h.Elements().Element(ctx, fromUID)
				if err != nil {
					return false, err
				}
				to, err := h.Elements().Element(ctx, toUID)
				if err != nil {
					return false, err
				}
				c := h.Client()
				if err := c.Input.SetInterceptDrags(ctx, cdpinput.NewSetInterceptDragsArgs(true)); err != nil {
					return false, err
				}
				fx, fy, err := from.PagePoint(ctx)
				if err != nil {
					return false, err
				}
				tx, ty, err := to.PagePoint(ctx)
				if err != nil {
					return false, err
				}
				page.Painted(ctx, from)
				started := watchDragStart(ctx, from, h.SessionOf(from.Node().FrameID))
				for _, ev := range []*cdpinput.DispatchMouseEventArgs{
					cdpinput.NewDispatchMouseEventArgs("mouseMoved", fx, fy),
					cdpinput.NewDispatchMouseEventArgs("mousePressed", fx, fy).SetButton(cdpinput.MouseButtonLeft).SetButtons(1).SetClickCount(1),
					cdpinput.NewDispatchMouseEventArgs("mouseMoved", tx, ty).SetButton(cdpinput.MouseButtonLeft).SetButtons(1),
				} {
					if err := c.Input.DispatchMouseEvent(ctx, ev); err != nil {
						return false, err
					}
				}
				// Asked again (a late dragstart is looked for once the
				// wait for Chrome's report runs out), a dragstart seen
				// stays seen, and once it stopped listening, it says
				// nothing.
				early, last := started(ctx, false), started(ctx, true)
				if early && !last || started(ctx, true) {
					return false, fmt.Errorf("started says %v, then %v, then true after it stopped listening", early, last)
				}
				return last, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("drag from %s: probe says started = %v, want %v", tc.source, got, tc.want)
			}
		})
	}
}
