package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// profileDirs is a layout with a browser profile inside the client's root,
// as when the root is / or the home directory.
type profileDirs struct {
	dirs
	profile string // d.root/cache/profile, holding Cookies
	cookies string
}

func newProfileDirs(t *testing.T) profileDirs {
	t.Helper()
	d := profileDirs{dirs: newDirs(t)}
	d.profile = filepath.Join(d.root, "cache", "profile")
	d.cookies = filepath.Join(d.profile, "Cookies")
	if err := os.MkdirAll(d.profile, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.cookies, []byte("session=secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

// wantProtected fails unless err is a *DeniedError for a protected path.
func wantProtected(t *testing.T, op, path string, err error) {
	t.Helper()
	var de *sandbox.DeniedError
	if !errors.As(err, &de) || !de.Protected {
		t.Errorf("%s(%q) error = %v, want a protected *DeniedError", op, path, err)
	}
}

// TestProtectedDirs: nothing inside the profile is resolved, read or
// written, even inside a root, through symlinks, relative paths, or with
// --allow-unrestricted-paths; a profile named through a symlink is
// protected by its realpath; a new profile is protected as soon as
// Protected returns it.
func TestProtectedDirs(t *testing.T) {
	d := newProfileDirs(t)
	symlink(t, d.cookies, filepath.Join(d.root, "cookies-link"))
	symlink(t, d.profile, filepath.Join(d.root, "profile-link"))
	profileAlias := filepath.Join(d.other, "alias")
	symlink(t, d.profile, profileAlias)

	for _, tt := range []struct {
		name      string
		cfg       sandbox.Config
		roots     []string
		protected string // as Protected returns it
	}{
		{"root containing the profile", sandbox.Config{}, []string{d.root}, d.profile},
		{"profile named through a symlink", sandbox.Config{}, []string{d.root}, profileAlias},
		{"unrestricted", sandbox.Config{Unrestricted: true}, nil, d.profile},
		{"workspace containing the profile", sandbox.Config{Workspaces: []string{d.root}}, nil, d.profile},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.PrivateDir, cfg.WorkDir = d.tmp, d.root
			cfg.Protected = func() []string { return []string{"", tt.protected} }
			sb := sandbox.New(cfg)
			if tt.roots != nil {
				if err := sb.SetRoots(tt.roots); err != nil {
					t.Fatal(err)
				}
			}
			paths := []string{
				d.cookies,
				d.profile,
				filepath.Join(d.profile, "new", "file.txt"),
				filepath.Join(d.root, "cookies-link"),
				filepath.Join(d.root, "profile-link", "Cookies"),
				filepath.Join(d.root, "profile-link", "Default", "new.txt"),
				"cache/profile/Cookies",
				"cache/x/../profile/Cookies",
				profileAlias + "/Cookies",
			}
			for _, p := range paths {
				_, err := sb.Resolve(p)
				wantProtected(t, "Resolve", p, err)
				_, err = sb.Readable(p)
				wantProtected(t, "Readable", p, err)
				_, _, err = sb.ReadFile(p, 1<<20)
				wantProtected(t, "ReadFile", p, err)
				_, err = sb.WriteFile(p, []byte("x"), "")
				wantProtected(t, "WriteFile", p, err)
			}
			checkFile(t, d.cookies, "session=secret")
			checkAbsent(t, filepath.Join(d.profile, "new"))
			checkAbsent(t, filepath.Join(d.profile, "Default"))
			// Next to the profile, the root works as before.
			if _, err := sb.WriteFile(filepath.Join(d.root, "cache", "ok.txt"), []byte("ok"), ""); err != nil {
				t.Errorf("WriteFile beside the profile = %v, want nil", err)
			}
		})
	}

	// A relaunched browser has a new profile: protected on the next check.
	var current atomic.Value
	current.Store(d.other)
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp, Protected: func() []string { return []string{current.Load().(string)} }})
	if err := sb.SetRoots([]string{d.root}); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Readable(d.cookies); err != nil {
		t.Fatalf("Readable(%q) with another profile protected = %v, want nil", d.cookies, err)
	}
	current.Store(d.profile)
	_, err := sb.Readable(d.cookies)
	wantProtected(t, "Readable after relaunch", d.cookies, err)
}

// TestProtectedPrivateDir: a private directory inside a protected one (a
// profile given as the temp dir) is not written either.
func TestProtectedPrivateDir(t *testing.T) {
	d := newProfileDirs(t)
	sb := sandbox.New(sandbox.Config{PrivateDir: d.profile, Protected: func() []string { return []string{d.profile} }})
	if got, err := sb.TempFile("shot.png", []byte("x")); err == nil {
		t.Errorf("TempFile into a protected private dir = %q, nil; want an error", got)
	}
	if entries, _ := os.ReadDir(d.profile); len(entries) != 1 {
		t.Errorf("profile holds %v, want only Cookies", entries)
	}
}

