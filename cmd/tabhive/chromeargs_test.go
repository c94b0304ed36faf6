package main

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestChromeArgSpellingsThroughBinary: every spelling Chromium accepts of
// a switch that opens its control channel (one dash or two, with a value
// or without, any case) is refused at launch, and Chromium never listens
// on the port it names.
func TestChromeArgSpellingsThroughBinary(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	for _, arg := range []string{
		fmt.Sprintf("-remote-debugging-port=%d", port),
		fmt.Sprintf("--remote-debugging-port=%d", port),
		fmt.Sprintf("--REMOTE-debugging-PORT=%d", port),
		"-remote-debugging-port",
		"-remote-debugging-address=0.0.0.0",
		"-remote-debugging-pipe",
		"--remote-debugging-io-pipes=5,6",
		"-remote-allow-origins=*",
		"-remote-debugging-socket-name=x",
		"-user-data-dir=/tmp/elsewhere",
		"remote-debugging-port=9",
	} {
		cmd := command(t, "--chrome-arg="+arg)
		cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second})
		got, isErr := try(t, cs, "list_pages", nil)
		if !isErr || !strings.Contains(got, "--chrome-arg "+arg+" is refused") {
			t.Errorf("--chrome-arg=%s: list_pages = %v %q, want the launch refused naming it", arg, isErr, got)
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second); err == nil {
			c.Close()
			t.Errorf("--chrome-arg=%s: something listens on 127.0.0.1:%d, the port it names", arg, port)
		}
		cs.Close()
	}
}

// freePort returns a TCP port on 127.0.0.1 that nothing listened on a
// moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
