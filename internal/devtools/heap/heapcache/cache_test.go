package heapcache

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// plainFiles opens any file, by its absolute path: the sandbox's rules
// are the transport's to test.
type plainFiles struct{}

func (plainFiles) Open(path string) (*os.File, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(abs)
	return f, abs, err
}

// TestDroppedWhileLoading: a snapshot closed while it loads, by a
// call that gave up waiting, leaves nothing counted once the load ends.
func TestDroppedWhileLoading(t *testing.T) {
	dir := t.TempDir()
	in, err := os.Open(filepath.Join("..", "testdata", "leaks-before.heapsnapshot.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.heapsnapshot")
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	out.Close()

	c := New(1 << 30)
	defer c.Close()
	owner := new(int)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the call gives up at once; the load goes on
	if _, _, err := c.Use(ctx, owner, plainFiles{}, file); err == nil {
		t.Fatal("use with a cancelled context succeeded")
	}
	if !c.CloseFile(owner, file) {
		t.Fatal("closeFile: the loading snapshot was not there")
	}
	c.loads.Wait() // the load ends on its own, within loadTimeout
	c.mu.Lock()
	used, n := c.used, len(c.entries)
	c.mu.Unlock()
	if used != 0 || n != 0 {
		t.Fatalf("%d entries, %d bytes counted after the dropped load ended, want none", n, used)
	}
}
