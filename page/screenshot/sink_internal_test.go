package screenshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/transport/sandbox"
)

// TestShotSink: a screenshot stays in memory below the inline limit and
// goes whole to a private file from it on; with a filePath it goes there;
// past the bound it is refused and its file removed.
func TestShotSink(t *testing.T) {
	dir := t.TempDir()
	sb := sandbox.New(sandbox.Config{PrivateDir: dir})
	small := newShotSink(sb, "", ".png")
	small.Write([]byte("abc"))
	if path, err := small.finish(nil); path != "" || err != nil || string(small.inline()) != "abc" {
		t.Errorf("small: %q %v %q", path, err, small.inline())
	}

	big := newShotSink(sb, "", ".png")
	chunk := bytes.Repeat([]byte{7}, 64<<10)
	total := 0
	for total < inlineLimit+100<<10 {
		if _, err := big.Write(chunk); err != nil {
			t.Fatal(err)
		}
		total += len(chunk)
	}
	path, err := big.finish(nil)
	if err != nil || !strings.HasPrefix(path, dir) || !strings.HasSuffix(path, ".png") {
		t.Fatalf("big: %q %v", path, err)
	}
	if b, _ := os.ReadFile(path); len(b) != total || len(big.inline()) != 0 {
		t.Errorf("big: file of %d bytes, want %d; %d held in memory", len(b), total, len(big.inline()))
	}

	named := newShotSink(sb, filepath.Join(dir, "shot"), ".webp")
	named.Write([]byte("x"))
	if path, err := named.finish(nil); path != filepath.Join(dir, "shot.webp") || err != nil {
		t.Errorf("named: %q %v", path, err)
	}

	over := newShotSink(sb, filepath.Join(dir, "over"), ".png")
	over.Write([]byte("partial"))
	over.n = maxScreenshotFile - 1
	_, werr := over.Write([]byte("xx"))
	if werr == nil || !strings.Contains(werr.Error(), "larger than 256 MiB") {
		t.Errorf("over the bound: %v", werr)
	}
	if _, err := over.finish(werr); err != werr {
		t.Errorf("finish = %v, want the write's error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "over.png")); !os.IsNotExist(err) {
		t.Errorf("the file of a refused screenshot stays: %v", err)
	}
}
