package browser

// chrome-devtools-mcp's launch and connection options beyond the basics:
// Chrome's release channels (where each is installed, where its profile
// is), connecting to a Chrome the user started (--auto-connect), trusting
// any certificate (--accept-insecure-certs), and counting more kinds of
// target as pages (--experimental-include-all-pages).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mafredri/cdp/protocol/target"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// Channels are Chrome's release channels, as --channel names them.
var Channels = []string{"stable", "beta", "dev", "canary"}

// ChannelExecutable returns where Chrome of channel is installed on Linux
// (/opt/google/chrome/chrome for stable, chrome-beta, chrome-unstable for
// dev, chrome-canary), whether or not it is there.
func ChannelExecutable(channel string) string {
	dir := map[string]string{"stable": "chrome", "beta": "chrome-beta", "dev": "chrome-unstable", "canary": "chrome-canary"}[channel]
	if dir == "" {
		dir = "chrome"
	}
	return filepath.Join("/opt/google", dir, "chrome")
}

// ChannelUserDataDir returns the default profile directory of Chrome of
// channel on Linux: google-chrome (stable), google-chrome-beta,
// google-chrome-unstable (dev) or google-chrome-canary under
// $CHROME_CONFIG_HOME, else $XDG_CONFIG_HOME, else ~/.config.
func ChannelUserDataDir(channel string) string {
	base := os.Getenv("CHROME_CONFIG_HOME")
	if base == "" {
		base = os.Getenv("XDG_CONFIG_HOME")
	}
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".config")
	}
	name := map[string]string{"beta": "google-chrome-beta", "dev": "google-chrome-unstable", "canary": "google-chrome-canary"}[channel]
	if name == "" {
		name = "google-chrome"
	}
	return filepath.Join(base, name)
}

// autoConnectEndpoint reads the DevToolsActivePort file a Chrome with
// remote debugging on writes in its profile (userDataDir, else channel's
// default profile) and returns the browser WebSocket it names.
func autoConnectEndpoint(userDataDir, channel string) (string, error) {
	dir := userDataDir
	if dir == "" {
		dir = ChannelUserDataDir(channel)
	}
	b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
	if err != nil {
		return "", fmt.Errorf("could not connect to Chrome in %s: no DevToolsActivePort there; check that Chrome is running and remote debugging is enabled by going to chrome://inspect/#remote-debugging", dir)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		return "", fmt.Errorf("could not connect to Chrome in %s: its DevToolsActivePort %q names no port and path", dir, strings.TrimSpace(string(b)))
	}
	port, err := strconv.Atoi(lines[0])
	if err != nil || port <= 0 || port > 65535 {
		return "", fmt.Errorf("could not connect to Chrome in %s: its DevToolsActivePort names port %q", dir, lines[0])
	}
	return fmt.Sprintf("ws://127.0.0.1:%d%s", port, lines[1]), nil
}

// certificates makes the browser trust any certificate when
// AcceptInsecureCerts asks for it, browser-wide.
func (s *Supervisor) certificates(ctx context.Context, conn *cdpconn.Conn) error {
	if !s.cfg.AcceptInsecureCerts {
		return nil
	}
	err := s.act.Await(ctx, func(ctx context.Context) error {
		return invoke(ctx, conn, "Security.setIgnoreCertificateErrors", map[string]any{"ignore": true}, nil)
	}, nil)
	var pe *ProtocolError
	if errors.As(err, &pe) {
		return fmt.Errorf("accept insecure certificates: %w", err)
	}
	return err
}

// allPages reports whether a target that is not a tab counts as a page
// all the same: background pages and webviews, with IncludeAllPages.
func (s *Supervisor) allPages(t target.Info) bool {
	return s.cfg.IncludeAllPages && (t.Type == "background_page" || t.Type == "webview")
}
