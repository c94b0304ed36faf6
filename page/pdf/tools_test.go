package pdf_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

// TestSavePDF prints a page of three sheets; pdfinfo (poppler-utils)
// reads the files.
func TestSavePDF(t *testing.T) {
	t.Parallel()
	pdfinfo, err := exec.LookPath("pdfinfo")
	if err != nil {
		t.Fatal("pdfinfo not found: install poppler-utils")
	}
	mux := http.NewServeMux()
	mux.Handle("/doc", browsertest.HTML("Doc", `<h1>One</h1><div style="break-after:page">first</div><h1>Two</h1><div style="break-after:page">second</div><h1>Three</h1>`))
	base := browsertest.Serve(t, mux).URL
	dir := t.TempDir()
	cs := transporttest.ConnectWithTemp(t)
	id := transporttest.OpenPage(t, cs, base+"/doc")
	info := func(path string) string {
		t.Helper()
		out, err := exec.Command(pdfinfo, path).CombinedOutput()
		if err != nil {
			t.Fatalf("pdfinfo %s: %v\n%s", path, err, out)
		}
		return string(out)
	}
	all := filepath.Join(dir, "all.pdf")
	got := transporttest.Must(t, cs, "save_pdf", map[string]any{"pageId": id, "filePath": all})
	if !regexp.MustCompile(`^Saved the page as a PDF of \d+ bytes to ` + regexp.QuoteMeta(all) + `\.$`).MatchString(got) {
		t.Errorf("save_pdf reply: %q", got)
	}
	if out := info(all); !regexp.MustCompile(`(?m)^Pages:\s+3$`).MatchString(out) || !strings.Contains(out, "612 x 792 pts (letter)") {
		t.Errorf("pdfinfo of the whole document:\n%s", out)
	}
	one := filepath.Join(dir, "one")
	transporttest.Must(t, cs, "save_pdf", map[string]any{"pageId": id, "filePath": one, "pageRanges": "2", "landscape": true, "paperWidth": 5, "paperHeight": 7, "scale": 0.5, "printBackground": true})
	if out := info(one + ".pdf"); !regexp.MustCompile(`(?m)^Pages:\s+1$`).MatchString(out) || !strings.Contains(out, "504 x 360 pts") {
		t.Errorf("pdfinfo of page 2, landscape, 5x7 in:\n%s", out)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"filePath": filepath.Join(dir, "x.pdf"), "pageRanges": "9"}, `Invalid pageRanges "9"`},
		{map[string]any{"filePath": filepath.Join(dir, "x.pdf"), "scale": 3}, `Invalid argument "scale" for tool "save_pdf": expected a number from 0.1 to 2, got 3.`},
		{map[string]any{"filePath": "/etc/x.pdf"}, "/etc/x.pdf"},
	} {
		tt.args["pageId"] = id
		got, isErr := transporttest.Call(t, cs, "save_pdf", tt.args)
		if !isErr || !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("save_pdf(%v) = %v %q, want one sentence with %q", tt.args, isErr, got, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.pdf")); !os.IsNotExist(err) {
		t.Errorf("a refused save_pdf left a file: %v", err)
	}
}
