// Command scale runs tabhive past one machine's single instance: several
// instances behind a real load balancer (HAProxy, nginx), with deploy/'s
// configuration files.
//
//	go run ./bench/scale check                  # what .ci/run runs
//	go run ./bench/scale smoke --url URL        # one session's calls against a running tabhive
//	go run ./bench/scale serve --listen ADDR    # instances behind a balancer until SIGTERM (bench/tables/scale.mjs)
//	go run ./bench/scale measure                # one instance's memory, processes, fds and CPU per call (docs/SCALING.md)
//
// check starts three instances and a balancer (each of --balancers in
// turn), and through it: 3×--sessions MCP sessions at once, --calls calls
// each, every call checked to act on the session's own page and
// selection; one instance killed (its sessions get a clear error and
// start over, the others see none); one drained with SIGTERM while its
// sessions have calls in flight (those complete). It prints one JSON line
// per balancer and exits 1 if anything failed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "check":
		err = runCheck(os.Args[2:])
	case "smoke":
		err = runSmoke(os.Args[2:])
	case "serve":
		err = runServe(os.Args[2:])
	case "measure":
		err = runMeasure(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: scale check|smoke|serve|measure [flags]; -h after one for its flags")
	os.Exit(2)
}

// buildTabhive builds tabhive from this tree with deploy/build.sh, as the
// image does, unless bin names a binary already built.
func buildTabhive(bin string) (string, func(), error) {
	if bin != "" {
		return bin, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "tabhive-scale-")
	if err != nil {
		return "", nil, err
	}
	out := filepath.Join(dir, "tabhive")
	cmd := exec.Command("sh", "deploy/build.sh", out)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("deploy/build.sh: %w", err)
	}
	return out, func() { os.RemoveAll(dir) }, nil
}

// clusterFlags defines on fs the flags of the commands that start a
// cluster: the tabhive binary and the balancers' directory.
func clusterFlags(fs *flag.FlagSet) (bin, deploy *string) {
	bin = fs.String("tabhive", "", "tabhive binary (default: built from this tree with deploy/build.sh)")
	deploy = fs.String("deploy", "deploy", "directory of haproxy.cfg and nginx.conf")
	return bin, deploy
}

func runCheck(args []string) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	bin, deploy := clusterFlags(fs)
	balancers := fs.String("balancers", "haproxy,nginx", "balancers to check, in turn")
	sessions := fs.Int("sessions", 4, "sessions per instance")
	calls := fs.Int("calls", 50, "calls per session")
	timeout := fs.Duration("timeout", 8*time.Minute, "bound on each balancer's check")
	fs.Parse(args)

	exe, cleanup, err := buildTabhive(*bin)
	if err != nil {
		return err
	}
	defer cleanup()
	failed := false
	for _, kind := range strings.Split(*balancers, ",") {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		fmt.Fprintf(os.Stderr, "scale check: %s, 3 instances, %d sessions, %d calls each\n", kind, 3**sessions, *calls)
		res, err := checkBalancer(ctx, kind, exe, *deploy, *sessions, *calls)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		line, _ := json.Marshal(res)
		fmt.Println(string(line))
		fmt.Fprintf(os.Stderr, "scale check: %s: %d calls, %d misrouted; kill: %d/%d clear errors, %d started over, others %d errors in %d calls (p50 %.0f → %.0f ms); drain: %d/%d calls in flight completed, %d started over; %.0f s\n",
			kind, res.Calls, res.Misrouted, res.Kill.ClearErrors, res.Kill.VictimSessions, res.Kill.Reinitialized,
			res.Kill.OtherErrors, res.Kill.OtherCalls, res.Kill.P50BeforeMs, res.Kill.P50AfterMs,
			res.Drain.Completed, res.Drain.InFlight, res.Drain.Reinitialized, res.Seconds)
		for _, f := range res.Failures {
			fmt.Fprintf(os.Stderr, "scale check: %s: FAIL: %s\n", kind, f)
			failed = true
		}
	}
	if failed {
		return fmt.Errorf("the check failed")
	}
	return nil
}
