package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// process is the process's private directory. One per process, not per
// server: it only ever holds directories of sandboxes, each private to its
// session, and a test binary running many servers makes one.
var process struct {
	mu  sync.Mutex // guards dir
	dir madeDir
}

// PrivateDir returns the canonical path of the process's private
// directory, $TMPDIR/tabhive-files-XXXXXXXX with mode 0700, making it on
// first use. Each [Sandbox] without a [Config.PrivateDir] makes its own
// directory inside it. If the directory disappears (a temp cleaner removed
// it), the next call makes a new one.
//
// Files written there outlive the server: a reply names them, and the agent
// or its user may read them after the call, or after the server exits.
func PrivateDir() (string, error) {
	process.mu.Lock()
	defer process.mu.Unlock()
	return process.dir.ensure(os.TempDir(), "tabhive-files-")
}

// Cleanup removes the process's private directory if it holds nothing but
// empty directories, the sandboxes' own that received no file. Files are
// kept: replies named them. Call it when the server exits; a sandbox used
// afterwards makes a new private directory.
func Cleanup() error {
	process.mu.Lock()
	defer process.mu.Unlock()
	dir := process.dir.path
	if dir == "" || !process.dir.alive() {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clean up %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if err := removeEmpty(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	if err := removeEmpty(dir); err != nil {
		errs = append(errs, err)
	} else if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		process.dir = madeDir{}
	}
	return errors.Join(errs...)
}

// removeEmpty removes the directory dir if it is empty. A directory that
// has entries is kept without error.
func removeEmpty(dir string) error {
	err := os.Remove(dir)
	if err == nil {
		return nil
	}
	// The errno for "not empty" differs between systems (ENOTEMPTY,
	// EEXIST): look at the directory instead.
	if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) > 0 {
		return nil
	}
	return fmt.Errorf("clean up %s: %w", dir, err)
}

// madeDir is a directory this process made with [os.MkdirTemp]. Its owner
// guards it with a mutex.
type madeDir struct {
	path string      // canonical; "" until made
	info fs.FileInfo // of path when made, to notice a replacement
}

// ensure returns the directory's canonical path, making it inside parent
// with the name prefix pattern if it was never made, or if what now stands
// at its path is not the directory made (removed, or replaced by someone
// else's file or link).
func (d *madeDir) ensure(parent, prefix string) (string, error) {
	if d.path != "" && d.alive() {
		return d.path, nil
	}
	dir, err := os.MkdirTemp(parent, prefix) // mode 0700, a name no one else holds
	if err != nil {
		return "", fmt.Errorf("could not make a private directory in %s: %w", parent, err)
	}
	canonical, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("could not make a private directory in %s: %w", parent, err)
	}
	info, err := os.Lstat(canonical)
	if err != nil {
		return "", fmt.Errorf("could not make a private directory in %s: %w", parent, err)
	}
	*d = madeDir{path: canonical, info: info}
	return canonical, nil
}

// alive reports whether the directory made still stands at its path.
func (d *madeDir) alive() bool {
	fi, err := os.Lstat(d.path)
	return err == nil && fi.IsDir() && os.SameFile(fi, d.info)
}

// CheckRoots checks directories given to the server at start as workspaces
// (--workspace, --filesystem-root): each must exist and be a directory. The
// error names the first one that is not, in a sentence for the operator.
func CheckRoots(dirs []string) error {
	for _, dir := range dirs {
		if dir == "" {
			return errors.New("a workspace directory is empty; give the path of an existing directory")
		}
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("workspace %s does not exist; give the path of an existing directory", dir)
		case err != nil:
			return fmt.Errorf("workspace %s cannot be used: %w", dir, err)
		case !fi.IsDir():
			return fmt.Errorf("workspace %s is not a directory; give the path of an existing directory", dir)
		}
	}
	return nil
}
