package cdpconn_test

import (
	"context"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/protocol/target"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/launch"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// Against real Chromium over its pipe: a reply over the read limit fails
// its call with the too-large error (Chromium writes a reply's id first,
// and the id is unique on the channel, which is what lets the channel
// answer the right call without reading the message whole), and the page's
// session goes on.
func TestChromiumReplyOverLimit(t *testing.T) {
	// Generous: launching and a 4 MiB reply take long on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	root, tr := chromiumTab(t, ctx, cdpconn.Options{MaxMessageBytes: 1 << 20})
	pg, err := root.Attach(ctx, string(tr.TargetID), cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eval := func(expr string) (*runtime.EvaluateReply, error) {
		return pg.Client.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(expr).SetReturnByValue(true))
	}
	if _, err := eval(`'x'.repeat(4 << 20)`); !cdpconn.IsTooLarge(err) {
		t.Fatalf("4 MiB result with a 1 MiB limit: %v, want a too-large error", err)
	}
	rep, err := eval(`6 * 7`)
	if err != nil || string(rep.Result.Value) != "42" {
		t.Fatalf("evaluate after a too-large reply: %v, %v", rep, err)
	}
}

// chromiumTab launches a headless Chromium of the test's own, connects to
// it over its pipe with opts and opens a blank tab, for ctx's lifetime; it
// skips with -short. Everything is closed when the test ends.
func chromiumTab(t *testing.T, ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, *target.CreateTargetReply) {
	t.Helper()
	exe := browsertest.Executable(t)
	proc, err := launch.Start(ctx, launch.Options{ExecutablePath: exe, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	r, w := proc.Pipe()
	root, err := cdpconn.DialPipe(ctx, r, w, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	tr, err := root.Client.Target.CreateTarget(ctx, target.NewCreateTargetArgs("about:blank"))
	if err != nil {
		t.Fatal(err)
	}
	return root, tr
}
