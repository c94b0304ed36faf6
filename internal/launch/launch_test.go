package launch_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/launch"
	"github.com/tabhive/tabhive/internal/testwait"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// A browser that dies hard leaves nothing behind once closed: not its
// profile, not its temporary directory with the directory Chromium made
// there for its singleton socket.
func TestCloseAfterKillLeavesNothing(t *testing.T) {
	exe := browsertest.Executable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var logs browsertest.LogBuffer
	proc, err := launch.Start(ctx, launch.Options{ExecutablePath: exe, Headless: true, Logger: zerolog.New(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	singletons, _ := filepath.Glob(filepath.Join(os.TempDir(), "tabhive-chromium-*", "org.chromium.Chromium.*"))
	if len(singletons) == 0 {
		t.Log("this Chromium made no singleton directory in its TMPDIR; checking the profile and the directory only")
	}
	p, err := os.FindProcess(proc.PID())
	if err != nil {
		t.Fatal(err)
	}
	p.Kill()
	<-proc.Exited()
	// An exit nobody asked for is logged with how it ended.
	if !testwait.Poll(testwait.Timeout, func() bool { return strings.Contains(logs.String(), `"status":"signal: killed"`) }) {
		t.Fatalf("no log of the browser's own exit with its status:\n%s", logs.String())
	}
	if err := proc.Close(); err != nil {
		t.Fatalf("Close after kill = %v", err)
	}
	if err := browsertest.CheckNoLeaks(); err != nil {
		t.Fatal(err)
	}
}

// A launched browser opens no TCP port: its control channel is the pipe,
// which no page can reach. A browser started with a debugging
// port, as a user's may be, is seen listening by the same check.
func TestNoDevToolsPort(t *testing.T) {
	exe := browsertest.Executable(t)
	for _, port := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		proc, err := launch.Start(ctx, launch.Options{ExecutablePath: exe, Headless: true, DebuggingPort: port})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		listening := browsertest.ListeningPorts(browsertest.ChromiumProcesses())
		_, statErr := os.Stat(filepath.Join(proc.Profile(), "DevToolsActivePort"))
		proc.Close()
		switch {
		case !port && len(listening) > 0:
			t.Errorf("browser on its pipe listens on TCP ports %v", listening)
		case !port && statErr == nil:
			t.Errorf("browser on its pipe wrote DevToolsActivePort")
		case port && len(listening) == 0:
			t.Errorf("browser with a debugging port: no listening port found; the check cannot see one")
		}
	}
}

// A profile directory is private (0700) whatever mode it had.
func TestProfileIsPrivate(t *testing.T) {
	exe := browsertest.Executable(t)
	given := filepath.Join(t.TempDir(), "profile")
	if err := os.MkdirAll(given, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", given} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var logs browsertest.LogBuffer
		proc, err := launch.Start(ctx, launch.Options{ExecutablePath: exe, Headless: true, UserDataDir: dir, Logger: zerolog.New(&logs)})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(proc.Profile())
		proc.Close()
		if err != nil {
			t.Fatal(err)
		}
		// An exit Close asked for is no news.
		if strings.Contains(logs.String(), "exited on its own") {
			t.Errorf("Close logged the exit it asked for as the browser's own:\n%s", logs.String())
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("profile %q: mode %v, want 0700", dir, fi.Mode().Perm())
		}
	}
}

// Chromium runs with tabhive's V8 flags, merged into a --js-flags of the
// user's rather than lost to it (Chromium keeps the last of two), and
// without them when IgnoreDefaultArgs names the switch.
func TestJSFlags(t *testing.T) {
	exe := browsertest.Executable(t)
	for _, tc := range []struct {
		opts launch.Options
		want string
	}{
		{launch.Options{}, "--js-flags=--no-enable-lazy-source-positions"},
		{launch.Options{Args: []string{"--js-flags=--stack-size=900"}}, "--js-flags=--no-enable-lazy-source-positions --stack-size=900"},
		{launch.Options{Args: []string{"--js-flags=--stack-size=900"}, IgnoreDefaultArgs: []string{"--js-flags"}}, "--js-flags=--stack-size=900"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tc.opts.ExecutablePath, tc.opts.Headless = exe, true
		proc, err := launch.Start(ctx, tc.opts)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(proc.PID()), "cmdline"))
		proc.Close()
		if err != nil {
			t.Skipf("no /proc here: %v", err)
		}
		var got []string
		for _, a := range strings.Split(string(raw), "\x00") {
			if strings.HasPrefix(a, "--js-flags") {
				got = append(got, a)
			}
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("Args %q, IgnoreDefaultArgs %q: Chromium ran with %q, want [%q]", tc.opts.Args, tc.opts.IgnoreDefaultArgs, got, tc.want)
		}
	}
}
