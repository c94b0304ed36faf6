package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// recorder collects the paths a sandbox reports.
type recorder struct {
	mu    sync.Mutex
	paths []string
}

func (r *recorder) add(p string) {
	r.mu.Lock()
	r.paths = append(r.paths, p)
	r.mu.Unlock()
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.paths)
}

// Every way of writing reports the file to the sandbox's Written and to
// the observer of the view it went through, and only to that one.
func TestWrittenAndObserve(t *testing.T) {
	d := newDirs(t)
	var all, one, other recorder
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp, WorkDir: d.root, Written: all.add})
	if err := sb.SetRoots([]string{fileURI(d.root)}); err != nil {
		t.Fatal(err)
	}
	view, otherView := sb.Observe(one.add), sb.Observe(other.add)

	a, err := view.WriteFile("a.txt", []byte("A"), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := view.TempFile("shot.png", []byte("B"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := view.Create(filepath.Join(d.root, "sub", "trace"), ".json")
	if err != nil {
		t.Fatal(err)
	}
	c := f.Name()
	f.Write([]byte("C1"))
	f.Write([]byte("C2"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	checkFile(t, c, "C1C2")
	if c != filepath.Join(d.root, "sub", "trace.json") {
		t.Errorf("Create wrote %s, want the .json extension in root/sub", c)
	}
	// A write the sandbox refuses reports nothing.
	if _, err := view.WriteFile(filepath.Join(d.other, "x"), []byte("x"), ""); err == nil {
		t.Fatal("a write outside the roots was allowed")
	}
	if _, err := view.Create(filepath.Join(d.other, "y"), ""); err == nil {
		t.Fatal("Create outside the roots was allowed")
	}

	want := []string{a, b, c}
	if got := all.got(); !slices.Equal(got, want) {
		t.Errorf("Written got %q, want %q", got, want)
	}
	if got := one.got(); !slices.Equal(got, want) {
		t.Errorf("the view's observer got %q, want %q", got, want)
	}
	if got := other.got(); len(got) != 0 {
		t.Errorf("another view's observer got %q, want nothing", got)
	}
	// Views share the roots: a root declared later applies to every view.
	if err := sb.SetRoots([]string{fileURI(d.other)}); err != nil {
		t.Fatal(err)
	}
	if _, err := otherView.WriteFile(filepath.Join(d.other, "z"), []byte("z"), ""); err != nil {
		t.Errorf("a view does not see the roots set on its sandbox: %v", err)
	}
	if got := other.got(); len(got) != 1 {
		t.Errorf("other view's observer got %q, want one file", got)
	}
}

// Create refuses a final symlink, as WriteFile does.
func TestCreateRefusesSymlink(t *testing.T) {
	d := newDirs(t)
	sb := newRooted(t, d)
	target := filepath.Join(d.root, "real")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, filepath.Join(d.root, "link"))
	if f, err := sb.Create(filepath.Join(d.root, "link"), ""); err == nil {
		f.Close()
		t.Fatal("Create wrote through a symlink")
	}
	checkFile(t, target, "keep")
}

// RemovePrivate removes the directory the sandbox made, with its files,
// and a later write makes a new one; a configured directory is left alone.
func TestRemovePrivate(t *testing.T) {
	// The process's private directory is made once: in a temp dir of the
	// test's own, and removed after, so that TestDefaultPrivateDir makes
	// its own.
	t.Setenv("TMPDIR", canonical(t, t.TempDir()))
	t.Cleanup(func() { sandbox.Cleanup() })
	sb := sandbox.New(sandbox.Config{})
	p, err := sb.TempFile("snap.txt", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if err := sb.RemovePrivate(); err != nil {
		t.Fatal(err)
	}
	checkAbsent(t, dir)
	q, err := sb.TempFile("snap.txt", []byte("y"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(q) == dir {
		t.Errorf("the private directory %s came back under the same name", dir)
	}
	if err := sb.RemovePrivate(); err != nil {
		t.Fatal(err)
	}
	checkAbsent(t, filepath.Dir(q))

	d := newDirs(t)
	given := sandbox.New(sandbox.Config{PrivateDir: d.tmp})
	if _, err := given.TempFile("a.txt", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := given.RemovePrivate(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.tmp); err != nil {
		t.Errorf("a configured private directory was removed: %v", err)
	}
}
