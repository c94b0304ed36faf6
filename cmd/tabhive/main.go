// Command tabhive is an MCP server that lets AI agents drive Chrome through
// the DevTools protocol, many tabs in parallel, over stdio or streamable
// HTTP. It speaks chrome-devtools-mcp's tools.
//
//	tabhive --headless --isolated                    # stdio, for one client
//	tabhive --http 127.0.0.1:8931 --headless --isolated # shared, streamable HTTP
//
// Run tabhive --help for every flag.
//
// Goroutines: run's, which serves stdio or HTTP until its context ends;
// the HTTP server's and the drain's in serveHTTP, both waited for there;
// and, with --pprof, the profiler's server, stopped when run returns.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/page/lighthouse/cdpproxy"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/sandbox"
)

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

// run is the whole program; main only maps its error to an exit code.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	cfg, err := configure(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(stdout) // help.go
		return nil
	}
	if err != nil {
		return err
	}
	if cfg.ShowVersion {
		fmt.Fprintln(stdout, "tabhive", version)
		return nil
	}
	warning, err := checkExposure(cfg)
	if err != nil {
		return err
	}
	if warning != "" {
		cfg.Warnings = append(cfg.Warnings, warning)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "tabhive: warning:", w)
	}
	log, closeLog, err := newLogger(cfg.LogLevel, cfg.LogFile, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	if cfg.pprofAddr != "" {
		stopPprof, err := servePprof(cfg.pprofAddr, stderr)
		if err != nil {
			return err
		}
		defer stopPprof()
	}
	cfg.Browser.Logger = log
	cfg.Server.Logger = log

	// No page may read the browser's profile or the sessions' private
	// files through a file: URL, whatever --file-navigations says. The
	// launched browser's profile is known once it runs.
	var launched atomic.Pointer[browser.Supervisor]
	policy := cfg.Server.Policy.Protect(func(path string) bool {
		dirs := []string{cfg.Browser.UserDataDir, browser.DefaultProfile(), sandbox.ProcessDir()}
		if sup := launched.Load(); sup != nil {
			dirs = append(dirs, sup.ProfileDir())
		}
		return sandbox.Inside(path, dirs)
	}).Endpoints(cdpproxy.OpenPorts) // nor Lighthouse's endpoint while it is open
	cfg.Server.Policy, cfg.Browser.Policy = policy, policy
	sup := browser.New(cfg.Browser)
	launched.Store(sup) // before any tool call can launch the browser
	srv := transport.New(cfg.Server, sup)
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
		// The sessions' private directory goes if nothing was written to
		// it; files an agent wrote there stay.
		if err := sandbox.Cleanup(); err != nil {
			log.Warn().Err(err).Msg("removing the private files directory")
		}
		log.Info().Msg("stopped")
	}()

	if cfg.HTTPAddr == "" {
		log.Info().Str("version", version).Msg("serving MCP over stdio")
		err := srv.ServeStdio(ctx, stdin, stdout)
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	return serveHTTP(ctx, cfg, srv, stopBrowser, log, stdout)
}

// serveHTTP serves until ctx ends. Then the server drains: it takes no
// new sessions or calls (/readyz answers 503 at once) and waits up to
// --drain-timeout for the calls in flight to be answered. Then stop runs,
// so that calls still in flight are answered (their pages stop), while
// the HTTP server stops taking requests and flushes those replies.
func serveHTTP(ctx context.Context, cfg *Config, srv *transport.Server, stop func(), log zerolog.Logger, stdout io.Writer) error {
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	cfg.HTTP.Addr = ln.Addr().String()
	cfg.HTTP.Logger = log
	web := httpserve.New(srv, cfg.HTTP)
	hs := web.HTTPServer()
	url := fmt.Sprintf("http://%s%s", ln.Addr(), httpserve.Path)
	fmt.Fprintf(stdout, "tabhive %s: MCP endpoint %s\n", version, url)
	log.Info().Str("url", url).Msg("serving MCP over streamable HTTP")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(httpserve.LimitListener(ln, cfg.HTTP.MaxConnections)) }() // ends when hs shuts down
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	dctx, cancel := context.WithTimeout(context.Background(), cfg.DrainTimeout)
	if err := web.Drain(dctx); err != nil {
		log.Warn().Dur("drain_timeout", cfg.DrainTimeout).Msg("calls still in flight after --drain-timeout are cut short")
	}
	cancel()
	drained := make(chan struct{})
	go func() { defer close(drained); stop() }() // bounded: see browser.Supervisor.Close
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close() // streams still open: cut them
	}
	<-errc
	<-drained
	return nil
}

// newLogger returns a JSON logger on stderr, or on logFile; stdout belongs
// to the stdio transport.
func newLogger(level, logFile string, stderr io.Writer) (zerolog.Logger, func(), error) {
	lvl, err := zerolog.ParseLevel(level) // checked by configure
	if err != nil {
		return zerolog.Logger{}, nil, err
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
