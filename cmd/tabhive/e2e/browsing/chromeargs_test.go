package browsing

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
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
		cmd := tabhivetest.Command(t, "--chrome-arg="+arg)
		cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second})
		got, isErr := transporttest.Call(t, cs, "list_pages", nil)
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

// TestJSFlagsThroughBinary: a --chrome-arg=--js-flags=… of the operator's
// reaches V8 (a page sees the gc function --expose-gc gives it) and
// Chromium runs with tabhive's own V8 flag in the same switch, not
// replaced by it.
func TestJSFlagsThroughBinary(t *testing.T) {
	t.Parallel()
	cmd := tabhivetest.Command(t, "--chrome-arg=--js-flags=--expose-gc")
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second})
	transporttest.Must(t, cs, "new_page", map[string]any{"url": "about:blank", "timeout": 60000})
	if got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": "() => typeof gc"}); !strings.Contains(got, `"function"`) {
		t.Errorf("typeof gc in a page = %q, want \"function\": the operator's --js-flags did not reach V8", got)
	}
	var flags []string
	for _, pid := range childChromium(t, cmd.Process.Pid) {
		raw, err := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(raw), "\x00") {
			if strings.HasPrefix(a, "--js-flags") {
				flags = append(flags, a)
			}
		}
	}
	if want := "--js-flags=--no-enable-lazy-source-positions --expose-gc"; len(flags) != 1 || flags[0] != want {
		t.Errorf("Chromium's --js-flags = %q, want [%q]", flags, want)
	}
}

// childChromium returns the pids of the processes whose parent is pid.
func childChromium(t *testing.T, pid int) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	var out []string
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, ppid.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, e.Name())
		}
	}
	return out
}
