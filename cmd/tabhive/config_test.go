package main

import (
	"flag"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"io"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

// flagCase is a row of flagCases: the arguments, and the configuration
// field they must reach with the value it must hold.
type flagCase struct {
	args []string
	got  func(*Config) any
	want any
}

// spelled is one flagCase per spelling in names: the flag ("-x" for a
// one-letter name) followed by value (if not empty).
func spelled(names []string, value string, got func(*Config) any, want any) []flagCase {
	var rows []flagCase
	for _, n := range names {
		args := []string{"--" + n}
		if len(n) == 1 {
			args[0] = "-" + n
		}
		if value != "" {
			args = append(args, value)
		}
		rows = append(rows, flagCase{args, got, want})
	}
	return rows
}

// flagCases sets each of tabhive's flags, in every spelling, and names the
// configuration field it must reach. TestConfigureEveryFlag checks that
// no flag is missing from it.
func flagCases() []flagCase {
	var rows []flagCase
	each := func(names []string, value string, got func(*Config) any, want any) {
		rows = append(rows, spelled(names, value, got, want)...)
	}
	q := func(n int) *int { return &n }

	each([]string{"headless"}, "", func(c *Config) any { return c.Browser.Headless }, true)
	each([]string{"isolated"}, "", func(c *Config) any { return c.Browser.Isolated }, true)
	each([]string{"executable-path", "executablePath", "e"}, "/opt/chrome", func(c *Config) any { return c.Browser.ExecutablePath }, "/opt/chrome")
	each([]string{"user-data-dir", "userDataDir"}, "/tmp/prof", func(c *Config) any { return c.Browser.UserDataDir }, "/tmp/prof")
	each([]string{"viewport"}, "800x600", func(c *Config) any { return c.Browser.Viewport }, "800x600")
	each([]string{"browser-url", "browserUrl", "u"}, "http://127.0.0.1:9222", func(c *Config) any { return c.Browser.BrowserURL }, "http://127.0.0.1:9222")
	each([]string{"ws-endpoint", "wsEndpoint", "w"}, "ws://127.0.0.1:9222/devtools/browser/x", func(c *Config) any { return c.Browser.WSEndpoint }, "ws://127.0.0.1:9222/devtools/browser/x")
	for _, n := range []string{"--ws-headers", "--wsHeaders"} {
		rows = append(rows, flagCase{[]string{"-w", "ws://127.0.0.1:9222/devtools/browser/x", n, `{"Authorization":"Bearer t0k","x-tenant":"a"}`},
			func(c *Config) any { return c.Browser.Headers }, http.Header{"Authorization": {"Bearer t0k"}, "X-Tenant": {"a"}}})
	}
	each([]string{"instance-id", "instanceId"}, "web-2", func(c *Config) any { return c.HTTP.InstanceID }, "web-2")
	each([]string{"drain-timeout", "drainTimeout"}, "5s", func(c *Config) any { return c.DrainTimeout }, 5*time.Second)
	each([]string{"drain-timeout"}, "0s", func(c *Config) any { return c.DrainTimeout }, time.Duration(0))
	rows = append(rows, flagCase{[]string{"--chrome-arg=--disable-features=A,B", "--chromeArg", "--mute-audio"},
		func(c *Config) any { return c.Browser.Args }, []string{"--disable-features=A,B", "--mute-audio"}})

	each([]string{"http"}, "0.0.0.0:8931", func(c *Config) any { return c.HTTPAddr }, "0.0.0.0:8931")
	each([]string{"http"}, ":8931", func(c *Config) any { return c.HTTPAddr }, "127.0.0.1:8931")
	each([]string{"allow-unauthenticated", "allowUnauthenticated"}, "", func(c *Config) any { return c.allowUnauthenticated }, true)
	each([]string{"allowed-hosts", "allowedHosts"}, "a.example, b.example:80", func(c *Config) any { return c.HTTP.AllowedHosts }, []string{"a.example", "b.example:80"})
	rows = append(rows, flagCase{[]string{"--allowed-hosts", "a.example", "--allowedHosts", "b.example"},
		func(c *Config) any { return c.HTTP.AllowedHosts }, []string{"a.example", "b.example"}})
	each([]string{"allowed-origins", "allowedOrigins"}, "http://app.example,https://x.example", func(c *Config) any { return c.HTTP.AllowedOrigins }, []string{"http://app.example", "https://x.example"})
	each([]string{"auth-token", "authToken"}, "s3cret", func(c *Config) any { return c.HTTP.Token }, "s3cret")
	each([]string{"auth-tokens-file", "authTokensFile"}, "testdata/tokens.txt", func(c *Config) any { return c.HTTP.Tokens }, []string{"alpha-token", "beta-token"})
	each([]string{"session-idle-timeout", "sessionIdleTimeout"}, "90s", func(c *Config) any { return c.HTTP.SessionTimeout }, 90*time.Second)
	each([]string{"max-sessions", "maxSessions"}, "5", func(c *Config) any { return c.HTTP.MaxSessions }, 5)
	sessions := func(c *Config) any { return c.HTTP.MaxSessions }
	rows = append(rows,
		flagCase{[]string{"--http", ":0"}, sessions, defaultHTTPMaxSessions},
		flagCase{[]string{"--http", ":0", "--max-sessions", "0"}, sessions, 0},
		flagCase{[]string{"--http", ":0", "--maxSessions", "7"}, sessions, 7})
	each([]string{"max-connections", "maxConnections"}, "40", func(c *Config) any { return c.HTTP.MaxConnections }, 40)
	each([]string{"max-reply-bytes", "maxReplyBytes"}, "65536", func(c *Config) any { return c.Server.MaxReplyBytes }, 65536)
	each([]string{"snapshot-max-bytes", "snapshotMaxBytes"}, "4096", func(c *Config) any { return c.Server.SnapshotMaxBytes }, 4096)
	each([]string{"snapshot-max-bytes"}, "0", func(c *Config) any { return c.Server.SnapshotMaxBytes }, -1)
	each([]string{"max-connections"}, "0", func(c *Config) any { return c.HTTP.MaxConnections }, 0)

	each([]string{"isolate-sessions", "isolateSessions"}, "", func(c *Config) any { return c.Server.IsolateSessions }, true)
	each([]string{"max-pages-per-session", "maxPagesPerSession"}, "3", func(c *Config) any { return c.Server.MaxPagesPerSession }, 3)
	each([]string{"trust-client-roots", "trustClientRoots"}, "", func(c *Config) any { return c.Server.TrustClientRoots }, true)
	each([]string{"allow-unrestricted-paths", "allowUnrestrictedPaths"}, "", func(c *Config) any { return c.Server.Unrestricted }, true)
	ws := os.TempDir()
	each([]string{"filesystem-root", "filesystemRoot", "workspace"}, ws, func(c *Config) any { return c.Server.Workspaces }, []string{ws})
	rows = append(rows, flagCase{[]string{"--workspace", ws, "--filesystem-root", "/"},
		func(c *Config) any { return c.Server.Workspaces }, []string{ws, "/"}})
	each([]string{"user-data-dir"}, "/tmp/prof", func(c *Config) any { return c.Server.ProfileDir }, "/tmp/prof")
	each([]string{"experimental-vision", "experimentalVision"}, "", func(c *Config) any { return c.Server.Input.ExperimentalVision }, true)
	each([]string{"memory-debugging", "memoryDebugging", "experimental-memory", "experimentalMemory"}, "", func(c *Config) any { return c.Server.MemoryDebugging }, true)
	each([]string{"heap-snapshot-memory-bytes", "heapSnapshotMemoryBytes"}, "1048576", func(c *Config) any { return c.Server.HeapSnapshotMemory }, int64(1<<20))
	each([]string{"redact-network-headers", "redactNetworkHeaders"}, "", func(c *Config) any { return c.Server.DevTools.RedactHeaders }, true)
	each([]string{"screenshot-format", "screenshotFormat"}, "webp", func(c *Config) any { return c.Server.Screenshot.Format }, "webp")
	each([]string{"screenshot-quality", "screenshotQuality"}, "0", func(c *Config) any { return c.Server.Screenshot.Quality }, q(0))
	each([]string{"screenshot-quality"}, "80", func(c *Config) any { return c.Server.Screenshot.Quality }, q(80))
	each([]string{"screenshot-max-width", "screenshotMaxWidth"}, "640", func(c *Config) any { return c.Server.Screenshot.MaxWidth }, 640)
	each([]string{"screenshot-max-height", "screenshotMaxHeight"}, "480", func(c *Config) any { return c.Server.Screenshot.MaxHeight }, 480)
	each([]string{"screencast-fps", "screencastFps", "experimental-screencast-fps", "experimentalScreencastFps"}, "12", func(c *Config) any { return c.Server.Screencast.FPS }, 12)
	each([]string{"experimental-screencast", "experimentalScreencast"}, "", func(c *Config) any { return c.Server.Screencast.Experimental }, true)
	each([]string{"experimental-ffmpeg-path", "experimentalFfmpegPath"}, "/opt/ffmpeg", func(c *Config) any { return c.Server.Screencast.FFmpeg }, "/opt/ffmpeg")
	each([]string{"screencast-max-duration", "screencastMaxDuration"}, "90s", func(c *Config) any { return c.Server.Screencast.MaxDuration }, 90*time.Second)
	each([]string{"screencast-max-bytes", "screencastMaxBytes"}, "64MB", func(c *Config) any { return c.Server.Screencast.MaxBytes }, int64(64<<20))
	each([]string{"max-session-disk", "maxSessionDisk"}, "10mb", func(c *Config) any { return c.Server.MaxSessionDisk }, int64(10<<20))
	each([]string{"max-session-disk"}, "0", func(c *Config) any { return c.Server.MaxSessionDisk }, int64(0))
	each([]string{"max-session-disk"}, "1500", func(c *Config) any { return c.Server.MaxSessionDisk }, int64(1500))

	pat := "https://*.example.com/*"
	each([]string{"allowed-url-pattern", "allowedUrlPattern"}, pat, func(c *Config) any { return c.URLPolicy.Allowed }, []string{pat})
	each([]string{"blocked-url-pattern", "blockedUrlPattern"}, pat, func(c *Config) any { return c.URLPolicy.Blocked }, []string{pat})
	rows = append(rows, flagCase{[]string{"--blocked-url-pattern", pat, "--blockedUrlPattern", "*://evil.test/*"},
		func(c *Config) any { return c.URLPolicy.Blocked }, []string{pat, "*://evil.test/*"}})
	js := func(c *Config) any { return c.URLPolicy.JavaScript }
	rows = append(rows,
		flagCase{[]string{"--javascript-evaluation=false"}, js, false},
		flagCase{[]string{"--javascriptEvaluation=false"}, js, false},
		flagCase{[]string{"--javascript-evaluation"}, js, true},
		flagCase{[]string{"--no-javascript-evaluation"}, js, false},
		flagCase{[]string{"--no-javascriptEvaluation"}, js, false})
	files := func(c *Config) any { return c.URLPolicy.FileNavigations }
	rows = append(rows,
		flagCase{[]string{"--http", ":0", "--file-navigations"}, files, true},
		flagCase{[]string{"--http", ":0", "--fileNavigations"}, files, true},
		flagCase{[]string{"--file-navigations=false"}, files, false},
		flagCase{[]string{"--no-file-navigations"}, files, false},
		flagCase{[]string{"--no-fileNavigations"}, files, false},
		flagCase{[]string{"--http", ":0"}, files, false})

	each([]string{"storage-state", "storageState"}, "testdata/state.json", func(c *Config) any {
		if st := c.Browser.StorageState; st != nil && len(st.Cookies) == 1 && len(st.Origins) == 1 {
			return st.Cookies[0].Name + " " + st.Origins[0].Origin
		}
		return c.Browser.StorageState
	}, "sid http://127.0.0.1:8931")
	each([]string{"log-level", "logLevel"}, "debug", func(c *Config) any { return c.LogLevel }, "debug")
	each([]string{"log-file", "logFile"}, "/tmp/tabhive.log", func(c *Config) any { return c.LogFile }, "/tmp/tabhive.log")
	each([]string{"version"}, "", func(c *Config) any { return c.ShowVersion }, true)
	each([]string{"pprof"}, "127.0.0.1:6060", func(c *Config) any { return c.pprofAddr }, "127.0.0.1:6060")
	rows = append(rows, compatFlagCases()...)
	return append(rows, defaultFlagCases()...)
}

// defaultFlagCases are the defaults, with no flag at all, as flagCases
// gives its rows.
func defaultFlagCases() []flagCase {
	js := func(c *Config) any { return c.URLPolicy.JavaScript }
	files := func(c *Config) any { return c.URLPolicy.FileNavigations }
	defaults := []struct {
		got  func(*Config) any
		want any
	}{
		{func(c *Config) any { return c.HTTPAddr }, ""},
		{func(c *Config) any { return c.pprofAddr }, ""}, // no profiler unless asked
		{func(c *Config) any { return c.LogLevel }, "info"},
		{func(c *Config) any { return c.HTTP.SessionTimeout }, 30 * time.Minute},
		{func(c *Config) any { return c.HTTP.MaxConnections }, defaultMaxConnections},
		{func(c *Config) any { return c.HTTP.MaxSessions }, 0},
		{func(c *Config) any { return c.DrainTimeout }, defaultDrainTimeout},
		{func(c *Config) any { return c.HTTP.InstanceID }, httpserve.DefaultInstanceID()},
		{func(c *Config) any { return c.Browser.Headers }, http.Header(nil)},
		{func(c *Config) any { return c.HTTP.Token }, ""},
		{func(c *Config) any { return c.Server.MaxPagesPerSession }, 0},
		{func(c *Config) any { return c.Server.IsolateSessions }, false},
		{func(c *Config) any { return c.Server.TrustClientRoots }, false},
		{func(c *Config) any { return c.Server.Screenshot.Quality }, (*int)(nil)},
		{func(c *Config) any { return c.Server.Version }, version},
		{func(c *Config) any { return c.Server.MemoryDebugging }, false},
		{func(c *Config) any { return c.Server.HeapSnapshotMemory }, int64(transport.DefaultHeapSnapshotMemory)},
		{func(c *Config) any { return c.Browser.Args }, []string(nil)},
		{files, true}, // over stdio
		{func(c *Config) any { return c.Server.MaxReplyBytes }, transport.DefaultMaxReplyBytes},
		{func(c *Config) any { return c.Server.SnapshotMaxBytes }, transport.DefaultSnapshotMaxBytes},
		{js, true},
		{func(c *Config) any { return c.Server.Policy != nil && c.Server.Policy == c.Browser.Policy }, true},
	}
	rows := make([]flagCase, len(defaults))
	for i, d := range defaults {
		rows[i].got, rows[i].want = d.got, d.want
	}
	return rows
}

func TestConfigureEveryFlag(t *testing.T) {
	t.Setenv("TABHIVE_AUTH_TOKEN", "") // the default of --auth-token
	used := map[string]bool{}
	for _, tt := range flagCases() {
		c, err := configure(tt.args, io.Discard)
		if err != nil {
			t.Errorf("configure(%q) = %v", tt.args, err)
			continue
		}
		if got := tt.got(c); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("configure(%q): got %#v, want %#v", tt.args, deref(got), deref(tt.want))
		}
		for _, a := range tt.args {
			if name, ok := flagName(a); ok {
				used[name] = true
			}
		}
	}
	fs, _ := newFlagSet(&Config{}, io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		if !used[f.Name] && !negationOf(fs, f) {
			t.Errorf("flag -%s is not covered by flagCases", f.Name)
		}
	})
}

