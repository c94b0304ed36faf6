package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestVersionOf: a release build's stamp wins; then the module version go
// install or go build records; then the commit, shortened, marked when the
// tree had changes; "dev" only when the build says nothing.
func TestVersionOf(t *testing.T) {
	info := func(main string, settings ...string) func() (*debug.BuildInfo, bool) {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/tabhive/tabhive", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return func() (*debug.BuildInfo, bool) { return bi, true }
	}
	const rev = "22e6095a1b2c3d4e5f60718293a4b5c6d7e8f901"
	tests := []struct {
		name      string
		stamped   string
		buildInfo func() (*debug.BuildInfo, bool)
		want      string
	}{
		{"release stamp", "v1.2.3", info("v0.9.0", "vcs.revision", rev), "v1.2.3"},
		{"go install @version", "", info("v1.4.0"), "v1.4.0"},
		{"go build in a checkout", "", info("v0.0.0-20261203071855-22e6095a1b2c+dirty", "vcs.revision", rev, "vcs.modified", "true"), "v0.0.0-20261203071855-22e6095a1b2c+dirty"},
		{"commit only", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "22e6095a1b2c"},
		{"commit with changes", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "22e6095a1b2c+dirty"},
		{"short commit", "", info("", "vcs.revision", "abc123"), "abc123"},
		{"go run", "", info("(devel)"), "dev"},
		{"no build info", "", func() (*debug.BuildInfo, bool) { return nil, false }, "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionOf(tt.stamped, tt.buildInfo); got != tt.want {
				t.Errorf("versionOf(%q, ...) = %q, want %q", tt.stamped, got, tt.want)
			}
		})
	}
}

// TestVersionThroughBinary: --version and the MCP server's serverInfo
// say the same version, the one the build information gives (a test
// binary has none: "dev"), and a release build's -X main.releaseVersion
// stamp is what both say.
func TestVersionThroughBinary(t *testing.T) {
	t.Parallel()
	exe := browsertest.Executable(t)
	want := versionOf("", debug.ReadBuildInfo)
	check := func(name, bin string, env []string, want string) {
		t.Helper()
		cmd := exec.Command(bin, "--version")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s --version: %v", name, err)
		}
		if got := string(out); got != "tabhive "+want+"\n" {
			t.Errorf("%s --version printed %q, want %q", name, got, "tabhive "+want+"\n")
		}
		server := exec.Command(bin, "--headless", "--isolated", "--executable-path", exe, "--log-level", "warn")
		server.Env = cmd.Env
		server.Stderr = os.Stderr
		cs := transporttest.Dial(t, &mcp.CommandTransport{Command: server, TerminateDuration: exitWait})
		if got := cs.InitializeResult().ServerInfo; got.Name != "tabhive" || got.Version != want {
			t.Errorf("%s: serverInfo = %+v, want tabhive %s", name, got, want)
		}
		if err := cs.Close(); err != nil {
			t.Errorf("%s: Close = %v", name, err)
		}
	}
	check("the test binary", os.Args[0], []string{"TABHIVE_TEST_MAIN=1"}, want)

	const stamp = "v9.8.7-test"
	bin := filepath.Join(t.TempDir(), "tabhive")
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X main.releaseVersion="+stamp, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	check("a release build", bin, nil, stamp)
}
