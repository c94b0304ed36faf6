package transport

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/internal/agenterr"
)

// pwaBudget bounds the PWA tools. An install loads the app in a window of
// its own to read its manifest and icons, and an uninstall closes the
// app's windows: on a loaded machine each takes many seconds (24 s and
// 15 s measured at load 32 on 2 cores), and a launch waits up to 10 s for
// the app's document besides.
const pwaBudget = 120 * time.Second

// pwaTools install, launch, inspect and uninstall Progressive Web Apps
// (--category-pwa).
func (s *Server) pwaTools() []*tool {
	return []*tool{
		define(tool{name: "install_pwa", description: "Installs a Progressive Web App (PWA) identified by its manifest ID. This installs through the PWA CDP domain without a user gesture or install dialog. DevTools installs default to browser display mode."},
			fixed[installPWAArgs](pwaBudget), runInstallPWA),
		define(tool{name: "uninstall_pwa", description: "Uninstalls a Progressive Web App identified by its manifest ID and closes any open app windows."},
			fixed[manifestArgs](pwaBudget), runUninstallPWA),
		define(tool{name: "launch_pwa", description: "Launches an installed Progressive Web App using its saved display mode. Optionally opens a specific URL within the same app instead of the default start URL."},
			fixed[launchPWAArgs](pwaBudget), runLaunchPWA),
		define(tool{name: "get_os_app_state", description: "Returns the OS integration state (badge count and registered file handlers) for an installed web app, identified by its manifest ID.", readOnly: true},
			fixed[manifestArgs](listBudget), runOSAppState),
	}
}

type manifestArgs struct {
	// The tag is an interpreted string: the description quotes the
	// manifest's members in backquotes.
	ManifestID string "json:\"manifestId\" required:\"true\" desc:\"The manifest ID of the web app: the resolved `id` member of its manifest. If `id` is omitted, it defaults to the resolved `start_url` (e.g. \\\"https://example.com/\\\"). See https://w3c.github.io/manifest/#id-member.\""
}

type installPWAArgs struct {
	manifestArgs
	InstallURL  string `json:"installUrlOrBundleUrl" required:"true" desc:"The location of the app or bundle. For a normal site this is the page URL; for an Isolated Web App it can be a file:// or http(s):// signed web bundle."`
	DisplayMode string `json:"displayMode" enum:"standalone,browser" desc:"Optional user display mode preference applied after install. \"standalone\" opens the app in its own window; \"browser\" opens it as a tab. Installs via the PWA CDP domain default to \"browser\" because they do not simulate the install dialog, so pass \"standalone\" to get an app-window experience."`
}

type launchPWAArgs struct {
	manifestArgs
	URL string `json:"url" desc:"Optional URL within the app to open instead of the default start URL."`
}

// pwaAllowed refuses the PWA tools where they cannot be kept in bounds:
// under a URL policy, whose patterns the browser's own install fetches
// are not held to (chrome-devtools-mcp refuses them too), and for an
// isolated session, as an installed app belongs to the whole profile and
// opens its window outside the session's browser context.
func (c *call) pwaAllowed() error {
	if slicesContainsStar(c.s.cfg.Policy.Intercept()) {
		return errors.New("PWA APIs are not supported when network restrictions are configured (--allowed-url-pattern, --blocked-url-pattern): the browser's install fetches are not held to them.")
	}
	if c.sess.isolated != "" {
		return errors.New("PWA APIs are not available to a session with a browser context of its own (--isolate-sessions): an installed app belongs to the whole profile.")
	}
	return nil
}

func slicesContainsStar(globs []string) bool {
	for _, g := range globs {
		if g == "*" {
			return true
		}
	}
	return false
}

