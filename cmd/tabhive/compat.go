package main

// chrome-devtools-mcp 1.11's flags beyond tabhive's own: the tool surface
// (--slim, --category-*, --page-id-routing,
// --experimental-structured-content), the launch and connection options
// (--channel, --proxy-server, --accept-insecure-certs,
// --ignore-default-chrome-arg, --auto-connect,
// --experimental-include-all-pages), --config FILE, the --no- form of every
// boolean flag, and the flags tabhive accepts but cannot honour, each of
// which prints one warning line on stderr when given.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/transport"
)

// compatConfig is what the chrome-devtools-mcp flags say, before check
// turns it into the browser's and the server's configuration.
type compatConfig struct {
	channel           string
	proxyServer       string
	ignoreDefaultArgs []string
	autoConnect       bool
	// categories holds the --category-* flags given, by category.
	categories map[string]bool
	// given records the flags given explicitly whose mere presence
	// matters (a warning), by canonical name.
	given map[string]bool
	// configFile is --config, resolved.
	configFile string
	// Accepted, with a warning when asked for what tabhive does not do.
	sourceMaps, devtools, performanceCrux, usageStatistics, oldRouting bool
}

// compatFlags returns chrome-devtools-mcp's flags that tabhive accepts
// with no effect but a warning (each is in the README's text).
func compatFlags() []string {
	return []string{"experimental-page-id-routing", "experimentalPageIdRouting"}
}

// defineCompatFlags defines the chrome-devtools-mcp flags of this file on
// fs, writing into c.
func defineCompatFlags(fs *flag.FlagSet, c *Config) {
	x := &c.compat
	x.categories = map[string]bool{}
	x.given = map[string]bool{}
	both := func(dashed string, define func(name string)) {
		define(dashed)
		if camel := camelCase(dashed); camel != dashed {
			define(camel)
		}
	}
	boolean := func(p *bool, dashed string, value bool, usage string) {
		both(dashed, func(n string) { fs.Var(&givenBool{v: p, name: dashed, given: x.given}, n, usage) })
		*p = value
	}
	str := func(p *string, dashed, usage string) {
		both(dashed, func(n string) { fs.StringVar(p, n, "", usage) })
	}

	s := &c.Server.Surface
	boolean(&s.Slim, "slim", false, "list only the three slim tools: navigate, evaluate, screenshot (chrome-devtools-mcp's --slim)")
	for _, name := range sortedCategories() {
		dashed := "category-" + kebabCase(name)
		usage := fmt.Sprintf("list the %s tools (on by default; --%s=false or --no-%s leaves them out)", categoryLabels[name], dashed, dashed)
		if !transport.Categories[name] {
			usage = fmt.Sprintf("list the %s tools (off by default; --%s adds them)", categoryLabels[name], dashed)
		}
		both(dashed, func(n string) { fs.Var(categoryFlag{name: name, set: x.categories}, n, usage) })
	}
	boolean(&s.PageIDRouting, "page-id-routing", false, "require pageId on page tools, as chrome-devtools-mcp does by default (tabhive's default: optional, the selected page when omitted)")
	boolean(&s.StructuredContent, "experimental-structured-content", false, "add structuredContent to tool results: the message, the page list and the open dialog")

	b := &c.Browser
	str(&x.channel, "channel", "Chrome channel to launch (stable, beta, dev, canary), or whose profile --auto-connect uses; a warning if it is not installed, and Chromium from PATH instead")
	str(&x.proxyServer, "proxy-server", "Chromium's --proxy-server for the browser tabhive launches, e.g. http://127.0.0.1:3128")
	boolean(&b.AcceptInsecureCerts, "accept-insecure-certs", false, "load pages whose certificate the browser does not trust (self-signed, expired); use with caution")
	both("ignore-default-chrome-arg", func(n string) {
		fs.Var(listFlag{v: &x.ignoreDefaultArgs}, n, "leave a default Chromium switch out of the launch, by switch or name (repeatable)")
	})
	boolean(&x.autoConnect, "auto-connect", false, "connect to the Chrome the user started, through the DevToolsActivePort of its profile (--user-data-dir, else --channel's default profile)")
	boolean(&b.IncludeAllPages, "experimental-include-all-pages", false, "count background pages and webviews as pages")
	str(&x.configFile, "config", "read options from this JSON file, as chrome-devtools-mcp's --config: {\"headless\": true, \"channel\": \"beta\", ...}; the command line wins")

	boolean(&x.sourceMaps, "source-maps", false, "accepted; tabhive does not resolve source maps (a warning when given)")
	boolean(&x.devtools, "experimental-devtools", false, "accepted; tabhive does not automate DevTools' own windows (a warning when given)")
	boolean(&x.performanceCrux, "performance-crux", false, "accepted; tabhive never sends trace URLs to the CrUX API (a warning when given)")
	boolean(&x.usageStatistics, "usage-statistics", false, "accepted; tabhive collects no usage statistics (a warning when given)")
	for _, n := range compatFlags() {
		fs.Var(&givenBool{v: &x.oldRouting, name: "experimental-page-id-routing", given: x.given}, n, "accepted for chrome-devtools-mcp compatibility; no effect (a warning when given): --page-id-routing requires pageId")
	}
}