// negationOf reports whether f is the --no- form of another boolean flag
// (TestNegations covers them all).
func negationOf(fs *flag.FlagSet, f *flag.Flag) bool {
	name, ok := strings.CutPrefix(f.Name, "no-")
	return ok && fs.Lookup(name) != nil && strings.HasPrefix(f.Usage, "same as --")
}

// deref shows the value behind a pointer in a failure message.
func deref(v any) any {
	if p, ok := v.(*int); ok && p != nil {
		return *p
	}
	return v
}

func TestConfigureAuthTokenFromEnvironment(t *testing.T) {
	t.Setenv("TABHIVE_AUTH_TOKEN", "from-env")
	c, err := configure(nil, io.Discard)
	if err != nil || c.HTTP.Token != "from-env" {
		t.Fatalf("configure() with $TABHIVE_AUTH_TOKEN: token %q, %v; want %q", c.HTTP.Token, err, "from-env")
	}
	c, err = configure([]string{"--auth-token", "flag"}, io.Discard)
	if err != nil || c.HTTP.Token != "flag" {
		t.Fatalf("--auth-token over $TABHIVE_AUTH_TOKEN: token %q, %v; want %q", c.HTTP.Token, err, "flag")
	}
}

// TestConfigureSharesMetrics: the page hooks the supervisor gets count into
// the metrics the server serves at /metrics (they once were two Metrics,
// and /metrics' page counters stayed 0).
func TestConfigureSharesMetrics(t *testing.T) {
	c, err := configure(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Server.Metrics
	if m == nil {
		t.Fatal("configure left Server.Metrics nil: the server would keep metrics of its own")
	}
	h := c.Browser.PageHooks
	h.EvaluateDone(time.Second, true)
	h.ScriptTerminated()
	h.DialogOpened()
	h.StaleDropped()
	for _, name := range []string{"tabhive_evaluate_timeouts_total", "tabhive_evaluate_terminations_total", "tabhive_dialogs_total", "tabhive_stale_calls_dropped_total", "tabhive_evaluate_duration_seconds"} {
		if got := m.Counter(name); got != 1 {
			t.Errorf("%s = %v after one page hook call, want 1", name, got)
		}
	}
}

func TestConfigureRefusals(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--browser-url", "http://x", "--ws-endpoint", "ws://y"}, "give either --browser-url or --ws-endpoint, not both"},
		{[]string{"--browser-url", "http://x", "--isolated"}, "--executable-path, --user-data-dir and --isolated are for launching; drop them when connecting with --browser-url or --ws-endpoint"},
		{[]string{"-w", "ws://y", "-e", "/opt/chrome"}, "drop them when connecting"},
		{[]string{"--wsEndpoint", "ws://y", "--userDataDir", "/tmp/p"}, "drop them when connecting"},
		{[]string{"--screenshot-format", "gif"}, `--screenshot-format "gif": use png, jpeg or webp`},
		{[]string{"--screenshot-quality", "101"}, "--screenshot-quality 101: use 0 to 100"},
		{[]string{"--screenshot-max-width", "-1"}, "take a number of pixels, 0 for no limit"},
		{[]string{"--max-sessions", "-1"}, "--max-sessions -1: give a positive number, or 0 for no limit"},
		{[]string{"--maxPagesPerSession", "-2"}, "--max-pages-per-session -2: give a positive number, or 0 for no limit"},
		{[]string{"--max-connections", "-5"}, "--max-connections -5: give a positive number, or 0 for no limit"},
		{[]string{"--session-idle-timeout", "0s"}, "--session-idle-timeout 0s: give a positive duration such as 30m"},
		{[]string{"--log-level", "loud"}, `--log-level "loud": use debug, info, warn or error`},
		{[]string{"--log-level", ""}, `--log-level "": use debug, info, warn or error`},
		{[]string{"--http", "8931"}, `--http wants HOST:PORT or :PORT, got "8931"`},
		{[]string{"--screencast-fps", "0"}, `--screencast-fps "0": give a whole number above 0, such as 10`},
		{[]string{"--screencastFps", "fast"}, `--screencastFps "fast": give a whole number above 0`},
		{[]string{"--max-session-disk", "-1"}, `give a number of bytes, such as 1073741824, or one with a unit: 512MB, 1GB, 10KiB`},
		{[]string{"--maxSessionDisk", "1TB"}, `give a number of bytes`},
		{[]string{"--screencast-max-bytes", "1MB"}, `give at least 8 MiB, or 0 for no bound`},
		{[]string{"--screencast-max-duration", "-1s"}, `give a duration such as 10m or 90s, or 0 for no bound`},
		{[]string{"stray"}, `unexpected argument "stray": flags start with --, see tabhive --help`},
		{[]string{"--headless", "stray"}, `unexpected argument "stray" after --headless: a switch takes true or false`},
		{[]string{"--nope"}, "unknown flag --nope: see tabhive --help for the flags"},
		{[]string{"--max-sessions", "many"}, `--max-sessions "many": give a whole number`},
		{[]string{"--allowed-url-pattern", "https://a.test/*", "--blocked-url-pattern", "https://b.test/*"}, "--allowed-url-pattern and --blocked-url-pattern cannot be used together"},
		{[]string{"--blocked-url-pattern", "https://a.test/*#frag"}, "--blocked-url-pattern: "},
		{[]string{"--allowed-url-pattern", "localhost:9222"}, "--allowed-url-pattern: "},
		{[]string{"--max-reply-bytes", "-1"}, "--max-reply-bytes -1: give at least 1024"},
		{[]string{"--max-reply-bytes", "0"}, "a reply is never unbounded"},
		{[]string{"--max-reply-bytes", "100"}, "--max-reply-bytes 100: give at least 1024"},
		{[]string{"--snapshot-max-bytes", "-1"}, "--snapshot-max-bytes -1: give a number of bytes, or 0"},
		{[]string{"--heap-snapshot-memory-bytes", "0"}, "--heap-snapshot-memory-bytes 0: give a number of bytes"},
		{[]string{"--workspace", "/no/such/dir"}, "--workspace: workspace /no/such/dir does not exist"},
		{[]string{"--filesystem-root", "/etc/hostname"}, "--workspace: workspace /etc/hostname"},
		{[]string{"--storage-state", "/no/such/state.json"}, "--storage-state: open /no/such/state.json"},
		{[]string{"--storage-state", "main.go"}, "--storage-state: main.go is not a storage state file: it is not a JSON object"},
		{[]string{"--storage-state", "testdata/notstate.json"}, `is not a storage state file: it has neither "cookies" nor "origins"`},
		{[]string{"--ws-headers", `{"a":"b"}`}, "--ws-headers is sent when connecting to a browser: give --ws-endpoint"},
		{[]string{"-w", "ws://y", "--ws-headers", `Authorization: x`}, `--ws-headers "Authorization: x": give a JSON object`},
		{[]string{"-w", "ws://y", "--wsHeaders", `{"a":1}`}, `give a JSON object`},
		{[]string{"-w", "ws://y", "--ws-headers", `null`}, `give a JSON object`},
		{[]string{"-w", "ws://y", "--ws-headers", `{"bad name":"v"}`}, `is not a valid HTTP header`},
		{[]string{"-w", "ws://y", "--ws-headers", `{"X":"a\r\nB: c"}`}, `is not a valid HTTP header`},
		{[]string{"--instance-id", "web.1"}, `--instance-id "web.1": use 1 to 63 letters, digits`},
		{[]string{"--instance-id", "-x"}, `--instance-id "-x"`},
		{[]string{"--drain-timeout", "soon"}, `--drain-timeout "soon": give a duration such as 30s or 5m`},
		{[]string{"--viewport", "12x"}, `--viewport "12x": give the page's size in pixels as WIDTHxHEIGHT, each from 1 to 10000`},
		{[]string{"--viewport"}, "--viewport needs a value: give it as --viewport VALUE or --viewport=VALUE"},
		{[]string{"--headless", "--", "x"}, `unexpected argument "x": flags start with --`},
		{[]string{"--drain-timeout", "-1s"}, "--drain-timeout -1s: give a duration such as 30s, or 0"},
	}
	for _, tt := range tests {
		c, err := configure(tt.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("configure(%q) = %+v, %v; want error %q", tt.args, c, err, tt.want)
		}
	}
	if _, err := configure([]string{"-h"}, io.Discard); err != flag.ErrHelp {
		t.Errorf("configure(-h) = %v, want flag.ErrHelp", err)
	}
}

