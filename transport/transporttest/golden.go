package transporttest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// update rewrites the golden replies with what the tests get:
//
//	go test ./page/devtools -run TestDebugConsoleTools -update
//
// Review the diff before committing it: it is the change in what agents
// read. It is a flag of every test binary that imports this package.
var update = flag.Bool("update", false, "rewrite the golden replies under testdata/replies with the replies the tests get")

// goldenMu serialises reading and rewriting golden files: tests that run in
// parallel share them.
var goldenMu sync.Mutex

// goldenDir, in the directory of the package under test, holds one file
// per family of replies, each in txtar form: a comment, then sections that
// each start with a line "-- name --".
const goldenDir = "testdata/replies"

// CheckGolden compares a whole reply with section name of the golden file
// of its family (testdata/replies/<family>.txtar of the package under
// test); with -update it writes the reply there instead. vars are pairs of a value that differs from run
// to run (the test site's URL, a temp path) and the name that stands for it
// in the file, such as "$SITE"; each value is replaced whole, in the order
// given, so the comparison is as strict as one with the value spelled out.
func CheckGolden(t testing.TB, family, name, got string, vars ...string) {
	t.Helper()
	if len(vars)%2 != 0 {
		t.Fatalf("CheckGolden(%s, %s): vars must come in pairs", family, name)
	}
	for i := 0; i < len(vars); i += 2 {
		got = strings.ReplaceAll(got, vars[i], vars[i+1])
	}
	path := filepath.Join(goldenDir, family+".txtar")
	goldenMu.Lock()
	defer goldenMu.Unlock()
	comment, sections, err := readGolden(path)
	if err != nil && !(*update && os.IsNotExist(err)) {
		t.Fatalf("golden file: %v", err)
	}
	if *update {
		sections = setSection(sections, name, got)
		if err := os.WriteFile(path, formatGolden(comment, sections), 0o644); err != nil {
			t.Fatalf("update golden file: %v", err)
		}
		return
	}
	for _, s := range sections {
		if s.name == name {
			if got != s.text {
				t.Errorf("%s: reply differs from %s, section %q:\n%s\nwant:\n%s\n(if the change is meant, rewrite the file with -update and review its diff)", name, path, name, got, s.text)
			}
			return
		}
	}
	t.Errorf("%s: no section %q in %s; the reply was:\n%s\n(run the test with -update to record it)", name, name, path, got)
}

// goldenSection is one reply of a golden file.
type goldenSection struct{ name, text string }

// readGolden parses a golden file. A section's text is what lies between
// its header line and the next, less the one newline that ends it.
func readGolden(path string) (comment string, sections []goldenSection, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	var cur *goldenSection
	var b strings.Builder
	flush := func() {
		text := strings.TrimSuffix(b.String(), "\n")
		if cur == nil {
			comment = text
		} else {
			cur.text = text
			sections = append(sections, *cur)
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if name, ok := goldenHeader(line); ok {
			flush()
			cur = &goldenSection{name: name}
			continue
		}
		b.WriteString(line)
	}
	flush()
	return comment, sections, nil
}

// goldenHeader returns the name in a section header line, "-- name --".
func goldenHeader(line string) (string, bool) {
	line = strings.TrimSuffix(line, "\n")
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 6 {
		return "", false
	}
	return line[3 : len(line)-3], true
}

// setSection replaces the text of the section name, or appends one.
func setSection(sections []goldenSection, name, text string) []goldenSection {
	for i := range sections {
		if sections[i].name == name {
			sections[i].text = text
			return sections
		}
	}
	return append(sections, goldenSection{name, text})
}

// formatGolden is the inverse of readGolden.
func formatGolden(comment string, sections []goldenSection) []byte {
	var b bytes.Buffer
	if comment != "" {
		b.WriteString(comment + "\n")
	}
	for _, s := range sections {
		fmt.Fprintf(&b, "-- %s --\n%s\n", s.name, s.text)
	}
	return b.Bytes()
}