// TestWorkspaces: workspaces are allowed with or without declared roots, a
// relative one against the process's working directory; one that does not
// exist is skipped.
func TestWorkspaces(t *testing.T) {
	d := newDirs(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, d.other)
	if err != nil {
		t.Skipf("no relative path from %s to %s: %v", wd, d.other, err)
	}
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp, Workspaces: []string{d.root, rel, filepath.Join(d.root, "missing")}})
	for _, roots := range [][]string{nil, {}, {d.evil}} {
		if roots != nil {
			if err := sb.SetRoots(roots); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []string{filepath.Join(d.root, "a.txt"), filepath.Join(d.other, "b", "c.txt")} {
			if _, err := sb.Resolve(p); err != nil {
				t.Errorf("roots %q: Resolve(%q) = %v, want it allowed by a workspace", roots, p, err)
			}
		}
	}
	p := filepath.Join(d.evil, "x.txt")
	if _, err := sb.Resolve(p); err != nil {
		t.Errorf("Resolve(%q) inside the declared root = %v", p, err)
	}
	if err := sb.SetRoots([]string{}); err != nil {
		t.Fatal(err)
	}
	var de *sandbox.DeniedError
	if _, err := sb.Resolve(p); !errors.As(err, &de) {
		t.Errorf("Resolve(%q) in no root or workspace = %v, want a *DeniedError", p, err)
	}
}

// TestRelativePaths: a relative path resolves against the working
// directory when it is allowed (chrome-devtools-mcp's behaviour), else in
// the private directory.
func TestRelativePaths(t *testing.T) {
	d := newDirs(t)
	tests := []struct {
		name  string
		cfg   sandbox.Config
		roots []string
		want  string
	}{
		{"working dir in a root", sandbox.Config{WorkDir: d.root}, []string{d.root}, filepath.Join(d.root, "a", "x.png")},
		{"working dir in a workspace", sandbox.Config{WorkDir: d.other, Workspaces: []string{d.other}}, nil, filepath.Join(d.other, "a", "x.png")},
		{"working dir outside", sandbox.Config{WorkDir: d.other}, []string{d.root}, filepath.Join(d.tmp, "a", "x.png")},
		{"no roots", sandbox.Config{WorkDir: d.root}, nil, filepath.Join(d.tmp, "a", "x.png")},
		{"unrestricted", sandbox.Config{WorkDir: d.other, Unrestricted: true}, nil, filepath.Join(d.other, "a", "x.png")},
		{"working dir gone", sandbox.Config{WorkDir: filepath.Join(d.root, "gone")}, []string{d.evil}, filepath.Join(d.tmp, "a", "x.png")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := d.sandboxIn(t, tt.cfg, tt.roots)
			if got, err := sb.Resolve("a/x.png"); err != nil || got != tt.want {
				t.Errorf("Resolve(a/x.png) = %q, %v; want %q", got, err, tt.want)
			}
			// Out of the private directory by "..": denied.
			if tt.want == filepath.Join(d.tmp, "a", "x.png") {
				var de *sandbox.DeniedError
				if got, err := sb.Resolve("../other/x.png"); !errors.As(err, &de) {
					t.Errorf("Resolve(../other/x.png) = %q, %v; want a *DeniedError", got, err)
				}
			}
		})
	}
}