// TestFlagsTable: the flags table of docs/FLAGS.md names exactly the flags
// tabhive defines (kebab-case; the camelCase and compatibility spellings
// are said in prose), and the README's short table names only flags that
// exist.
func TestFlagsTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/FLAGS.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := tableFlags(t, string(doc), "## All flags")
	fs, _ := newFlagSet(&Config{}, io.Discard)
	var defined []string
	fs.VisitAll(func(f *flag.Flag) {
		camel := strings.ContainsFunc(f.Name, unicode.IsUpper)
		if !camel && !slices.Contains(compatFlags(), f.Name) && (!negationOf(fs, f) || slices.Contains(documented, f.Name)) {
			defined = append(defined, f.Name)
		}
	})
	for _, d := range documented {
		if fs.Lookup(d) == nil {
			t.Errorf("docs/FLAGS.md documents --%s, which tabhive does not have", d)
		}
	}
	for _, d := range defined {
		if !slices.Contains(documented, d) {
			t.Errorf("flag --%s is missing from docs/FLAGS.md's flags table", d)
		}
	}
	for _, c := range []string{"no-usage-statistics", "no-performance-crux", "experimentalPageIdRouting"} {
		if !strings.Contains(string(doc), "`--"+c+"`") {
			t.Errorf("docs/FLAGS.md does not say --%s is accepted", c)
		}
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tableFlags(t, string(readme), "## Flags at a glance") {
		if fs.Lookup(d) == nil {
			t.Errorf("README names --%s, which tabhive does not have", d)
		}
	}
}

// tableFlags returns the flags named in the first column of the table that
// follows heading in a Markdown text.
func tableFlags(t *testing.T, text, heading string) []string {
	t.Helper()
	_, table, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no %q section", heading)
	}
	table = strings.TrimLeft(table, "\n")
	table, _, _ = strings.Cut(table, "\n\n")
	var flags []string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `-") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`(--?[a-zA-Z-]+)").FindAllStringSubmatch(cell, -1) {
			flags = append(flags, strings.TrimLeft(m[1], "-"))
		}
	}
	if len(flags) == 0 {
		t.Fatalf("no flag in the table under %q", heading)
	}
	return flags
}
