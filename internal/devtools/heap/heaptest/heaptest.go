// Package heaptest gives tests of the tools above the heap engine its test
// snapshots as files, as an agent would have them. It is for tests only.
package heaptest

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// names are the heap snapshots of internal/devtools/heap/testdata: a page
// before and after it leaks.
var names = []string{"leaks-before", "leaks-after"}

// Unpack writes the test heap snapshots, uncompressed, into a new
// directory, removed when the test ends, and returns it: leaks-before and
// leaks-after, each NAME.heapsnapshot.
func Unpack(t testing.TB) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	testdata := filepath.Join(filepath.Dir(here), "..", "testdata")
	dir := t.TempDir()
	for _, name := range names {
		if err := gunzip(filepath.Join(testdata, name+".heapsnapshot.gz"), filepath.Join(dir, name+".heapsnapshot")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// gunzip writes the decompressed content of the file from to the file to.
func gunzip(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
