package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// runServe starts --instances tabhive instances behind --balancer on
// --listen and serves until SIGTERM or SIGINT, then stops them all: the
// server bench/tables/scale.mjs measures through its harness, as it would
// any MCP server. The balancer listens only once every instance is ready.
// --instance-ports fixes the instances' own ports, so that the same
// instances can be measured through the balancer and reached directly.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	bin, deploy := clusterFlags(fs)
	kind := fs.String("balancer", "haproxy", "haproxy or nginx")
	n := fs.Int("instances", 3, "tabhive instances (the balancer's file names three)")
	listen := fs.String("listen", "", "the balancer's address, 127.0.0.1:PORT")
	ports := fs.String("instance-ports", "", "the instances' ports, comma-separated (default: free ones)")
	fs.Parse(args)
	var own []string
	if *ports != "" {
		own = strings.Split(*ports, ",")
		if len(own) != *n {
			return fmt.Errorf("serve: --instance-ports names %d ports for %d instances", len(own), *n)
		}
	}
	_, port, ok := strings.Cut(*listen, ":")
	if !ok || port == "" {
		return fmt.Errorf("serve: give --listen 127.0.0.1:PORT")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	exe, cleanup, err := buildTabhive(*bin)
	if err != nil {
		return err
	}
	defer cleanup()
	var instances []*instance
	defer func() { stopAll(instances) }()
	start, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for i := 1; i <= *n; i++ {
		addr := ""
		if own != nil {
			addr = "127.0.0.1:" + own[i-1]
		}
		in, err := startInstance(start, exe, fmt.Sprintf("tabhive-%d", i), addr)
		if err != nil {
			return err
		}
		instances = append(instances, in)
	}
	if err := allReady(start, instances); err != nil {
		return err
	}
	lb, err := startBalancer(start, *kind, *deploy, port, instances)
	if err != nil {
		return err
	}
	defer lb.stop()
	fmt.Fprintf(os.Stderr, "scale serve: %d instances behind %s at %s\n", *n, *kind, lb.url())
	<-ctx.Done()
	return nil
}
