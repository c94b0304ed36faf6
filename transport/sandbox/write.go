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
	anchor, target, err := s.target(path, ext)
	if err != nil {
		return "", err
	}
	if err := write(anchor, target, data); err != nil {
		return "", fmt.Errorf("could not write %s: %w", target, err)
	}
	s.wrote(target)
	return target, nil
}

// target checks path for writing, with ext forced on it, and returns the
// allowed directory it lies in (the anchor of the open) and the canonical
// path to open.
func (s *Sandbox) target(path, ext string) (anchor, target string, err error) {
	allowed := s.allowed()
	abs, err := s.abs(allowed, path)
	if err != nil {
		return "", "", err
	}
	abs = withExt(abs, ext)

	full, err := canonicalize(abs)
	if err != nil {
		return "", "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if _, err := allowed.check(path, full); err != nil {
		return "", "", err
	}
	// full differs from target only when the final component is an existing
	// symlink, which the open refuses; target is checked too so that even
	// then nothing is created outside the allowed locations.
	dir, err := canonicalize(filepath.Dir(abs))
	if err != nil {
		return "", "", fmt.Errorf("resolve %s: %w", path, err)
	}
	target = filepath.Join(dir, filepath.Base(abs))
	anchor, err = allowed.check(path, target)
	if err != nil {
		return "", "", err
	}
	return anchor, target, nil
}

// TempFile writes data to a new file in the sandbox's private directory
// and returns its path. The file is called name with a random part before
// its extension ("screenshot.png" becomes "screenshot-1f2e3d4c5b6a.png"),
// so that no two calls share a file. It is for outputs too large to inline
// in a reply, such as screenshots over 2 MB; name must be a plain file name,
// without separators. The file is kept for the agent to read: nothing
// removes it.
func (s *Sandbox) TempFile(name string, data []byte) (string, error) {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || strings.IndexByte(name, 0) >= 0 {
		return "", fmt.Errorf("temp file name %q is not a plain file name", name)
	}
	allowed := s.allowed()
	if allowed.private == "" {
		return "", fmt.Errorf("could not write %s: %w", name, allowed.privateErr)
	}
	if _, err := allowed.check(name, allowed.private); err != nil {
		return "", err // the private directory lies in a protected one
	}
	r, err := os.OpenRoot(allowed.private)
	if err != nil {
		return "", fmt.Errorf("could not write %s: %w", name, err)
	}
	defer r.Close()
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for range 10 {
		unique := stem + "-" + randomHex(6) + ext
		err := create(r, unique, data)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		target := filepath.Join(allowed.private, unique)
		if err != nil {
			return "", fmt.Errorf("could not write %s: %w", target, err)
		}
		s.wrote(target)
		return target, nil
	}
	return "", fmt.Errorf("could not write %s: no free file name in %s", name, allowed.private)
}

// create writes data to a new file name in r, failing with fs.ErrExist if
// anything, a symlink included, already has that name.
func create(r *os.Root, name string, data []byte) (err error) {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = f.Write(data)
	return err
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return hex.EncodeToString(b)
}

// errSymlink is the cause when the final path component is a symlink.
var errSymlink = errors.New("the file is a symbolic link, which is never followed")

// write creates or truncates target, which lies inside the directory anchor,
// and writes data to it.
//
// The open goes through an os.Root at anchor: every component is opened
// without following symlinks out of anchor, so a directory swapped for a
// symlink after the sandbox check cannot redirect the write elsewhere.
// os.Root does follow a final symlink that stays inside anchor, so the final
// component is checked with Lstat first (O_NOFOLLOW semantics). Between
// that check and the open a concurrent process could plant such a symlink;
// the write would then still land inside anchor.
func write(anchor, target string, data []byte) (err error) {
	f, err := openForWrite(anchor, target)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = f.Write(data)
	return err
}

// openForWrite creates or truncates target, which lies inside the
// directory anchor, and returns it open for writing (see write).
func openForWrite(anchor, target string) (*os.File, error) {
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
	return r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
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
