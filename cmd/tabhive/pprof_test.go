package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCheckPprof: --pprof takes loopback addresses only.
func TestCheckPprof(t *testing.T) {
	for addr, ok := range map[string]bool{
		"": true, "127.0.0.1:6060": true, "127.0.0.1:0": true, "[::1]:0": true, "localhost:6060": true,
		"0.0.0.0:6060": false, ":6060": false, "[::]:0": false, "10.1.2.3:6060": false, "example.com:6060": false, "6060": false,
	} {
		err := checkPprof(addr)
		if (err == nil) != ok {
			t.Errorf("checkPprof(%q) = %v, want ok %v", addr, err, ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "--pprof "+addr+": give a loopback address") {
			t.Errorf("checkPprof(%q) = %q, want one sentence asking for a loopback address", addr, err)
		}
	}
}

// TestPprofThroughBinary: the command started with --pprof 127.0.0.1:0
// writes the profiler's address on stderr and serves a CPU profile and the
// goroutines there; --pprof on an address other machines reach stops it at
// start with one sentence.
func TestPprofThroughBinary(t *testing.T) {
	t.Parallel()
	cmd := command(t, "--pprof", "127.0.0.1:0")
	stdin, err := cmd.StdinPipe() // stdio: it serves until stdin closes
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = nil // read below
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // ends when the process exits: stdin is closed below
	defer func() {
		stdin.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("tabhive exited with %v after stdin closed", err)
			}
		case <-time.After(exitWait):
			cmd.Process.Kill()
			t.Errorf("tabhive still running %v after stdin closed", exitWait)
		}
	}()
	base := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "tabhive: pprof at "); ok {
			base = strings.TrimSuffix(rest, "/debug/pprof/")
			break
		}
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("no pprof address on stderr (got %q)", base)
	}
	go io.Copy(io.Discard, stderr) // drains the rest; ends when the process exits

	get := func(path string) []byte {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s, %v", path, resp.Status, err)
		}
		return body
	}
	// A profile is gzip-compressed protobuf.
	if p := get("/debug/pprof/profile?seconds=1"); !bytes.HasPrefix(p, []byte{0x1f, 0x8b}) {
		t.Errorf("CPU profile is not gzip (%d bytes, starts %q)", len(p), p[:min(len(p), 8)])
	}
	if g := get("/debug/pprof/goroutine?debug=1"); !bytes.Contains(g, []byte("servePprof")) {
		t.Errorf("goroutine dump lacks the profiler's own goroutine:\n%.2000s", g)
	}

	refused := command(t, "--pprof", "0.0.0.0:6060")
	var out bytes.Buffer
	refused.Stderr = &out
	err = refused.Run()
	var exit *exec.ExitError
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || len(lines) != 1 ||
		!strings.HasPrefix(lines[0], "tabhive: --pprof 0.0.0.0:6060: give a loopback address") {
		t.Errorf("--pprof 0.0.0.0:6060: %v, stderr %q; want exit 2 and one sentence asking for a loopback address", err, out.String())
	}
}
