package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// pprofFlags defines --pprof: Go's profiler over HTTP, for measuring
// tabhive's own CPU and memory (bench/README.md). Off by default.
func pprofFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.pprofAddr, "pprof", "", "serve Go's profiler (net/http/pprof, /debug/pprof/) on this loopback HOST:PORT, for measuring tabhive itself; off by default")
}

// checkPprof refuses a --pprof address other machines could reach: the
// profiler shows the process's memory and command line, and a CPU profile
// costs CPU, so it listens on loopback only, with no token.
func checkPprof(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || !loopbackOnly(addr) {
		return fmt.Errorf("--pprof %s: give a loopback address such as 127.0.0.1:6060; the profiler is never served to other machines", addr)
	}
	return nil
}

// servePprof listens on addr and serves the profiler until the returned
// stop is called; the serving goroutine is stop's. It writes the bound
// address on stderr (stdout belongs to stdio), so that :0 can be used.
func servePprof(addr string, stderr io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(stderr, "tabhive: --pprof stopped serving:", err)
		}
	}()
	fmt.Fprintf(stderr, "tabhive: pprof at http://%s/debug/pprof/\n", ln.Addr())
	return func() { srv.Close(); <-done }, nil
}
