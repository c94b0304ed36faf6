package browser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mafredri/cdp/protocol/target"
)

// TestIncludeAllPages: background pages and webviews are pages only with
// IncludeAllPages. Chromium 156 makes neither in a headless browser
// (Manifest V2 background pages are gone), so the targets here are as
// Chrome would describe them.
func TestIncludeAllPages(t *testing.T) {
	for _, typ := range []string{"background_page", "webview", "service_worker", "browser_ui", "other"} {
		info := target.Info{TargetID: "T", Type: typ, URL: "chrome-extension://x/bg.html"}
		want := typ == "background_page" || typ == "webview"
		if got := (&Supervisor{cfg: Config{IncludeAllPages: true}}).allPages(info); got != want {
			t.Errorf("allPages(%s) with IncludeAllPages = %v, want %v", typ, got, want)
		}
		if (&Supervisor{}).allPages(info) {
			t.Errorf("allPages(%s) without IncludeAllPages = true", typ)
		}
	}
}

func TestAutoConnectEndpoint(t *testing.T) {
	dir := t.TempDir()
	if _, err := autoConnectEndpoint(dir, ""); err == nil {
		t.Error("autoConnectEndpoint without DevToolsActivePort succeeded")
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "DevToolsActivePort"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("9222\n/devtools/browser/abc\n")
	if got, err := autoConnectEndpoint(dir, ""); err != nil || got != "ws://127.0.0.1:9222/devtools/browser/abc" {
		t.Errorf("autoConnectEndpoint = %q, %v", got, err)
	}
	for _, bad := range []string{"", "9222\n", "x\n/devtools/browser/abc", "70000\n/p"} {
		write(bad)
		if got, err := autoConnectEndpoint(dir, ""); err == nil {
			t.Errorf("autoConnectEndpoint of %q = %q, want an error", bad, got)
		}
	}
	t.Setenv("CHROME_CONFIG_HOME", "/cfg")
	for ch, want := range map[string]string{"": "/cfg/google-chrome", "stable": "/cfg/google-chrome", "beta": "/cfg/google-chrome-beta", "dev": "/cfg/google-chrome-unstable", "canary": "/cfg/google-chrome-canary"} {
		if got := ChannelUserDataDir(ch); got != want {
			t.Errorf("ChannelUserDataDir(%q) = %q, want %q", ch, got, want)
		}
	}
	for ch, want := range map[string]string{"stable": "/opt/google/chrome/chrome", "beta": "/opt/google/chrome-beta/chrome", "dev": "/opt/google/chrome-unstable/chrome", "canary": "/opt/google/chrome-canary/chrome"} {
		if got := ChannelExecutable(ch); got != want {
			t.Errorf("ChannelExecutable(%q) = %q, want %q", ch, got, want)
		}
	}
}
