package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to path if the sandbox allows it and returns the
// canonical path written.
//
// If ext is not empty, it replaces the extension of the final component or
// is appended when there is none, as chrome-devtools-mcp's ensureExtension
// does: with ext ".txt", "a.png" becomes "a.txt" and "a" becomes "a.txt". A
// leading dot does not start an extension (".env" becomes ".env.txt"). A
// missing leading dot in ext is added.
//
// The path is checked twice: fully canonicalised, so that a final symlink
// pointing outside the allowed locations, or into a protected one, is a
// *[DeniedError], and as the canonical parent directory plus the final name,
// which is what is opened. A final component that is a symbolic link, live
// or dangling, is refused even when it points inside a root. Missing parent
// directories are created with mode 0700; a new file gets mode 0600, an
// existing one is truncated and keeps its mode. Failures other than denial
// read "could not write <path>: <cause>".
func (s *Sandbox) WriteFile(path string, data []byte, ext string) (string, error) {
	f, err := s.Create(path, ext)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("could not write %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("could not write %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// Create opens path for writing under the rules of [Sandbox.WriteFile]
// (the same checks, extension, modes and refusal of a final symlink), for
// output too large to hold in memory: the caller writes it in pieces and
// closes the file. The file's Name is the canonical path written.
func (s *Sandbox) Create(path, ext string) (*File, error) {
	allowed := s.allowed()
	abs, err := s.abs(allowed, path)
	if err != nil {
		return nil, err
	}
	abs = withExt(abs, ext)

	full, err := canonicalize(abs)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	if _, err := allowed.check(path, full); err != nil {
		return nil, err
	}
	// full differs from target only when the final component is an existing
	// symlink, which open refuses; target is checked too so that even then
	// nothing is created outside the allowed locations.
	dir, err := canonicalize(filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	target := filepath.Join(dir, filepath.Base(abs))
	anchor, err := allowed.check(path, target)
	if err != nil {
		return nil, err
	}
	f, err := open(anchor, target)
	if err != nil {
		return nil, fmt.Errorf("could not write %s: %w", target, err)
	}
	s.wrote(target) // a resource of the session from now (observe.go)
	return f, nil
}

// TempFile writes data to a new file in the sandbox's private directory
// and returns its path. The file is called name with a random part before
// its extension ("screenshot.png" becomes "screenshot-1f2e3d4c5b6a.png"),
// so that no two calls share a file. It is for outputs too large to inline
// in a reply, such as screenshots over 2 MB; name must be a plain file name,
// without separators. The file is kept for the agent to read: nothing
// removes it.
func (s *Sandbox) TempFile(name string, data []byte) (string, error) {
	f, err := s.CreateTemp(name)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("could not write %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("could not write %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// CreateTemp makes a new file in the sandbox's private directory, named as
// [Sandbox.TempFile] names it, and returns it open for writing, for output
// too large to hold in memory. Its Name is its path.
func (s *Sandbox) CreateTemp(name string) (*File, error) {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("temp file name %q is not a plain file name", name)
	}
	allowed := s.allowed()
	if allowed.private == "" {
		return nil, fmt.Errorf("could not write %s: %w", name, allowed.privateErr)
	}
	if _, err := allowed.check(name, allowed.private); err != nil {
		return nil, err // the private directory lies in a protected one
	}
	r, err := os.OpenRoot(allowed.private)
	if err != nil {
		return nil, fmt.Errorf("could not write %s: %w", name, err)
	}
	defer r.Close()
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for range 10 {
		unique := stem + "-" + randomHex(6) + ext
		f, err := create(r, unique)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		target := filepath.Join(allowed.private, unique)
		if err != nil {
			return nil, fmt.Errorf("could not write %s: %w", target, err)
		}
		s.wrote(target)
		return renamed(f, target), nil
	}
	return nil, fmt.Errorf("could not write %s: no free file name in %s", name, allowed.private)
}

// create makes a new file name in r, failing with fs.ErrExist if
// anything, a symlink included, already has that name.
func create(r *os.Root, name string) (*os.File, error) {
	return r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// File is a file of the sandbox open for writing. Its Name is its full,
// canonical path (the *os.File, opened through an os.Root, knows only a
// relative one).
type File struct {
	*os.File
	path string
}

// Name returns the file's canonical path.
func (f *File) Name() string { return f.path }

func renamed(f *os.File, path string) *File { return &File{File: f, path: path} }

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return hex.EncodeToString(b)
}

// errSymlink is the cause when the final path component is a symlink.
var errSymlink = errors.New("the file is a symbolic link, which is never followed")

// open creates or truncates target, which lies inside the directory
// anchor, for writing.
//
// The open goes through an os.Root at anchor: every component is opened
// without following symlinks out of anchor, so a directory swapped for a
// symlink after the sandbox check cannot redirect the write elsewhere.
// os.Root does follow a final symlink that stays inside anchor, so the final
// component is checked with Lstat first (O_NOFOLLOW semantics). Between
// that check and the open a concurrent process could plant such a symlink;
// the write would then still land inside anchor.
func open(anchor, target string) (*File, error) {
	rel, err := filepath.Rel(anchor, target)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(anchor)
	if err != nil {
		return nil, err
	}
	defer r.Close()

	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	switch fi, err := r.Lstat(rel); {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return nil, errSymlink
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return renamed(f, target), nil
}

// withExt forces the extension ext onto the final component of the clean
// absolute path p, like Node's path.extname: the extension starts at the
// last dot of the name, unless that dot is the name's first character.
func withExt(p, ext string) string {
	if ext == "" {
		return p
	}
	if !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	dir, name := filepath.Split(p)
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	return dir + name + ext
}
