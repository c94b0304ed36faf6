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
