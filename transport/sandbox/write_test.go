package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// newRooted returns a sandbox whose client declared d.root.
func newRooted(t *testing.T, d dirs) *sandbox.Sandbox {
	t.Helper()
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp, WorkDir: d.root})
	if err := sb.SetRoots([]string{fileURI(d.root)}); err != nil {
		t.Fatal(err)
	}
	return sb
}

// checkFile fails unless p is a regular file holding want with mode 0600.
func checkFile(t *testing.T, p, want string) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() {
		t.Errorf("%s mode = %v, want a regular file", p, fi.Mode())
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("%s permissions = %#o, want %#o", p, got, 0o600)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s holds %q, want %q", p, got, want)
	}
}

func checkAbsent(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lstat(%q) error = %v, want it not to exist", p, err)
	}
}

func TestWriteFile(t *testing.T) {
	d := newDirs(t)
	if err := os.Mkdir(filepath.Join(d.root, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	symlink(t, "sub", filepath.Join(d.root, "in"))

	tests := []struct {
		name string
		path string
		ext  string
		want string
	}{
		{"absolute", filepath.Join(d.root, "a.txt"), "", filepath.Join(d.root, "a.txt")},
		{"relative to WorkDir", "rel.txt", "", filepath.Join(d.root, "rel.txt")},
		{"missing parents created", filepath.Join(d.root, "x", "y", "z.txt"), "", filepath.Join(d.root, "x", "y", "z.txt")},
		{"temp dir", filepath.Join(d.tmp, "t", "a.txt"), "", filepath.Join(d.tmp, "t", "a.txt")},
		{"through a symlinked dir inside the root", filepath.Join(d.root, "in", "a.txt"), "", filepath.Join(d.root, "sub", "a.txt")},
		{"extension replaced", filepath.Join(d.root, "e1.png"), ".txt", filepath.Join(d.root, "e1.txt")},
		{"extension added", filepath.Join(d.root, "e2"), ".txt", filepath.Join(d.root, "e2.txt")},
		{"only the last extension replaced", filepath.Join(d.root, "e3.tar.gz"), ".txt", filepath.Join(d.root, "e3.tar.txt")},
		{"extension already right", filepath.Join(d.root, "e4.txt"), ".txt", filepath.Join(d.root, "e4.txt")},
		{"dotfile is not an extension", filepath.Join(d.root, ".e5"), ".txt", filepath.Join(d.root, ".e5.txt")},
		{"dotted directory untouched", filepath.Join(d.root, "v1.2", "e6"), ".txt", filepath.Join(d.root, "v1.2", "e6.txt")},
		{"ext without a dot", filepath.Join(d.root, "e7.png"), "txt", filepath.Join(d.root, "e7.txt")},
		{"relative with extension", "e8.json", ".txt", filepath.Join(d.root, "e8.txt")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newRooted(t, d)
			data := "data for " + tt.name
			got, err := sb.WriteFile(tt.path, []byte(data), tt.ext)
			if err != nil || got != tt.want {
				t.Fatalf("WriteFile(%q, %q) = %q, %v; want %q, nil", tt.path, tt.ext, got, err, tt.want)
			}
			checkFile(t, tt.want, data)
		})
	}
}

func TestWriteFileCreatesPrivateDirs(t *testing.T) {
	d := newDirs(t)
	sb := newRooted(t, d)
	p := filepath.Join(d.root, "new", "a.txt")
	if _, err := sb.WriteFile(p, nil, ""); err != nil {
		t.Fatalf("WriteFile(%q) error = %v", p, err)
	}
	fi, err := os.Stat(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	// The umask can only clear bits.
	if got := fi.Mode().Perm(); got&^0o700 != 0 {
		t.Errorf("%s permissions = %#o, want within %#o", filepath.Dir(p), got, 0o700)
	}
}

func TestWriteFileTruncates(t *testing.T) {
	d := newDirs(t)
	sb := newRooted(t, d)
	p := filepath.Join(d.root, "a.txt")
	if err := os.WriteFile(p, []byte("a much longer old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.WriteFile(p, []byte("new"), ""); err != nil {
		t.Fatalf("WriteFile(%q) error = %v", p, err)
	}
	checkFile(t, p, "new")
}

func TestWriteFileUnrestricted(t *testing.T) {
	d := newDirs(t)
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp, Unrestricted: true})
	p := filepath.Join(d.other, "deep", "a.png")
	got, err := sb.WriteFile(p, []byte("x"), ".txt")
	want := filepath.Join(d.other, "deep", "a.txt")
	if err != nil || got != want {
		t.Fatalf("WriteFile(%q) = %q, %v; want %q, nil", p, got, err, want)
	}
	checkFile(t, want, "x")

	// Unrestricted mode still never writes through a symlink.
	link := filepath.Join(d.other, "link.txt")
	symlink(t, "target.txt", link)
	if got, err := sb.WriteFile(link, []byte("x"), ""); err == nil {
		t.Errorf("WriteFile(%q) = %q, nil; want an error", link, got)
	}
	checkAbsent(t, filepath.Join(d.other, "target.txt"))
}

func TestWriteFileDenied(t *testing.T) {
	d := newDirs(t)
	symlink(t, d.other, filepath.Join(d.root, "out"))

	tests := []struct {
		name      string
		path      string
		canonical string
		absent    string // must not be created
	}{
		{"outside the roots", filepath.Join(d.other, "a.txt"), filepath.Join(d.other, "a.txt"), filepath.Join(d.other, "a.txt")},
		{"prefix sibling", filepath.Join(d.evil, "a.txt"), filepath.Join(d.evil, "a.txt"), filepath.Join(d.evil, "a.txt")},
		{"relative escape", "../other/a.txt", filepath.Join(d.other, "a.txt"), filepath.Join(d.other, "a.txt")},
		{"symlinked dir pointing outside", filepath.Join(d.root, "out", "new", "a.txt"), filepath.Join(d.other, "new", "a.txt"), filepath.Join(d.other, "new")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newRooted(t, d)
			got, err := sb.WriteFile(tt.path, []byte("x"), "")
			var de *sandbox.DeniedError
			if !errors.As(err, &de) {
				t.Fatalf("WriteFile(%q) = %q, %v; want a *DeniedError", tt.path, got, err)
			}
			if de.Path != tt.path || de.Canonical != tt.canonical {
				t.Errorf("WriteFile(%q) error = %#v, want Path %q, Canonical %q", tt.path, de, tt.path, tt.canonical)
			}
			checkAbsent(t, tt.absent)
		})
	}
}

