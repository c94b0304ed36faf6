package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/storagestate"
	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// Config is everything tabhive is started with, as the command line says
// it: the supervisor's, the MCP server's and the HTTP endpoint's
// configurations, and the command's own settings. [configure] makes it;
// run only adds what exists once the program runs (the logger, the bound
// address).
type Config struct {
	// Browser configures the supervisor: which browser, launched how. Its
	// PageHooks feed Server.Metrics.
	Browser browser.Config
	// Server configures the MCP server. Its Metrics is the one the
	// browser's page hooks count into, so /metrics shows page events.
	Server transport.Config
	// HTTP configures the streamable HTTP endpoint; used when HTTPAddr is
	// set. Its Addr is filled in by run once the listener is bound.
	HTTP httpserve.Config
	// HTTPAddr is where to serve streamable HTTP (--http), as host:port with
	// the host defaulted to 127.0.0.1; "" serves stdio.
	HTTPAddr string
	// allowUnauthenticated is --allow-unauthenticated: serve HTTP on an
	// address other machines reach without a token (exposure.go).
	allowUnauthenticated bool
	// LogLevel is the zerolog level: debug, info, warn or error.
	LogLevel string
	// LogFile, if set, receives the logs instead of stderr.
	LogFile string
	// ShowVersion prints the version and exits (--version).
	ShowVersion bool
	// DrainTimeout bounds the wait for calls in flight after SIGTERM, over
	// HTTP (--drain-timeout); 0 closes at once.
	DrainTimeout time.Duration
	// wsHeaders is --ws-headers as given, a JSON object; check puts it in
	// Browser.Headers.
	wsHeaders string
	// tokensFile is --auth-tokens-file; check reads it into HTTP.Tokens.
	tokensFile string
	// URLPolicy is what the URL-policy flags say; check compiles it into
	// the Policy both the browser and the server get.
	URLPolicy urlpolicy.Config
	// StorageState is the file --storage-state names; check reads it into
	// Browser.StorageState.
	StorageState string
	// maxSessionsGiven reports that --max-sessions was given; over HTTP its
	// default is then defaultHTTPMaxSessions, not no limit.
	maxSessionsGiven bool
	// fileNavigations is --file-navigations as given: nil when not given,
	// and then allowed over stdio (as chrome-devtools-mcp does) and refused
	// over HTTP, where the caller is not the machine's owner.
	fileNavigations *bool
	// compat is what chrome-devtools-mcp's other flags say (compat.go).
	compat compatConfig
	// pprofAddr is --pprof: where to serve Go's profiler, loopback only
	// (pprof.go); "" serves none.
	pprofAddr string
	// Warnings are the lines run prints on stderr before it starts: flags
	// given that tabhive accepts but cannot honour here.
	Warnings []string
}

// defaultMaxConnections is --max-connections' default: room for a hundred
// or so MCP clients (each holds a stream and a request or two), while a
// client that opens connections without end is refused with a clear
// answer instead of taking the process's file descriptors.
const defaultMaxConnections = 256

// defaultHTTPMaxSessions is --max-sessions' default over HTTP: room for a
// team of agents, while each session may hold pages (a browser context of
// its own with --isolate-sessions) and what it keeps for diffs, so that
// sessions without end cannot take the machine. 0 lifts it.
const defaultHTTPMaxSessions = 32

// defaultDrainTimeout is --drain-timeout's default: as long as a tool
// call's usual budget (30 s for a snapshot or a script), so that a call in
// flight at SIGTERM finishes; Kubernetes' default grace period is 30 s,
// and the manifests in deploy/ give 45.
const defaultDrainTimeout = 30 * time.Second

// parseHeaders reads --ws-headers: a JSON object of header names to
// values.
func parseHeaders(raw string) (http.Header, error) {
	var m map[string]string
	if err := json.Unmarshal([]byte(raw), &m); err != nil || m == nil {
		return nil, fmt.Errorf(`--ws-headers %q: give a JSON object of header names to values, such as '{"Authorization":"Bearer TOKEN"}'`, raw)
	}
	h := http.Header{}
	for k, v := range m {
		if !validHeader(k, v) {
			return nil, fmt.Errorf("--ws-headers: %q: %q is not a valid HTTP header; give names of letters, digits and dashes, and values without line breaks", k, v)
		}
		h.Set(k, v)
	}
	return h, nil
}

