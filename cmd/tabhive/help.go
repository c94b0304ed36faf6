package main

// tabhive --help: every option once, by its kebab-case name, in groups
// that each fit a screen, with its default said the right way round.
// The options are the flag set's (newFlagSet), so the help cannot miss
// one: a flag no group names is listed under "Other", with its usage.

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// helpEntry is one option's line: the placeholder of its value ("" for a
// switch), its short description, and its default when the flag's own is
// not the one to show ("-" shows none).
type helpEntry struct {
	name, arg, text, def string
}

// helpGroup is a titled group of options, in the order shown.
type helpGroup struct {
	title   string
	entries []helpEntry
}

// helpGroups are --help's groups. Each option appears once; its other
// spellings (camelCase, --no-, the short and old names) are said in the
// header or on its line.
var helpGroups = []helpGroup{
	{"Browser (launched by tabhive)", []helpEntry{
		{"headless", "", "run Chromium without a window (automatic when there is no display)", ""},
		{"isolated", "", "use a temporary profile, deleted on exit", ""},
		{"executable-path", "PATH", "Chrome or Chromium binary (default: chromium, chromium-browser or google-chrome on PATH)", ""},
		{"user-data-dir", "DIR", "profile directory (default: ~/.cache/tabhive/chrome-profile)", ""},
		{"channel", "NAME", "launch Chrome stable, beta, dev or canary (Chromium from PATH if not installed)", ""},
		{"viewport", "WxH", "page size in pixels, each side 1 to 10000, e.g. 1280x720", "a 1280x720 headless window, its page 87 pixels shorter"},
		{"chrome-arg", "SWITCH", "extra Chromium switch (repeatable)", ""},
		{"ignore-default-chrome-arg", "SWITCH", "leave one of tabhive's default Chromium switches out (repeatable)", ""},
		{"proxy-server", "URL", "Chromium's --proxy-server, e.g. http://127.0.0.1:3128", ""},
		{"accept-insecure-certs", "", "load pages whose certificate the browser does not trust", ""},
		{"storage-state", "FILE", "start every browser context with this file's cookies and storage", ""},
		{"experimental-include-all-pages", "", "count background pages and webviews as pages", ""},
	}},
	{"Connection (to a browser already running)", []helpEntry{
		{"browser-url", "URL", "connect to Chrome's DevTools endpoint, e.g. http://127.0.0.1:9222", ""},
		{"ws-endpoint", "URL", "connect to a browser WebSocket, ws://HOST:PORT/devtools/browser/ID", ""},
		{"ws-headers", "JSON", `headers sent when connecting, e.g. '{"Authorization":"Bearer TOKEN"}'`, ""},
		{"auto-connect", "", "connect to the Chrome the user started (its profile's DevToolsActivePort)", ""},
	}},
	{"Tools", []helpEntry{
		{"slim", "", "list only the three slim tools: navigate, evaluate, screenshot", ""},
		{"category-input", "", "input automation tools", ""},
		{"category-navigation", "", "navigation tools", ""},
		{"category-emulation", "", "emulation tools", ""},
		{"category-performance", "", "performance tools", ""},
		{"category-network", "", "network tools", ""},
		{"category-debugging", "", "debugging tools (snapshot, screenshot, script, console)", ""},
		{"category-memory", "", "memory tools", ""},
		{"category-extensions", "", "extension tools", ""},
		{"category-pwa", "", "Progressive Web App tools", ""},
		{"category-experimental-webmcp", "", "WebMCP tools", ""},
		{"category-experimental-third-party", "", "tools the page itself exposes", ""},
		{"page-id-routing", "", "require pageId on page tools (by default optional: the selected page)", ""},
		{"experimental-vision", "", "add the coordinate tools (click_at)", ""},
		{"memory-debugging", "", "add the heap-snapshot analysis tools", ""},
		{"experimental-structured-content", "", "add structuredContent to tool results", ""},
		{"experimental-screencast", "", "let screencast_start write WebM as well as MP4", ""},
		{"experimental-ffmpeg-path", "PATH", "ffmpeg binary for screencasts (default: ffmpeg on PATH)", ""},
		{"screencast-fps", "N", "frames per second of screencasts", "30"},
	}},
	{"Security and files", []helpEntry{
		{"filesystem-root", "DIR", "a directory the file tools may read and write (repeatable)", ""},
		{"allow-unrestricted-paths", "", "let file tools write anywhere when the client declares no MCP roots", ""},
		{"trust-client-roots", "", "over HTTP, let a client's MCP roots open this machine's directories", ""},
		{"allowed-url-pattern", "PATTERN", "only URLs matching this URLPattern load (repeatable)", ""},
		{"blocked-url-pattern", "PATTERN", "URLs matching this URLPattern do not load (repeatable)", ""},
		{"javascript-evaluation", "", "let agents run their own JavaScript (evaluate_script, initScript)", ""},
		{"file-navigations", "", "let pages load file: URLs", "on over stdio, off over HTTP"},
		{"redact-network-headers", "", "show <redacted> for sensitive header values in network requests", ""},
		{"max-session-disk", "SIZE", "most the files of one session may hold, e.g. 512MB (0: no bound)", ""},
	}},
	{"HTTP serving (--http)", []helpEntry{
		{"http", "HOST:PORT", "serve streamable HTTP at /mcp instead of stdio (:PORT binds 127.0.0.1)", ""},
		{"auth-token", "TOKEN", `require "Authorization: Bearer TOKEN"`, "$TABHIVE_AUTH_TOKEN"},
		{"auth-tokens-file", "FILE", "accept any token of this file, one per line", ""},
		{"allow-unauthenticated", "", "serve an address other machines reach without a token", ""},
		{"allowed-hosts", "HOSTS", "extra Host header values to accept, comma-separated (repeatable)", ""},
		{"allowed-origins", "ORIGINS", "browser origins allowed to call, comma-separated (repeatable)", ""},
		{"isolate-sessions", "", "give each session its own browser context, closed when it ends", ""},
		{"max-sessions", "N", "refuse new sessions while N are open (0: no limit)", "32 over HTTP"},
		{"max-pages-per-session", "N", "refuse new_page in a session with N pages open (0: no limit)", ""},
		{"max-connections", "N", "at most N authenticated connections (0: no limit)", ""},
		{"session-idle-timeout", "DURATION", "end sessions idle this long", ""},
		{"drain-timeout", "DURATION", "on SIGTERM, wait this long for calls in flight (0: close at once)", ""},
		{"instance-id", "NAME", "prefix of every session id, for routers (default: the host name)", ""},
	}},
	{"Output and limits", []helpEntry{
		{"screenshot-format", "FORMAT", "take_screenshot's default format: png, jpeg or webp", "png"},
		{"screenshot-quality", "N", "take_screenshot's default jpeg/webp quality, 0 to 100", "Chrome's"},
		{"screenshot-max-width", "PIXELS", "scale screenshots down to this width (0: no limit)", ""},
		{"screenshot-max-height", "PIXELS", "scale screenshots down to this height (0: no limit)", ""},
		{"max-reply-bytes", "N", "cut a tool reply's text beyond N bytes, saying how to get the rest", ""},
		{"snapshot-max-bytes", "N", "save a bigger snapshot to a file, reply with its outline (0: no bound)", ""},
		{"heap-snapshot-memory-bytes", "N", "memory for the heap snapshots the analysis tools keep loaded", ""},
		{"screencast-max-bytes", "SIZE", "end a screencast whose file reaches this size (0: no bound)", ""},
		{"screencast-max-duration", "DURATION", "end a screencast this long after it started (0: no bound)", ""},
	}},
	{"Logging", []helpEntry{
		{"log-level", "LEVEL", "debug, info, warn or error (JSON lines on stderr)", ""},
		{"log-file", "FILE", "write the logs to this file instead of stderr", ""},
		{"pprof", "HOST:PORT", "serve Go's profiler at /debug/pprof/ on a loopback address", ""},
	}},
	{"Other", []helpEntry{
		{"config", "FILE", "read options from a JSON file, e.g. {\"headless\": true}; the command line wins", ""},
		{"version", "", "print the version and exit", ""},
		{"source-maps", "", "accepted; tabhive resolves no source maps (a warning if on)", "-"},
		{"experimental-devtools", "", "accepted; tabhive drives no DevTools windows (a warning if on)", "-"},
		{"performance-crux", "", "accepted; tabhive sends nothing to the CrUX API (a warning if on)", "-"},
		{"usage-statistics", "", "accepted; tabhive collects no usage statistics (a warning if on)", "-"},
		{"experimental-page-id-routing", "", "accepted, no effect (a warning): see --page-id-routing", "-"},
	}},
}

