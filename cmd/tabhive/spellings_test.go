package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/transport/transporttest"
)

// parseMode is the test binary's parse-only command (TABHIVE_TEST_PARSE=1):
// for each line of stdin, a JSON array of arguments, it runs tabhive's
// configure as the command does and writes one JSON line: the parsed
// configuration (configDump) or the error. One process parses hundreds of
// command lines, where a start each would take minutes.
func parseMode(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var args []string
		if err := json.Unmarshal(sc.Bytes(), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		var r parsed
		if c, err := configure(args, io.Discard); err != nil {
			r.Err = err.Error()
		} else {
			r.Config = configDump(c)
		}
		enc.Encode(r)
	}
	return 0
}

// parsed is one of parseMode's answers.
type parsed struct {
	Config string `json:"config,omitempty"`
	Err    string `json:"err,omitempty"`
}

// configDump shows every part of the configuration a chrome-devtools-mcp
// flag reaches.
func configDump(c *Config) string {
	b, s, x := &c.Browser, &c.Server, &c.compat
	quality := "unset"
	if q := s.Screenshot.Quality; q != nil {
		quality = fmt.Sprint(*q)
	}
	return fmt.Sprintf("%+v", []any{
		"headless", b.Headless, "isolated", b.Isolated, "exe", b.ExecutablePath, "profile", b.UserDataDir,
		"viewport", b.Viewport, "args", b.Args, "url", b.BrowserURL, "ws", b.WSEndpoint, "headers", b.Headers,
		"channel", b.Channel, "auto", b.AutoConnect, "insecure", b.AcceptInsecureCerts, "ignore", b.IgnoreDefaultArgs,
		"allpages", b.IncludeAllPages, "surface", s.Surface, "vision", s.Input.ExperimentalVision, "memory", s.MemoryDebugging,
		"shot", s.Screenshot.Format, quality, s.Screenshot.MaxWidth, s.Screenshot.MaxHeight,
		"cast", s.Screencast.FPS, s.Screencast.Experimental, s.Screencast.FFmpeg,
		"roots", s.Workspaces, "unrestricted", s.Unrestricted, "redact", s.DevTools.RedactHeaders,
		"allowed", c.URLPolicy.Allowed, "blocked", c.URLPolicy.Blocked, "js", c.URLPolicy.JavaScript,
		"files", c.URLPolicy.FileNavigations, "log", c.LogFile, "version", c.ShowVersion,
		"maps", x.sourceMaps, x.devtools, x.performanceCrux, x.usageStatistics, "warnings", c.Warnings,
	})
}

// cdmFlag is one of chrome-devtools-mcp 1.11's flags (its --help):
// its names, kebab-case first, its kind, values to give it, and flags it
// needs beside it.
type cdmFlag struct {
	names  []string
	kind   string // "bool", "string" or "array"
	values []string
	needs  []string
}

// upstreamFlags are every flag of chrome-devtools-mcp 1.11's --help.
func cdmFlags(t *testing.T) []cdmFlag {
	dir1, dir2 := t.TempDir(), t.TempDir()
	ws := []string{"-w", "ws://127.0.0.1:9/devtools/browser/x"}
	f := []cdmFlag{
		{names: []string{"auto-connect"}, kind: "bool"},
		{names: []string{"browser-url", "u"}, kind: "string", values: []string{"http://127.0.0.1:9222"}},
		{names: []string{"ws-endpoint", "w"}, kind: "string", values: []string{"ws://127.0.0.1:9222/devtools/browser/x"}},
		{names: []string{"ws-headers"}, kind: "string", values: []string{`{"Authorization":"Bearer t"}`}, needs: ws},
		{names: []string{"headless"}, kind: "bool"},
		{names: []string{"executable-path", "e"}, kind: "string", values: []string{"/opt/chrome/chrome"}},
		{names: []string{"isolated"}, kind: "bool"},
		{names: []string{"user-data-dir"}, kind: "string", values: []string{dir1}},
		{names: []string{"channel"}, kind: "string", values: []string{"beta"}},
		{names: []string{"proxy-server"}, kind: "string", values: []string{"http://127.0.0.1:3128"}},
		{names: []string{"chrome-arg"}, kind: "array", values: []string{"--mute-audio", "--lang=fr"}},
		{names: []string{"ignore-default-chrome-arg"}, kind: "array", values: []string{"--disable-sync", "--disable-quic"}},
		{names: []string{"viewport"}, kind: "string", values: []string{"1024x700"}},
		{names: []string{"accept-insecure-certs"}, kind: "bool"},
		{names: []string{"blocked-url-pattern"}, kind: "array", values: []string{"https://a.test/*", "https://b.test/*"}},
		{names: []string{"allowed-url-pattern"}, kind: "array", values: []string{"https://a.test/*", "https://b.test/*"}},
		{names: []string{"screenshot-format"}, kind: "string", values: []string{"webp"}},
		{names: []string{"screenshot-quality"}, kind: "string", values: []string{"50"}},
		{names: []string{"screenshot-max-width"}, kind: "string", values: []string{"640"}},
		{names: []string{"screenshot-max-height"}, kind: "string", values: []string{"480"}},
		{names: []string{"log-file"}, kind: "string", values: []string{filepath.Join(dir1, "log")}},
		{names: []string{"page-id-routing"}, kind: "bool"},
		{names: []string{"experimental-devtools"}, kind: "bool"},
		{names: []string{"experimental-vision"}, kind: "bool"},
		{names: []string{"memory-debugging", "experimental-memory"}, kind: "bool"},
		{names: []string{"experimental-structured-content"}, kind: "bool"},
		{names: []string{"experimental-include-all-pages"}, kind: "bool"},
		{names: []string{"experimental-screencast"}, kind: "bool"},
		{names: []string{"experimental-ffmpeg-path"}, kind: "string", values: []string{"/opt/ffmpeg"}},
		{names: []string{"screencast-fps", "experimental-screencast-fps"}, kind: "string", values: []string{"12"}},
		{names: []string{"performance-crux"}, kind: "bool"},
		{names: []string{"usage-statistics"}, kind: "bool"},
		{names: []string{"javascript-evaluation"}, kind: "bool"},
		{names: []string{"file-navigations"}, kind: "bool"},
		{names: []string{"source-maps"}, kind: "bool"},
		{names: []string{"slim"}, kind: "bool"},
		{names: []string{"redact-network-headers"}, kind: "bool"},
		{names: []string{"allow-unrestricted-paths"}, kind: "bool"},
		{names: []string{"filesystem-root", "workspace"}, kind: "array", values: []string{dir1, dir2}},
		{names: []string{"config"}, kind: "string", values: []string{filepath.Join("testdata", "config-slim.json")}},
		{names: []string{"version"}, kind: "bool"},
	}
	for _, c := range sortedCategories() {
		f = append(f, cdmFlag{names: []string{"category-" + kebabCase(c)}, kind: "bool"})
	}
	return f
}

