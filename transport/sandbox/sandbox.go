// Package sandbox decides which files an agent may name, and reads and
// writes them safely (ARCHITECTURE.md §12).
//
// Tools such as take_snapshot, take_screenshot and evaluate_script take a
// filePath from the agent; upload_file and evaluate_script's sourcePath read
// one. A prompt injection must not be able to turn that into a write to
// ~/.ssh/authorized_keys, nor into a read of the browser's cookies, so every
// such path goes through a [Sandbox]:
//
//	sb := sandbox.New(sandbox.Config{Workspaces: workspaces, Protected: profiles})
//	// When the client answers roots/list (and on roots/list_changed):
//	if err := sb.SetRoots(uris); err != nil {
//		log.Warn().Err(err).Msg("some roots were skipped")
//	}
//	path, err := sb.WriteFile(args.FilePath, data, ".png")
//	src, path, err := sb.ReadFile(args.SourcePath, 1<<20)
//
// # Allowed locations
//
// A path may be read or written when it lies inside one of the client's MCP
// roots, one of the operator's workspaces ([Config.Workspaces], the
// --workspace flag), or the sandbox's private directory. The private
// directory is always allowed: unless [Config.PrivateDir] names one, it is
// a directory of the sandbox's own, made on first use inside the process's
// private directory, $TMPDIR/tabhive-files-XXXXXXXX (mode 0700, see
// [PrivateDir]). One sandbox serves one MCP session, so sessions do not
// see each other's files there. Unlike chrome-devtools-mcp, the rest of the
// OS temp directory is not allowed: it holds the browser's isolated profile
// and other programs' files.
//
// A client that never declared roots gets the workspaces and the private
// directory only, unless [Config.Unrestricted] (--allow-unrestricted-paths)
// is set, in which case any path is allowed. Once the client has declared
// roots, Unrestricted no longer applies: the flag restores the old behaviour
// for clients without the roots capability, it does not widen a workspace
// the client chose (chrome-devtools-mcp skips validation only when "the
// client did not negotiate MCP roots").
//
// Whatever the roots, workspaces or flags, no path inside a protected
// directory ([Config.Protected]: the browser's profile, which holds its
// cookies and DevToolsActivePort) is ever read or written. A root of / or of
// the home directory contains the profile; it stays out of reach.
//
// # Relative paths
//
// A relative path resolves against the working directory ([Config.WorkDir])
// when that directory is itself allowed, as chrome-devtools-mcp resolves it
// against its working directory; otherwise against the private directory,
// so that "shot.png" always names a file the agent may write. Replies name
// the canonical path written, so the agent learns where the file went.
//
// # Canonical paths
//
// A path is made absolute, cleaned lexically, then canonicalised: the
// realpath of its nearest existing ancestor, with the missing components
// appended. Roots, workspaces and protected directories are canonicalised
// the same way, and a path is inside a directory when it equals it or starts
// with it followed by a separator, so /home/u-evil is not inside /home/u. A
// symlink inside a root that points outside it, or into a protected
// directory, is therefore denied.
//
// # Writing and reading
//
// [Sandbox.WriteFile] ([Sandbox.Create] for output written in pieces, such
// as a trace streamed from the browser) refuses a symbolic link as the
// final component (live
// or dangling), creates missing parent directories with mode 0700 and the
// file with mode 0600. It opens the file through an [os.Root] anchored at the
// directory that allowed it, which opens every component without following
// symlinks out of that directory, so swapping a directory for a symlink
// between the check and the write cannot redirect the write outside it.
// [Sandbox.ReadFile] and [Sandbox.Readable] accept regular files only, after
// resolving every symlink, and read through an [os.Root] the same way.
//
// Every open is non-blocking (O_NONBLOCK), then the file is looked at
// (fstat) and refused with a *[NotRegularError] unless it is a regular
// file, and only then made blocking: a FIFO planted where a tool writes
// would otherwise hold the open, and the call, until some process read it.
// A write also checks, after the open, that the file opened is
// the one standing at the path, not one a symlink planted since led to.
//
// # Disk
//
// [Config.MaxBytes] bounds what the files written through a sandbox and its
// views hold together (--max-session-disk): a write that would pass it is
// refused whole with a *[DiskFullError], and a [File] that had a write
// refused removes itself when closed. [Sandbox.Room] says what is left, for
// a recording another process writes ([File.ForProcess]).
//
// # Files the server writes on its own
//
// [Sandbox.TempFile] writes outputs too large for a reply (screenshots over
// 2 MB) into the private directory under a fresh name; [Sandbox.CreateTemp]
// opens such a file to be written in pieces (a performance trace saved
// without a filePath). They are kept when
// the server exits, since the reply that named them may be read later;
// [Cleanup] removes only what is empty; [Sandbox.RemovePrivate] removes one
// sandbox's private directory with what it holds, when its session ends.
//
// # Files written are reported
//
// Every file written through a sandbox, by [Sandbox.WriteFile],
// [Sandbox.TempFile] or [Sandbox.Create] (for a file written as it comes,
// a chunk at a time), is reported to [Config.Written], and to the observer
// of the view it was written through ([Sandbox.Observe]). This is the one
// place files are written, so the transport learns here of every file a
// tool writes, and offers it to a remote client as an MCP resource with a
// link in the tool's reply: a tool gets that by writing through its
// session's sandbox, and must not write files any other way.
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

