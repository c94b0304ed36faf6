package input_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/script"
)

func TestUploadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "one.txt"), filepath.Join(dir, "two.txt")
	os.WriteFile(f1, []byte("1"), 0o600)
	os.WriteFile(f2, []byte("22"), 0o600)
	srv := browsertest.Serve(t, browsertest.HTML("Upload", `<label>Single <input type=file id=single onchange="report(Array.from(this.files).map(f => f.name + ':' + f.size).join(','))"></label>
<label>Many <input type=file multiple onchange="report(Array.from(this.files).map(f => f.name).join(','))"></label>
<input type=file id=picker style="display:none" onchange="report('proxy ' + this.files[0].name)">
<button onclick="document.getElementById('picker').click()">Choose file</button><button>Not a file input</button>`+statusScript))
	a := open(t, srv.URL+"/")
	s := snap(t, a)
	if _, err := input.UploadFile(ctx(t), a, uidOf(t, s, "button", "Single"), []string{f1}, page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "one.txt:1" {
		t.Errorf("single upload: status %q", got)
	}
	if _, err := input.UploadFile(ctx(t), a, uidOf(t, s, "button", "Many"), []string{f1, f2}, page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "one.txt,two.txt" {
		t.Errorf("multiple upload: status %q", got)
	}
	if _, err := input.UploadFile(ctx(t), a, uidOf(t, s, "button", "Single"), []string{f1, f2}, page.InputOptions{}); !errors.Is(err, input.ErrMultipleFiles) {
		t.Errorf("two files on a single input = %v", err)
	}
	if _, err := input.UploadFile(ctx(t), a, uidOf(t, s, "button", "Choose file"), []string{f2}, page.InputOptions{}); err != nil {
		t.Fatalf("upload through a file chooser = %v", err)
	}
	if got := statusOf(t, a); got != "proxy two.txt" {
		t.Errorf("chooser upload: status %q", got)
	}
	if _, err := input.UploadFile(ctx(t), a, uidOf(t, s, "button", "Not a file input"), []string{f1}, page.InputOptions{}); !errors.Is(err, input.ErrNoFileChooser) {
		t.Errorf("upload on a plain button = %v, want ErrNoFileChooser", err)
	}
}

// TestOOPIFUpload: a file input inside an out-of-process iframe takes a
// file, directly and through the chooser a styled button opens.
func TestOOPIFUpload(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(file, []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	inner := browsertest.ServeOwnSite(t, browsertest.HTML("Inner", `<input type=file aria-label="Direct">
<input type=file id=picker style="display: none"><button onclick="picker.click()">Choose</button>`))
	top := browsertest.Serve(t, browsertest.HTML("Top", `<iframe title=Cross src="`+inner.URL+`/"></iframe>`))
	a := open(t, top.URL+"/")
	s := snap(t, a)
	direct, choose := uidOf(t, s, "button", "Direct"), uidOf(t, s, "button", "Choose")
	for _, uid := range []string{direct, choose} {
		if _, err := input.UploadFile(ctx(t), a, uid, []string{file}, page.InputOptions{}); err != nil {
			t.Fatalf("UploadFile(%s) = %v", uid, err)
		}
	}
	res, err := script.Evaluate(ctx(t), a, script.Script{Source: `(el) => [...document.querySelectorAll('input')].map(i => i.files[0]?.name ?? '').join(',')`, Args: []string{direct}})
	if err != nil {
		t.Fatalf("Evaluate = %v", err)
	}
	if res.JSON != `"note.txt,note.txt"` {
		t.Errorf("files in the frame's inputs = %s, want both note.txt", res.JSON)
	}
}
