package sandbox

import "path/filepath"

// ProcessDir returns the canonical path of the process's private
// directory (see [PrivateDir]) if it has been made and still stands, ""
// otherwise. Unlike PrivateDir it makes nothing.
func ProcessDir() string {
	process.mu.Lock()
	defer process.mu.Unlock()
	if process.dir.path == "" || !process.dir.alive() {
		return ""
	}
	return process.dir.path
}

// Inside reports whether the absolute path p, once canonical (symlinks
// resolved, as a browser opening it would), lies in one of dirs or is one
// of them; empty dirs are skipped. It fails closed: a path that cannot be
// canonicalised is reported inside. It is for a check made apart from the
// sandbox's own, such as whether a page may load file://p.
func Inside(p string, dirs []string) bool {
	if !filepath.IsAbs(p) {
		return true
	}
	canonical, err := canonicalize(filepath.Clean(p))
	if err != nil {
		return true
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		cd, err := canonicalize(filepath.Clean(d))
		if err != nil {
			cd = filepath.Clean(d)
		}
		if within(canonical, cd) || within(filepath.Clean(p), filepath.Clean(d)) {
			return true
		}
	}
	return false
}
