package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// TestMaxBytes: the files written through a sandbox and its views hold at
// most Config.MaxBytes together. A write that would pass it is refused
// with a sentence naming --max-session-disk, and leaves no file; writing a
// file again replaces its count; a file deleted gives its room back, and
// one written by another process counts as it grows.
func TestMaxBytes(t *testing.T) {
	d := newDirs(t)
	sb := sandbox.New(sandbox.Config{PrivateDir: d.tmp, WorkDir: d.root, MaxBytes: 1000})
	if err := sb.SetRoots([]string{fileURI(d.root)}); err != nil {
		t.Fatal(err)
	}
	view := sb.Observe(func(string) {})
	full := func(err error) {
		t.Helper()
		var de *sandbox.DiskFullError
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want a *DiskFullError", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "--max-session-disk") || !strings.Contains(msg, "Delete files") {
			t.Errorf("the sentence does not say what to do: %q", msg)
		}
	}
	a := filepath.Join(d.root, "a.txt")
	if _, err := sb.WriteFile(a, make([]byte, 600), ""); err != nil {
		t.Fatal(err)
	}
	// Written again, the file counts once.
	if _, err := view.WriteFile(a, make([]byte, 600), ""); err != nil {
		t.Fatalf("rewriting a file was refused: %v", err)
	}
	if room := sb.Room(); room != 400 {
		t.Errorf("Room = %d, want 400", room)
	}
	b := filepath.Join(d.root, "b.txt")
	_, err := view.WriteFile(b, make([]byte, 500), "")
	full(err)
	checkAbsent(t, b)

	// A file written in pieces: the piece that would pass the bound is
	// refused, and the file goes when closed.
	f, err := view.CreateTemp("big.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 300)); err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(make([]byte, 300))
	full(err)
	f.Close()
	checkAbsent(t, f.Name())

	// Deleting a file gives its room back.
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if _, err := view.WriteFile(b, make([]byte, 900), ""); err != nil {
		t.Fatalf("after deleting a file: %v", err)
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}

	// A file another process writes counts as it grows.
	v, err := sb.Create(filepath.Join(d.root, "video.mp4"), "")
	if err != nil {
		t.Fatal(err)
	}
	out := v.ForProcess()
	if _, err := out.Write(make([]byte, 800)); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.WriteFile(filepath.Join(d.root, "c.txt"), make([]byte, 300), ""); err == nil {
		t.Error("a write past what another process's file left was allowed")
	}
	if room := sb.Room(); room != 200 {
		t.Errorf("Room with an 800-byte video = %d, want 200", room)
	}
	v.Close()

	// Without a bound, Room is -1.
	if room := newRooted(t, d).Room(); room != -1 {
		t.Errorf("Room without a bound = %d, want -1", room)
	}
}
