package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser"
)

// compatFlagCases are flagCases' rows for chrome-devtools-mcp's flags of
// compat.go, every spelling.
func compatFlagCases() []flagCase {
	var rows []flagCase
	spellings := func(dashed string) []string { return []string{dashed, camelCase(dashed)} }
	each := func(dashed string, value string, got func(*Config) any, want any) {
		rows = append(rows, spelled(spellings(dashed), value, got, want)...)
	}
	cat := func(name string) func(*Config) any {
		return func(c *Config) any { return c.Server.Surface.Category(name) }
	}

	each("slim", "", func(c *Config) any { return c.Server.Surface.Slim }, true)
	each("page-id-routing", "", func(c *Config) any { return c.Server.Surface.PageIDRouting }, true)
	each("experimental-structured-content", "", func(c *Config) any { return c.Server.Surface.StructuredContent }, true)
	for _, tt := range []struct {
		dashed, name string
		def          bool
	}{
		{"category-input", "input", true}, {"category-navigation", "navigation", true},
		{"category-emulation", "emulation", true}, {"category-performance", "performance", true},
		{"category-network", "network", true}, {"category-debugging", "debugging", true},
		{"category-memory", "memory", true}, {"category-extensions", "extensions", false},
		{"category-pwa", "pwa", false}, {"category-experimental-webmcp", "experimentalWebmcp", false},
		{"category-experimental-third-party", "experimentalThirdParty", false},
	} {
		for _, n := range spellings(tt.dashed) {
			rows = append(rows,
				flagCase{[]string{"--" + n + "=" + boolText(!tt.def)}, cat(tt.name), !tt.def},
				flagCase{[]string{"--" + n}, cat(tt.name), true},
				flagCase{[]string{"--no-" + n}, cat(tt.name), false},
				flagCase{nil, cat(tt.name), tt.def})
		}
	}
	each("category-extensions", "", func(c *Config) any { return c.Browser.ExtensionWorkers }, true)
	rows = append(rows, flagCase{[]string{"--category-experimental-webmcp"}, func(c *Config) any { return c.Browser.Args }, []string{"--enable-features=WebMCP"}},
		flagCase{[]string{"--category-experimental-webmcp", "--chrome-arg=--enable-features=A,B"}, func(c *Config) any { return c.Browser.Args }, []string{"--enable-features=A,B,WebMCP"}})

	each("channel", "beta", func(c *Config) any { return c.Browser.Channel }, "beta")
	rows = append(rows, flagCase{[]string{"--channel", "dev"}, func(c *Config) any { return c.Browser.UserDataDir },
		filepath.Join(filepath.Dir(browser.DefaultProfile()), "chrome-profile-dev")})
	each("proxy-server", "http://127.0.0.1:3128", func(c *Config) any { return c.Browser.Args }, []string{"--proxy-server=http://127.0.0.1:3128"})
	each("accept-insecure-certs", "", func(c *Config) any { return c.Browser.AcceptInsecureCerts }, true)
	each("ignore-default-chrome-arg", "--disable-sync", func(c *Config) any { return c.Browser.IgnoreDefaultArgs }, []string{"--disable-sync"})
	each("auto-connect", "", func(c *Config) any { return c.Browser.AutoConnect }, true)
	each("experimental-include-all-pages", "", func(c *Config) any { return c.Browser.IncludeAllPages }, true)

	warns := func(c *Config) any { return len(c.Warnings) }
	for _, d := range []string{"source-maps", "experimental-devtools", "performance-crux", "usage-statistics"} {
		each(d, "", warns, 1)
		rows = append(rows, flagCase{[]string{"--no-" + d}, warns, 0})
	}
	for _, n := range compatFlags() {
		rows = append(rows, flagCase{[]string{"--" + n}, warns, 1})
	}
	each("config", filepath.Join("testdata", "config-slim.json"), func(c *Config) any { return c.Server.Surface.Slim }, true)
	return rows
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestNegations: every boolean flag has a --no- form that sets it to
// false, as chrome-devtools-mcp's parser gives every boolean one.
func TestNegations(t *testing.T) {
	fs, _ := newFlagSet(&Config{}, io.Discard)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		bf, ok := f.Value.(interface{ IsBoolFlag() bool })
		if !ok || !bf.IsBoolFlag() || strings.HasPrefix(f.Name, "no-") {
			return
		}
		n++
		c := &Config{}
		fs, _ := newFlagSet(c, io.Discard)
		if err := fs.Parse([]string{"--" + f.Name, "--no-" + f.Name}); err != nil {
			t.Errorf("--%s --no-%s: %v", f.Name, f.Name, err)
			return
		}
		if got := fs.Lookup(f.Name).Value.String(); got != "false" {
			t.Errorf("--%s --no-%s leaves --%s = %s, want false", f.Name, f.Name, f.Name, got)
		}
	})
	if n < 30 {
		t.Errorf("found %d boolean flags, want more than 30", n)
	}
}

