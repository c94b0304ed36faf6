package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// instance is one tabhive process serving HTTP on a loopback port.
type instance struct {
	id     string // --instance-id
	addr   string // 127.0.0.1:PORT
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has exited
	err    error         // Wait's, once exited
}

// startInstance starts tabhive with id on listen (127.0.0.1:PORT; "" for
// a free port) and waits for it to serve.
func startInstance(ctx context.Context, bin, id, listen string, extra ...string) (*instance, error) {
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	args := []string{"--http", listen, "--headless", "--isolated", "--instance-id", id,
		"--allowed-hosts", "localhost,127.0.0.1", "--log-level", "warn"}
	if exe := os.Getenv("TABHIVE_CHROMIUM"); exe != "" {
		args = append(args, "--executable-path", exe)
	}
	cmd := exec.Command(bin, append(args, extra...)...)
	// If this program is killed before it stops the instance (a harness
	// that gives up waiting), the instance goes too, and its browser
	// with it (tabhive's own launch does the same for Chromium).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = prefixed(os.Stderr, id)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	in := &instance{id: id, cmd: cmd, exited: make(chan struct{})}
	lines := make(chan string, 1)
	go func() { // ends at the process's exit, when stdout closes
		sc := bufio.NewScanner(out)
		first := true
		for sc.Scan() {
			if first {
				lines <- sc.Text()
				first = false
			}
		}
		in.err = cmd.Wait()
		close(in.exited)
	}()
	select {
	case line := <-lines:
		m := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
		if m == nil {
			in.kill()
			return nil, fmt.Errorf("%s printed %q, not its URL", id, line)
		}
		in.addr = m[1]
	case <-in.exited:
		return nil, fmt.Errorf("%s exited at start: %v", id, in.err)
	case <-ctx.Done():
		in.kill()
		return nil, fmt.Errorf("%s did not start: %w", id, ctx.Err())
	}
	return in, nil
}

