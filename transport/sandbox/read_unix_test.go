//go:build unix

package sandbox_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// TestReadFileFIFO: a FIFO is refused without being opened, which would
// block until something writes to it.
func TestReadFileFIFO(t *testing.T) {
	d := newDirs(t)
	sb := newRooted(t, d)
	fifo := filepath.Join(d.root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var de *sandbox.DeniedError
	if _, _, err := sb.ReadFile(fifo, 10); err == nil || errors.As(err, &de) {
		t.Errorf("ReadFile(FIFO) = %v, want a not-a-regular-file error", err)
	}
	if _, err := sb.Readable(fifo); err == nil {
		t.Error("Readable(FIFO) = nil, want an error")
	}
}