func TestWriteFileRefusesSymlinks(t *testing.T) {
	d := newDirs(t)
	target := filepath.Join(d.root, "target.txt")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, "target.txt", filepath.Join(d.root, "live.txt"))
	symlink(t, "missing.txt", filepath.Join(d.root, "dangling.txt"))
	symlink(t, target, filepath.Join(d.root, "absolute.txt"))
	symlink(t, "target.txt", filepath.Join(d.root, "live.png"))
	// A dangling link does not resolve, so it is canonical by name and
	// inside the root: only the write can refuse it.
	symlink(t, filepath.Join(d.other, "secret.txt"), filepath.Join(d.root, "out.txt"))
	// A dangling directory symlink in the middle of the path.
	symlink(t, filepath.Join(d.other, "nodir"), filepath.Join(d.root, "danglingdir"))

	tests := []struct {
		name   string
		path   string
		ext    string
		absent string // must not be created; empty for none
	}{
		{"live symlink inside the root", filepath.Join(d.root, "live.txt"), "", ""},
		{"absolute symlink inside the root", filepath.Join(d.root, "absolute.txt"), "", ""},
		{"dangling symlink", filepath.Join(d.root, "dangling.txt"), "", filepath.Join(d.root, "missing.txt")},
		{"dangling symlink pointing outside", filepath.Join(d.root, "out.txt"), "", filepath.Join(d.other, "secret.txt")},
		{"symlink reached by forcing the extension", filepath.Join(d.root, "live.json"), ".png", ""},
		{"dangling symlinked dir", filepath.Join(d.root, "danglingdir", "a.txt"), "", filepath.Join(d.other, "nodir")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newRooted(t, d)
			got, err := sb.WriteFile(tt.path, []byte("overwritten"), tt.ext)
			if err == nil {
				t.Fatalf("WriteFile(%q, %q) = %q, nil; want an error", tt.path, tt.ext, got)
			}
			if !strings.HasPrefix(err.Error(), "could not write ") {
				t.Errorf("WriteFile(%q) error = %q, want it to start %q", tt.path, err, "could not write ")
			}
			checkFile(t, target, "keep")
			if tt.absent != "" {
				checkAbsent(t, tt.absent)
			}
		})
	}
}

// TestTempFile: outputs the server writes on its own go into the private
// directory itself, each under a fresh name; no directory is made per file.
func TestTempFile(t *testing.T) {
	private := canonical(t, t.TempDir())
	sb := sandbox.New(sandbox.Config{PrivateDir: private})

	got, err := sb.TempFile("shot.png", []byte("png"))
	if err != nil {
		t.Fatalf("TempFile error = %v", err)
	}
	if filepath.Dir(got) != private || !regexp.MustCompile(`^shot-[0-9a-f]{12}\.png$`).MatchString(filepath.Base(got)) {
		t.Errorf("TempFile = %q, want %s/shot-<12 hex digits>.png", got, private)
	}
	checkFile(t, got, "png")

	again, err := sb.TempFile("shot.png", []byte("png2"))
	if err != nil {
		t.Fatalf("TempFile error = %v", err)
	}
	if again == got || filepath.Dir(again) != private {
		t.Errorf("TempFile twice = %q then %q, want two files in %s", got, again, private)
	}
	checkFile(t, got, "png")
	checkFile(t, again, "png2")
	if entries, err := os.ReadDir(private); err != nil || len(entries) != 2 {
		t.Errorf("private dir holds %v (%v), want the two files only", entries, err)
	}

	// The output is readable back through the sandbox's own check.
	if _, err := sb.Resolve(got); err != nil {
		t.Errorf("Resolve(%q) error = %v, want nil", got, err)
	}
	if b, _, err := sb.ReadFile(filepath.Base(got), 10); err != nil || string(b) != "png" {
		t.Errorf("ReadFile(%q) = %q, %v; want the file, relative paths resolving in the private dir", filepath.Base(got), b, err)
	}
}

func TestTempFileBadName(t *testing.T) {
	sb := sandbox.New(sandbox.Config{PrivateDir: t.TempDir()})
	for _, name := range []string{"", ".", "..", "a/b.png", "../b.png", "/b.png", "dir/"} {
		if got, err := sb.TempFile(name, nil); err == nil {
			t.Errorf("TempFile(%q) = %q, nil; want an error", name, got)
		}
	}
}