// Config configures a [Sandbox]. The zero value allows only the sandbox's
// private directory until the client declares roots, and protects nothing.
type Config struct {
	// Unrestricted allows any path while the client has declared no roots
	// (--allow-unrestricted-paths). It does not widen declared roots, and
	// protected directories stay out of reach.
	Unrestricted bool
	// Workspaces are directories allowed besides the client's roots
	// (--workspace, --filesystem-root). A relative one is taken against the
	// process's working directory. Each is resolved on every check; one
	// that does not resolve is skipped, so check them at start with
	// [CheckRoots].
	Workspaces []string
	// PrivateDir is the sandbox's own directory: always allowed, where
	// relative paths resolve when the working directory is not allowed, and
	// where [Sandbox.TempFile] writes. If empty, a fresh directory inside
	// the process's private directory ([PrivateDir]), made on first use.
	PrivateDir string
	// Protected returns the directories in which nothing may be read or
	// written, even inside an allowed location: the browser's profile. It
	// is called on every check, since the profile changes when the browser
	// is relaunched, and must be safe for concurrent use. Empty strings are
	// ignored. If nil, nothing is protected.
	Protected func() []string
	// WorkDir is the directory relative paths resolve against when it is
	// allowed. If empty, the process working directory at the time of use.
	WorkDir string
	// Written, if non-nil, is called with the canonical path of every file
	// written through the sandbox or any of its views ([Sandbox.WriteFile],
	// [Sandbox.TempFile], [Sandbox.Create]), once the file exists. The
	// transport offers each as an MCP resource of the session. It must be
	// safe for concurrent use and must not block.
	Written func(path string)
	// MaxBytes bounds what the files written through the sandbox and its
	// views hold on disk together (--max-session-disk); 0 bounds nothing.
	// See [File] and [DiskFullError].
	MaxBytes int64
}

// DeniedError is returned when a path lies outside every allowed location,
// or inside a protected directory.
type DeniedError struct {
	// Path is the path as the caller gave it.
	Path string
	// Canonical is the absolute, symlink-free path that was checked.
	Canonical string
	// Protected is set when Canonical lies in a protected directory (the
	// browser's profile), which no root or flag opens.
	Protected bool
	// PrivateDir is the sandbox's private directory, named in the message
	// as a place the agent may use; empty if it could not be made.
	PrivateDir string
}

// Error returns chrome-devtools-mcp's sentence for a denied path, verbatim,
// followed by where the agent may write instead; or, for a protected path,
// a sentence of tabhive's own.
// AgentSentence is the Error text, written for the agent.
func (e *DeniedError) AgentSentence() string { return e.Error() }

