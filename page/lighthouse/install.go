package lighthouse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Version is the Lighthouse [Ensure] installs: 12.8.2, the last that runs
// on Node 20 (13 needs Node 22), as chrome-devtools-mcp 1.11 bundles.
const Version = "12.8.2"

// InstallBudget bounds an install: npm fetches about 200 packages
// (16 s on a quiet machine with a near registry, 100 s at load 17 on 2
// cores).
const InstallBudget = 5 * time.Minute

// ErrNoNPM is returned by [Ensure] when Lighthouse must be installed and
// npm is not on PATH.
var ErrNoNPM = errors.New("npm not found")

// EnsureOptions say where Lighthouse is installed when it is missing.
type EnsureOptions struct {
	// CacheDir is tabhive's cache directory; if empty,
	// os.UserCacheDir()/tabhive ($XDG_CACHE_HOME/tabhive, else
	// ~/.cache/tabhive).
	CacheDir string
	// Progress, if non-nil, is called when an install starts and every
	// few seconds while npm runs, with the time it has taken; an install
	// waits for it to return.
	Progress func(elapsed time.Duration)
}

// InstallError is an install that npm failed: Reason is what it said.
type InstallError struct {
	Reason string
	Err    error
}

func (e *InstallError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("npm install lighthouse@%s: %v", Version, e.Err)
	}
	return fmt.Sprintf("npm install lighthouse@%s: %s", Version, e.Reason)
}

func (e *InstallError) Unwrap() error { return e.Err }

// Cached returns the directory [Ensure] installs Lighthouse into under
// the cache directory cacheDir (see [EnsureOptions]).
func Cached(cacheDir string) (string, error) {
	if cacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("find the cache directory: %w", err)
		}
		cacheDir = filepath.Join(dir, "tabhive")
	}
	return filepath.Join(cacheDir, "lighthouse-"+Version), nil
}

// cachedBin is the lighthouse bin of an install in dir.
func cachedBin(dir string) string { return filepath.Join(dir, "node_modules", ".bin", "lighthouse") }

// Installed returns the Lighthouse on PATH, else the one in the cache,
// without installing anything.
func Installed(o EnsureOptions) (Install, error) {
	in, err := Find("")
	if err == nil || !errors.Is(err, ErrNoCLI) {
		return in, err
	}
	dir, derr := Cached(o.CacheDir)
	if derr != nil {
		return Install{}, err
	}
	if in, cerr := Find(cachedBin(dir)); cerr == nil || !errors.Is(cerr, ErrNoCLI) {
		return in, cerr
	}
	return Install{}, err
}

// Ensure returns the Lighthouse on PATH, else the one in the cache,
// installing [Version] there with npm first if it is not there yet. The
// install is done once: a second caller, in this process or another,
// waits for the first one's lock and uses its install. npm installs into
// a directory of its own, renamed into place when it is complete, so a
// killed install leaves nothing that looks installed. npm is killed when
// ctx ends.
func Ensure(ctx context.Context, o EnsureOptions) (Install, error) {
	if in, err := Installed(o); err == nil || !errors.Is(err, ErrNoCLI) {
		return in, err
	}
	dir, err := Cached(o.CacheDir)
	if err != nil {
		return Install{}, err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return Install{}, ErrNoNPM
	}
	if _, err := exec.LookPath("node"); err != nil {
		return Install{}, ErrNoNode
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return Install{}, fmt.Errorf("make the cache directory: %w", err)
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return Install{}, err
	}
	defer unlock()
	// Another caller may have installed it while this one waited.
	if in, err := Find(cachedBin(dir)); err == nil {
		return in, nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".partial-")
	if err != nil {
		return Install{}, fmt.Errorf("make the install directory: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := npmInstall(ctx, npm, tmp, o.Progress); err != nil {
		return Install{}, err
	}
	os.RemoveAll(dir) // an install not found above: broken
	if err := os.Rename(tmp, dir); err != nil {
		return Install{}, fmt.Errorf("move the install into place: %w", err)
	}
	return Find(cachedBin(dir))
}

// progressEvery is how often an install's progress is reported.
const progressEvery = 2 * time.Second

// npmInstall installs lighthouse@Version into dir.
func npmInstall(ctx context.Context, npm, dir string, progress func(time.Duration)) error {
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir,
		"--no-audit", "--no-fund", "--no-update-notifier", "--omit=dev", "--loglevel=error",
		"lighthouse@"+Version)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: maxStderr}
	cmd.WaitDelay = 5 * time.Second
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return &InstallError{Err: err}
	}
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if progress != nil {
		wg.Add(1)
		go func() { // stopped below, once npm is done
			defer wg.Done()
			t := time.NewTicker(progressEvery)
			defer t.Stop()
			for {
				progress(time.Since(start))
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
	}
	err := cmd.Wait()
	close(stop)
	wg.Wait()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &InstallError{Reason: lastLine(stderr.String()), Err: err}
	}
	return nil
}
