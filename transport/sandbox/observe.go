package sandbox

import (
	"fmt"
	"io/fs"
	"os"
)

// Observe returns a view of the sandbox: the same roots, workspaces and
// private directory, whose writes are also reported to fn, with the
// canonical path written, once the file exists. The transport makes one
// per tool call, so that the call's reply can link the files it wrote.
// Views of a view report to every observer along the way.
func (s *Sandbox) Observe(fn func(path string)) *Sandbox {
	prev := s.observe
	return &Sandbox{state: s.state, observe: func(path string) {
		if prev != nil {
			prev(path)
		}
		fn(path)
	}}
}

// wrote reports a file written through s.
func (s *Sandbox) wrote(path string) {
	if s.cfg.Written != nil {
		s.cfg.Written(path)
	}
	if s.observe != nil {
		s.observe(path)
	}
}

// Create creates (or truncates) the file path for writing, if the sandbox
// allows it, with the same checks and extension rule as
// [Sandbox.WriteFile], and returns it open with its canonical path. It is
// for outputs written as they come, a chunk at a time (a trace, a heap
// snapshot), which are never held whole in memory. The file is opened
// through an [os.Root] anchored at the allowed directory, so what is
// written lands where the check said. The caller closes the file, and
// removes it if it gives up part way.
func (s *Sandbox) Create(path, ext string) (*os.File, string, error) {
	anchor, target, err := s.target(path, ext)
	if err != nil {
		return nil, "", err
	}
	f, err := openForWrite(anchor, target)
	if err != nil {
		return nil, "", fmt.Errorf("could not write %s: %w", target, err)
	}
	s.wrote(target)
	return f, target, nil
}

// RemovePrivate removes the sandbox's private directory and everything in
// it, if the sandbox made one ([Config.PrivateDir] is not removed). The
// transport calls it when a session over HTTP ends: its client, on another
// machine, could only reach those files through the session. A sandbox
// used afterwards makes a new one.
func (s *Sandbox) RemovePrivate() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own.path == "" || !s.own.alive() {
		return nil
	}
	// The directory is ours by name and identity (alive checks both), and
	// RemoveAll does not follow symlinks inside it.
	dir := s.own.path
	s.own = madeDir{}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}

// Stat returns what the file at path (as a tool wrote it) now is, if the
// sandbox still allows reading it: a resource's size and whether it is
// still there.
func (s *Sandbox) Stat(path string) (fs.FileInfo, error) {
	f, _, err := s.open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}