func (e *DeniedError) Error() string {
	if e.Protected {
		return fmt.Sprintf("Access denied: path %s (canonical: %s) is inside the browser's profile, which no tool may read or write.", e.Path, e.Canonical)
	}
	msg := fmt.Sprintf("Access denied: path %s (canonical: %s) is not within any of the configured workspace roots.", e.Path, e.Canonical)
	if e.PrivateDir != "" {
		msg += fmt.Sprintf(" Use a path inside one of them, or inside %s.", e.PrivateDir)
	}
	return msg
}

// Sandbox checks and performs file reads and writes for one MCP session.
// Create it with [New]; it is safe for concurrent use. [Sandbox.Observe]
// makes views of it that share its roots and private directory and also
// report the files they write.
type Sandbox struct {
	*state
	// observe, when set, is told of each file written through this view
	// (see [Sandbox.Observe]); [Config.Written] is told of them all.
	observe func(path string)
}

// state is what the views of one sandbox share.
type state struct {
	cfg Config  // fixed at creation
	led *ledger // fixed at creation; nil without cfg.MaxBytes

	mu sync.Mutex // guards the fields below
	// declared reports whether SetRoots was ever called. Lifecycle: false
	// until the client's first roots/list answer, then true for good.
	declared bool
	// roots are the canonical paths of the declared roots that resolved.
	// Replaced, never mutated, so a copy of the slice header is a snapshot.
	roots []string
	// own is the private directory made for this sandbox when
	// cfg.PrivateDir is empty. Lifecycle: made on first use, made again if
	// it disappears (a temp cleaner removed it).
	own madeDir
}

// New returns a Sandbox with no roots declared. It touches no file: the
// private directory is made on first use.
func New(cfg Config) *Sandbox {
	return &Sandbox{state: &state{cfg: cfg, led: newLedger(cfg.MaxBytes)}}
}

// SetRoots replaces the client's roots with uris, each a file:// URI
// (percent-encoded, host empty or "localhost") or an absolute path. URIs of
// other schemes are ignored. Calling SetRoots declares roots even when uris
// is empty, which then leaves only the workspaces and the private directory
// allowed.
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
// The transport uses it to warn, as chrome-devtools-mcp does, that file
// tools are restricted.
func (s *Sandbox) HasRoots() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.declared
}