// validHeader reports whether name is an HTTP token and value holds no
// control character but tab.
func validHeader(name, value string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	for _, r := range value {
		if r < ' ' && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}

// configure turns the command line into the configuration tabhive runs
// with. Flags are spelled with dashes; the camelCase spellings
// chrome-devtools-mcp accepts (--executablePath) work too, so a client's
// config can switch by changing only the command. It refuses a command
// line that contradicts itself with a sentence that says what to change;
// -h and --help give flag.ErrHelp, and run prints the help (help.go).
// Every spelling chrome-devtools-mcp's parser accepts is read alike
// (yargsSpellings).
func configure(args []string, stderr io.Writer) (*Config, error) {
	c := &Config{}
	fs, shotQuality := newFlagSet(c, stderr)
	fs.SetOutput(io.Discard) // errors are returned as one sentence each
	fs.Usage = func() {}
	args = yargsSpellings(fs, args)
	// --config FILE: its options come first, so that the command line's
	// win (compat.go).
	if path := configPath(args); path != "" {
		fileArgs, err := configArgs(fs, path, args)
		if err != nil {
			return nil, err
		}
		args = append(fileArgs, args...)
	}
	if err := fs.Parse(args); err != nil {
		return nil, flagError(err)
	}
	if fs.NArg() > 0 {
		return nil, unexpectedArgument(fs, args, fs.Args())
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "max-sessions" || f.Name == "maxSessions" {
			c.maxSessionsGiven = true
		}
	})
	if err := c.check(*shotQuality); err != nil {
		return nil, err
	}
	warnings, err := c.checkCompat()
	if err != nil {
		return nil, err
	}
	c.Warnings = warnings
	metrics := transport.NewMetrics()
	c.Server.Metrics = metrics
	c.Browser.PageHooks = metrics.PageHooks()
	c.Server.Version = version
	return c, nil
}

