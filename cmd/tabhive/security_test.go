package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceThroughBinary: --workspace lets a session without roots
// write into that directory; without it the same path is refused.
func TestWorkspaceThroughBinary(t *testing.T) {
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	in := startHTTP(t)
	got, isErr := try(t, in.client(nil), "take_screenshot", map[string]any{"filePath": shot})
	if !isErr || !strings.Contains(got, "Access denied") {
		t.Fatalf("screenshot into %s without --workspace = %v %q, want Access denied", dir, isErr, got)
	}
	in.stop()

	in = startHTTP(t, "--workspace", dir)
	text(t, in.client(nil), "take_screenshot", map[string]any{"filePath": shot})
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Fatalf("screenshot into the workspace: %v", err)
	}
}
