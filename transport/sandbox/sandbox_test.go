package sandbox_test

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// dirs is the file system layout shared by the tests: a workspace root, the
// sandbox's private dir, an unrelated directory, and a sibling of the root whose
// name has the root as a prefix. All paths are canonical.
type dirs struct {
	root, tmp, other, evil string
}

func newDirs(t *testing.T) dirs {
	t.Helper()
	base := canonical(t, t.TempDir())
	d := dirs{
		root:  filepath.Join(base, "root"),
		tmp:   filepath.Join(base, "tmp"),
		other: filepath.Join(base, "other"),
		evil:  filepath.Join(base, "root-evil"),
	}
	for _, dir := range []string{d.root, d.tmp, d.other, d.evil} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// sandboxIn makes a sandbox of cfg with d's private directory, and with
// roots, unless nil.
func (d dirs) sandboxIn(t *testing.T, cfg sandbox.Config, roots []string) *sandbox.Sandbox {
	t.Helper()
	cfg.PrivateDir = d.tmp
	sb := sandbox.New(cfg)
	if roots != nil {
		if err := sb.SetRoots(roots); err != nil {
			t.Fatalf("SetRoots(%q) = %v, want nil", roots, err)
		}
	}
	return sb
}

// canonical returns the realpath of an existing p (t.TempDir is under a
// symlink on macOS).
func canonical(t *testing.T, p string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

func TestResolve(t *testing.T) {
	d := newDirs(t)
	symlink(t, filepath.Join(d.root, "sub"), filepath.Join(d.root, "in"))
	symlink(t, d.other, filepath.Join(d.root, "out"))
	if err := os.Mkdir(filepath.Join(d.root, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A root declared through a symlink is compared by its realpath.
	rootLink := filepath.Join(d.other, "root-link")
	symlink(t, d.root, rootLink)

	noRoots := []string(nil) // SetRoots is not called
	tests := []struct {
		name  string
		cfg   sandbox.Config
		roots []string // nil: undeclared
		path  string
		want  string // canonical result; empty when denied
	}{
		{"private dir itself", sandbox.Config{}, noRoots, d.tmp, d.tmp},
		{"missing nested path in private dir", sandbox.Config{}, noRoots, filepath.Join(d.tmp, "a", "b", "c.png"), filepath.Join(d.tmp, "a", "b", "c.png")},
		{"outside private dir without roots", sandbox.Config{}, noRoots, filepath.Join(d.other, "x.png"), ""},
		{"empty roots list allows private dir", sandbox.Config{}, []string{}, filepath.Join(d.tmp, "x.png"), filepath.Join(d.tmp, "x.png")},
		{"empty roots list denies elsewhere", sandbox.Config{}, []string{}, filepath.Join(d.root, "x.png"), ""},
		{"unrestricted without roots", sandbox.Config{Unrestricted: true}, noRoots, filepath.Join(d.other, "x.png"), filepath.Join(d.other, "x.png")},
		{"unrestricted with roots is confined", sandbox.Config{Unrestricted: true}, []string{d.root}, filepath.Join(d.other, "x.png"), ""},
		{"unrestricted with roots keeps private dir", sandbox.Config{Unrestricted: true}, []string{d.root}, filepath.Join(d.tmp, "x.png"), filepath.Join(d.tmp, "x.png")},
		{"root itself", sandbox.Config{}, []string{d.root}, d.root, d.root},
		{"inside root", sandbox.Config{}, []string{d.root}, filepath.Join(d.root, "x.png"), filepath.Join(d.root, "x.png")},
		{"missing nested path in root", sandbox.Config{}, []string{d.root}, filepath.Join(d.root, "a", "b", "x.png"), filepath.Join(d.root, "a", "b", "x.png")},
		{"private dir allowed besides roots", sandbox.Config{}, []string{d.root}, filepath.Join(d.tmp, "x.png"), filepath.Join(d.tmp, "x.png")},
		{"outside roots", sandbox.Config{}, []string{d.root}, filepath.Join(d.other, "x.png"), ""},
		{"sibling sharing the root's prefix", sandbox.Config{}, []string{d.root}, filepath.Join(d.evil, "x.png"), ""},
		{"sibling name itself", sandbox.Config{}, []string{d.root}, d.evil, ""},
		{"dot-dot out of root", sandbox.Config{}, []string{d.root}, d.root + "/a/../../other/x.png", ""},
		{"dot-dot within root", sandbox.Config{}, []string{d.root}, d.root + "/a/b/../../x.png", filepath.Join(d.root, "x.png")},
		{"relative path against WorkDir", sandbox.Config{WorkDir: d.root}, []string{d.root}, "a/x.png", filepath.Join(d.root, "a", "x.png")},
		{"relative path escaping WorkDir", sandbox.Config{WorkDir: d.root}, []string{d.root}, "../other/x.png", ""},
		{"symlinked dir pointing inside root", sandbox.Config{}, []string{d.root}, filepath.Join(d.root, "in", "x.png"), filepath.Join(d.root, "sub", "x.png")},
		{"symlinked dir pointing outside root", sandbox.Config{}, []string{d.root}, filepath.Join(d.root, "out", "x.png"), ""},
		{"root declared through a symlink", sandbox.Config{}, []string{rootLink}, filepath.Join(d.root, "x.png"), filepath.Join(d.root, "x.png")},
		{"path through the root symlink", sandbox.Config{}, []string{rootLink}, filepath.Join(rootLink, "x.png"), filepath.Join(d.root, "x.png")},
		{"root as file URI", sandbox.Config{}, []string{fileURI(d.root)}, filepath.Join(d.root, "x.png"), filepath.Join(d.root, "x.png")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := d.sandboxIn(t, tt.cfg, tt.roots)
			got, err := sb.Resolve(tt.path)
			if tt.want == "" {
				var de *sandbox.DeniedError
				if !errors.As(err, &de) {
					t.Fatalf("Resolve(%q) = %q, %v; want a *DeniedError", tt.path, got, err)
				}
				if de.Path != tt.path {
					t.Errorf("DeniedError.Path = %q, want %q", de.Path, tt.path)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q, nil", tt.path, got, err, tt.want)
			}
		})
	}
}

func TestResolveDeniedCanonical(t *testing.T) {
	d := newDirs(t)
	symlink(t, d.other, filepath.Join(d.root, "out"))
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp})
	if err := sb.SetRoots([]string{d.root}); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(d.root, "out", "x.png")
	_, err := sb.Resolve(path)
	var de *sandbox.DeniedError
	if !errors.As(err, &de) {
		t.Fatalf("Resolve(%q) error = %v, want a *DeniedError", path, err)
	}
	want := &sandbox.DeniedError{Path: path, Canonical: filepath.Join(d.other, "x.png"), PrivateDir: d.tmp}
	if *de != *want {
		t.Errorf("Resolve(%q) error = %#v, want %#v", path, de, want)
	}
}

func TestResolveNotADirectory(t *testing.T) {
	d := newDirs(t)
	file := filepath.Join(d.tmp, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp})

	path := filepath.Join(file, "x.png")
	got, err := sb.Resolve(path)
	var de *sandbox.DeniedError
	if err == nil || errors.As(err, &de) {
		t.Fatalf("Resolve(%q) = %q, %v; want a resolution error", path, got, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("Resolve(%q) error = %q, want it to name the path", path, err)
	}
}

func TestResolveEmptyPath(t *testing.T) {
	sb := sandbox.New(sandbox.Config{PrivateDir: t.TempDir()})
	if got, err := sb.Resolve(""); err == nil {
		t.Errorf(`Resolve("") = %q, nil; want an error`, got)
	}
}

func TestDeniedErrorMessage(t *testing.T) {
	tests := []struct {
		err  sandbox.DeniedError
		want string
	}{
		// chrome-devtools-mcp's sentence, verbatim.
		{sandbox.DeniedError{Path: "../x.png", Canonical: "/home/u/x.png"},
			"Access denied: path ../x.png (canonical: /home/u/x.png) is not within any of the configured workspace roots."},
		{sandbox.DeniedError{Path: "../x.png", Canonical: "/home/u/x.png", PrivateDir: "/tmp/tabhive-files-1/session-2"},
			"Access denied: path ../x.png (canonical: /home/u/x.png) is not within any of the configured workspace roots. Use a path inside one of them, or inside /tmp/tabhive-files-1/session-2."},
		{sandbox.DeniedError{Path: "/p/Cookies", Canonical: "/p/Cookies", Protected: true, PrivateDir: "/tmp/x"},
			"Access denied: path /p/Cookies (canonical: /p/Cookies) is inside the browser's profile, which no tool may read or write."},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestSetRoots(t *testing.T) {
	base := canonical(t, t.TempDir())
	// Percent-encoding must be decoded: a space, a percent sign, non-ASCII.
	odd := filepath.Join(base, "my dir%25 é")
	if err := os.Mkdir(odd, 0o700); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(base, "plain")
	if err := os.Mkdir(plain, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(base, "missing")

	tests := []struct {
		name    string
		roots   []string
		allowed []string // directories whose children must be allowed
		denied  []string // directories whose children must be denied
		errs    int      // number of roots reported as skipped
	}{
		{
			name:    "percent-encoded file URI",
			roots:   []string{fileURI(odd)},
			allowed: []string{odd},
			denied:  []string{plain},
		},
		{
			name:    "hand-encoded file URI",
			roots:   []string{"file://" + filepath.ToSlash(base) + "/my%20dir%2525%20%C3%A9"},
			allowed: []string{odd},
		},
		{
			name:    "localhost file URI",
			roots:   []string{"file://localhost" + filepath.ToSlash(plain)},
			allowed: []string{plain},
		},
		{
			name:    "absolute path",
			roots:   []string{plain},
			allowed: []string{plain},
			denied:  []string{odd},
		},
		{
			name:    "non-file URIs ignored",
			roots:   []string{"https://example.com/", "vscode-remote://host/x", plain},
			allowed: []string{plain},
			denied:  []string{odd},
		},
		{
			name:    "bad roots skipped, others kept",
			roots:   []string{fileURI(missing), "relative/dir", "file://server/share", "file:opaque", plain},
			allowed: []string{plain},
			denied:  []string{missing, odd},
			errs:    4,
		},
		{
			name:   "empty list",
			roots:  []string{},
			denied: []string{plain, odd},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := sandbox.New(sandbox.Config{PrivateDir: tmp})
			if sb.HasRoots() {
				t.Fatal("HasRoots() = true before SetRoots, want false")
			}
			err := sb.SetRoots(tt.roots)
			if !sb.HasRoots() {
				t.Error("HasRoots() = false after SetRoots, want true")
			}
			if got := countJoined(err); got != tt.errs {
				t.Errorf("SetRoots(%q) reported %d skipped roots (%v), want %d", tt.roots, got, err, tt.errs)
			}
			for _, dir := range tt.allowed {
				p := filepath.Join(dir, "x.png")
				if _, err := sb.Resolve(p); err != nil {
					t.Errorf("Resolve(%q) error = %v, want nil", p, err)
				}
			}
			for _, dir := range tt.denied {
				p := filepath.Join(dir, "x.png")
				var de *sandbox.DeniedError
				if _, err := sb.Resolve(p); !errors.As(err, &de) {
					t.Errorf("Resolve(%q) error = %v, want a *DeniedError", p, err)
				}
			}
			p := filepath.Join(tmp, "x.png")
			if _, err := sb.Resolve(p); err != nil {
				t.Errorf("Resolve(%q) error = %v, want the private dir allowed", p, err)
			}
		})
	}
}

// countJoined returns how many errors err joins.
func countJoined(err error) int {
	if err == nil {
		return 0
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return len(j.Unwrap())
	}
	return 1
}

func TestSetRootsReplaces(t *testing.T) {
	d := newDirs(t)
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp})
	if err := sb.SetRoots([]string{d.root}); err != nil {
		t.Fatal(err)
	}
	if err := sb.SetRoots([]string{d.other}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d.root, "x.png")
	var de *sandbox.DeniedError
	if _, err := sb.Resolve(p); !errors.As(err, &de) {
		t.Errorf("Resolve(%q) after roots replaced = %v, want a *DeniedError", p, err)
	}
	p = filepath.Join(d.other, "x.png")
	if _, err := sb.Resolve(p); err != nil {
		t.Errorf("Resolve(%q) = %v, want nil", p, err)
	}
}

// TestConcurrentSetRootsResolve checks, under -race, that roots updates from
// roots/list_changed may overlap tool calls without a data race, that a path
// in no root set is never allowed, and that the private dir stays allowed.
func TestConcurrentSetRootsResolve(t *testing.T) {
	d := newDirs(t)
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp})
	rootSets := [][]string{{d.root}, {d.other}}
	if err := sb.SetRoots(rootSets[0]); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				if err := sb.SetRoots(rootSets[(i+j)%2]); err != nil {
					errs <- err
					return
				}
				if !sb.HasRoots() {
					errs <- errors.New("HasRoots() = false after SetRoots")
					return
				}
			}
		})
		wg.Go(func() {
			for range 50 {
				for _, dir := range []string{d.root, d.other, d.evil} {
					p := filepath.Join(dir, "x")
					got, err := sb.Resolve(p)
					var de *sandbox.DeniedError
					switch {
					case err == nil && dir == d.evil:
						errs <- fmt.Errorf("Resolve(%q) = %q, nil; want denied", p, got)
						return
					case err != nil && !errors.As(err, &de):
						errs <- fmt.Errorf("Resolve(%q) error = %w, want nil or *DeniedError", p, err)
						return
					}
				}
				if _, err := sb.Resolve(filepath.Join(d.tmp, "x")); err != nil {
					errs <- fmt.Errorf("private dir denied: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
