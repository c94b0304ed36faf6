package transport_test

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestBrowserDeathAndRelaunch: the browser process dies mid-call; the call
// fails at once, not at its deadline; the next call relaunches; each
// session's first reply after that carries the reconnect notice, once; page
// ids go on counting.
func TestBrowserDeathAndRelaunch(t *testing.T) {
	t.Parallel()
	srv := transporttest.Start(t, transporttest.Options{})
	sup := srv.Browser
	a, b := srv.Connect(t), srv.Connect(t)
	must(t, a, "list_pages", nil)
	must(t, b, "list_pages", nil)
	// The script says when it runs, so that the browser dies under it.
	started := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Blank", ""))
	mux.HandleFunc("/started", func(http.ResponseWriter, *http.Request) { notify(started) })
	page := openPage(t, a, browsertest.Serve(t, mux).URL+"/")

	pid := sup.BrowserPID()
	done := make(chan struct{})
	var end time.Time
	var text string
	var isErr bool
	go func() {
		defer close(done)
		text, isErr = call(t, a, "evaluate_script", map[string]any{"pageId": page, "function": "() => { fetch('/started'); return new Promise(r => setTimeout(r, 20000)) }"})
		end = time.Now()
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the script never started")
	}
	killedAt := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the call on the dead browser did not return")
	}
	// At once, not when the script ends (20 s): the rest is room for a
	// loaded machine.
	if took := end.Sub(killedAt); !isErr || took > 10*time.Second {
		t.Errorf("call on the dead browser: %v %v after the browser died: %q", isErr, took, text)
	}
	testwait.Until(t, "the supervisor to notice its browser died", func() bool { return sup.BrowserPID() == 0 })
	const note = "Note: the browser was restarted or reconnected since the last call. Page ids have changed. Call list_pages to see open pages."
	first := must(t, a, "list_pages", nil)
	if !strings.HasPrefix(first, note+"\n") {
		t.Errorf("first reply after the relaunch lacks the notice:\n%s", first)
	}
	if !strings.Contains(first, "3: about:blank [selected]") {
		t.Errorf("page ids did not go on counting:\n%s", first)
	}
	if again := must(t, a, "list_pages", nil); strings.Contains(again, note) {
		t.Errorf("notice repeated:\n%s", again)
	}
	if other := must(t, b, "list_pages", nil); !strings.HasPrefix(other, note) {
		t.Errorf("the other session's first reply lacks the notice:\n%s", other)
	}
}
