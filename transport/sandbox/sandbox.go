// Package sandbox decides where the files an agent names may be written, and
// writes them safely (DESIGN §8).
//
// Tools such as take_snapshot, take_screenshot and evaluate_script take a
// filePath from the agent. A prompt injection must not be able to turn that
// into a write to ~/.ssh/authorized_keys, so every such write goes through a
// [Sandbox]:
//
//	sb := sandbox.New(sandbox.Config{Unrestricted: allowUnrestrictedPaths})
//	// When the client answers roots/list (and on roots/list_changed):
//	if err := sb.SetRoots(uris); err != nil {
//		log.Warn().Err(err).Msg("some roots were skipped")
//	}
//	path, err := sb.WriteFile(args.FilePath, data, ".png")
//
// # Allowed locations
//
// A path may be written when it lies inside one of the client's MCP roots or
// inside the OS temp directory, which is always allowed. A client that never
// declared roots gets the temp directory only, unless [Config.Unrestricted]
// (--allow-unrestricted-paths) is set, in which case any path is allowed. Once
// the client has declared roots, Unrestricted no longer applies: the flag
// restores the old behaviour for clients without the roots capability, it
// does not widen a workspace the client chose (chrome-devtools-mcp skips
// validation only when "the client did not negotiate MCP roots").
//
// # Canonical paths
//
// A path is made absolute (relative paths resolve against [Config.WorkDir]),
// cleaned lexically, then canonicalised: the realpath of its nearest existing
// ancestor, with the missing components appended. Roots are canonicalised the
// same way, and a path is inside a root when it equals it or starts with the
// root followed by a separator, so /home/u-evil is not inside /home/u. A
// symlink inside a root that points outside it is therefore denied.
//
// # Writing
//
// [Sandbox.WriteFile] refuses a symbolic link as the final component (live
// or dangling), creates missing parent directories with mode 0700 and the
// file with mode 0600. It opens the file through an [os.Root] anchored at the
// root that allowed it, which opens every component without following
// symlinks out of that root, so swapping a directory for a symlink between
// the check and the write cannot redirect the write outside the root.
//
// # Concurrency
//
// A Sandbox is shared by the concurrent tool calls of one MCP session; all
// its methods are safe to call from multiple goroutines. [Sandbox.SetRoots]
// may race with checks: a check sees either the old or the new roots, never
// a mix.
package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Config configures a [Sandbox]. The zero value restricts writes to the OS
// temp directory until the client declares roots.
type Config struct {
	// Unrestricted allows any path while the client has declared no roots
	// (--allow-unrestricted-paths). It does not widen declared roots.
	Unrestricted bool
	// TempDir is the always-allowed temp directory and where
	// [Sandbox.TempFile] writes. If empty, [os.TempDir] at the time of use.
	TempDir string
	// WorkDir is the directory relative paths resolve against. If empty, the
	// process working directory at the time of use.
	WorkDir string
}

// DeniedError is returned by [Sandbox.Resolve] and [Sandbox.WriteFile] when
// a path lies outside every allowed location.
type DeniedError struct {
	// Path is the path as the caller gave it.
	Path string
	// Canonical is the absolute, symlink-free path that was checked.
	Canonical string
}

// Error returns chrome-devtools-mcp's sentence for a denied path, verbatim.
func (e *DeniedError) Error() string {
	return fmt.Sprintf("Access denied: path %s (canonical: %s) is not within any of the configured workspace roots.", e.Path, e.Canonical)
}

// Sandbox checks and performs file writes for one MCP session. Create it
// with [New]; it is safe for concurrent use.
type Sandbox struct {
	cfg Config // fixed at creation

	mu sync.Mutex // guards the fields below
	// declared reports whether SetRoots was ever called. Lifecycle: false
	// until the client's first roots/list answer, then true for good.
	declared bool
	// roots are the canonical paths of the declared roots that resolved.
	// Replaced, never mutated, so a copy of the slice header is a snapshot.
	roots []string
}

// New returns a Sandbox with no roots declared.
func New(cfg Config) *Sandbox {
	return &Sandbox{cfg: cfg}
}

// SetRoots replaces the client's roots with uris, each a file:// URI
// (percent-encoded, host empty or "localhost") or an absolute path. URIs of
// other schemes are ignored. Calling SetRoots declares roots even when uris
// is empty, which then leaves only the temp directory allowed.
//
// Roots are canonicalised now: a root that is malformed or cannot be
// resolved (for example because it does not exist) is skipped until the next
// SetRoots, and reported in the returned error, which joins one error per
// skipped root. The error is for logging: the other roots are in effect.
func (s *Sandbox) SetRoots(uris []string) error {
	var (
		roots []string
		errs  []error
	)
	for _, uri := range uris {
		p, ok, err := rootPath(uri)
		if err != nil {
			errs = append(errs, fmt.Errorf("root %s: %w", uri, err))
			continue
		}
		if !ok {
			continue
		}
		canonical, err := filepath.EvalSymlinks(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("root %s: %w", uri, err))
			continue
		}
		roots = append(roots, canonical)
	}

	s.mu.Lock()
	s.declared = true
	s.roots = roots
	s.mu.Unlock()
	return errors.Join(errs...)
}

