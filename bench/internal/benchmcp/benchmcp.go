// Package benchmcp holds what the Go bench commands share to drive an MCP
// browser server: a fixture site on a loopback port, a server started over
// stdio, and a figure of /proc/PID/status (a reply's text:
// internal/mcptext).
//
// Goroutines: [Serve] starts one per site, serving until its listener is
// closed (by the caller, or when the process exits).
package benchmcp

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve serves h on a free loopback port; the listener's address is the
// site's host:port. Closing the listener stops the serving goroutine.
func Serve(h http.Handler) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go http.Serve(ln, h)
	return ln, nil
}

// Connect starts cmd as an MCP server over stdio and connects to it as
// client name. cmd.Process is set once it returns without error.
func Connect(ctx context.Context, name string, cmd *exec.Cmd) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0"}, nil)
	return c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
}

// ConnectCommandLine starts the server the command line names after its
// flags (flag.Args: a binary and its arguments), its stderr going to
// stderr, and connects to it as client name. cmd.Process is set once it
// returns without error.
func ConnectCommandLine(ctx context.Context, name string, stderr io.Writer) (cs *mcp.ClientSession, cmd *exec.Cmd, err error) {
	cmd = exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stderr = stderr
	cs, err = Connect(ctx, name, cmd)
	return cs, cmd, err
}

// ProcStatus returns a field of /proc/PID/status ("self" for this process),
// trimmed: "123456 kB" for VmRSS.
func ProcStatus(pid, field string) (string, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("/proc/%s/status has no %s", pid, field)
}
