// Package extensions declares the MCP tools of unpacked Chrome extensions
// (--category-extensions): install_extension, uninstall_extension,
// list_extensions, reload_extension and trigger_extension_action, with
// chrome-devtools-mcp's names, arguments and reply text.
//
// The extensions themselves are the browser's: the commands of the
// Extensions domain are the supervisor's ([browser.Supervisor.Extensions]),
// browser-wide calls on its connection made on the caller's goroutine.
// This package keeps no state and starts no goroutine; it checks what a
// session may ask for (an extension's directory against the session's
// sandbox, the whole browser against an isolated session) and words the
// browser's answers. [Worker] finds an extension's service
// worker for the tools that take a serviceWorkerId (evaluate_script,
// list_console_messages), under the same rule.
package extensions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// budget bounds the extension tools: chrome-devtools-mcp gives loading
// and uninstalling 30 s, which a loaded machine can use up; a bound is
// there to end a hang, not to hurry the browser.
const budget = 60 * time.Second

// Tools returns the tools that load, list, reload, uninstall and click
// unpacked extensions.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "install_extension", Description: "Installs a Chrome extension from the given path."},
			tool.Fixed[installArgs](budget), runInstall),
		tool.Define(tool.Tool{Name: "uninstall_extension", Description: "Uninstalls a Chrome extension by its ID."},
			tool.Fixed[uninstallArgs](budget), runUninstall),
		tool.Define(tool.Tool{Name: "list_extensions", Description: "Lists all the Chrome extensions installed in the browser. This includes their name, ID, version, and enabled status.", ReadOnly: true},
			tool.Fixed[struct{}](tool.ListBudget), runList),
		tool.Define(tool.Tool{Name: "reload_extension", Description: "Reloads an unpacked Chrome extension by its ID."},
			tool.Fixed[reloadArgs](budget), runReload),
		tool.Define(tool.Tool{Name: "trigger_extension_action", Description: "Triggers the default action of an extension by its ID.", Page: true, Action: true},
			tool.Fixed[triggerArgs](budget), runTrigger),
	}
}

type installArgs struct {
	Path string `json:"path" required:"true" desc:"Absolute path to the unpacked extension folder."`
}

type uninstallArgs struct {
	ID string `json:"id" required:"true" desc:"ID of the extension to uninstall."`
}

type reloadArgs struct {
	ID string `json:"id" required:"true" desc:"ID of the extension to reload."`
}

type triggerArgs struct {
	ID string `json:"id" required:"true" desc:"ID of the extension to trigger the action for."`
}

// Allowed refuses what would reach beyond an isolated session
// (--isolate-sessions): an extension runs in every page of the browser,
// other sessions' included, and so does its service worker.
func Allowed(c tool.Call) error {
	if c.Isolated() {
		return errors.New("Extensions belong to the whole browser: a session with a browser context of its own (--isolate-sessions) may not install, reload or remove them, nor run scripts in their service workers.")
	}
	return nil
}

// checkDir checks an extension directory against the session's sandbox, as a
// file the browser will read: its manifest.json must be a file the
// session may read. A browser on another machine reads its own disk,
// which the sandbox does not describe: the path goes as given.
func checkDir(ctx context.Context, c tool.Call, dir string) (string, error) {
	if !c.Browser().Local() {
		return dir, nil
	}
	box := c.Sandbox(ctx)
	manifest, err := box.Readable(filepath.Join(dir, "manifest.json"))
	if err != nil {
		if denied(err) {
			return "", err
		}
		return "", fmt.Errorf("%s holds no readable manifest.json: give the directory of an unpacked extension.", dir)
	}
	dir = filepath.Dir(manifest)
	if err := contents(box, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// denied reports whether the sandbox refused a path as one it protects
// (its sentence says so), rather than as one it cannot read.
func denied(err error) bool {
	var de *sandbox.DeniedError
	return errors.As(err, &de)
}

// maxEntries bounds the walk of an extension's directory.
const maxEntries = 20000

// contents checks what Chrome may read of the unpacked extension in dir
// (canonical, inside the sandbox): every file under it, served to the
// extension and to pages as chrome-extension:// URLs. Chrome follows an
// unpacked extension's links wherever they point, so a link under dir
// must resolve inside dir; and no directory under it may be one the
// sandbox protects (the browser's profile, whose cookies the extension
// would read). Links are resolved as found; what changes after the check
// is not seen (agents cannot make links, but another process can).
func contents(sb *sandbox.Sandbox, dir string) error {
	n := 0
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s could not be read whole: give the directory of an unpacked extension whose files tabhive can read.", dir)
		}
		if n++; n > maxEntries {
			return fmt.Errorf("%s holds more than %d files and directories: give the directory of one unpacked extension.", dir, maxEntries)
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(p)
			if err != nil || (target != dir && !strings.HasPrefix(target, dir+string(filepath.Separator))) {
				return fmt.Errorf("%s links outside the extension's directory (or to nothing), and Chrome would serve what it points to: copy the file into the directory instead.", p)
			}
		case d.IsDir() && p != dir:
			if _, err := sb.Resolve(p); err != nil {
				if denied(err) {
					return err
				}
				return fmt.Errorf("%s could not be read whole: give the directory of an unpacked extension whose files tabhive can read.", dir)
			}
		}
		return nil
	})
}