// HasRoots reports whether the client has declared roots, even an empty list.
// The transport uses it to warn, as chrome-devtools-mcp does, that writes are
// restricted to the temp directory.
func (s *Sandbox) HasRoots() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.declared
}

// Resolve returns the absolute, canonical form of path if it may be written,
// and a *[DeniedError] if it may not. Any other error means path could not
// be canonicalised (an ancestor is not a directory, or is unreadable).
//
// Resolve only checks: the file system may change before the caller opens the
// path, so writes must go through [Sandbox.WriteFile].
func (s *Sandbox) Resolve(path string) (string, error) {
	abs, err := s.abs(path)
	if err != nil {
		return "", err
	}
	canonical, err := canonicalize(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if _, ok := s.allowed().root(canonical); !ok {
		return "", &DeniedError{Path: path, Canonical: canonical}
	}
	return canonical, nil
}

// abs returns path made absolute against the work directory, and cleaned, so
// that no ".." is left for the file system to interpret through a symlink.
func (s *Sandbox) abs(path string) (string, error) {
	if path == "" {
		return "", errors.New("file path is empty")
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	wd := s.cfg.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("resolve %s: working directory: %w", path, err)
		}
	}
	abs, err := filepath.Abs(filepath.Join(wd, path))
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return abs, nil
}

// tempDir returns the configured temp directory.
func (s *Sandbox) tempDir() string {
	if s.cfg.TempDir != "" {
		return s.cfg.TempDir
	}
	return os.TempDir()
}

// allowList is a snapshot of where writes may go.
type allowList struct {
	// unrestricted allows every path; roots is then empty.
	unrestricted bool
	// roots are canonical directories.
	roots []string
}

// allowed snapshots the allowed locations. The temp directory is resolved on
// every call, outside the lock, so that it is allowed as soon as it exists.
func (s *Sandbox) allowed() allowList {
	s.mu.Lock()
	declared, declaredRoots := s.declared, s.roots
	s.mu.Unlock()

	if !declared && s.cfg.Unrestricted {
		return allowList{unrestricted: true}
	}
	roots := make([]string, 0, len(declaredRoots)+1)
	roots = append(roots, declaredRoots...)
	// A temp directory that cannot be resolved is simply not allowed, as
	// chrome-devtools-mcp skips roots it cannot realpath.
	if tmp, err := filepath.EvalSymlinks(s.tempDir()); err == nil {
		roots = append(roots, tmp)
	}
	return allowList{roots: roots}
}

// root returns the allowed directory containing the canonical path p: the
// first root containing it, or the volume root of p when unrestricted.
func (a allowList) root(p string) (string, bool) {
	if a.unrestricted {
		return filepath.VolumeName(p) + string(filepath.Separator), true
	}
	for _, r := range a.roots {
		if within(p, r) {
			return r, true
		}
	}
	return "", false
}

// within reports whether p equals root or lies beneath it. Both are
// canonical. The separator matters: /home/u-evil is not inside /home/u.
func within(p, root string) bool {
	if p == root {
		return true
	}
	prefix := root
	// A root of "/" (or `C:\`) already ends in a separator; appending another
	// would match nothing.
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// canonicalize returns the absolute, clean path p with every symlink
// resolved: the realpath of its nearest existing ancestor joined with the
// components that do not exist yet. A dangling symlink counts as missing, so
// it stays in the result by name (and WriteFile refuses to write through it).
func canonicalize(p string) (string, error) {
	var missing []string
	cur := p
	for {
		resolved, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{resolved}, missing...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		name := filepath.Base(cur)
		// Unreachable for a cleaned absolute path; checked because a ".."
		// re-appended after a resolved ancestor would escape it.
		if name == ".." || name == "." {
			return "", fmt.Errorf("path component %q after cleaning", name)
		}
		missing = slices.Insert(missing, 0, name)
		cur = parent
	}
}

// rootPath converts a root as the client sent it to an absolute clean path.
// ok is false, with no error, for URIs of schemes other than file.
func rootPath(uri string) (p string, ok bool, err error) {
	if filepath.IsAbs(uri) {
		return filepath.Clean(uri), true, nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", false, err
	}
	switch {
	case u.Scheme == "":
		return "", false, errors.New("neither a file URI nor an absolute path")
	case !strings.EqualFold(u.Scheme, "file"):
		return "", false, nil
	case u.Opaque != "":
		return "", false, errors.New("file URI path is not absolute")
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return "", false, fmt.Errorf("file URI names remote host %q", u.Host)
	}
	p = u.Path // percent-decoded
	// file:///C:/src has the path /C:/src.
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", false, errors.New("file URI path is not absolute")
	}
	return filepath.Clean(p), true, nil
}
