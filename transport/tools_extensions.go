package transport

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
)

// extensionBudget bounds the extension tools: chrome-devtools-mcp gives
// loading and uninstalling 30 s, which a loaded machine can use up; a
// bound is there to end a hang, not to hurry the browser.
const extensionBudget = 60 * time.Second

// extensionTools load, list, reload, uninstall and click unpacked
// extensions (--category-extensions).
func (s *Server) extensionTools() []*tool {
	return []*tool{
		define(tool{name: "install_extension", description: "Installs a Chrome extension from the given path."},
			fixed[installExtensionArgs](extensionBudget), runInstallExtension),
		define(tool{name: "uninstall_extension", description: "Uninstalls a Chrome extension by its ID."},
			fixed[extensionIDArgs](extensionBudget), runUninstallExtension),
		define(tool{name: "list_extensions", description: "Lists all the Chrome extensions installed in the browser. This includes their name, ID, version, and enabled status.", readOnly: true},
			fixed[struct{}](listBudget), runListExtensions),
		define(tool{name: "reload_extension", description: "Reloads an unpacked Chrome extension by its ID."},
			fixed[reloadExtensionArgs](extensionBudget), runReloadExtension),
		define(tool{name: "trigger_extension_action", description: "Triggers the default action of an extension by its ID.", page: true, action: true},
			fixed[triggerExtensionArgs](extensionBudget), runTriggerExtensionAction),
	}
}

type installExtensionArgs struct {
	Path string `json:"path" required:"true" desc:"Absolute path to the unpacked extension folder."`
}

type extensionIDArgs struct {
	ID string `json:"id" required:"true" desc:"ID of the extension to uninstall."`
}

type reloadExtensionArgs struct {
	ID string `json:"id" required:"true" desc:"ID of the extension to reload."`
}

type triggerExtensionArgs struct {
	ID string `json:"id" required:"true" desc:"ID of the extension to trigger the action for."`
}

// extensionDir checks an extension directory against the session's
// sandbox, as a file the browser will read: its manifest.json must be a
// file the session may read. A browser on another machine reads its own
// disk, which the sandbox does not describe: the path goes as given.
func extensionDir(ctx context.Context, c *call, dir string) (string, error) {
	if !c.s.sup.Local() {
		return dir, nil
	}
	manifest, err := c.sandbox(ctx).Readable(filepath.Join(dir, "manifest.json"))
	if err != nil {
		if _, denied := errorsAs[*sandbox.DeniedError](err); denied {
			return "", err
		}
		return "", fmt.Errorf("%s holds no readable manifest.json: give the directory of an unpacked extension.", dir)
	}
	dir = filepath.Dir(manifest)
	if err := extensionContents(c.sandbox(ctx), dir); err != nil {
		return "", err
	}
	return dir, nil
}

// maxExtensionEntries bounds the walk of an extension's directory.
const maxExtensionEntries = 20000

// extensionContents checks what Chrome may read of the unpacked extension
// in dir (canonical, inside the sandbox): every file under it, served to
// the extension and to pages as chrome-extension:// URLs. Chrome follows
// an unpacked extension's links wherever they point, so a link under dir
// must resolve inside dir; and no directory under it may be one the
// sandbox protects (the browser's profile, whose cookies the extension
// would read). Links are resolved as found; what changes after the check
// is not seen (agents cannot make links, but another process can).
func extensionContents(sb *sandbox.Sandbox, dir string) error {
	n := 0
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s could not be read whole: give the directory of an unpacked extension whose files tabhive can read.", dir)
		}
		if n++; n > maxExtensionEntries {
			return fmt.Errorf("%s holds more than %d files and directories: give the directory of one unpacked extension.", dir, maxExtensionEntries)
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(p)
			if err != nil || (target != dir && !strings.HasPrefix(target, dir+string(filepath.Separator))) {
				return fmt.Errorf("%s links outside the extension's directory (or to nothing), and Chrome would serve what it points to: copy the file into the directory instead.", p)
			}
		case d.IsDir() && p != dir:
			if _, err := sb.Resolve(p); err != nil {
				if _, denied := errorsAs[*sandbox.DeniedError](err); denied {
					return err
				}
				return fmt.Errorf("%s could not be read whole: give the directory of an unpacked extension whose files tabhive can read.", dir)
			}
		}
		return nil
	})
}

