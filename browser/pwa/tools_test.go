package pwa_test

import (
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// Installing, launching and uninstalling a real app is tested through the
// binary, which launches a browser that offers the PWA domain
// (cmd/tabhive's TestPWATools).

func TestMain(m *testing.M) { transporttest.Main(m) }

// TestPWAToolsUnderURLPolicy: under a URL policy the PWA tools are
// refused, as chrome-devtools-mcp refuses them.
func TestPWAToolsUnderURLPolicy(t *testing.T) {
	t.Parallel()
	policy, err := urlpolicy.New(urlpolicy.Config{Blocked: []string{"*://blocked.test/*"}, JavaScript: true, FileNavigations: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{Policy: policy,
		Surface: transport.SurfaceConfig{Categories: map[string]bool{"pwa": true}}}}).Connect(t)
	for _, tool := range []string{"get_os_app_state", "uninstall_pwa", "launch_pwa"} {
		got, isErr := transporttest.Call(t, cs, tool, map[string]any{"manifestId": "https://example.test/"})
		if !isErr || !strings.HasPrefix(got, "Error: PWA APIs are not supported when network restrictions are configured") {
			t.Errorf("%s under a URL policy = %q (error %v)", tool, got, isErr)
		}
	}
}
