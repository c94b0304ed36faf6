package transport

import (
	"fmt"
	"testing"
)

// A path written again keeps its URI; past maxSessionFiles the oldest is
// no longer offered; a URI names the file's base name, escaped.
func TestSessionFiles(t *testing.T) {
	var f sessionFiles
	a := f.add("/tmp/x/snap shot.txt")
	if a != "tabhive://files/1/snap%20shot.txt" {
		t.Errorf("URI = %q", a)
	}
	if again := f.add("/tmp/x/snap shot.txt"); again != a {
		t.Errorf("the same path got a second URI %q", again)
	}
	for i := range maxSessionFiles {
		f.add(fmt.Sprintf("/tmp/x/%d.png", i))
	}
	if _, ok := f.path(a); ok {
		t.Error("the oldest file is still offered past the bound")
	}
	if got := len(f.list()); got != maxSessionFiles {
		t.Errorf("%d files listed, want %d", got, maxSessionFiles)
	}
	if p, ok := f.path(fmt.Sprintf("tabhive://files/%d/%d.png", maxSessionFiles+1, maxSessionFiles-1)); !ok || p != fmt.Sprintf("/tmp/x/%d.png", maxSessionFiles-1) {
		t.Errorf("newest file: %q %v", p, ok)
	}
}

func TestMimeType(t *testing.T) {
	for _, tt := range []struct {
		path string
		data []byte
		want string
		text bool
	}{
		{"a.txt", nil, "text/plain; charset=utf-8", true},
		{"a.PNG", nil, "image/png", false},
		{"a.json", nil, "application/json", true},
		{"r.network-response", []byte("<html><body>x"), "text/html; charset=utf-8", true},
		{"r.network-response", []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, "image/png", false},
		{"r.network-request", nil, "", false},
	} {
		got := mimeType(tt.path, tt.data)
		if got != tt.want || isText(got) != tt.text {
			t.Errorf("mimeType(%q) = %q (text %v), want %q (text %v)", tt.path, got, isText(got), tt.want, tt.text)
		}
	}
}