// defineNegations gives every boolean flag without one a --no- form that
// sets it to false, as chrome-devtools-mcp's parser (yargs) does: a
// client's --no-usage-statistics or --no-category-emulation works
// whatever the flag.
func defineNegations(fs *flag.FlagSet) {
	var bools []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() && !strings.HasPrefix(f.Name, "no-") {
			bools = append(bools, f)
		}
	})
	for _, f := range bools {
		if fs.Lookup("no-"+f.Name) == nil {
			fs.Var(negation{f: f}, "no-"+f.Name, "same as --"+f.Name+"=false")
		}
	}
}

// negation is the --no- form of a boolean flag.
type negation struct{ f *flag.Flag }

func (n negation) IsBoolFlag() bool { return true }

func (n negation) String() string {
	if n.f == nil {
		return ""
	}
	v, _ := strconv.ParseBool(n.f.Value.String())
	return strconv.FormatBool(!v)
}

func (n negation) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	return n.f.Value.Set(strconv.FormatBool(!v))
}

// givenBool is a boolean flag that also records that it was given.
type givenBool struct {
	v     *bool
	name  string
	given map[string]bool
}

func (b *givenBool) IsBoolFlag() bool { return true }

func (b *givenBool) String() string {
	if b == nil || b.v == nil {
		return "false"
	}
	return strconv.FormatBool(*b.v)
}

func (b *givenBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*b.v = v
	b.given[b.name] = true
	return nil
}

// categoryFlag is a --category-NAME flag: it records the value given.
type categoryFlag struct {
	name string
	set  map[string]bool
}

func (f categoryFlag) IsBoolFlag() bool { return true }

func (f categoryFlag) String() string {
	if f.set == nil {
		return ""
	}
	if v, ok := f.set[f.name]; ok {
		return strconv.FormatBool(v)
	}
	return strconv.FormatBool(transport.Categories[f.name])
}

func (f categoryFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	f.set[f.name] = v
	return nil
}

// categoryLabels are chrome-devtools-mcp's names for its tool groups.
var categoryLabels = map[string]string{
	"input": "input automation", "navigation": "navigation", "emulation": "emulation",
	"performance": "performance", "network": "network", "debugging": "debugging",
	"memory": "memory", "extensions": "extension", "pwa": "Progressive Web App",
	"experimentalWebmcp": "WebMCP", "experimentalThirdParty": "third-party developer",
}

