package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// bigPage is a page whose snapshot is about 400 KB: 40 sections of 150
// paragraphs, each under its heading.
func bigPage() string {
	var b strings.Builder
	b.WriteString("<main>")
	for s := range 40 {
		fmt.Fprintf(&b, "<h2>Section %d</h2>", s)
		for p := range 150 {
			fmt.Fprintf(&b, "<p>Paragraph %d of section %d, with a little text.</p>", p, s)
		}
	}
	b.WriteString("</main>")
	return b.String()
}

// TestSnapshotMaxBytesThroughBinary: with --snapshot-max-bytes, a snapshot
// over the bound is saved to a file and the reply is its outline, which
// names the parameters that narrow it; with 0, the whole snapshot comes
// back, however large; by default, the 256 KB bound holds.
func TestSnapshotMaxBytesThroughBinary(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Big", bigPage()))
	for _, tt := range []struct {
		flags   []string
		outline bool
	}{
		{[]string{"--snapshot-max-bytes", "4096"}, true},
		{nil, true},
		{[]string{"--snapshot-max-bytes", "0"}, false},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tt.flags...), " "), func(t *testing.T) {
			t.Parallel()
			in := startHTTP(t, tt.flags...)
			cs := in.Client(nil)
			text(t, cs, "navigate_page", map[string]any{"url": srv.URL + "/"})
			got := text(t, cs, "take_snapshot", nil)
			if !tt.outline {
				if len(got) < 300<<10 || !strings.Contains(got, `"Paragraph 149 of section 39, with a little text."`) {
					t.Errorf("take_snapshot with no bound gave %d bytes, want the whole snapshot", len(got))
				}
				return
			}
			if len(got) > 16<<10 {
				t.Errorf("outline reply is %d bytes, over 16 KB", len(got))
			}
			for _, want := range []string{"over the ", "take_snapshot's uid", "query", `heading "Section 39" level="2"`} {
				if !strings.Contains(got, want) {
					t.Errorf("outline reply lacks %q:\n%s", want, got)
				}
			}
			m := regexp.MustCompile(`saved to (\S+\.txt)\.`).FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("outline reply names no file:\n%s", got)
			}
			data, err := os.ReadFile(m[1])
			if err != nil {
				t.Fatalf("snapshot file: %v", err)
			}
			if !strings.Contains(string(data), `"Paragraph 149 of section 39, with a little text."`) {
				t.Errorf("snapshot file %s (%d bytes) lacks the page's last paragraph", m[1], len(data))
			}
		})
	}
}
