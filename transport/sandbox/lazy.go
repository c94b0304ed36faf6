package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// A LazyFile is a file a call writes as its result comes, a chunk at a
// time, so that the result is never held whole in memory (a script's
// value, a PDF, a screenshot). It is created through the sandbox on the
// first write, so that a call that fails leaves no file, and one left
// partial by a failure part way is removed by [LazyFile.Finish].
//
// The page's goroutine writes while the call waits, and the call may give
// up first (its deadline): Finish then closes the file, and a write that
// comes later is refused with [ErrFinished] rather than making a file no
// reply names. Write and Finish may be called from different goroutines.
type LazyFile struct {
	sb   *Sandbox
	opts LazyOptions

	mu     sync.Mutex
	saved  string // the canonical path written, once created
	f      *File  // nil until the first write
	closed bool   // set by Finish
}

// LazyOptions say where a [LazyFile] goes.
type LazyOptions struct {
	// Path is the file as the agent gave it, checked and created as
	// [Sandbox.Create] does, with the extension Ext (".json" if empty).
	// If Path is empty, the file is a new one in the session's private
	// directory, named like Temp ([Sandbox.CreateTemp]).
	Path string
	Ext  string
	Temp string
	// Secret makes an existing file's mode 0600 too (a new one always
	// is): for files that hold credentials.
	Secret bool
}

// ErrFinished refuses a write that comes after the call gave up.
var ErrFinished = errors.New("the call has ended")

// Lazy returns a file created on its first write, as opts says.
func (s *Sandbox) Lazy(opts LazyOptions) *LazyFile { return &LazyFile{sb: s, opts: opts} }

func (w *LazyFile) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrFinished
	}
	if w.f == nil {
		f, err := w.create()
		if err != nil {
			return 0, err
		}
		w.saved, w.f = f.Name(), f
	}
	return w.f.Write(p)
}

// create makes the file: the sandbox checks the path, refuses a symlink,
// and creates the file 0600 through an os.Root at the allowed directory,
// returning what it opened.
func (w *LazyFile) create() (*File, error) {
	if w.opts.Path == "" {
		return w.sb.CreateTemp(w.opts.Temp)
	}
	ext := w.opts.Ext
	if ext == "" {
		ext = ".json"
	}
	f, err := w.sb.Create(w.opts.Path, ext)
	if err != nil {
		return nil, err
	}
	if w.opts.Secret {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("could not write %s: %w", f.Name(), err)
		}
	}
	return f, nil
}

// Name is the canonical path written, once the first write created it.
func (w *LazyFile) Name() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.saved
}

// Finish closes the file after the call that wrote it ended with err, and
// removes it if the call failed. It returns the call's error, else the
// close's.
func (w *LazyFile) Finish(err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.f == nil {
		return err
	}
	cerr := w.f.Close()
	if err == nil && cerr != nil {
		err = fmt.Errorf("could not write %s: %w", w.saved, cerr)
	}
	if err != nil {
		os.Remove(w.saved)
	}
	return err
}
