// Package pwa declares the MCP tools of Progressive Web Apps
// (--category-pwa): install_pwa, uninstall_pwa, launch_pwa and
// get_os_app_state, with chrome-devtools-mcp's names, arguments and reply
// text.
//
// The apps are the browser's: the commands of the PWA domain are the
// supervisor's ([browser.Supervisor.PWA]),
// browser-wide calls on its connection made on the caller's goroutine; a
// launched app's window is a page the supervisor registers like any other.
// This package keeps no state and starts no goroutine; it checks what a
// session may ask for (the URL policy, the sandbox, an isolated session)
// and words the browser's answers.
package pwa

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/transport/tool"
)

// budget bounds the PWA tools. An install loads the app in a window of
// its own to read its manifest and icons, and an uninstall closes the
// app's windows: on a loaded machine each takes many seconds (24 s and
// 15 s measured at load 32 on 2 cores), and a launch waits up to 10 s for
// the app's document besides.
const budget = 120 * time.Second

// tools are the PWA tools of one server.
type tools struct {
	// policy is the server's URL policy, which an app's URLs must pass.
	policy *urlpolicy.Policy
}

// Tools returns the tools that install, launch, inspect and uninstall web
// apps, whose URLs policy (the server's URL policy) must allow.
func Tools(policy *urlpolicy.Policy) []*tool.Tool {
	t := &tools{policy: policy}
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "install_pwa", Description: "Installs a Progressive Web App (PWA) identified by its manifest ID. This installs through the PWA CDP domain without a user gesture or install dialog. DevTools installs default to browser display mode."},
			tool.Fixed[installArgs](budget), t.runInstall),
		tool.Define(tool.Tool{Name: "uninstall_pwa", Description: "Uninstalls a Progressive Web App identified by its manifest ID and closes any open app windows."},
			tool.Fixed[manifestArgs](budget), t.runUninstall),
		tool.Define(tool.Tool{Name: "launch_pwa", Description: "Launches an installed Progressive Web App using its saved display mode. Optionally opens a specific URL within the same app instead of the default start URL."},
			tool.Fixed[launchArgs](budget), t.runLaunch),
		tool.Define(tool.Tool{Name: "get_os_app_state", Description: "Returns the OS integration state (badge count and registered file handlers) for an installed web app, identified by its manifest ID.", ReadOnly: true},
			tool.Fixed[manifestArgs](tool.ListBudget), t.runOSAppState),
	}
}

type manifestArgs struct {
	// The tag is an interpreted string: the description quotes the
	// manifest's members in backquotes.
	ManifestID string "json:\"manifestId\" required:\"true\" desc:\"The manifest ID of the web app: the resolved `id` member of its manifest. If `id` is omitted, it defaults to the resolved `start_url` (e.g. \\\"https://example.com/\\\"). See https://w3c.github.io/manifest/#id-member.\""
}

type installArgs struct {
	manifestArgs
	InstallURL  string `json:"installUrlOrBundleUrl" required:"true" desc:"The location of the app or bundle. For a normal site this is the page URL; for an Isolated Web App it can be a file:// or http(s):// signed web bundle."`
	DisplayMode string `json:"displayMode" enum:"standalone,browser" desc:"Optional user display mode preference applied after install. \"standalone\" opens the app in its own window; \"browser\" opens it as a tab. Installs via the PWA CDP domain default to \"browser\" because they do not simulate the install dialog, so pass \"standalone\" to get an app-window experience."`
}

type launchArgs struct {
	manifestArgs
	URL string `json:"url" desc:"Optional URL within the app to open instead of the default start URL."`
}

// allowed refuses the PWA tools where they cannot be kept in bounds:
// under a URL policy, whose patterns the browser's own install fetches
// are not held to (chrome-devtools-mcp refuses them too), and for an
// isolated session, as an installed app belongs to the whole profile and
// opens its window outside the session's browser context.
func (t *tools) allowed(c tool.Call) error {
	if slices.Contains(t.policy.Intercept(), "*") {
		return errors.New("PWA APIs are not supported when network restrictions are configured (--allowed-url-pattern, --blocked-url-pattern): the browser's install fetches are not held to them.")
	}
	if c.Isolated() {
		return errors.New("PWA APIs are not available to a session with a browser context of its own (--isolate-sessions): an installed app belongs to the whole profile.")
	}
	return nil
}

// refused says in one sentence why the browser refused a PWA command.
func refused(manifestID string, err error) error {
	var pe *browser.ProtocolError
	if !errors.As(err, &pe) {
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
func (t *tools) installSource(ctx context.Context, c tool.Call, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("The installUrlOrBundleUrl %q is not a URL: give the app's http(s) page URL, or a file:// URL of a signed web bundle.", raw)
	}
	switch u.Scheme {
	case "http", "https":
		if err := t.policy.Navigation(raw); err != nil {
			return "", err
		}
		return raw, nil
	case "file":
		if !c.Browser().Local() {
			return raw, nil
		}
		path, err := c.Sandbox(ctx).Readable(u.Path)
		if err != nil {
			return "", err
		}
		return (&url.URL{Scheme: "file", Path: path}).String(), nil
	}
	return "", fmt.Errorf("The installUrlOrBundleUrl %q is neither http(s) nor file: give the app's http(s) page URL, or a file:// URL of a signed web bundle.", raw)
}

func (t *tools) runInstall(ctx context.Context, c tool.Call, a *installArgs) error {
	if err := t.allowed(c); err != nil {
		return err
	}
	src, err := t.installSource(ctx, c, a.InstallURL)
	if err != nil {
		return err
	}
	if err := c.Browser().PWA().Install(ctx, a.ManifestID, src, a.DisplayMode); err != nil {
		return refused(a.ManifestID, err)
	}
	c.Reply().Line("Installed PWA with manifest ID: %s", a.ManifestID)
	if a.DisplayMode != "" {
		c.Reply().Line("Display mode set to: %s", a.DisplayMode)
	}
	return nil
}

func (t *tools) runUninstall(ctx context.Context, c tool.Call, a *manifestArgs) error {
	if err := t.allowed(c); err != nil {
		return err
	}
	if err := c.Browser().PWA().Uninstall(ctx, a.ManifestID); err != nil {
		return refused(a.ManifestID, err)
	}
	c.Reply().Line("Uninstalled PWA with manifest ID: %s", a.ManifestID)
	c.Reply().Pages()
	return nil
}

func (t *tools) runLaunch(ctx context.Context, c tool.Call, a *launchArgs) error {
	if err := t.allowed(c); err != nil {
		return err
	}
	if a.URL != "" {
		if err := t.policy.Navigation(a.URL); err != nil {
			return err
		}
	}
	info, err := c.Browser().PWA().Launch(ctx, a.ManifestID, a.URL)
	if err != nil {
		return refused(a.ManifestID, err)
	}
	c.Opened(info.ID)
	c.Reply().Line("Launched PWA with manifest ID: %s (%s)", a.ManifestID, info.URL)
	c.Reply().Pages()
	return nil
}

func (t *tools) runOSAppState(ctx context.Context, c tool.Call, a *manifestArgs) error {
	if err := t.allowed(c); err != nil {
		return err
	}
	st, err := c.Browser().PWA().State(ctx, a.ManifestID)
	if err != nil {
		return refused(a.ManifestID, err)
	}
	c.Reply().Line("OS app state for manifest ID: %s", a.ManifestID)
	c.Reply().Line("Badge count: %d", st.BadgeCount)
	c.Reply().Line("File handlers: %s", st.FileHandlers)
	return nil
}