// check validates what the flags say together, and fills in what follows
// from them.
func (c *Config) check(shotQuality int) error {
	b := &c.Browser
	if b.BrowserURL != "" && b.WSEndpoint != "" {
		return errors.New("give either --browser-url or --ws-endpoint, not both")
	}
	if (b.BrowserURL != "" || b.WSEndpoint != "") && (b.ExecutablePath != "" || b.UserDataDir != "" || b.Isolated) {
		return errors.New("--executable-path, --user-data-dir and --isolated are for launching; drop them when connecting with --browser-url or --ws-endpoint")
	}
	if c.wsHeaders != "" {
		h, err := parseHeaders(c.wsHeaders)
		if err != nil {
			return err
		}
		if b.BrowserURL == "" && b.WSEndpoint == "" {
			return errors.New("--ws-headers is sent when connecting to a browser: give --ws-endpoint (or --browser-url) too")
		}
		b.Headers = h
	}
	if c.tokensFile != "" {
		tokens, err := httpserve.ReadTokens(c.tokensFile)
		if err != nil {
			return err
		}
		c.HTTP.Tokens = tokens
	}
	if c.HTTP.InstanceID == "" {
		c.HTTP.InstanceID = httpserve.DefaultInstanceID()
	}
	if err := httpserve.CheckInstanceID(c.HTTP.InstanceID); err != nil {
		return err
	}
	c.Server.SessionID = httpserve.SessionIDs(c.HTTP.InstanceID)
	if c.DrainTimeout < 0 {
		return fmt.Errorf("--drain-timeout %v: give a duration such as 30s, or 0 to close at once", c.DrainTimeout)
	}
	switch c.Server.Screenshot.Format {
	case "", "png", "jpeg", "webp":
	default:
		return fmt.Errorf("--screenshot-format %q: use png, jpeg or webp", c.Server.Screenshot.Format)
	}
	if shotQuality > 100 {
		return fmt.Errorf("--screenshot-quality %d: use 0 to 100", shotQuality)
	}
	if shotQuality >= 0 {
		c.Server.Screenshot.Quality = &shotQuality
	}
	if c.Server.Screenshot.MaxWidth < 0 || c.Server.Screenshot.MaxHeight < 0 {
		return errors.New("--screenshot-max-width and --screenshot-max-height take a number of pixels, 0 for no limit")
	}
	for _, n := range []struct {
		flag  string
		value int
	}{
		{"--max-sessions", c.HTTP.MaxSessions},
		{"--max-pages-per-session", c.Server.MaxPagesPerSession},
		{"--max-connections", c.HTTP.MaxConnections},
	} {
		if n.value < 0 {
			return fmt.Errorf("%s %d: give a positive number, or 0 for no limit", n.flag, n.value)
		}
	}
	if err := sandbox.CheckRoots(c.Server.Workspaces); err != nil {
		return fmt.Errorf("--workspace: %w", err)
	}
	c.URLPolicy.FileNavigations = c.HTTPAddr == ""
	if c.fileNavigations != nil {
		c.URLPolicy.FileNavigations = *c.fileNavigations
	}
	policy, err := urlpolicy.New(c.URLPolicy)
	if err != nil {
		return err
	}
	c.Server.Policy = policy
	c.Browser.Policy = policy
	// A profile given on the command line is as private as the one a
	// launch makes: no tool may read or write it.
	c.Server.ProfileDir = b.UserDataDir
	if c.Server.HeapSnapshotMemory <= 0 {
		return fmt.Errorf("--heap-snapshot-memory-bytes %d: give a number of bytes, such as 2147483648 for 2 GiB", c.Server.HeapSnapshotMemory)
	}
	if n := c.Server.MaxReplyBytes; n < transport.MinReplyBytes {
		return fmt.Errorf("--max-reply-bytes %d: give at least %d, room for a reply's first lines and the sentence saying it was cut (a reply is never unbounded)", n, transport.MinReplyBytes)
	}
	switch n := c.Server.SnapshotMaxBytes; {
	case n < 0:
		return fmt.Errorf("--snapshot-max-bytes %d: give a number of bytes, or 0 to send snapshots of any size", n)
	case n == 0:
		c.Server.SnapshotMaxBytes = -1 // no bound (the server's zero is its default)
	}
	if c.StorageState != "" {
		st, err := readStorageState(c.StorageState)
		if err != nil {
			return err
		}
		b.StorageState = st
		// Without isolated sessions, agents share the default context.
		b.DefaultStorageState = !c.Server.IsolateSessions
	}
	if c.HTTP.SessionTimeout <= 0 {
		return fmt.Errorf("--session-idle-timeout %v: give a positive duration such as 30m", c.HTTP.SessionTimeout)
	}
	if _, err := zerolog.ParseLevel(c.LogLevel); err != nil || c.LogLevel == "" {
		return fmt.Errorf("--log-level %q: use debug, info, warn or error", c.LogLevel)
	}
	if err := checkPprof(c.pprofAddr); err != nil {
		return err
	}
	if c.HTTPAddr != "" {
		if !c.maxSessionsGiven {
			c.HTTP.MaxSessions = defaultHTTPMaxSessions
		}
		if !strings.Contains(c.HTTPAddr, ":") {
			return fmt.Errorf("--http wants HOST:PORT or :PORT, got %q", c.HTTPAddr)
		}
		if strings.HasPrefix(c.HTTPAddr, ":") {
			c.HTTPAddr = "127.0.0.1" + c.HTTPAddr
		}
	}
	return nil
}

