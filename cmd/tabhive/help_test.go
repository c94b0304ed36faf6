package main

import (
	"bytes"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestHelpThroughBinary: --help (and -h) exits 0 and lists every option
// tabhive has, taken from its flag set, exactly once by its kebab-case
// name, its other names once on that line, each switch that is on by
// default saying how to turn it off, in groups of at most 40 lines.
func TestHelpThroughBinary(t *testing.T) {
	t.Parallel()
	var help string
	for _, arg := range []string{"--help", "-h"} {
		cmd := command(t, arg)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v, stderr %q", arg, err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("%s wrote on stderr: %q", arg, stderr.String())
		}
		if help != "" && stdout.String() != help {
			t.Errorf("%s printed another text than --help", arg)
		}
		help = stdout.String()
	}

	fs, _ := newFlagSet(&Config{}, io.Discard)
	options := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		name := canonical(f.Name)
		options[name] = true
		if strings.ContainsFunc(f.Name, unicode.IsUpper) || strings.HasPrefix(f.Name, "no-") || f.Name == name {
			return
		}
		// Another name of an option (-e, --workspace): once, on its line.
		alias := "--" + f.Name
		if len(f.Name) == 1 {
			alias = "-" + f.Name
		}
		re := regexp.MustCompile(`(?m)^  --` + name + `\b.*, ` + alias + `\b`)
		if n := len(re.FindAllString(help, -1)); n != 1 {
			t.Errorf("%s is on --%s's line %d times, want once", alias, name, n)
		}
	})
	for name := range options {
		re := regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(name) + `( |,|$).*`)
		lines := re.FindAllString(help, -1)
		if len(lines) != 1 {
			t.Errorf("--%s is listed %d times, want once", name, len(lines))
			continue
		}
		f := fs.Lookup(name)
		on := strings.Contains(lines[0]+entryRest(help, lines[0]), "default: on; --no-"+name+" turns it off")
		if isBoolFlag(f) && f.DefValue == "true" && !on {
			t.Errorf("--%s is on by default and its help does not say how to turn it off:\n%s", name, lines[0])
		}
		if on && f.DefValue != "true" {
			t.Errorf("--%s is off by default and its help says it is on", name)
		}
	}
	for _, l := range strings.Split(help, "\n") {
		if strings.HasPrefix(l, "  --") && strings.ContainsFunc(strings.Fields(l)[0], unicode.IsUpper) {
			t.Errorf("a camelCase name is listed: %q", l)
		}
		if len(l) > helpWidth {
			t.Errorf("line wider than %d: %q", helpWidth, l)
		}
	}
	groups := 0
	for _, block := range strings.Split(help, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if !strings.HasSuffix(lines[0], ":") || !strings.HasPrefix(lines[1], "  ") {
			continue
		}
		groups++
		if len(lines) > 40 {
			t.Errorf("group %s has %d lines, more than a screen of 40", lines[0], len(lines))
		}
	}
	if groups < 8 {
		t.Errorf("--help has %d groups, want at least 8", groups)
	}
}

// entryRest returns the continuation lines of the entry whose first line
// is first.
func entryRest(help, first string) string {
	_, rest, _ := strings.Cut(help, first+"\n")
	var b strings.Builder
	for _, l := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		b.WriteString(" " + strings.TrimSpace(l))
	}
	return b.String()
}
