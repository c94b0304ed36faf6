package launch_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/browser/launch"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// A browser that dies hard leaves nothing behind once closed: not its
// profile, not the directory Chromium made in TMPDIR for its singleton
// socket.
func TestCloseAfterKillLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	exe, err := browsertest.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	proc, err := launch.Start(ctx, launch.Options{ExecutablePath: exe, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	singletons, _ := filepath.Glob(filepath.Join(os.TempDir(), "org.chromium.Chromium.*"))
	if len(singletons) == 0 {
		t.Log("this Chromium made no singleton directory in TMPDIR; checking the profile only")
	}
	p, err := os.FindProcess(proc.PID())
	if err != nil {
		t.Fatal(err)
	}
	p.Kill()
	<-proc.Exited()
	if err := proc.Close(); err != nil {
		t.Fatalf("Close after kill = %v", err)
	}
	if err := browsertest.CheckNoLeaks(); err != nil {
		t.Fatal(err)
	}
}