// refused says in one sentence why the browser refused an extension
// command about extension id.
func refused(id string, err error) error {
	if errors.Is(err, browser.ErrNoExtension) {
		return fmt.Errorf("Extension with ID %s not found. Call list_extensions to see installed extensions.", id)
	}
	var pe *browser.ProtocolError
	if errors.As(err, &pe) {
		if strings.Contains(pe.Message, "wasn't found") || strings.Contains(pe.Message, "not available") {
			return errors.New("This browser does not let DevTools load or remove extensions: Chrome allows it to a browser driven over its DevTools pipe, as tabhive launches it, or started with --enable-unsafe-extension-debugging.")
		}
		return errors.New(agenterr.Period(pe.Message))
	}
	return err
}

func runInstall(ctx context.Context, c tool.Call, a *installArgs) error {
	if err := Allowed(c); err != nil {
		return err
	}
	dir, err := checkDir(ctx, c, a.Path)
	if err != nil {
		return err
	}
	id, err := c.Browser().Extensions().Install(ctx, dir)
	if err != nil {
		return refused("", err)
	}
	c.Reply().Line("Extension installed. Id: %s", id)
	return nil
}

func runUninstall(ctx context.Context, c tool.Call, a *uninstallArgs) error {
	if err := Allowed(c); err != nil {
		return err
	}
	if _, err := c.Browser().Extensions().Get(ctx, a.ID); err != nil {
		return refused(a.ID, err)
	}
	if err := c.Browser().Extensions().Uninstall(ctx, a.ID); err != nil {
		return refused(a.ID, err)
	}
	c.Reply().Line("Extension uninstalled. Id: %s", a.ID)
	return nil
}

func runList(ctx context.Context, c tool.Call, _ *struct{}) error {
	all, err := c.Browser().Extensions().List(ctx)
	if err != nil {
		return refused("", err)
	}
	c.Reply().Line("## Extensions")
	if len(all) == 0 {
		c.Reply().Line("No extensions installed.")
		return nil
	}
	for _, e := range all {
		state := "Disabled"
		if e.Enabled {
			state = "Enabled"
		}
		c.Reply().Line("id=%s %q v%s %s", e.ID, e.Name, e.Version, state)
	}
	return nil
}

// runReload loads the extension again from its directory, as
// chrome-devtools-mcp does; the directory is checked as install_extension
// checks it.
func runReload(ctx context.Context, c tool.Call, a *reloadArgs) error {
	if err := Allowed(c); err != nil {
		return err
	}
	e, err := c.Browser().Extensions().Get(ctx, a.ID)
	if err != nil {
		return refused(a.ID, err)
	}
	dir, err := checkDir(ctx, c, e.Path)
	if err != nil {
		return err
	}
	if _, err := c.Browser().Extensions().Install(ctx, dir); err != nil {
		return refused(a.ID, err)
	}
	c.Reply().Line("Extension reloaded.")
	return nil
}

func runTrigger(ctx context.Context, c tool.Call, a *triggerArgs) error {
	// Chrome runs the action on the active tab of the page's window, not
	// on the tab it is given: the page must be the one in front. (Another
	// agent bringing its tab forward in between still wins; DIFFERENCES.)
	if p := c.Page(); p != nil {
		if err := p.BringToFront(ctx); err != nil {
			return err
		}
	}
	if err := c.Browser().Extensions().TriggerAction(ctx, a.ID, c.PageID()); err != nil {
		var pe *browser.ProtocolError
		if errors.As(err, &pe) {
			return fmt.Errorf("Extension %s has no action to trigger on page %d: %s", a.ID, c.PageID(), agenterr.Period(pe.Message))
		}
		return refused(a.ID, err)
	}
	c.Reply().Line("Extension action triggered for ID %s", a.ID)
	return nil
}
