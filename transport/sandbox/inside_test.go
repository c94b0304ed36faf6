package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInside: a path is inside a directory by its canonical form, so a
// symlink into it counts, a sibling with a longer name does not, and a
// relative path fails closed.
func TestInside(t *testing.T) {
	root := t.TempDir()
	prot := filepath.Join(root, "profile")
	os.Mkdir(prot, 0o700)
	os.WriteFile(filepath.Join(prot, "Cookies"), nil, 0o600)
	link := filepath.Join(root, "link")
	if err := os.Symlink(prot, link); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		prot:                                   true,
		filepath.Join(prot, "Cookies"):         true,
		filepath.Join(prot, "missing", "x"):    true,
		filepath.Join(link, "Cookies"):         true,
		link:                                   true,
		filepath.Join(root, "profile2", "x"):   false,
		root:                                   false,
		"relative/path":                        true,
		filepath.Join(root, "x", "..", "link"): true,
	} {
		if got := Inside(p, []string{"", prot}); got != want {
			t.Errorf("Inside(%q) = %v, want %v", p, got, want)
		}
	}
}
