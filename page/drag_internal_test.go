package page

import (
	"context"
	"regexp"
	"testing"

	"github.com/mafredri/cdp/protocol/input"

	"github.com/tabhive/tabhive/browser/browsertest"
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
			a := testActor(t, top.URL+"/")
			s, err := snapshotOf(shotCtx(t), a, false)
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
			got, err := ask(shotCtx(t), a, func(ctx context.Context) (bool, error) {
				from, err := a.element(ctx, fromUID)
				if err != nil {
					return false, err
				}
				to, err := a.element(ctx, toUID)
				if err != nil {
					return false, err
				}
				if err := a.c.Input.SetInterceptDrags(ctx, input.NewSetInterceptDragsArgs(true)); err != nil {
					return false, err
				}
				fx, fy, err := from.pagePoint(ctx)
				if err != nil {
					return false, err
				}
				tx, ty, err := to.pagePoint(ctx)
				if err != nil {
					return false, err
				}
				painted(ctx, oopifFrames(from.c, from.hops)...)
				started := watchDragStart(ctx, from)
				for _, ev := range []*input.DispatchMouseEventArgs{
					input.NewDispatchMouseEventArgs("mouseMoved", fx, fy),
					input.NewDispatchMouseEventArgs("mousePressed", fx, fy).SetButton(input.MouseButtonLeft).SetButtons(1).SetClickCount(1),
					input.NewDispatchMouseEventArgs("mouseMoved", tx, ty).SetButton(input.MouseButtonLeft).SetButtons(1),
				} {
					if err := a.c.Input.DispatchMouseEvent(ctx, ev); err != nil {
						return false, err
					}
				}
				return started(ctx), nil
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

// TestPaintedHostileFrame: the wait for an out-of-process iframe to draw
// runs in an isolated world, so a frame whose page has replaced
// requestAnimationFrame and Promise is still seen to draw (in the page's
// own world the wait would have run out). (A frame in a tab that is not
// shown is not waited for; headless Chromium shows every tab, even one
// behind another or in a minimized window, so that is not tested here.)
func TestPaintedHostileFrame(t *testing.T) {
	t.Parallel()
	inner := browsertest.ServeOwnSite(t, browsertest.HTML("Inner", `<script>
window.requestAnimationFrame = () => 0;
window.Promise = function () { throw new Error('no promises here') };
</script><button>Inside</button>`))
	top := browsertest.Serve(t, browsertest.HTML("Top", `<iframe title=Cross width=300 height=200 src="`+inner.URL+`/"></iframe>`))
	a := testActor(t, top.URL+"/")
	if err := a.BringToFront(shotCtx(t)); err != nil {
		t.Fatal(err)
	}
	s, err := snapshotOf(shotCtx(t), a, false)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`uid=(\S+) button "Inside"`).FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no Inside button in snapshot:\n%s", s.Text)
	}
	drew := func() int {
		t.Helper()
		n, err := ask(shotCtx(t), a, func(ctx context.Context) (int, error) {
			el, err := a.element(ctx, m[1])
			if err != nil {
				return 0, err
			}
			if len(el.hops) != 1 {
				t.Fatalf("the button is %d hops from the page, want 1 (an out-of-process iframe)", len(el.hops))
			}
			return painted(ctx, oopifFrames(el.c, el.hops)...), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := drew(); n != 1 {
		t.Fatalf("painted = %d frames drew, want 1: the page's replaced requestAnimationFrame was called", n)
	}
}