// newFlagSet defines tabhive's flags, each writing into c. The screenshot
// quality is returned apart: -1 (unset) leaves Chrome's default.
func newFlagSet(c *Config, stderr io.Writer) (*flag.FlagSet, *int) {
	fs := flag.NewFlagSet("tabhive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	both := func(dashed, camel string, set func(name string)) {
		set(dashed)
		if camel != dashed {
			set(camel)
		}
	}
	str := func(p *string, dashed, camel, value, usage string) {
		both(dashed, camel, func(n string) { fs.StringVar(p, n, value, usage) })
	}
	boolean := func(p *bool, dashed, camel string, usage string) {
		both(dashed, camel, func(n string) { fs.BoolVar(p, n, false, usage) })
	}
	integer := func(p *int, dashed, camel string, value int, usage string) {
		both(dashed, camel, func(n string) { fs.IntVar(p, n, value, usage) })
	}
	list := func(p *[]string, dashed, camel, usage string) {
		both(dashed, camel, func(n string) { fs.Var(listFlag{v: p, commas: true}, n, usage) })
	}

	b := &c.Browser
	boolean(&b.Headless, "headless", "headless", "run Chromium without a window (automatic when there is no display)")
	boolean(&b.Isolated, "isolated", "isolated", "use a temporary profile, deleted on exit")
	str(&b.ExecutablePath, "executable-path", "executablePath", "", "Chrome or Chromium binary (default: chromium, chromium-browser or google-chrome on PATH)")
	fs.StringVar(&b.ExecutablePath, "e", "", "short for --executable-path")
	str(&b.UserDataDir, "user-data-dir", "userDataDir", "", "profile directory (default ~/.cache/tabhive/chrome-profile, or temporary with --isolated)")
	str(&b.BrowserURL, "browser-url", "browserUrl", "", "connect to a running Chrome's DevTools endpoint, e.g. http://127.0.0.1:9222")
	fs.StringVar(&b.BrowserURL, "u", "", "short for --browser-url")
	str(&b.WSEndpoint, "ws-endpoint", "wsEndpoint", "", "connect to a running Chrome's browser WebSocket, ws://HOST:PORT/devtools/browser/ID")
	fs.StringVar(&b.WSEndpoint, "w", "", "short for --ws-endpoint")
	str(&b.Viewport, "viewport", "viewport", "", "the page size of a launched browser, WIDTHxHEIGHT in pixels, each 1 to 10000 (default: a 1280x720 headless window, its page 87 pixels shorter)")
	both("chrome-arg", "chromeArg", func(n string) { fs.Var(listFlag{v: &b.Args}, n, "extra Chromium switch (repeatable)") })
	str(&c.wsHeaders, "ws-headers", "wsHeaders", "", `headers to send when connecting to the browser, as JSON, e.g. '{"Authorization":"Bearer TOKEN"}'`)

	h := &c.HTTP
	str(&c.HTTPAddr, "http", "http", "", "serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio; bound to 127.0.0.1 when HOST is omitted")
	list(&h.AllowedHosts, "allowed-hosts", "allowedHosts", "comma-separated extra Host header values to accept over HTTP (repeatable)")
	list(&h.AllowedOrigins, "allowed-origins", "allowedOrigins", "comma-separated browser origins allowed to call over HTTP (repeatable)")
	str(&h.Token, "auth-token", "authToken", os.Getenv("TABHIVE_AUTH_TOKEN"), "require \"Authorization: Bearer <token>\" over HTTP (default $TABHIVE_AUTH_TOKEN)")
	str(&c.tokensFile, "auth-tokens-file", "authTokensFile", "", "a file of tokens, one per line, one for each client: any of them is accepted as --auth-token is, and a session is bound to the token that made it")
	both("session-idle-timeout", "sessionIdleTimeout", func(n string) {
		fs.DurationVar(&h.SessionTimeout, n, 30*time.Minute, "close HTTP sessions idle this long")
	})
	integer(&h.MaxSessions, "max-sessions", "maxSessions", 0, "refuse new HTTP sessions while this many are open, counted from their initialize (default 32 over HTTP; 0: no limit)")
	integer(&h.MaxConnections, "max-connections", "maxConnections", defaultMaxConnections, "at most this many HTTP connections that passed the token and host checks, and as many more waiting to (closed after 5 s, the oldest first); one more authenticated request gets 503 (0: no limit)")
	str(&c.HTTP.InstanceID, "instance-id", "instanceId", "", "this instance's name, the prefix of every HTTP session id, for routers in front of several instances (default: from the host name)")
	both("drain-timeout", "drainTimeout", func(n string) {
		fs.DurationVar(&c.DrainTimeout, n, defaultDrainTimeout, "on SIGTERM over HTTP, take no new sessions or calls and wait this long for the calls in flight before closing (0: close at once)")
	})
	exposureFlags(fs, c)
	pprofFlags(fs, c)

	s := &c.Server
	boolean(&s.IsolateSessions, "isolate-sessions", "isolateSessions", "give each HTTP session its own browser context: it sees only its own pages, closed when the session ends")
	str(&c.StorageState, "storage-state", "storageState", "", "a storage state file (save_storage_state's, or Playwright's): every browser context tabhive creates (each session's with --isolate-sessions), and a launched browser's own, starts with its cookies and storage")
	integer(&s.MaxPagesPerSession, "max-pages-per-session", "maxPagesPerSession", 0, "refuse new_page in a session that has this many pages open, popups and the page it was given included (0: no limit)")
	boolean(&s.TrustClientRoots, "trust-client-roots", "trustClientRoots", "over HTTP, let a client's MCP roots open those directories of this machine to its file tools (by default ignored over HTTP: they name the client's machine)")
	boolean(&s.Unrestricted, "allow-unrestricted-paths", "allowUnrestrictedPaths", "let file-writing tools write anywhere when the client declares no MCP roots")
	for _, n := range []string{"filesystem-root", "filesystemRoot", "workspace"} {
		fs.Var(listFlag{v: &s.Workspaces}, n, "a directory every session's file tools may read and write, beside its MCP roots and its private directory (repeatable)")
	}
	s.MaxSessionDisk = defaultMaxSessionDisk
	both("max-session-disk", "maxSessionDisk", func(n string) {
		fs.Var(byteSize{v: &s.MaxSessionDisk}, n, "the most the files one session writes may hold on disk together, in bytes or with KB, MB or GB (powers of 1024): a write past it is refused and a screencast ends (0: no bound)")
	})
	integer(&s.MaxReplyBytes, "max-reply-bytes", "maxReplyBytes", transport.DefaultMaxReplyBytes, "cut a tool reply's text beyond this many bytes, saying how to get the rest (a file, a narrower call)")
	integer(&s.SnapshotMaxBytes, "snapshot-max-bytes", "snapshotMaxBytes", transport.DefaultSnapshotMaxBytes, "save a snapshot over this many bytes to a file and reply with its outline (landmarks, headings, uids) instead (0: no bound)")
	boolean(&s.Input.ExperimentalVision, "experimental-vision", "experimentalVision", "add the coordinate tools (click_at)")
	for _, n := range []string{"memory-debugging", "memoryDebugging", "experimental-memory", "experimentalMemory"} {
		fs.BoolVar(&s.MemoryDebugging, n, false, "add the heap-snapshot analysis tools (get_heapsnapshot_summary and the rest; take_heapsnapshot is there without it)")
	}
	both("heap-snapshot-memory-bytes", "heapSnapshotMemoryBytes", func(n string) {
		fs.Int64Var(&s.HeapSnapshotMemory, n, transport.DefaultHeapSnapshotMemory, "memory for the heap snapshots the analysis tools hold loaded, all sessions together: the least recently used are dropped to make room, and one that alone needs more is refused")
	})
	boolean(&s.DevTools.RedactHeaders, "redact-network-headers", "redactNetworkHeaders", "show <redacted> for sensitive header values (authorization, cookies) in network request details")
	str(&s.Screenshot.Format, "screenshot-format", "screenshotFormat", "", "take_screenshot's default format: png, jpeg or webp (default png)")
	shotQuality := new(int)
	integer(shotQuality, "screenshot-quality", "screenshotQuality", -1, "take_screenshot's default jpeg/webp quality, 0-100")
	integer(&s.Screenshot.MaxWidth, "screenshot-max-width", "screenshotMaxWidth", 0, "scale screenshots down to at most this many pixels wide")
	integer(&s.Screenshot.MaxHeight, "screenshot-max-height", "screenshotMaxHeight", 0, "scale screenshots down to at most this many pixels high")
	screencastFlags(fs, &s.Screencast)

	u := &c.URLPolicy
	for _, n := range []string{"allowed-url-pattern", "allowedUrlPattern"} {
		fs.Var(listFlag{v: &u.Allowed}, n, "only URLs matching this URLPattern load, for every request of every page, frame, popup and worker (repeatable); e.g. https://*.example.com/*")
	}
	for _, n := range []string{"blocked-url-pattern", "blockedUrlPattern"} {
		fs.Var(listFlag{v: &u.Blocked}, n, "URLs matching this URLPattern do not load, for every request of every page, frame, popup and worker (repeatable); e.g. *://ads.example:*/*")
	}
	u.JavaScript = true
	for _, n := range []string{"javascript-evaluation", "javascriptEvaluation"} {
		fs.BoolVar(&u.JavaScript, n, true, "let agents run their own JavaScript: evaluate_script, initScript, javascript: and data: URLs (--javascript-evaluation=false turns them off)")
	}
	for _, n := range []string{"no-javascript-evaluation", "no-javascriptEvaluation"} {
		fs.Var(negated{&u.JavaScript}, n, "same as --javascript-evaluation=false")
	}
	for _, n := range []string{"file-navigations", "fileNavigations"} {
		fs.Var(optionalBool{v: &c.fileNavigations}, n, "let pages load file: URLs (default: allowed over stdio, refused over HTTP)")
	}
	for _, n := range []string{"no-file-navigations", "no-fileNavigations"} {
		fs.Var(optionalBool{v: &c.fileNavigations, negate: true}, n, "same as --file-navigations=false")
	}

	str(&c.LogLevel, "log-level", "logLevel", "info", "debug, info, warn or error")
	str(&c.LogFile, "log-file", "logFile", "", "write logs to this file instead of stderr")
	boolean(&c.ShowVersion, "version", "version", "print the version and exit")

	// The rest of chrome-devtools-mcp's flags (compat.go), then a --no-
	// form of every boolean flag.
	defineCompatFlags(fs, c)
	defineNegations(fs)
	return fs, shotQuality
}