// pwaError says in one sentence why the browser refused a PWA command.
func pwaError(manifestID string, err error) error {
	pe, ok := errorsAs[*browser.ProtocolError](err)
	if !ok {
		return err
	}
	switch {
	case strings.Contains(pe.Message, "Unknown web-app manifest id"):
		return fmt.Errorf("No installed web app has the manifest ID %s. Install it with install_pwa first.", manifestID)
	case strings.Contains(pe.Message, "Couldn't fetch install info"):
		return fmt.Errorf("%s. Check that the page links a manifest whose resolved id is %s.", pe.Message, manifestID)
	case strings.Contains(pe.Message, "Failed to launch"):
		return fmt.Errorf("Could not launch the web app %s: install it with install_pwa first (get_os_app_state says whether it is installed).", manifestID)
	case strings.Contains(pe.Message, "wasn't found") || strings.Contains(pe.Message, "not available"):
		return errors.New("This browser does not offer the PWA domain over DevTools: Chrome offers it to a browser driven over its DevTools pipe, as tabhive launches it.")
	}
	return errors.New(agenterr.Period(pe.Message))
}

// installSource checks installUrlOrBundleUrl: an http(s) URL the URL
// policy allows, or a file: URL (a signed web bundle) the session's
// sandbox lets it read, when the browser runs on this machine.
func installSource(ctx context.Context, c *call, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("The installUrlOrBundleUrl %q is not a URL: give the app's http(s) page URL, or a file:// URL of a signed web bundle.", raw)
	}
	switch u.Scheme {
	case "http", "https":
		if err := c.s.cfg.Policy.Navigation(raw); err != nil {
			return "", err
		}
		return raw, nil
	case "file":
		if !c.s.sup.Local() {
			return raw, nil
		}
		path, err := c.sandbox(ctx).Readable(u.Path)
		if err != nil {
			return "", err
		}
		return (&url.URL{Scheme: "file", Path: path}).String(), nil
	}
	return "", fmt.Errorf("The installUrlOrBundleUrl %q is neither http(s) nor file: give the app's http(s) page URL, or a file:// URL of a signed web bundle.", raw)
}

func runInstallPWA(ctx context.Context, c *call, a *installPWAArgs) error {
	if err := c.pwaAllowed(); err != nil {
		return err
	}
	src, err := installSource(ctx, c, a.InstallURL)
	if err != nil {
		return err
	}
	if err := c.s.sup.InstallPWA(ctx, a.ManifestID, src, a.DisplayMode); err != nil {
		return pwaError(a.ManifestID, err)
	}
	c.r.line("Installed PWA with manifest ID: %s", a.ManifestID)
	if a.DisplayMode != "" {
		c.r.line("Display mode set to: %s", a.DisplayMode)
	}
	return nil
}

func runUninstallPWA(ctx context.Context, c *call, a *manifestArgs) error {
	if err := c.pwaAllowed(); err != nil {
		return err
	}
	if err := c.s.sup.UninstallPWA(ctx, a.ManifestID); err != nil {
		return pwaError(a.ManifestID, err)
	}
	c.r.line("Uninstalled PWA with manifest ID: %s", a.ManifestID)
	c.r.pages = true
	return nil
}

func runLaunchPWA(ctx context.Context, c *call, a *launchPWAArgs) error {
	if err := c.pwaAllowed(); err != nil {
		return err
	}
	if a.URL != "" {
		if err := c.s.cfg.Policy.Navigation(a.URL); err != nil {
			return err
		}
	}
	info, err := c.s.sup.LaunchPWA(ctx, a.ManifestID, a.URL)
	if err != nil {
		return pwaError(a.ManifestID, err)
	}
	c.sess.recordOpened(info.ID, false)
	c.r.line("Launched PWA with manifest ID: %s (%s)", a.ManifestID, info.URL)
	c.r.pages = true
	return nil
}

func runOSAppState(ctx context.Context, c *call, a *manifestArgs) error {
	if err := c.pwaAllowed(); err != nil {
		return err
	}
	st, err := c.s.sup.PWAState(ctx, a.ManifestID)
	if err != nil {
		return pwaError(a.ManifestID, err)
	}
	c.r.line("OS app state for manifest ID: %s", a.ManifestID)
	c.r.line("Badge count: %d", st.BadgeCount)
	c.r.line("File handlers: %s", st.FileHandlers)
	return nil
}