// ready waits until the instance's /readyz answers 200 (the probe starts
// its browser).
func (in *instance) ready(ctx context.Context) error {
	for {
		if status, _ := get(ctx, "http://"+in.addr+"/readyz"); status == http.StatusOK {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never became ready: %w", in.id, ctx.Err())
		case <-in.exited:
			return fmt.Errorf("%s exited: %v", in.id, in.err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// allReady waits until every instance is ready, warming their browsers at
// once.
func allReady(ctx context.Context, instances []*instance) error {
	errs := make(chan error, len(instances))
	for _, in := range instances {
		go func() { errs <- in.ready(ctx) }() // ends with ctx at the latest
	}
	var first error
	for range instances {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// kill ends the instance with SIGKILL, as a crash would, and waits for it.
func (in *instance) kill() {
	in.cmd.Process.Kill()
	<-in.exited
}

// term sends SIGTERM: the instance drains, then exits.
func (in *instance) term() { in.cmd.Process.Signal(syscall.SIGTERM) }

// stop ends the instance with SIGTERM, or SIGKILL after a minute.
func (in *instance) stop() {
	select {
	case <-in.exited:
		return
	default:
	}
	in.term()
	select {
	case <-in.exited:
	case <-time.After(time.Minute):
		in.kill()
	}
}

// stopAll stops the instances at once, so that their drains overlap.
func stopAll(instances []*instance) {
	var wg sync.WaitGroup
	for _, in := range instances {
		wg.Go(in.stop)
	}
	wg.Wait()
}

// port returns the instance's port.
func (in *instance) port() string { _, p, _ := net.SplitHostPort(in.addr); return p }

// balancer is HAProxy or nginx, started with deploy/'s configuration,
// its addresses rewritten to the local instances.
type balancer struct {
	name string
	addr string // 127.0.0.1:PORT
	cmd  *exec.Cmd
	dir  string
	done chan struct{}
}

// startBalancer starts kind ("haproxy" or "nginx") in front of the
// instances, named tabhive-1, tabhive-2, ... in deploy/'s files.
// It listens on port, or on a free one if port is "".
func startBalancer(ctx context.Context, kind, deployDir, port string, instances []*instance) (*balancer, error) {
	conf, err := os.ReadFile(filepath.Join(deployDir, kind+map[string]string{"haproxy": ".cfg", "nginx": ".conf"}[kind]))
	if err != nil {
		return nil, err
	}
	if port == "" {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "tabhive-"+kind+"-")
	if err != nil {
		return nil, err
	}
	os.Chmod(dir, 0o755) // nginx's workers run as nobody
	text := string(conf)
	// Only the addresses change: tabhive-N:8931 becomes the N-th local
	// instance, and the balancer listens on a free loopback port.
	text = regexp.MustCompile(`tabhive-(\d+):8931`).ReplaceAllStringFunc(text, func(s string) string {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(s, "tabhive-"), ":8931"))
		if n < 1 || n > len(instances) {
			return s
		}
		return instances[n-1].addr
	})
	var cmd *exec.Cmd
	switch kind {
	case "haproxy":
		text = strings.Replace(text, "bind :8931", "bind 127.0.0.1:"+port, 1)
		file := filepath.Join(dir, "haproxy.cfg")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return nil, err
		}
		if out, err := exec.Command("haproxy", "-c", "-q", "-f", file).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("haproxy -c: %v\n%s", err, out)
		}
		cmd = exec.Command("haproxy", "-db", "-W", "-f", file)
	case "nginx":
		text = strings.Replace(text, "listen 8931;", "listen 127.0.0.1:"+port+";", 1)
		text = strings.ReplaceAll(text, "/tmp/tabhive-nginx", filepath.Join(dir, "nginx"))
		file := filepath.Join(dir, "nginx.conf")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return nil, err
		}
		if out, err := exec.Command("nginx", "-t", "-q", "-p", dir, "-c", file).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("nginx -t: %v\n%s", err, out)
		}
		cmd = exec.Command("nginx", "-p", dir, "-c", file, "-g", "daemon off;")
	default:
		return nil, fmt.Errorf("unknown balancer %q", kind)
	}
	cmd.Stdout, cmd.Stderr = prefixed(os.Stderr, kind), prefixed(os.Stderr, kind)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", kind, err)
	}
	b := &balancer{name: kind, addr: "127.0.0.1:" + port, cmd: cmd, dir: dir, done: make(chan struct{})}
	go func() { cmd.Wait(); close(b.done) }() // ends with the process; stop ends it
	for {
		c, err := net.DialTimeout("tcp", b.addr, time.Second)
		if err == nil {
			c.Close()
			return b, nil
		}
		select {
		case <-b.done:
			return nil, fmt.Errorf("%s exited at start", kind)
		case <-ctx.Done():
			b.stop()
			return nil, fmt.Errorf("%s did not listen: %w", kind, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// url is the MCP endpoint through the balancer.
func (b *balancer) url() string { return "http://" + b.addr + "/mcp" }

func (b *balancer) stop() {
	b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-b.done
	}
	os.RemoveAll(b.dir)
}

// freePort returns a loopback port nothing listens on now.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return p, nil
}

// get returns the status and body of a GET.
func get(ctx context.Context, url string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// prefixed writes each line to w after "[name] ".
func prefixed(w io.Writer, name string) io.Writer {
	return &prefixWriter{w: w, prefix: "[" + name + "] "}
}

type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			break
		}
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf[:i])
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

// site serves the pages the sessions drive: /s/NAME, a page of the
// session NAME with a button that counts its clicks, and /slow?ms=N, which
// answers after N ms (and counts the requests under way, for the drain).
type site struct {
	url     string
	srv     *http.Server
	mu      sync.Mutex
	waiting int
}

func startSite() (*site, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &site{url: "http://" + l.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("/s/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>S %[1]s</title><button onclick="n++; out.textContent = '%[1]s clicks: ' + n">Count %[1]s</button><p id=out>%[1]s clicks: 0</p><script>let n = 0</script>`, name)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		s.mu.Lock()
		s.waiting++
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.waiting--; s.mu.Unlock() }()
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
		}
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "slow done")
	})
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(l) // ends when close shuts the server down
	return s, nil
}

// inFlight returns the /slow requests under way.
func (s *site) inFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

func (s *site) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		s.srv.Close()
	}
}
