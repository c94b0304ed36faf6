package page

import (
	"context"
	"regexp"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
)

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