// Resolve returns the absolute, canonical form of path if it may be read or
// written, and a *[DeniedError] if it may not. Any other error means path
// could not be canonicalised (an ancestor is not a directory, or is
// unreadable), or the private directory a relative path needs could not be
// made.
//
// Resolve only checks: the file system may change before the caller opens the
// path, so writes must go through [Sandbox.WriteFile] and reads through
// [Sandbox.ReadFile].
func (s *Sandbox) Resolve(path string) (string, error) {
	allowed := s.allowed()
	abs, err := s.abs(allowed, path)
	if err != nil {
		return "", err
	}
	canonical, err := canonicalize(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if _, err := allowed.check(path, canonical); err != nil {
		return "", err
	}
	return canonical, nil
}

// abs returns path made absolute and cleaned, so that no ".." is left for
// the file system to interpret through a symlink. A relative path is taken
// against the work directory if allowed permits it, else against the
// private directory.
func (s *Sandbox) abs(allowed allowList, path string) (string, error) {
	if path == "" {
		return "", errors.New("file path is empty")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("file path %q contains a NUL byte", path)
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	base, err := s.relativeBase(allowed)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return filepath.Join(base, path), nil // Join cleans
}

// relativeBase returns the canonical directory relative paths resolve
// against: the work directory when it is allowed, as upstream resolves them
// against its working directory, else the private directory.
func (s *Sandbox) relativeBase(allowed allowList) (string, error) {
	wd := s.cfg.WorkDir
	if wd == "" {
		wd, _ = os.Getwd() // a working directory that is gone is not allowed
	}
	if wd != "" {
		if abs, err := filepath.Abs(wd); err == nil {
			if canonical, err := canonicalize(abs); err == nil {
				if _, err := allowed.check(wd, canonical); err == nil {
					return canonical, nil
				}
			}
		}
	}
	if allowed.private == "" {
		return "", fmt.Errorf("no private directory for relative paths: %w", allowed.privateErr)
	}
	return allowed.private, nil
}

// privateDir returns the canonical private directory of the sandbox,
// making it if needed.
func (s *Sandbox) privateDir() (string, error) {
	if s.cfg.PrivateDir != "" {
		return filepath.EvalSymlinks(s.cfg.PrivateDir)
	}
	parent, err := PrivateDir()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own.ensure(parent, "session-")
}

// allowList is a snapshot of where files may be read and written.
type allowList struct {
	// unrestricted allows every path outside protected; roots is then
	// empty.
	unrestricted bool
	// roots are canonical directories: declared roots, workspaces, then
	// the private directory.
	roots []string
	// protected are canonical directories nothing inside of which is
	// allowed, whatever roots says.
	protected []string
	// private is the canonical private directory, or "" if it could not be
	// made, for privateErr.
	private    string
	privateErr error
}

// allowed snapshots the allowed and protected locations. Workspaces, the
// private directory and protected directories are resolved on every call,
// outside the lock, so that a directory is allowed as soon as it exists and
// a relaunched browser's profile is protected at once.
func (s *Sandbox) allowed() allowList {
	s.mu.Lock()
	declared, declaredRoots := s.declared, s.roots
	s.mu.Unlock()

	var a allowList
	a.private, a.privateErr = s.privateDir()
	if s.cfg.Protected != nil {
		for _, p := range s.cfg.Protected() {
			if p == "" {
				continue
			}
			// A protected directory that cannot be canonicalised is
			// protected by its absolute name: failing open is not an option.
			abs, err := filepath.Abs(p)
			if err != nil {
				continue // only when the working directory is gone
			}
			if canonical, err := canonicalize(abs); err == nil {
				abs = canonical
			}
			a.protected = append(a.protected, abs)
		}
	}
	if !declared && s.cfg.Unrestricted {
		a.unrestricted = true
		return a
	}
	a.roots = make([]string, 0, len(declaredRoots)+len(s.cfg.Workspaces)+1)
	a.roots = append(a.roots, declaredRoots...)
	for _, w := range s.cfg.Workspaces {
		// A workspace that cannot be resolved is simply not allowed, as
		// chrome-devtools-mcp skips roots it cannot realpath.
		if abs, err := filepath.Abs(w); err == nil {
			if canonical, err := filepath.EvalSymlinks(abs); err == nil {
				a.roots = append(a.roots, canonical)
			}
		}
	}
	if a.private != "" {
		a.roots = append(a.roots, a.private)
	}
	return a
}

// check returns the allowed directory containing the canonical path p (the
// first root containing it, or the volume root of p when unrestricted), or
// a *DeniedError naming path, as the caller gave it.
func (a allowList) check(path, p string) (string, error) {
	for _, d := range a.protected {
		if within(p, d) {
			return "", &DeniedError{Path: path, Canonical: p, Protected: true}
		}
	}
	if a.unrestricted {
		return filepath.VolumeName(p) + string(filepath.Separator), nil
	}
	for _, r := range a.roots {
		if within(p, r) {
			return r, nil
		}
	}
	return "", &DeniedError{Path: path, Canonical: p, PrivateDir: a.private}
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
		// One Lstat per level finds the nearest existing ancestor, and only
		// that one is resolved: resolving every level of a deep path that
		// does not exist costs time quadratic in its depth.
		_, err := os.Lstat(cur)
		if err == nil {
			resolved, err := filepath.EvalSymlinks(cur)
			if err == nil {
				return filepath.Join(append([]string{resolved}, missing...)...), nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
			// A dangling symlink, or one whose target vanished: missing.
		} else if !errors.Is(err, fs.ErrNotExist) {
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