// TestReadFile: reads are checked like writes, accept regular files only,
// are bounded, and say the same for a missing and an existing file outside.
func TestReadFile(t *testing.T) {
	d := newDirs(t)
	sb := newRooted(t, d)
	inside := filepath.Join(d.root, "a.js")
	if err := os.WriteFile(inside, []byte("() => 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(d.other, "secret")
	if err := os.WriteFile(secret, []byte("hush"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, secret, filepath.Join(d.root, "secret-link"))
	symlink(t, "a.js", filepath.Join(d.root, "a-link.js"))

	for _, p := range []string{inside, "a.js", filepath.Join(d.root, "a-link.js")} {
		b, canonical, err := sb.ReadFile(p, 7)
		if err != nil || string(b) != "() => 1" || canonical != inside {
			t.Errorf("ReadFile(%q) = %q, %q, %v; want the file at %s", p, b, canonical, err, inside)
		}
		if got, err := sb.Readable(p); err != nil || got != inside {
			t.Errorf("Readable(%q) = %q, %v; want %s", p, got, err, inside)
		}
	}

	var tl *sandbox.TooLargeError
	if _, _, err := sb.ReadFile(inside, 6); !errors.As(err, &tl) || tl.Size != 7 || tl.Limit != 6 {
		t.Errorf("ReadFile over the limit = %v, want a TooLargeError of 7 > 6 bytes", err)
	}

	for _, p := range []string{secret, filepath.Join(d.other, "missing"), filepath.Join(d.root, "secret-link"), "../other/secret"} {
		var de *sandbox.DeniedError
		if b, _, err := sb.ReadFile(p, 100); !errors.As(err, &de) || de.Protected {
			t.Errorf("ReadFile(%q) = %q, %v; want a *DeniedError", p, b, err)
		}
		if _, err := sb.Readable(p); !errors.As(err, &de) {
			t.Errorf("Readable(%q) = %v; want a *DeniedError", p, err)
		}
	}
	for _, p := range []string{filepath.Join(d.root, "missing.js"), d.root, filepath.Join(d.root, "..", "root")} {
		var de *sandbox.DeniedError
		_, err := sb.Readable(p)
		if err == nil || errors.As(err, &de) || !strings.Contains(err.Error(), p) {
			t.Errorf("Readable(%q) = %v; want an error naming the path that is not a denial", p, err)
		}
	}
}

// TestDefaultPrivateDir: without Config.PrivateDir each sandbox makes a
// directory of its own, mode 0700, inside the process's one, mode 0700, in
// the OS temp dir; sessions do not reach each other's; a directory removed
// by a temp cleaner is made again; Cleanup keeps what holds files.
func TestDefaultPrivateDir(t *testing.T) {
	tmp := canonical(t, t.TempDir())
	t.Setenv("TMPDIR", tmp)
	t.Cleanup(func() { sandbox.Cleanup() })

	a, b := sandbox.New(sandbox.Config{}), sandbox.New(sandbox.Config{})
	shot, err := a.TempFile("screenshot.png", []byte("big"))
	if err != nil {
		t.Fatal(err)
	}
	process, err := sandbox.PrivateDir()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(tmp) + `/tabhive-files-\d+/session-\d+/screenshot-[0-9a-f]+\.png$`).MatchString(shot) {
		t.Errorf("TempFile = %q, want %s/tabhive-files-*/session-*/screenshot-*.png", shot, tmp)
	}
	for _, dir := range []string{process, filepath.Dir(shot)} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want a directory of mode 0700", dir, fi.Mode(), err)
		}
	}
	checkFile(t, shot, "big")

	var de *sandbox.DeniedError
	if _, _, err := b.ReadFile(shot, 10); !errors.As(err, &de) {
		t.Errorf("another session's ReadFile(%q) = %v, want a *DeniedError", shot, err)
	}
	other, err := b.WriteFile("note.txt", []byte("b"), "")
	if err != nil || filepath.Dir(filepath.Dir(other)) != process || filepath.Dir(other) == filepath.Dir(shot) {
		t.Errorf("second session's WriteFile(note.txt) = %q, %v; want it in a directory of its own in %s", other, err, process)
	}
	if want := "inside " + filepath.Dir(other) + "."; !strings.HasSuffix(deniedText(b, shot), want) {
		t.Errorf("denial %q does not end %q", deniedText(b, shot), want)
	}

	// Cleanup removes only empty directories: c's, made and never written.
	c := sandbox.New(sandbox.Config{})
	empty, err := c.Resolve("x")
	if err != nil {
		t.Fatal(err)
	}
	if err := sandbox.Cleanup(); err != nil {
		t.Fatalf("Cleanup = %v", err)
	}
	checkAbsent(t, filepath.Dir(empty))
	checkFile(t, shot, "big")
	checkFile(t, other, "b")

	// A temp cleaner removes everything: the next write makes new
	// directories, under a new name.
	if err := os.RemoveAll(process); err != nil {
		t.Fatal(err)
	}
	again, err := a.TempFile("screenshot.png", []byte("again"))
	if err != nil {
		t.Fatalf("TempFile after the private dir was removed = %v", err)
	}
	if strings.HasPrefix(again, process+string(filepath.Separator)) {
		t.Errorf("TempFile after removal = %q, want a new private dir, not %s", again, process)
	}
	checkFile(t, again, "again")
	if err := sandbox.Cleanup(); err != nil {
		t.Fatalf("Cleanup = %v", err)
	}
	checkFile(t, again, "again")
}

// deniedText returns the error text of a denied read of p.
func deniedText(sb *sandbox.Sandbox, p string) string {
	_, err := sb.Readable(p)
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCheckRoots(t *testing.T) {
	d := newDirs(t)
	file := filepath.Join(d.root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sandbox.CheckRoots([]string{d.root, d.other}); err != nil {
		t.Errorf("CheckRoots(existing directories) = %v", err)
	}
	if err := sandbox.CheckRoots(nil); err != nil {
		t.Errorf("CheckRoots(nil) = %v", err)
	}
	for _, tt := range []struct {
		dirs []string
		want string
	}{
		{[]string{d.root, filepath.Join(d.root, "missing")}, "workspace " + filepath.Join(d.root, "missing") + " does not exist; give the path of an existing directory"},
		{[]string{file}, "workspace " + file + " is not a directory; give the path of an existing directory"},
		{[]string{""}, "a workspace directory is empty; give the path of an existing directory"},
	} {
		if err := sandbox.CheckRoots(tt.dirs); err == nil || err.Error() != tt.want {
			t.Errorf("CheckRoots(%q) = %v, want %q", tt.dirs, err, tt.want)
		}
	}
}
