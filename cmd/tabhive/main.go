// Command tabhive is an MCP server that lets AI agents drive Chrome through
// the DevTools protocol, many tabs in parallel, over stdio or streamable
// HTTP. It speaks chrome-devtools-mcp's tools.
//
//	tabhive --headless --isolated                    # stdio, for one client
//	tabhive --http 127.0.0.1:8931 --headless --isolated # shared, streamable HTTP
//
// Run tabhive --help for every flag.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/transport"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "tabhive:", err)
		}
		os.Exit(2)
	}
}

// config is what the command line says.
type config struct {
	browser        browser.Config
	httpAddr       string
	allowedHosts   string
	allowedOrigins string
	authToken      string
	sessionIdle    time.Duration
	logLevel       string
	logFile        string
	showVersion    bool
	unrestricted   bool
	vision         bool
	redactHeaders  bool
	isolate        bool
	maxSessions    int
	maxPages       int
	screenshot     transport.ScreenshotConfig
	shotQuality    int
}

// listFlag collects a repeatable string flag.
type listFlag struct{ v *[]string }

func (l listFlag) String() string {
	if l.v == nil {
		return ""
	}
	return strings.Join(*l.v, ",")
}
func (l listFlag) Set(s string) error { *l.v = append(*l.v, s); return nil }

// parseFlags reads the command line. Flags are spelled with dashes; the
// camelCase spellings chrome-devtools-mcp accepts (--executablePath) work
// too, so a client's config can switch by changing only the command.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
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
	b := &c.browser
	boolean(&b.Headless, "headless", "headless", "run Chromium without a window (automatic when there is no display)")
	boolean(&b.Isolated, "isolated", "isolated", "use a temporary profile, deleted on exit")
	str(&b.ExecutablePath, "executable-path", "executablePath", "", "Chrome or Chromium binary (default: chromium, chromium-browser or google-chrome on PATH)")
	fs.StringVar(&b.ExecutablePath, "e", "", "short for --executable-path")
	str(&b.UserDataDir, "user-data-dir", "userDataDir", "", "profile directory (default ~/.cache/tabhive/chrome-profile, or temporary with --isolated)")
	str(&b.BrowserURL, "browser-url", "browserUrl", "", "connect to a running Chrome's DevTools endpoint, e.g. http://127.0.0.1:9222")
	fs.StringVar(&b.BrowserURL, "u", "", "short for --browser-url")
	str(&b.WSEndpoint, "ws-endpoint", "wsEndpoint", "", "connect to a running Chrome's browser WebSocket, ws://HOST:PORT/devtools/browser/ID")
	fs.StringVar(&b.WSEndpoint, "w", "", "short for --ws-endpoint")
	str(&b.Viewport, "viewport", "viewport", "", "window size of a launched headless Chromium, WIDTHxHEIGHT (default 1280x720)")
	both("chrome-arg", "chromeArg", func(n string) { fs.Var(listFlag{&b.Args}, n, "extra Chromium switch (repeatable)") })
	str(&c.httpAddr, "http", "http", "", "serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio; bound to 127.0.0.1 when HOST is omitted")
	str(&c.allowedHosts, "allowed-hosts", "allowedHosts", "", "comma-separated extra Host header values to accept over HTTP")
	str(&c.allowedOrigins, "allowed-origins", "allowedOrigins", "", "comma-separated browser origins allowed to call over HTTP")
	str(&c.authToken, "auth-token", "authToken", os.Getenv("TABHIVE_AUTH_TOKEN"), "require \"Authorization: Bearer <token>\" over HTTP (default $TABHIVE_AUTH_TOKEN)")
	both("session-idle-timeout", "sessionIdleTimeout", func(n string) {
		fs.DurationVar(&c.sessionIdle, n, 30*time.Minute, "close HTTP sessions idle this long")
	})
	boolean(&c.isolate, "isolate-sessions", "isolateSessions", "give each HTTP session its own browser context: it sees only its own pages, closed when the session ends")
	both("max-sessions", "maxSessions", func(n string) {
		fs.IntVar(&c.maxSessions, n, 0, "refuse new HTTP sessions while this many are open (0: no limit)")
	})
	both("max-pages-per-session", "maxPagesPerSession", func(n string) {
		fs.IntVar(&c.maxPages, n, 0, "refuse new_page in a session that has this many pages open (0: no limit)")
	})
	str(&c.logLevel, "log-level", "logLevel", "info", "debug, info, warn or error")
	str(&c.logFile, "log-file", "logFile", "", "write logs to this file instead of stderr")
	boolean(&c.unrestricted, "allow-unrestricted-paths", "allowUnrestrictedPaths", "let file-writing tools write anywhere when the client declares no MCP roots")
	boolean(&c.vision, "experimental-vision", "experimentalVision", "add the coordinate tools (click_at)")
	boolean(&c.redactHeaders, "redact-network-headers", "redactNetworkHeaders", "show <redacted> for sensitive header values (authorization, cookies) in network request details")
	str(&c.screenshot.Format, "screenshot-format", "screenshotFormat", "", "take_screenshot's default format: png, jpeg or webp (default png)")
	both("screenshot-quality", "screenshotQuality", func(n string) {
		fs.IntVar(&c.shotQuality, n, -1, "take_screenshot's default jpeg/webp quality, 0-100")
	})
	both("screenshot-max-width", "screenshotMaxWidth", func(n string) {
		fs.IntVar(&c.screenshot.MaxWidth, n, 0, "scale screenshots down to at most this many pixels wide")
	})
	both("screenshot-max-height", "screenshotMaxHeight", func(n string) {
		fs.IntVar(&c.screenshot.MaxHeight, n, 0, "scale screenshots down to at most this many pixels high")
	})
	boolean(&c.showVersion, "version", "version", "print the version and exit")
	// chrome-devtools-mcp flags that change nothing here, accepted so that a
	// command line written for it still starts.
	var ignored bool
	for _, n := range []string{"no-usage-statistics", "usage-statistics", "usageStatistics", "no-performance-crux",
		"performance-crux", "performanceCrux", "experimental-page-id-routing", "experimentalPageIdRouting"} {
		fs.BoolVar(&ignored, n, false, "accepted for chrome-devtools-mcp compatibility; no effect")
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch c.screenshot.Format {
	case "", "png", "jpeg", "webp":
	default:
		return nil, fmt.Errorf("--screenshot-format %q: use png, jpeg or webp", c.screenshot.Format)
	}
	if c.shotQuality > 100 {
		return nil, fmt.Errorf("--screenshot-quality %d: use 0 to 100", c.shotQuality)
	}
	if c.shotQuality >= 0 {
		q := c.shotQuality
		c.screenshot.Quality = &q
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: flags start with --, see --help", fs.Arg(0))
	}
	if b.BrowserURL != "" && b.WSEndpoint != "" {
		return nil, errors.New("give either --browser-url or --ws-endpoint, not both")
	}
	if (b.BrowserURL != "" || b.WSEndpoint != "") && (b.ExecutablePath != "" || b.UserDataDir != "" || b.Isolated) {
		return nil, errors.New("--executable-path, --user-data-dir and --isolated are for launching; drop them when connecting with --browser-url or --ws-endpoint")
	}
	return c, nil
}