// extensionsAllowed refuses what would reach beyond an isolated session
// (--isolate-sessions): an extension runs in every page of the browser,
// other sessions' included, and so does its service worker.
func (c *call) extensionsAllowed() error {
	if c.sess.isolated != "" {
		return errors.New("Extensions belong to the whole browser: a session with a browser context of its own (--isolate-sessions) may not install, reload or remove them, nor run scripts in their service workers.")
	}
	return nil
}

// extensionError says in one sentence why the browser refused an
// extension command.
func extensionError(id string, err error) error {
	if errors.Is(err, browser.ErrNoExtension) {
		return fmt.Errorf("Extension with ID %s not found. Call list_extensions to see installed extensions.", id)
	}
	if pe, ok := errorsAs[*browser.ProtocolError](err); ok {
		if strings.Contains(pe.Message, "wasn't found") || strings.Contains(pe.Message, "not available") {
			return errors.New("This browser does not let DevTools load or remove extensions: Chrome allows it to a browser driven over its DevTools pipe, as tabhive launches it, or started with --enable-unsafe-extension-debugging.")
		}
		return errors.New(agenterr.Period(pe.Message))
	}
	return err
}

func runInstallExtension(ctx context.Context, c *call, a *installExtensionArgs) error {
	if err := c.extensionsAllowed(); err != nil {
		return err
	}
	dir, err := extensionDir(ctx, c, a.Path)
	if err != nil {
		return err
	}
	id, err := c.s.sup.InstallExtension(ctx, dir)
	if err != nil {
		return extensionError("", err)
	}
	c.r.line("Extension installed. Id: %s", id)
	return nil
}

func runUninstallExtension(ctx context.Context, c *call, a *extensionIDArgs) error {
	if err := c.extensionsAllowed(); err != nil {
		return err
	}
	if _, err := c.s.sup.Extension(ctx, a.ID); err != nil {
		return extensionError(a.ID, err)
	}
	if err := c.s.sup.UninstallExtension(ctx, a.ID); err != nil {
		return extensionError(a.ID, err)
	}
	c.r.line("Extension uninstalled. Id: %s", a.ID)
	return nil
}

func runListExtensions(ctx context.Context, c *call, _ *struct{}) error {
	all, err := c.s.sup.Extensions(ctx)
	if err != nil {
		return extensionError("", err)
	}
	c.r.line("## Extensions")
	if len(all) == 0 {
		c.r.line("No extensions installed.")
		return nil
	}
	for _, e := range all {
		state := "Disabled"
		if e.Enabled {
			state = "Enabled"
		}
		c.r.line("id=%s %q v%s %s", e.ID, e.Name, e.Version, state)
	}
	return nil
}

// runReloadExtension loads the extension again from its directory, as
// chrome-devtools-mcp does; the directory is checked as install_extension
// checks it.
func runReloadExtension(ctx context.Context, c *call, a *reloadExtensionArgs) error {
	if err := c.extensionsAllowed(); err != nil {
		return err
	}
	e, err := c.s.sup.Extension(ctx, a.ID)
	if err != nil {
		return extensionError(a.ID, err)
	}
	dir, err := extensionDir(ctx, c, e.Path)
	if err != nil {
		return err
	}
	if _, err := c.s.sup.InstallExtension(ctx, dir); err != nil {
		return extensionError(a.ID, err)
	}
	c.r.line("Extension reloaded.")
	return nil
}

func runTriggerExtensionAction(ctx context.Context, c *call, a *triggerExtensionArgs) error {
	// Chrome runs the action on the active tab of the page's window, not
	// on the tab it is given: the page must be the one in front. (Another
	// agent bringing its tab forward in between still wins; DIFFERENCES.)
	if c.page != nil {
		if err := c.page.BringToFront(ctx); err != nil {
			return err
		}
	}
	if err := c.s.sup.TriggerExtensionAction(ctx, a.ID, c.pageID); err != nil {
		if pe, ok := errorsAs[*browser.ProtocolError](err); ok {
			return fmt.Errorf("Extension %s has no action to trigger on page %d: %s", a.ID, c.pageID, agenterr.Period(pe.Message))
		}
		return extensionError(a.ID, err)
	}
	c.r.line("Extension action triggered for ID %s", a.ID)
	return nil
}