func sortedCategories() []string {
	var names []string
	for n := range transport.Categories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// checkCompat validates the chrome-devtools-mcp options together, as
// chrome-devtools-mcp refuses its conflicting arguments, and turns them
// into the browser's and the server's configuration. It returns the
// warnings to print, one line each.
func (c *Config) checkCompat() ([]string, error) {
	x, b := &c.compat, &c.Browser
	connecting := b.BrowserURL != "" || b.WSEndpoint != ""
	var warn []string

	if x.channel != "" && !slices.Contains(browser.Channels, x.channel) {
		return nil, fmt.Errorf("--channel %q: use stable, beta, dev or canary", x.channel)
	}
	viewport, err := checkViewport(b.Viewport)
	if err != nil {
		return nil, err
	}
	b.Viewport = viewport
	for _, conflict := range []struct {
		a, b   string
		aOn, B bool
	}{
		{"--channel", "--executable-path", x.channel != "", b.ExecutablePath != ""},
		{"--channel", "--browser-url", x.channel != "", b.BrowserURL != ""},
		{"--channel", "--ws-endpoint", x.channel != "", b.WSEndpoint != ""},
		{"--auto-connect", "--isolated", x.autoConnect, b.Isolated},
		{"--auto-connect", "--executable-path", x.autoConnect, b.ExecutablePath != ""},
		{"--auto-connect", "--browser-url", x.autoConnect, b.BrowserURL != ""},
		{"--auto-connect", "--ws-endpoint", x.autoConnect, b.WSEndpoint != ""},
		{"--category-pwa", "--auto-connect", x.categories["pwa"], x.autoConnect},
		{"--category-pwa", "--browser-url", x.categories["pwa"], b.BrowserURL != ""},
		{"--category-pwa", "--ws-endpoint", x.categories["pwa"], b.WSEndpoint != ""},
	} {
		if conflict.aOn && conflict.B {
			return nil, fmt.Errorf("%s and %s are mutually exclusive: give one of them", conflict.a, conflict.b)
		}
	}

	c.Server.Surface.Categories = x.categories
	b.ExtensionWorkers = c.Server.Surface.Category("extensions")
	b.AutoConnect, b.Channel = x.autoConnect, x.channel
	if x.autoConnect && b.UserDataDir == "" {
		// The user's profile: no tool may read or write in it.
		c.Server.ProfileDir = browser.ChannelUserDataDir(x.channel)
	}
	launching := !connecting && !x.autoConnect

	if x.channel != "" && launching {
		exe := browser.ChannelExecutable(x.channel)
		if fi, err := os.Stat(exe); err == nil && !fi.IsDir() {
			b.ExecutablePath = exe
		} else {
			warn = append(warn, fmt.Sprintf("--channel %s: Chrome %s is not installed here (no %s); launching Chromium from PATH instead", x.channel, x.channel, exe))
		}
		if x.channel != "stable" && b.UserDataDir == "" && !b.Isolated {
			// A profile per channel, as chrome-devtools-mcp keeps them.
			b.UserDataDir = filepath.Join(filepath.Dir(browser.DefaultProfile()), "chrome-profile-"+x.channel)
			c.Server.ProfileDir = b.UserDataDir
		}
	}
	if b.Viewport != "" && !launching {
		warn = append(warn, "--viewport applies to a browser tabhive launches: the pages of the browser it connects to keep their windows' size")
	}
	if x.proxyServer != "" {
		if launching {
			b.Args = append(b.Args, "--proxy-server="+x.proxyServer)
		} else {
			warn = append(warn, "--proxy-server applies to a browser tabhive launches: the browser it connects to keeps its own proxy settings")
		}
	}
	if len(x.ignoreDefaultArgs) > 0 {
		for _, a := range x.ignoreDefaultArgs {
			if !strings.HasPrefix(a, "--") {
				return nil, fmt.Errorf("--ignore-default-chrome-arg %q: give a Chromium switch, such as --disable-sync", a)
			}
		}
		b.IgnoreDefaultArgs = x.ignoreDefaultArgs
		if !launching {
			warn = append(warn, "--ignore-default-chrome-arg applies to a browser tabhive launches: the browser it connects to keeps its own switches")
		}
	}
	if c.Server.Surface.Category("experimentalWebmcp") {
		if launching {
			b.Args = withFeature(b.Args, "WebMCP")
		} else {
			warn = append(warn, "--category-experimental-webmcp: pages have WebMCP only when the browser runs with --enable-features=WebMCP, which tabhive adds only to a browser it launches")
		}
	}
	if x.given["source-maps"] && x.sourceMaps {
		warn = append(warn, "--source-maps has no effect: tabhive does not resolve source maps; stack traces show the scripts' own URLs and positions")
	}
	if x.given["experimental-devtools"] && x.devtools {
		warn = append(warn, "--experimental-devtools has no effect: tabhive drives pages, not DevTools' own windows")
	}
	if x.given["performance-crux"] && x.performanceCrux {
		warn = append(warn, "--performance-crux has no effect: tabhive never sends trace URLs to the CrUX API")
	}
	if x.given["usage-statistics"] && x.usageStatistics {
		warn = append(warn, "--usage-statistics has no effect: tabhive collects no usage statistics")
	}
	if x.given["experimental-page-id-routing"] {
		warn = append(warn, "--experimental-page-id-routing has no effect: --page-id-routing requires pageId on page tools")
	}
	return warn, nil
}

// withFeature adds a Blink feature to the launch's --enable-features,
// joining the user's own --enable-features switch if there is one:
// Chromium reads only the last switch of a name.
func withFeature(args []string, feature string) []string {
	out := slices.Clone(args)
	for i := len(out) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(out[i], "--enable-features="); ok {
			if !slices.Contains(strings.Split(v, ","), feature) {
				out[i] += "," + feature
			}
			return out
		}
	}
	return append(out, "--enable-features="+feature)
}