func TestConfigureCompatRefusals(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--channel", "nightly"}, `--channel "nightly": use stable, beta, dev or canary`},
		{[]string{"--channel", "beta", "--executable-path", "/opt/chrome"}, "--channel and --executable-path are mutually exclusive"},
		{[]string{"--channel", "beta", "--browser-url", "http://127.0.0.1:9222"}, "--channel and --browser-url are mutually exclusive"},
		{[]string{"--autoConnect", "--isolated"}, "--auto-connect and --isolated are mutually exclusive"},
		{[]string{"--auto-connect", "-e", "/opt/chrome"}, "--auto-connect and --executable-path are mutually exclusive"},
		{[]string{"--category-pwa", "--auto-connect"}, "--category-pwa and --auto-connect are mutually exclusive"},
		{[]string{"--categoryPwa", "--wsEndpoint", "ws://127.0.0.1:1/devtools/browser/x"}, "--category-pwa and --ws-endpoint are mutually exclusive"},
		{[]string{"--ignore-default-chrome-arg", "disable-sync"}, `--ignore-default-chrome-arg "disable-sync": give a Chromium switch`},
		{[]string{"--category-input=maybe"}, `--category-input "maybe": give true or false (--category-input=false), or leave the value out for true`},
		{[]string{"--config", "/no/such/file.json"}, "--config /no/such/file.json: no such file or directory"},
	}
	for _, tt := range tests {
		c, err := configure(tt.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("configure(%q) = %+v, %v; want error %q", tt.args, c, err, tt.want)
		}
	}
}

// TestConfigFile: --config FILE reads the options chrome-devtools-mcp's
// config file holds, camelCase or kebab-case; the command line wins, a
// list included; an unknown option is refused.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := write("full.json", `{"headless": true, "isolated": true, "viewport": "1280x720", "categoryPerformance": false,
		"proxyServer": "http://127.0.0.1:3128", "acceptInsecureCerts": true, "slim": true, "chromeArg": ["--mute-audio", "--disable-gpu"],
		"screenshot-quality": 40, "usageStatistics": false}`)
	c, err := configure([]string{"--config", full}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.Browser.Headless, c.Browser.Isolated, c.Browser.Viewport, c.Server.Surface.Category("performance"),
		c.Browser.AcceptInsecureCerts, c.Server.Surface.Slim, c.Browser.Args, *c.Server.Screenshot.Quality, len(c.Warnings)}
	want := []any{true, true, "1280x720", false, true, true, []string{"--mute-audio", "--disable-gpu", "--proxy-server=http://127.0.0.1:3128"}, 40, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--config %s:\n got %v\nwant %v", full, got, want)
	}

	// The command line wins: a scalar, a list, a --no- form.
	c, err = configure([]string{"--config=" + full, "--viewport", "800x600", "--chrome-arg", "--no-first-run", "--no-slim"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Browser.Viewport != "800x600" || !slices.Equal(c.Browser.Args, []string{"--no-first-run", "--proxy-server=http://127.0.0.1:3128"}) || c.Server.Surface.Slim {
		t.Errorf("command line over --config: viewport %q, args %q, slim %v; want 800x600, [--no-first-run --proxy-server=...], false", c.Browser.Viewport, c.Browser.Args, c.Server.Surface.Slim)
	}

	for _, tt := range []struct{ body, want string }{
		{`{"nope": 1}`, `unknown option "nope"`},
		{`{"no-slim": true}`, `unknown option "no-slim"`},
		{`[1, 2]`, "is not a JSON object of options"},
		{`{"headless": "yes"}`, `--headless "yes": give true or false`},
	} {
		p := write("bad.json", tt.body)
		if _, err := configure([]string{"--config", p}, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--config with %s = %v, want an error containing %q", tt.body, err, tt.want)
		}
	}
}

func TestWithFeature(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{nil, []string{"--enable-features=WebMCP"}},
		{[]string{"--mute-audio"}, []string{"--mute-audio", "--enable-features=WebMCP"}},
		{[]string{"--enable-features=A", "--enable-features=B"}, []string{"--enable-features=A", "--enable-features=B,WebMCP"}},
		{[]string{"--enable-features=WebMCP,A"}, []string{"--enable-features=WebMCP,A"}},
	}
	for _, tt := range tests {
		if got := withFeature(tt.args, "WebMCP"); !slices.Equal(got, tt.want) {
			t.Errorf("withFeature(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"executablePath": "executable-path", "executable-path": "executable-path", "e": "executable-path",
		"no-categoryEmulation": "category-emulation", "workspace": "filesystem-root", "filesystemRoot": "filesystem-root",
		"experimentalMemory": "memory-debugging", "experimentalScreencastFps": "screencast-fps", "wsEndpoint": "ws-endpoint",
	} {
		if got := canonical(in); got != want {
			t.Errorf("canonical(%q) = %q, want %q", in, got, want)
		}
	}
}