// helpAliases are the other names of an option, shown on its line.
var helpAliases = map[string]string{
	"executable-path": "-e", "browser-url": "-u", "ws-endpoint": "-w",
	"filesystem-root": "--workspace", "memory-debugging": "--experimental-memory",
	"screencast-fps": "--experimental-screencast-fps",
}

const helpHeader = `tabhive: an MCP server that lets AI agents drive Chromium, many tabs in parallel.

Usage:
  tabhive [flags]                  serve MCP over stdio (the client starts tabhive)
  tabhive --http HOST:PORT [flags] serve streamable HTTP at /mcp

Flags are shown kebab-case. chrome-devtools-mcp's spellings work as well:
camelCase (--executablePath), --flag=false or --flag false for a switch,
--no-flag for any switch, --flag=VALUE or --flag VALUE, repeated or
space-separated values for the repeatable ones. A switch is off unless its
line says otherwise.
`

const helpExamples = `Examples:
  tabhive --headless --isolated
  tabhive --http :8931 --isolate-sessions --headless --isolated
  tabhive --browser-url http://127.0.0.1:9222
  tabhive --viewport 1024x700 --no-category-performance
  tabhive --channel beta --chrome-arg=--mute-audio
  tabhive --config ~/.config/tabhive.json

Every flag in detail: docs/FLAGS.md.
`

