package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// TooLargeError is returned by [Sandbox.ReadFile] for a file bigger than
// the limit it was given.
type TooLargeError struct {
	// Path is the canonical path of the file.
	Path string
	// Size is what the file holds, or more; Limit is the most that may be
	// read.
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than the %d bytes that may be read", e.Path, e.Size, e.Limit)
}

// Readable returns the canonical path of the regular file path if the
// sandbox allows it to be read: every symlink resolved, the result inside an
// allowed location and outside every protected one. A path outside is a
// *[DeniedError] whether it exists or not, so that nothing is learnt of files
// outside. A file that does not exist, or is not a regular file (a
// directory, a device, a FIFO), is an error whose text names the path.
//
// It is for files another process opens, such as upload_file's, which
// Chromium reads from the path: the file may change between the check and
// that read. Files the server reads itself go through [Sandbox.ReadFile].
func (s *Sandbox) Readable(path string) (string, error) {
	f, canonical, err := s.open(path)
	if err != nil {
		return "", err
	}
	f.Close()
	return canonical, nil
}

// ReadFile reads the regular file path, of at most limit bytes, if the
// sandbox allows it to be read (see [Sandbox.Readable]), and returns its
// content and canonical path. A bigger file is a *[TooLargeError].
//
// The file is opened through an [os.Root] anchored at the directory that
// allowed it, so a directory swapped for a symlink after the check cannot
// lead the read outside it.
func (s *Sandbox) ReadFile(path string, limit int64) ([]byte, string, error) {
	f, canonical, err := s.open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("could not read %s: %w", canonical, err)
	}
	if fi.Size() > limit {
		return nil, "", &TooLargeError{Path: canonical, Size: fi.Size(), Limit: limit}
	}
	// The file may grow after the Stat: never read more than limit+1.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("could not read %s: %w", canonical, err)
	}
	if int64(len(data)) > limit {
		return nil, "", &TooLargeError{Path: canonical, Size: int64(len(data)), Limit: limit}
	}
	return data, canonical, nil
}

// open checks path for reading and opens it.
func (s *Sandbox) open(path string) (*os.File, string, error) {
	allowed := s.allowed()
	abs, err := s.abs(allowed, path)
	if err != nil {
		return nil, "", err
	}
	// Denial first, on the nearest existing ancestor if the file does not
	// exist: a path outside gets the same answer whether it exists or not.
	canonical, err := canonicalize(abs)
	if err != nil {
		return nil, "", fmt.Errorf("could not read %s: %w", path, err)
	}
	anchor, err := allowed.check(path, canonical)
	if err != nil {
		return nil, "", err
	}
	rel, err := filepath.Rel(anchor, canonical)
	if err != nil {
		return nil, "", fmt.Errorf("could not read %s: %w", path, err)
	}
	r, err := os.OpenRoot(anchor)
	if err != nil {
		return nil, "", fmt.Errorf("could not read %s: %w", path, err)
	}
	defer r.Close()
	// Looked at before the open, which would block on a FIFO.
	if fi, err := r.Lstat(rel); err != nil {
		return nil, "", fmt.Errorf("could not read %s: %w", path, err)
	} else if !fi.Mode().IsRegular() {
		return nil, "", &NotRegularError{Path: canonical, Mode: fi.Mode()}
	}
	// canonical holds no symlink, unless one was planted since: os.Root
	// then follows it only if it stays inside anchor, and a FIFO or a
	// device planted there is refused without blocking the open.
	f, err := openRegular(r, rel, canonical, os.O_RDONLY, 0)
	if err != nil {
		if _, ok := err.(*NotRegularError); ok {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("could not read %s: %w", path, err)
	}
	return f, canonical, nil
}

// Open opens the regular file path for reading, if the sandbox allows it
// (see [Sandbox.Readable]), and returns it with its canonical path: for a
// file read as a stream, too large to read whole (a heap snapshot). The
// caller closes it.
func (s *Sandbox) Open(path string) (*os.File, string, error) { return s.open(path) }
