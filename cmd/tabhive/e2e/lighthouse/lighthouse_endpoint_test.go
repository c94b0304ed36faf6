package lighthouse

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestLighthouseEndpointKeepsItsSecret: while lighthouse_audit
// runs, its loopback endpoint tells no one its WebSocket URL, whose path
// is the secret: not a local process that only knows the port (found
// here as an attacker would, among the listening sockets of
// /proc/net/tcp), not another isolated session whose page loads the
// endpoint's /json/version, which is refused as every request a browser
// makes. Before, both read the URL from /json/version and could take the
// one connection. Lighthouse's node is held back by a
// wrapper until the probes are done, so the endpoint is probed while it
// listens; then the audit runs to its end.
func TestLighthouseEndpointKeepsItsSecret(t *testing.T) {
	real, node := lighthouseOnPath(t, "lighthouse_audit needs Lighthouse on PATH (npm install -g lighthouse@12.8.2)")
	t.Parallel()
	// A lighthouse beside a node that waits for the test's word.
	bin := t.TempDir()
	release := filepath.Join(bin, "go")
	if err := os.Symlink(real, filepath.Join(bin, "lighthouse")); err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nwhile [ ! -e %q ]; do sleep 0.05; done\nexec %q \"$@\"\n", release, node)
	if err := os.WriteFile(filepath.Join(bin, "node"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.WriteFile(release, nil, 0o600) }) // a failed test lets it go

	mux := auditMux()
	site := browsertest.Serve(t, mux).URL
	cmd := tabhivetest.Command(t, "--http", "127.0.0.1:0", "--isolate-sessions")
	cmd.Env = append(cmd.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CACHE_HOME="+t.TempDir())
	in := tabhivetest.Serve(t, cmd, nil)
	auditor, other := in.Client(nil), in.Client(nil)
	transporttest.Must(t, auditor, "navigate_page", map[string]any{"url": site + "/audit.html", "timeout": tabhivetest.PageLoadTimeout})
	transporttest.Must(t, other, "list_pages", nil)

	type result struct {
		text  string
		isErr bool
		err   error
	}
	done := make(chan result, 1)
	go func() {
		got, isErr, err := tabhivetest.SlowCall(auditor, "lighthouse_audit", nil)
		done <- result{got, isErr, err}
	}()

	// The endpoint is the listener of tabhive's process other than its
	// own HTTP port.
	own := in.Addr[strings.LastIndex(in.Addr, ":")+1:]
	var port string
	if !testwait.Poll(2*time.Minute, func() bool {
		select {
		case r := <-done:
			t.Fatalf("the audit ended before its endpoint was seen: %v %v %s", r.err, r.isErr, r.text)
		default:
		}
		for _, p := range listeners(t, in.Cmd.Process.Pid) {
			if p != own {
				port = p
			}
		}
		return port != ""
	}) {
		t.Fatal("no endpoint listened within 2 minutes of the call")
	}
	leaks := func(s string) bool {
		return strings.Contains(s, "/devtools/") || strings.Contains(s, "webSocketDebuggerUrl") || strings.Contains(s, "ws://")
	}

	// A local process that knows the port.
	answered := 0
	for _, path := range []string{"/json/version", "/json/version/", "/json", "/json/list", "/json/new?about:blank", "/"} {
		for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
			req, _ := http.NewRequest("GET", "http://127.0.0.1:"+port+path, nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("GET %s (Host %s): %v", path, host, err)
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answered++
			if leaks(string(b)) {
				t.Errorf("GET %s (Host %s) = %d, naming the endpoint's WebSocket: %s", path, host, resp.StatusCode, b)
			}
		}
	}
	if answered == 0 {
		t.Fatal("the endpoint answered no request: the probe saw nothing")
	}
	if c, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+port+"/devtools/browser/", nil); err == nil {
		c.Close()
		t.Error("a WebSocket without the secret was accepted")
	}

	// Another session's page that loads the endpoint: the tools refuse
	// to go there (TestLighthouseEndpointOffLimits), so the page goes
	// itself, which with no URL pattern nothing intercepts.
	for _, path := range []string{"/json/version", "/json/list"} {
		url := "http://127.0.0.1:" + port + path
		nav, _ := transporttest.Call(t, other, "evaluate_script", map[string]any{"function": "() => { location.href = " + strconv.Quote(url) + " }"})
		var seen string
		if !testwait.Poll(time.Minute, func() bool {
			got, _ := transporttest.Call(t, other, "evaluate_script", map[string]any{"function": "() => location.href + ' ' + document.documentElement.outerHTML"})
			_, seen, _ = strings.Cut(got, `"`)
			return strings.HasPrefix(seen, url)
		}) {
			t.Fatalf("the page did not go to %s within a minute: %s", url, seen)
		}
		snap, _ := transporttest.Call(t, other, "take_snapshot", nil)
		if leaks(nav) || leaks(seen) || leaks(snap) {
			t.Errorf("another session's page loaded %s and read the endpoint's WebSocket:\n%s\n%s\n%s", path, nav, seen, snap)
		}
		// The endpoint answered the page, with a refusal: a browser's
		// request carries Fetch Metadata.
		if !strings.Contains(seen, "requests from web pages are refused") {
			t.Errorf("another session's page that loaded %s was not refused:\n%s", path, seen)
		}
	}

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.isErr || !strings.Contains(r.text, "Mode: navigation") || !strings.Contains(r.text, "image-alt") {
		t.Errorf("the audit, after the probes: %v %v\n%s", r.err, r.isErr, r.text)
	}
}

// listeners returns the TCP ports on 127.0.0.1 that process pid listens
// on, from /proc/net/tcp and the process's sockets.
func listeners(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("the process's sockets: %v", err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ports []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// local_address is 0100007F:PORT for 127.0.0.1; state 0A is LISTEN.
		if len(fields) < 10 || fields[3] != "0A" || !strings.HasPrefix(fields[1], "0100007F:") || !inodes[fields[9]] {
			continue
		}
		if p, err := strconv.ParseUint(strings.TrimPrefix(fields[1], "0100007F:"), 16, 16); err == nil {
			ports = append(ports, strconv.FormatUint(p, 10))
		}
	}
	return ports
}
