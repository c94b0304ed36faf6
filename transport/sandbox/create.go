package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Create opens path for writing, created or truncated, if the sandbox
// allows it, and returns the file and its canonical path. It is for output
// another process writes as it goes, such as a screencast's video, which
// ffmpeg writes through the descriptor. Path, extension and symlinks are
// checked and handled as by [Sandbox.WriteFile].
func (s *Sandbox) Create(path, ext string) (*os.File, string, error) {
	allowed := s.allowed()
	abs, err := s.abs(allowed, path)
	if err != nil {
		return nil, "", err
	}
	abs = withExt(abs, ext)
	full, err := canonicalize(abs)
	if err != nil {
		return nil, "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if _, err := allowed.check(path, full); err != nil {
		return nil, "", err
	}
	dir, err := canonicalize(filepath.Dir(abs))
	if err != nil {
		return nil, "", fmt.Errorf("resolve %s: %w", path, err)
	}
	target := filepath.Join(dir, filepath.Base(abs))
	anchor, err := allowed.check(path, target)
	if err != nil {
		return nil, "", err
	}
	f, err := openIn(anchor, target)
	if err != nil {
		return nil, "", fmt.Errorf("could not write %s: %w", target, err)
	}
	return f, target, nil
}

// CreateTemp opens a new file in the sandbox's private directory, named as
// [Sandbox.TempFile] names them, and returns it with its path.
func (s *Sandbox) CreateTemp(name string) (*os.File, string, error) {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || strings.IndexByte(name, 0) >= 0 {
		return nil, "", fmt.Errorf("temp file name %q is not a plain file name", name)
	}
	allowed := s.allowed()
	if allowed.private == "" {
		return nil, "", fmt.Errorf("could not write %s: %w", name, allowed.privateErr)
	}
	if _, err := allowed.check(name, allowed.private); err != nil {
		return nil, "", err
	}
	r, err := os.OpenRoot(allowed.private)
	if err != nil {
		return nil, "", fmt.Errorf("could not write %s: %w", name, err)
	}
	defer r.Close()
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for range 10 {
		unique := stem + "-" + randomHex(6) + ext
		f, err := r.OpenFile(unique, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		target := filepath.Join(allowed.private, unique)
		if err != nil {
			return nil, "", fmt.Errorf("could not write %s: %w", target, err)
		}
		return f, target, nil
	}
	return nil, "", fmt.Errorf("could not write %s: no free file name in %s", name, allowed.private)
}

// openIn creates or truncates target, inside the directory anchor, as
// write does: through an os.Root, refusing a final symlink.
func openIn(anchor, target string) (*os.File, error) {
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