// spellings returns every name a flag answers to in chrome-devtools-mcp:
// kebab-case and camelCase, and its short and other names, each as
// written on a command line.
func spellings(names []string) []string {
	var out []string
	for _, n := range names {
		if len(n) == 1 {
			out = append(out, "-"+n)
			continue
		}
		out = append(out, "--"+n)
		if c := camelCase(n); c != n {
			out = append(out, "--"+c)
		}
	}
	return out
}

// spellingCase is one command line and the canonical one it must parse
// like.
type spellingCase struct {
	args, like []string
}

func spellingCases(t *testing.T) []spellingCase {
	var cases []spellingCase
	add := func(needs, args, like []string) {
		cases = append(cases, spellingCase{append(slices.Clone(needs), args...), append(slices.Clone(needs), like...)})
	}
	for _, f := range cdmFlags(t) {
		canon := "--" + f.names[0]
		for _, sp := range spellings(f.names) {
			switch f.kind {
			case "bool":
				on, off := []string{canon + "=true"}, []string{canon + "=false"}
				add(f.needs, []string{sp}, on)
				add(f.needs, []string{sp + "=true"}, on)
				add(f.needs, []string{sp, "true"}, on)
				add(f.needs, []string{sp + "=false"}, off)
				add(f.needs, []string{sp, "false"}, off)
				if !strings.HasPrefix(sp, "--") {
					continue
				}
				add(f.needs, []string{"--no-" + sp[2:]}, off)
				// yargs reads the word after a switch as its value only
				// when it is true or false: before another flag, the
				// switch is on.
				add(f.needs, []string{sp, "--log-level=warn"}, []string{canon + "=true", "--log-level=warn"})
			case "string":
				v := f.values[0]
				add(f.needs, []string{sp, v}, []string{canon + "=" + v})
				add(f.needs, []string{sp + "=" + v}, []string{canon + "=" + v})
			case "array":
				v1, v2 := f.values[0], f.values[1]
				both := []string{canon + "=" + v1, canon + "=" + v2}
				add(f.needs, []string{sp, v1}, []string{canon + "=" + v1})
				add(f.needs, []string{sp + "=" + v1}, []string{canon + "=" + v1})
				add(f.needs, []string{sp + "=" + v1, sp + "=" + v2}, both)
				add(f.needs, []string{sp, v1, sp, v2}, both)
				if !strings.HasPrefix(v2, "-") {
					// yargs' arrays take the words that follow, up to
					// the next flag.
					add(f.needs, []string{sp, v1, v2}, both)
					add(f.needs, []string{sp + "=" + v1, v2, "--headless"}, append(both, "--headless"))
				}
			}
		}
	}
	return cases
}

// parseThroughBinary parses each command line with the test binary's
// parse-only mode, in one process.
func parseThroughBinary(t *testing.T, lines [][]string) []parsed {
	t.Helper()
	var in bytes.Buffer
	for _, l := range lines {
		b, _ := json.Marshal(l)
		in.Write(append(b, '\n'))
	}
	cmd := binary(t)
	cmd.Env = append(cmd.Env, "TABHIVE_TEST_PARSE=1", "TABHIVE_AUTH_TOKEN=")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("parse-only binary: %v", err)
	}
	var res []parsed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p parsed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		res = append(res, p)
	}
	if len(res) != len(lines) {
		t.Fatalf("parse-only binary answered %d lines for %d", len(res), len(lines))
	}
	return res
}

