package main

import (
	"bufio"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoopbackOnly: which --http addresses take connections from this
// machine alone.
func TestLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8931": true, "127.0.0.2:0": true, "[::1]:0": true, "localhost:0": true, "LocalHost.:0": true,
		"0.0.0.0:8931": false, "[::]:0": false, "10.1.2.3:0": false, "192.168.0.5:80": false, "example.com:0": false,
		"[fe80::1%eth0]:0": false, "no-port": true,
	} {
		if got := loopbackOnly(addr); got != want {
			t.Errorf("loopbackOnly(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestUnauthenticatedExposureThroughBinary: --http on an address other
// machines reach, without --auth-token, is refused at start with one
// sentence naming the ways out; --allow-unauthenticated starts it with a
// warning on stderr; a token (--auth-token, $TABHIVE_AUTH_TOKEN or
// --auth-tokens-file) or a loopback address starts it without one.
func TestUnauthenticatedExposureThroughBinary(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "[::]:0"} {
		cmd := command(t, "--http", addr)
		cmd.Env = append(cmd.Env, "TABHIVE_AUTH_TOKEN=")
		stderr := &strings.Builder{}
		cmd.Stderr = stderr
		status, started := runUntilServing(t, cmd)
		if started {
			t.Errorf("--http %s without a token started serving", addr)
			continue
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if status != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "tabhive: --http "+addr+" ") ||
			!strings.Contains(lines[0], "--auth-token") || !strings.Contains(lines[0], "--allow-unauthenticated") {
			t.Errorf("--http %s without a token: status %d, stderr %q; want status 2 and one sentence naming --auth-token and --allow-unauthenticated", addr, status, stderr)
		}
	}

	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("client-a-s3cret\nclient-b-s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	warning := "tabhive: warning: --http 0.0.0.0:0 serves anyone who can reach it"
	for _, tt := range []struct {
		args []string
		env  string
		warn bool
	}{
		{args: []string{"--http", "0.0.0.0:0", "--allow-unauthenticated"}, warn: true},
		{args: []string{"--http", "0.0.0.0:0", "--auth-token", "s3cret"}},
		{args: []string{"--http", "0.0.0.0:0"}, env: "TABHIVE_AUTH_TOKEN=s3cret"},
		{args: []string{"--http", "0.0.0.0:0", "--auth-tokens-file", tokens}},
		{args: []string{"--http", "localhost:0"}},
	} {
		cmd := command(t, tt.args...)
		if tt.env != "" {
			cmd.Env = append(cmd.Env, tt.env)
		}
		// A file, written by the process itself: all it printed before
		// its URL is there once the URL is.
		errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		defer errFile.Close()
		cmd.Stderr = errFile
		in := serve(t, cmd, tt.args)
		logged, err := os.ReadFile(errFile.Name())
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(logged), warning); got != tt.warn {
			t.Errorf("%q %s: stderr %q; warning %q shown: %v, want %v", tt.args, tt.env, logged, warning, got, tt.warn)
		}
		req, _ := http.NewRequest(http.MethodGet, in.Base+"/healthz", nil)
		req.Close = true // no idle connection left behind
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%q: GET /healthz: %v", tt.args, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%q: GET /healthz = %s, want 200", tt.args, resp.Status)
		}
		if err := in.Stop(); err != nil {
			t.Error(err)
		}
	}
}

// runUntilServing runs cmd until it exits, giving its exit status, or
// until it prints its MCP endpoint (started), when it is killed.
func runUntilServing(t *testing.T, cmd *exec.Cmd) (status int, started bool) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "MCP endpoint") {
			started = true
			cmd.Process.Kill()
			break
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // ends with the process: it exited, or was killed above
	select {
	case err = <-done:
	case <-time.After(exitWait):
		cmd.Process.Kill()
		t.Fatalf("%q: still running %v after its stdout closed", cmd.Args, exitWait)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), started
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, started
}
