package transport

import (
	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// sandboxConfig is the file sandbox of a new session: the client's roots
// (declared later), the operator's workspaces and a private directory of
// its own are allowed; the browser's profiles are protected.
func (s *Server) sandboxConfig() sandbox.Config {
	return sandbox.Config{
		Unrestricted: s.cfg.Unrestricted,
		Workspaces:   s.cfg.Workspaces,
		Protected:    s.profileDirs,
		MaxBytes:     s.cfg.MaxSessionDisk,
	}
}

// profileDirs returns the browser profiles no tool may read or write: the
// launched browser's (an isolated profile changes on every launch), the one
// configured, and the default one, which holds a past run's cookies even
// while tabhive is connected to another browser.
func (s *Server) profileDirs() []string {
	dirs := []string{s.cfg.ProfileDir, browser.DefaultProfile()}
	if s.sup != nil {
		dirs = append(dirs, s.sup.ProfileDir())
	}
	return dirs
}