// TestEverySpellingThroughBinary: every flag of chrome-devtools-mcp 1.11,
// in every spelling its parser (yargs) accepts, gives tabhive the
// configuration its canonical spelling gives, and that configuration is
// not the default one. The test binary parses them all in one process;
// TestSpellingsStartThroughBinary starts the server with some.
func TestEverySpellingThroughBinary(t *testing.T) {
	t.Parallel()
	cases := spellingCases(t)
	flags := cdmFlags(t)
	lines := [][]string{nil}
	for _, c := range cases {
		lines = append(lines, c.args, c.like)
	}
	// Each flag's canonical spellings must change the configuration: a
	// flag whose values all parsed to the default would pass idly.
	changes := map[int][][]string{}
	for i, f := range flags {
		canon := "--" + f.names[0]
		changes[i] = [][]string{f.needs}
		if f.kind == "bool" {
			changes[i] = append(changes[i], append(slices.Clone(f.needs), canon+"=true"), append(slices.Clone(f.needs), canon+"=false"))
		} else {
			changes[i] = append(changes[i], append(slices.Clone(f.needs), canon+"="+f.values[0]))
		}
		lines = append(lines, changes[i]...)
	}
	start := time.Now()
	res := parseThroughBinary(t, lines)
	t.Logf("%d command lines parsed in %v", len(lines), time.Since(start))
	if res[0].Err != "" {
		t.Fatalf("no flags: %s", res[0].Err)
	}
	for i, c := range cases {
		got, like := res[1+2*i], res[2+2*i]
		switch {
		case like.Err != "":
			t.Errorf("%q: %s", c.like, like.Err)
		case got.Err != "":
			t.Errorf("%q: %s (%q parses)", c.args, got.Err, c.like)
		case got.Config != like.Config:
			t.Errorf("%q parses unlike %q:\n got  %s\n want %s", c.args, c.like, got.Config, like.Config)
		}
	}
	next := 1 + 2*len(cases)
	for i, f := range flags {
		rs := res[next : next+len(changes[i])]
		next += len(changes[i])
		changed := false
		for _, r := range rs[1:] {
			changed = changed || (r.Err == "" && r.Config != rs[0].Config)
		}
		if !changed {
			t.Errorf("--%s: no value changes the configuration %q gives: %+v", f.names[0], f.needs, rs)
		}
	}
}

// TestSpellingsStartThroughBinary: the server starts over stdio with
// chrome-devtools-mcp's spellings of each kind of flag and lists the tools
// they ask for; a word that is neither a flag nor true or false after a
// switch stops it with one sentence on stderr, which is all an MCP client
// logs of a server that did not start.
func TestSpellingsStartThroughBinary(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args      []string
		has, lack string
	}{
		{[]string{"--category-performance", "false"}, "navigate_page", "performance_start_trace"},
		{[]string{"--categoryPerformance=false"}, "navigate_page", "performance_start_trace"},
		{[]string{"--no-categoryPerformance"}, "navigate_page", "performance_start_trace"},
		{[]string{"--category-performance", "true", "--experimentalVision", "true"}, "performance_start_trace", ""},
		{[]string{"--experimental-vision", "--slim", "false"}, "click_at", ""},
		{[]string{"--slim", "true", "--chromeArg", "--mute-audio", "--workspace", os.TempDir(), "/"}, "navigate", "navigate_page"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			cs := transporttest.Dial(t, &mcp.CommandTransport{Command: command(t, tt.args...), TerminateDuration: exitWait})
			names := transporttest.ToolNames(t, cs)
			if !slices.Contains(names, tt.has) || (tt.lack != "" && slices.Contains(names, tt.lack)) {
				t.Errorf("tools = %v; want %s and not %q", names, tt.has, tt.lack)
			}
		})
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--headless", "yes"}, `tabhive: unexpected argument "yes" after --headless: a switch takes true or false (--headless=false, or --headless false), or nothing for true`},
		{[]string{"--category-performance=maybe"}, `tabhive: --category-performance "maybe": give true or false (--category-performance=false), or leave the value out for true`},
		{[]string{"--no-such-flag"}, "tabhive: unknown flag --no-such-flag: see tabhive --help for the flags"},
		{[]string{"--screenshot-quality", "high"}, `tabhive: --screenshot-quality "high": give a whole number`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			refused(t, tt.want, tt.args...)
		})
	}
}

// refused starts the command with args and checks that it exits with
// status 2 at once, saying want and nothing else on stderr.
func refused(t *testing.T, want string, args ...string) {
	t.Helper()
	cmd := command(t, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader("") // a server that started would wait on it
	start := time.Now()
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("%q: exit %v, want status 2", args, err)
	}
	if got := strings.TrimSpace(stderr.String()); got != want {
		t.Errorf("%q: stderr\n%s\nwant\n%s", args, got, want)
	}
	if took := time.Since(start); took > exitWait {
		t.Errorf("%q: took %v to refuse", args, took)
	}
}
