//go:build unix

package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// fifoWait bounds a call that must not block on a FIFO: it returns in
// microseconds; one that opened the FIFO would wait for ever.
const fifoWait = 20 * time.Second

// within runs fn and fails the test unless it returns within fifoWait.
func within(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }() // returns once fn does; a blocked one is the failure
	select {
	case err := <-done:
		return err
	case <-time.After(fifoWait):
		t.Fatalf("%s blocked on a FIFO for %v", what, fifoWait)
		return nil
	}
}

// TestWriteFIFO: a FIFO where a file is to be written is refused with a
// *NotRegularError, without blocking, whether or not something holds its
// reading end (opening a FIFO to write waits for a reader, and
// take_snapshot, save_pdf and take_screenshot hung on one).
func TestWriteFIFO(t *testing.T) {
	d := newDirs(t)
	sb := newRooted(t, d)
	fifo := filepath.Join(d.root, "out.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	check := func(name string, err error) {
		t.Helper()
		var ne *sandbox.NotRegularError
		if !errors.As(err, &ne) {
			t.Errorf("%s on a FIFO = %v, want a *NotRegularError", name, err)
		}
	}
	for _, reader := range []bool{false, true} {
		if reader {
			// A reader that never reads: an open for writing would
			// succeed, and a write fill the pipe and block.
			r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
		}
		check("WriteFile", within(t, "WriteFile", func() error {
			_, err := sb.WriteFile(fifo, []byte("x"), ".txt")
			return err
		}))
		check("Create", within(t, "Create", func() error {
			f, err := sb.Create(fifo, ".txt")
			if err == nil {
				f.Close()
			}
			return err
		}))
		check("ReadFile", within(t, "ReadFile", func() error {
			_, _, err := sb.ReadFile(fifo, 10)
			return err
		}))
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi, err)
	}
}
