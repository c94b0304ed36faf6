package extensions_test

import (
	"strings"
	"testing"

	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// The tools' work on real extensions is tested through the binary, which
// launches a browser that lets DevTools load them (cmd/tabhive's
// TestExtensionTools and TestExtensionPathsThroughBinary).

func TestMain(m *testing.M) { transporttest.Main(m) }

// TestExtensionsInIsolatedSessions: an extension reaches every page of the
// browser, so an isolated session may not install, reload or remove one,
// nor reach a service worker.
func TestExtensionsInIsolatedSessions(t *testing.T) {
	t.Parallel()
	cs := transporttest.OnShared(t, transporttest.Options{HTTP: &httpserve.Config{}, Config: transport.Config{IsolateSessions: true,
		Surface: transport.SurfaceConfig{Categories: map[string]bool{"extensions": true}}}}).Connect(t)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"install_extension", map[string]any{"path": t.TempDir()}},
		{"uninstall_extension", map[string]any{"id": "x"}},
		{"reload_extension", map[string]any{"id": "x"}},
		{"evaluate_script", map[string]any{"serviceWorkerId": "sw-1", "function": "() => 1"}},
		{"list_console_messages", map[string]any{"serviceWorkerId": "sw-1"}},
	} {
		got, isErr := transporttest.Call(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(got, "Extensions belong to the whole browser: a session with a browser context of its own (--isolate-sessions) may not") {
			t.Errorf("%s in an isolated session = %q (error %v)", c.tool, got, isErr)
		}
	}
	if got := transporttest.Must(t, cs, "list_extensions", nil); !strings.HasPrefix(got, "## Extensions") {
		t.Errorf("list_extensions in an isolated session = %q", got)
	}
}