// run is the whole program; main only maps its error to an exit code.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.showVersion {
		fmt.Fprintln(stdout, "tabhive", version)
		return nil
	}
	log, closeLog, err := newLogger(cfg.logLevel, cfg.logFile, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	cfg.browser.Logger = log
	metrics := transport.NewMetrics()
	cfg.browser.PageHooks = metrics.PageHooks()

	sup := browser.New(cfg.browser)
	srv := transport.New(transport.Config{
		Version:              version,
		Logger:               log,
		Unrestricted:         cfg.unrestricted,
		ExperimentalVision:   cfg.vision,
		RedactNetworkHeaders: cfg.redactHeaders,
		Screenshot:           cfg.screenshot,
	}, sup)
	var closeBrowser sync.Once
	stopBrowser := func() {
		closeBrowser.Do(func() {
			// Bounded: page actors stop (their calls are answered), a
			// launched Chromium is closed (escalating to SIGKILL) and its
			// temporary profile removed; a connected one is only
			// disconnected.
			if err := sup.Close(); err != nil {
				log.Warn().Err(err).Msg("closing the browser")
			}
		})
	}
	defer func() {
		stopBrowser()
		srv.Close()
		log.Info().Msg("stopped")
	}()

	if cfg.httpAddr == "" {
		log.Info().Str("version", version).Msg("serving MCP over stdio")
		err := srv.ServeStdio(ctx, stdin, stdout)
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	return serveHTTP(ctx, cfg, srv, stopBrowser, log, stdout)
}

// serveHTTP serves until ctx ends. Then drain runs at once, so that calls
// in flight are answered (their pages stop), while the HTTP server stops
// taking requests and flushes those replies.
func serveHTTP(ctx context.Context, cfg *config, srv *transport.Server, drain func(), log zerolog.Logger, stdout io.Writer) error {
	addr := cfg.httpAddr
	if !strings.Contains(addr, ":") {
		return fmt.Errorf("--http wants HOST:PORT or :PORT, got %q", addr)
	}
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	handler := srv.HTTPHandler(transport.HTTPConfig{
		Addr:           ln.Addr().String(),
		AllowedHosts:   splitList(cfg.allowedHosts),
		AllowedOrigins: splitList(cfg.allowedOrigins),
		Token:          cfg.authToken,
		SessionTimeout: cfg.sessionIdle,
		MaxSessions:    cfg.maxSessions,
	})
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), transport.HTTPPath)
	fmt.Fprintf(stdout, "tabhive %s: MCP endpoint %s\n", version, url)
	log.Info().Str("url", url).Msg("serving MCP over streamable HTTP")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }() // ends when hs shuts down
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	drained := make(chan struct{})
	go func() { defer close(drained); drain() }() // bounded: see browser.Supervisor.Close
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close() // streams still open: cut them
	}
	<-errc
	<-drained
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// newLogger returns a JSON logger on stderr, or on logFile; stdout belongs
// to the stdio transport.
func newLogger(level, logFile string, stderr io.Writer) (zerolog.Logger, func(), error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Logger{}, nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	zerolog.TimeFieldFormat = zerolog.TimeFormatUnixMs
	w, closeFn := stderr, func() {}
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return zerolog.Logger{}, nil, fmt.Errorf("open log file: %w", err)
		}
		w, closeFn = f, func() { f.Close() }
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Str("svc", "tabhive").Logger(), closeFn, nil
}
