package sandbox_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// fuzzLayout is the file system FuzzResolve plays in: a declared root that
// holds the browser profile and symlinks of every kind, a sibling sharing
// its prefix, an unrelated directory, and the private directory.
type fuzzLayout struct {
	base, root, private, profile string
}

func newFuzzLayout(f *testing.F) fuzzLayout {
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	l := fuzzLayout{
		base:    base,
		root:    filepath.Join(base, "root"),
		private: filepath.Join(base, "private"),
		profile: filepath.Join(base, "root", "cache", "profile"),
	}
	for _, dir := range []string{l.root, l.private, l.profile, filepath.Join(l.root, "sub"), filepath.Join(base, "root-evil"), filepath.Join(base, "other")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			f.Fatal(err)
		}
	}
	files := []string{
		filepath.Join(l.root, "file.txt"),
		filepath.Join(l.root, "sub", "a.js"),
		filepath.Join(l.profile, "Cookies"),
		filepath.Join(base, "other", "secret"),
		filepath.Join(base, "root-evil", "x"),
		filepath.Join(l.private, "shot.png"),
	}
	for _, p := range files {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			f.Fatal(err)
		}
	}
	links := map[string]string{
		"in":          "sub",
		"out":         "../other",
		"abs-out":     filepath.Join(base, "other"),
		"evil":        "../root-evil",
		"prof":        "cache/profile",
		"cookie-link": "cache/profile/Cookies",
		"dangling":    "../other/nothing",
		"loop":        "loop",
		"up":          "..",
		"root-link":   "/",
		"proc":        "/proc/self/root",
		"private":     "../private",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(l.root, name)); err != nil {
			f.Fatal(err)
		}
	}
	return l
}

// realpath is an implementation of canonicalisation independent of the
// sandbox's: the realpath of the longest existing prefix, plus the rest.
func realpath(p string) (string, bool) {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest), true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		if filepath.Dir(cur) == cur {
			return "", false
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// inside is the separator-aware prefix test, written again.
func inside(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// FuzzResolve: for any path and working directory, Resolve and Readable
// never panic, and what they accept is, after resolving every symlink,
// inside the declared root or the private directory and never inside the
// profile. "$BASE" in the path stands for the layout's directory, so that
// the fuzzer can name its absolute paths.
func FuzzResolve(f *testing.F) {
	l := newFuzzLayout(f)
	f.Add("$BASE/root/file.txt", uint8(0))
	f.Add("$BASE/root/out/secret", uint8(0))
	f.Add("../other/secret", uint8(1))
	f.Add("cookie-link", uint8(1))
	f.Add("shot.png", uint8(2))
	f.Fuzz(func(t *testing.T, path string, wd uint8) {
		path = strings.ReplaceAll(path, "$BASE", l.base)
		workDirs := []string{l.base, l.root, filepath.Join(l.base, "other"), l.profile, filepath.Join(l.root, "up")}
		sb := sandbox.New(sandbox.Config{
			PrivateDir: l.private,
			WorkDir:    workDirs[int(wd)%len(workDirs)],
			Protected:  func() []string { return []string{filepath.Join(l.root, "prof")} },
		})
		if err := sb.SetRoots([]string{l.root}); err != nil {
			t.Fatal(err)
		}
		check := func(op, got string) {
			t.Helper()
			if !filepath.IsAbs(got) || filepath.Clean(got) != got {
				t.Fatalf("%s(%q) = %q, not absolute and clean", op, path, got)
			}
			real, ok := realpath(got)
			if !ok {
				return // vanished or unreadable since: nothing to check
			}
			if !inside(real, l.root) && !inside(real, l.private) {
				t.Fatalf("%s(%q) = %q (real %q), outside the root and the private dir", op, path, got, real)
			}
			if inside(real, l.profile) {
				t.Fatalf("%s(%q) = %q (real %q), inside the profile", op, path, got, real)
			}
		}
		if got, err := sb.Resolve(path); err == nil {
			check("Resolve", got)
		}
		if got, err := sb.Readable(path); err == nil {
			check("Readable", got)
			if fi, err := os.Lstat(got); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("Readable(%q) = %q, not a regular file (%v)", path, got, err)
			}
		}
	})
}
