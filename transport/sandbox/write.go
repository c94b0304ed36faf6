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
	f, err := s.create(path, ext, int64(len(data)))
	if err != nil {
		return "", err
	}
	return writeAll(f, data)
}

// Create opens path for writing under the rules of [Sandbox.WriteFile]
// (the same checks, extension, modes and refusal of a final symlink), for
// output too large to hold in memory: the caller writes it in pieces and
// closes the file. The file's Name is the canonical path written.
func (s *Sandbox) Create(path, ext string) (*File, error) { return s.create(path, ext, 0) }

// create is Create for a file that will hold at least need bytes: refused
// up front, before an existing file is truncated, when they would not fit
// in [Config.MaxBytes].
func (s *Sandbox) create(path, ext string, need int64) (*File, error) {
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
	if err := s.led.fits(target, need); err != nil {
		return nil, err
	}
	f, err := open(anchor, target)
	if err != nil {
		return nil, fmt.Errorf("could not write %s: %w", target, err)
	}
	e := s.led.opened(target)
	if err := f.Truncate(0); err != nil {
		f.Close()
		s.led.closed(e)
		return nil, fmt.Errorf("could not write %s: %w", target, err)
	}
	s.wrote(target) // a resource of the session from now (observe.go)
	return &File{f: f, path: target, led: s.led, e: e}, nil
}

// TempFile writes data to a new file in the sandbox's private directory
// and returns its path. The file is called name with a random part before
// its extension ("screenshot.png" becomes "screenshot-1f2e3d4c5b6a.png"),
// so that no two calls share a file. It is for outputs too large to inline
// in a reply, such as screenshots over 2 MB; name must be a plain file name,
// without separators. The file is kept for the agent to read: nothing
// removes it.
func (s *Sandbox) TempFile(name string, data []byte) (string, error) {
	f, err := s.createTemp(name, int64(len(data)))
	if err != nil {
		return "", err
	}
	return writeAll(f, data)
}

// CreateTemp makes a new file in the sandbox's private directory, named as
// [Sandbox.TempFile] names it, and returns it open for writing, for output
// too large to hold in memory. Its Name is its path.
func (s *Sandbox) CreateTemp(name string) (*File, error) { return s.createTemp(name, 0) }

// createTemp is CreateTemp for a file that will hold at least need bytes,
// refused up front when they would not fit in [Config.MaxBytes].
func (s *Sandbox) createTemp(name string, need int64) (*File, error) {
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
	if err := s.led.fits(filepath.Join(allowed.private, name), need); err != nil {
		return nil, err
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
		return &File{f: f, path: target, led: s.led, e: s.led.opened(target)}, nil
	}
	return nil, fmt.Errorf("could not write %s: no free file name in %s", name, allowed.private)
}

// create makes a new file name in r, failing with fs.ErrExist if
// anything, a symlink included, already has that name.
func create(r *os.Root, name string) (*os.File, error) {
	return r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return hex.EncodeToString(b)
}

// errSymlink is the cause when the final path component is a symlink.
var errSymlink = errors.New("the file is a symbolic link, which is never followed")

// open opens target, which lies inside the directory anchor, for writing,
// creating it if needed; the caller truncates it. Only a regular file is
// opened: anything else (a FIFO, whose open would block until a reader
// came, a device, a directory) is a *[NotRegularError], and the open
// itself never blocks (see openRegular).
//
// The open goes through an os.Root at anchor: every component is opened
// without following symlinks out of anchor, so a directory swapped for a
// symlink after the sandbox check cannot redirect the write elsewhere.
// os.Root does follow a final symlink that stays inside anchor, so the final
// component is checked with Lstat first, and again after the open: the
// file opened must be the one standing at target itself (O_NOFOLLOW
// semantics), or nothing is written to it.
func open(anchor, target string) (*os.File, error) {
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
	case err == nil && !fi.Mode().IsRegular():
		return nil, &NotRegularError{Path: target, Mode: fi.Mode()}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	f, err := openRegular(r, rel, target, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fi, ferr := f.Stat()
	lfi, lerr := r.Lstat(rel)
	if ferr != nil || lerr != nil || !os.SameFile(fi, lfi) {
		f.Close()
		return nil, errSymlink // planted since the first look
	}
	return f, nil
}

// openRegular opens name in r, non-blocking so that whatever stands there
// cannot hold the open (a FIFO without a reader would block a write's open
// for as long as nobody read, and a read's until somebody wrote), refuses
// what is not a regular file with a *[NotRegularError] naming path, and
// makes the descriptor blocking again.
func openRegular(r *os.Root, name, path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := r.OpenFile(name, flag|oNonblock, perm)
	if err != nil {
		// A FIFO opened non-blocking for writing with no reader fails
		// with ENXIO: say what it is rather than the errno.
		if fi, lerr := r.Lstat(name); lerr == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if err == nil {
		err = setBlocking(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
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

// writeAll writes data to f, closes it and returns its path.
func writeAll(f *File, data []byte) (string, error) {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("could not write %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("could not write %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}