// configArgs turns the JSON options of --config FILE into command-line
// arguments, leaving out the options the command line gives itself: the
// command line wins, a list included. A key is an option's name as
// chrome-devtools-mcp spells it (camelCase) or tabhive's (kebab-case);
// an unknown key is refused, as chrome-devtools-mcp refuses it.
func configArgs(fs *flag.FlagSet, path string, cli []string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config %s: %w", path, errors.Unwrap(err))
	}
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &opts); err != nil {
		return nil, fmt.Errorf("--config %s is not a JSON object of options: %v", path, err)
	}
	onCLI := map[string]bool{}
	for _, a := range cli {
		if name, ok := flagName(a); ok {
			onCLI[canonical(name)] = true
		}
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var args []string
	for _, k := range keys {
		if k == "config" {
			continue
		}
		f := fs.Lookup(k)
		if f == nil || strings.HasPrefix(k, "no-") {
			return nil, fmt.Errorf("--config %s: unknown option %q; use the names of --help, such as \"headless\" or \"executablePath\"", path, k)
		}
		if onCLI[canonical(k)] {
			continue
		}
		var v any
		if err := json.Unmarshal(opts[k], &v); err != nil {
			return nil, fmt.Errorf("--config %s: option %q: %v", path, k, err)
		}
		values := []any{v}
		if list, ok := v.([]any); ok {
			values = list
		}
		for _, v := range values {
			switch v := v.(type) {
			case nil:
			case string:
				args = append(args, "--"+k+"="+v)
			case bool:
				args = append(args, "--"+k+"="+strconv.FormatBool(v))
			case float64:
				args = append(args, "--"+k+"="+strconv.FormatFloat(v, 'f', -1, 64))
			default:
				// An object (such as wsHeaders) goes as its JSON text.
				b, _ := json.Marshal(v)
				args = append(args, "--"+k+"="+string(b))
			}
		}
	}
	return args, nil
}