// helpWidth is the width --help wraps at.
const helpWidth = 100

// writeHelp prints --help.
func writeHelp(w io.Writer) {
	fmt.Fprint(w, helpHelpText())
}

// helpHelpText returns --help's text.
func helpHelpText() string {
	fs, _ := newFlagSet(&Config{}, io.Discard)
	var b strings.Builder
	b.WriteString(helpHeader)
	listed := map[string]bool{}
	for _, g := range helpGroups {
		var lines []string
		for _, e := range g.entries {
			f := fs.Lookup(e.name)
			if f == nil {
				continue // not in this build
			}
			listed[e.name] = true
			lines = append(lines, helpLines(f, e)...)
		}
		if g.title == "Other" {
			lines = append(lines, unlisted(fs, listed)...)
			lines = append(lines, helpLines(&flag.Flag{}, helpEntry{name: "help", text: "print this help and exit", def: "-"})...)
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n%s:\n%s\n", g.title, strings.Join(lines, "\n"))
		}
	}
	b.WriteString("\n" + helpExamples)
	return b.String()
}

// unlisted returns the lines of the options no group names, with their
// usage as the flag set has it.
func unlisted(fs *flag.FlagSet, listed map[string]bool) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if n := canonical(f.Name); !listed[n] && fs.Lookup(n) != nil && !slices.Contains(names, n) {
			names = append(names, n)
		}
	})
	sort.Strings(names)
	var lines []string
	for _, n := range names {
		f := fs.Lookup(n)
		arg := "VALUE"
		if isBoolFlag(f) {
			arg = ""
		}
		lines = append(lines, helpLines(f, helpEntry{name: n, arg: arg, text: f.Usage})...)
	}
	return lines
}

// helpLines formats one option: its names and placeholder, then its
// description and default, wrapped under the description's column.
func helpLines(f *flag.Flag, e helpEntry) []string {
	left := "--" + e.name
	if e.arg != "" {
		left += " " + e.arg
	}
	if a := helpAliases[e.name]; a != "" {
		left += ", " + a
		if e.arg != "" {
			left += " " + e.arg
		}
	}
	text, def := e.text, ""
	switch d := helpDefault(f, e); {
	case d == "":
	case isBoolFlag(f) && d == "true":
		def = fmt.Sprintf("default: on; --no-%s turns it off", e.name)
	default:
		def = "default: " + d
	}
	if def != "" {
		if strings.HasSuffix(text, ")") {
			text = strings.TrimSuffix(text, ")") + "; " + def + ")"
		} else {
			text += " (" + def + ")"
		}
	}
	const col = 36 // where descriptions start
	var lines []string
	line := "  " + left
	if len(line) >= col {
		lines = append(lines, line)
		line = ""
	}
	line += strings.Repeat(" ", col-len(line))
	fresh := true // nothing on line after the indent yet
	for _, word := range strings.Fields(text) {
		if !fresh && len(line)+1+len(word) > helpWidth {
			lines = append(lines, line)
			line, fresh = strings.Repeat(" ", col), true
		}
		if !fresh {
			line += " "
		}
		line += word
		fresh = false
	}
	return append(lines, line)
}

// helpDefault is the default --help states for an option: the entry's
// own, else the flag's when it is not the zero of its kind.
func helpDefault(f *flag.Flag, e helpEntry) string {
	switch e.def {
	case "-":
		return ""
	case "":
	default:
		return e.def
	}
	d := f.DefValue
	switch d {
	case "", "0", "false", "0s", "-1":
		return ""
	}
	if strings.HasSuffix(d, "m0s") {
		d = strings.TrimSuffix(d, "0s") // 30m, not 30m0s
	}
	if n, err := strconv.ParseInt(d, 10, 64); err == nil && strings.HasSuffix(e.name, "-bytes") {
		switch {
		case n >= 1<<30 && n%(1<<30) == 0:
			d += fmt.Sprintf(", %d GiB", n>>30)
		case n >= 1<<20 && n%(1<<20) == 0:
			d += fmt.Sprintf(", %d MiB", n>>20)
		case n >= 1<<10 && n%(1<<10) == 0:
			d += fmt.Sprintf(", %d KiB", n>>10)
		}
	}
	return d
}
