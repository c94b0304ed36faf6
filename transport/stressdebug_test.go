package transport_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
)

func TestStressDebugAlert(t *testing.T) {
	exe, _ := browsertest.Executable()
	log := zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).Level(zerolog.DebugLevel).With().Timestamp().Logger()
	sup := browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true, Logger: log})
	srv := transport.New(transport.Config{}, sup)
	defer func() { srv.Close(); sup.Close() }()
	site := browsertest.Serve(t, stressSite()).URL
	cs := connectTo(t, srv)
	id := openPage(t, cs, fmt.Sprintf("%s/rec?l=s0p0v1", site))
	timer := "() => { setTimeout(() => { const t0 = performance.now(); alert('x'); window.st = performance.now() - t0 }, 50); return 1 }"
	fmt.Fprintln(os.Stderr, "=== eval")
	text, _ := call(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": timer, "waitForStableDom": false})
	fmt.Fprintln(os.Stderr, "=== eval done", text)
	time.Sleep(500 * time.Millisecond)
	fmt.Fprintln(os.Stderr, "=== st")
	text, isErr := call(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => window.st", "waitForStableDom": false})
	t.Logf("st: %v %s", isErr, text)
}
