package axsnapshot_test

import (
	"errors"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/pagetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

func TestWaitForTextInIframe(t *testing.T) {
	t.Parallel()
	base := pagetest.Serve(t, map[string]http.Handler{
		"/":      browsertest.HTML("Outer", `<p>Outer text</p><iframe src="/inner"></iframe>`),
		"/inner": browsertest.HTML("Inner", `<p id=p></p><script>setTimeout(() => p.textContent = 'Hello from the frame', 300)</script>`),
	})
	a := pagetest.Open(t, base+"/")
	res, err := axsnapshot.WaitForText(pagetest.Ctx(t), a, []string{"not there", "Hello from the frame"}, 5*time.Second)
	if err != nil {
		t.Fatalf("WaitForText = %v", err)
	}
	if res.Found != "Hello from the frame" {
		t.Errorf("Found = %q", res.Found)
	}
	if !strings.Contains(res.Snapshot, `"Hello from the frame"`) {
		t.Errorf("snapshot lacks the iframe's text:\n%s", res.Snapshot)
	}
	start := time.Now()
	_, err = axsnapshot.WaitForText(pagetest.Ctx(t), a, []string{"never"}, 500*time.Millisecond)
	var te *page.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("WaitForText(missing) = %v, want TimeoutError", err)
	}
	// Far below the 20 s the call could run to if the budget were ignored,
	// and generous for a loaded machine; and no shorter than the wait the
	// error reports.
	if took := time.Since(start); took > 5*time.Second || took < 500*time.Millisecond {
		t.Errorf("WaitForText with a 500ms budget took %v", took)
	}
	if te.Budget != "500ms" {
		t.Errorf("TimeoutError.Budget = %q, want 500ms", te.Budget)
	}
}

// A page that replaces what a text search uses — String and Array methods,
// MutationObserver, timers — can neither make wait_for see a text that is
// not there nor keep it from seeing one that arrives.
func TestWaitForTextOnAHostilePage(t *testing.T) {
	t.Parallel()
	base := pagetest.Serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Hostile", `<p>Here now</p><script>
			const later = setTimeout;
			later(() => document.body.append('Arrived late'), 400);
			String.prototype.includes = () => true;
			String.prototype.replace = function () { return 'Never there'; };
			String.prototype.trim = function () { return 'Never there'; };
			Array.prototype.indexOf = () => 0;
			Array.prototype.map = function () { return ['Never there']; };
			window.MutationObserver = function () { this.observe = () => {}; this.disconnect = () => {}; };
			window.setInterval = () => 0;
			window.setTimeout = () => 0;
			window.clearTimeout = () => {};
			window.clearInterval = () => {};
			window.Promise = function () {};
		</script>`),
	})
	a := pagetest.Open(t, base+"/")
	_, err := axsnapshot.WaitForText(pagetest.Ctx(t), a, []string{"Never there"}, time.Second)
	var te *page.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("WaitForText(a text that is not there) = %v, want TimeoutError", err)
	}
	res, err := axsnapshot.WaitForText(pagetest.Ctx(t), a, []string{"Arrived late"}, 10*time.Second)
	if err != nil || res.Found != "Arrived late" {
		t.Fatalf("WaitForText(a text that arrives) = %q, %v", res.Found, err)
	}
}

// TestSnapshotParity holds a snapshot against chrome-devtools-mcp 1.11's
// text for the same page (testdata/parity.golden, recorded from it on
// 2026-11-29 with uids of a first snapshot).
func TestSnapshotParity(t *testing.T) {
	t.Parallel()
	html, err := os.ReadFile("testdata/parity.html")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/parity.golden")
	if err != nil {
		t.Fatal(err)
	}
	base := pagetest.Serve(t, map[string]http.Handler{"/": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(html)
	})})
	a := pagetest.Open(t, base+"/")
	s, err := axsnapshot.Take(pagetest.Ctx(t), a, false)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Text
	// Snapshot ids are process-wide; make this page's first one read 1_.
	first := regexp.MustCompile(`^uid=(\d+)_`).FindStringSubmatch(got)
	got = strings.ReplaceAll(got, "uid="+first[1]+"_", "uid=1_")
	want := strings.ReplaceAll(string(golden), "BASE", base)
	if got != want {
		t.Errorf("snapshot differs from chrome-devtools-mcp's:\n--- got\n%s--- want\n%s", got, want)
	}
}