// configPath finds --config FILE in the command line, before parsing:
// the file's options are parsed first, then the command line's.
func configPath(args []string) string {
	for i := 0; i < len(args); i++ {
		name, ok := flagName(args[i])
		if !ok || name != "config" {
			if args[i] == "--" {
				break
			}
			continue
		}
		if _, v, ok := strings.Cut(args[i], "="); ok {
			return v
		}
		if i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// flagName returns the name of a command-line argument that is a flag.
func flagName(arg string) (string, bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", false
	}
	name := strings.TrimLeft(arg, "-")
	name, _, _ = strings.Cut(name, "=")
	return name, true
}

// canonical names a flag by its kebab-case spelling, its --no- form and
// its aliases included, so that two spellings of one option compare equal.
func canonical(name string) string {
	name = strings.TrimPrefix(kebabCase(name), "no-")
	switch name {
	case "e":
		return "executable-path"
	case "u":
		return "browser-url"
	case "w":
		return "ws-endpoint"
	case "workspace":
		return "filesystem-root"
	case "experimental-memory":
		return "memory-debugging"
	case "experimental-screencast-fps":
		return "screencast-fps"
	}
	return name
}

// kebabCase spells a camelCase name with dashes: executablePath is
// executable-path.
func kebabCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// camelCase spells a kebab-case name as chrome-devtools-mcp does:
// executable-path is executablePath.
func camelCase(s string) string {
	parts := strings.Split(s, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// yargsSpellings rewrites the spellings chrome-devtools-mcp's parser
// (yargs) accepts and Go's flag package reads otherwise, so that a command
// line written for chrome-devtools-mcp means the same here:
//
//   - a boolean flag followed by the word true or false takes it as its
//     value (--category-performance false); any other word after it stays
//     an argument of its own, which configure refuses;
//   - a repeatable flag takes the words that follow it, up to the next
//     flag (--chrome-arg a b is --chrome-arg a --chrome-arg b), as yargs'
//     arrays do.
//
// Everything after "--" is left as it is.
func yargsSpellings(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, ok := flagName(a)
		f := fs.Lookup(name)
		if !ok || f == nil {
			out = append(out, a)
			continue
		}
		_, value, hasValue := strings.Cut(a, "=")
		switch {
		case isBoolFlag(f) && !hasValue && !negationFlag(f) && i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false"):
			i++
			out = append(out, a+"="+args[i])
		case isListFlag(f) && (hasValue || i+1 < len(args)):
			if !hasValue {
				i++
				value = args[i] // whatever it is: --chrome-arg --mute-audio
			}
			out = append(out, "--"+name+"="+value)
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				out = append(out, "--"+name+"="+args[i])
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// isBoolFlag reports whether f is a switch: given alone, it means true.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// negationFlag reports whether f is the --no- form of a switch.
func negationFlag(f *flag.Flag) bool {
	switch f.Value.(type) {
	case negation, negated:
		return true
	case optionalBool:
		return f.Value.(optionalBool).negate
	}
	return false
}

// isListFlag reports whether f may be given more than once, each value
// added to the others.
func isListFlag(f *flag.Flag) bool {
	_, ok := f.Value.(listFlag)
	return ok
}

// flagError says in one sentence what is wrong with a command line that
// Go's flag package refused, and what to give instead: its own messages
// name flags with one dash and say "parse error".
func flagError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Errorf("unknown flag --%s: see tabhive --help for the flags", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Errorf("--%s needs a value: give it as --%s VALUE or --%s=VALUE, see tabhive --help", name, name, name)
	}
	var value, name, reason string
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		// invalid boolean value "maybe" for -name: parse error
		q, after, _ := strings.Cut(rest, " for -")
		value = q
		name, _, _ = strings.Cut(after, ":")
		return fmt.Errorf("--%s %s: give true or false (--%s=false), or leave the value out for true", name, value, name)
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		// invalid value "x" for flag -name: reason
		q, after, _ := strings.Cut(rest, " for flag -")
		value = q
		name, reason, _ = strings.Cut(after, ": ")
		switch {
		case reason == "parse error" || reason == "value out of range":
			reason = "give a whole number"
			if strings.HasSuffix(name, "timeout") || strings.HasSuffix(name, "Timeout") {
				reason = "give a duration such as 30s or 5m"
			}
		case strings.HasPrefix(reason, "time: "):
			reason = "give a duration such as 30s or 5m"
		}
		return fmt.Errorf("--%s %s: %s", name, value, reason)
	}
	return err
}

// unexpectedArgument is configure's sentence for a word on the command
// line that is not a flag nor a flag's value; rest is what flag parsing
// left, args what it parsed.
func unexpectedArgument(fs *flag.FlagSet, args, rest []string) error {
	if i := len(args) - len(rest); i > 0 && args[i-1] != "--" {
		if name, ok := flagName(args[i-1]); ok && !strings.Contains(args[i-1], "=") {
			if f := fs.Lookup(name); f != nil && isBoolFlag(f) {
				return fmt.Errorf("unexpected argument %q after --%s: a switch takes true or false (--%s=false, or --%s false), or nothing for true", rest[0], name, name, name)
			}
		}
	}
	return fmt.Errorf("unexpected argument %q: flags start with --, see tabhive --help", rest[0])
}

// maxViewport is the largest --viewport side, in pixels: beyond it
// Chromium's renderer fails to draw (20000x20000 killed it, measured with
// Chromium 156), and a screenshot of 10000x10000 is already 400 MB raw.
const maxViewport = 10000

// checkViewport reads --viewport, WIDTHxHEIGHT in pixels, each from 1 to
// maxViewport, and returns it as tabhive's browser takes it.
func checkViewport(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	ws, hs, ok := strings.Cut(strings.TrimSpace(v), "x")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	if !ok || errW != nil || errH != nil || w < 1 || h < 1 || w > maxViewport || h > maxViewport || strings.HasPrefix(ws, "+") || strings.HasPrefix(hs, "+") {
		return "", fmt.Errorf("--viewport %q: give the page's size in pixels as WIDTHxHEIGHT, each from 1 to %d, such as 1280x720", v, maxViewport)
	}
	return fmt.Sprintf("%dx%d", w, h), nil
}