// readStorageState reads --storage-state's file. The operator named it, so
// it is read wherever it is, but never past storagestate.MaxFileBytes.
func readStorageState(path string) (*storagestate.State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--storage-state: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, storagestate.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--storage-state: %w", err)
	}
	st, err := storagestate.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("--storage-state: %s %w", path, err)
	}
	return st, nil
}

// optionalBool is a boolean flag that remembers whether it was given: its
// default depends on other flags. With negate, the flag sets the opposite
// (--no-file-navigations).
type optionalBool struct {
	v      **bool
	negate bool
}

func (b optionalBool) IsBoolFlag() bool { return true }

func (b optionalBool) String() string {
	if b.v == nil || *b.v == nil {
		return ""
	}
	return strconv.FormatBool(**b.v)
}

func (b optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	v = v != b.negate
	*b.v = &v
	return nil
}

// negated is a boolean flag that sets its variable to the opposite of its
// value: --no-javascript-evaluation sets JavaScript to false.
type negated struct{ v *bool }

func (n negated) IsBoolFlag() bool { return true }

func (n negated) String() string {
	if n.v == nil {
		return ""
	}
	return strconv.FormatBool(!*n.v)
}

func (n negated) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*n.v = !v
	return nil
}

// listFlag collects a repeatable flag. With commas, a value is also split
// at commas (hosts, origins); without, it is kept whole (a Chromium switch
// such as --disable-features=A,B).
type listFlag struct {
	v      *[]string
	commas bool
}

func (l listFlag) String() string {
	if l.v == nil {
		return ""
	}
	return strings.Join(*l.v, ",")
}

func (l listFlag) Set(s string) error {
	if !l.commas {
		*l.v = append(*l.v, s)
		return nil
	}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l.v = append(*l.v, v)
		}
	}
	return nil
}
