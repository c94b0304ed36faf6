// Command record records the traces internal/devtools/trace's differential test runs
// on: each fixture page of package tracetest, and offline documents of this
// machine, traced through the tabhive binary itself (performance_start_trace
// with reload, autoStop and ignoreCache), into internal/devtools/trace/testdata/traces.
// Then run the oracle (bench/trace/oracle.mjs) over them to write the
// expected values.
//
//	go run ./bench/trace/record [-out internal/devtools/trace/testdata/traces] [-only text,image-late]
//	cd bench/trace && node oracle.mjs ../../internal/devtools/trace/testdata/traces/*.json.gz
//
// The fixture site is served as site.test and its third party as
// cdn.elsewhere.test, both mapped to the loopback address by Chromium's
// host resolver rules, so that the trace sees two sites that are not
// localhost (DevTools treats localhost differently).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/bench/internal/benchmcp"
	"github.com/tabhive/tabhive/internal/devtools/trace/tracetest"
	"github.com/tabhive/tabhive/internal/mcptext"
)

// docs are the offline documents traced besides the fixtures: name and
// path under the fixture server's /doc/.
var docs = []struct{ name, path string }{
	{"doc-go-spec", "/doc/go/go_spec.html"},
	{"doc-go-mem", "/doc/go/go_mem.html"},
	{"doc-go-asm", "/doc/go/asm.html"},
	{"doc-base-passwd", "/doc/usr/base-passwd/users-and-groups.html"},
	{"doc-libffi", "/doc/usr/libffi8/html/index.html"},
}

func main() {
	out := flag.String("out", "internal/devtools/trace/testdata/traces", "directory to write the traces to")
	only := flag.String("only", "", "comma-separated names to record (default: all)")
	flag.Parse()
	if err := run(*out, *only); err != nil {
		log.Fatal(err)
	}
}

func run(out, only string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	h := tracetest.NewHandler(tracetest.Config{Docs: map[string]string{
		"go":  filepath.Join(strings.TrimSpace(string(goroot)), "doc"),
		"usr": "/usr/share/doc",
	}})
	ln, err := benchmcp.Serve(h)
	if err != nil {
		return err
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	site := fmt.Sprintf("http://site.test:%d", port)

	bin := filepath.Join(os.TempDir(), "tabhive-record")
	if b, err := exec.Command("go", "build", "-o", bin, "./cmd/tabhive").CombinedOutput(); err != nil {
		return fmt.Errorf("build tabhive: %v\n%s", err, b)
	}
	defer os.Remove(bin)
	cmd := exec.Command(bin, "--headless", "--isolated", "--allow-unrestricted-paths",
		"--chrome-arg=--host-resolver-rules=MAP *.test 127.0.0.1")
	cmd.Stderr = os.Stderr
	ctx := context.Background()
	cs, err := benchmcp.Connect(ctx, "record", cmd)
	if err != nil {
		return fmt.Errorf("start tabhive: %w", err)
	}
	defer cs.Close()

	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	var jobs []job
	for _, p := range tracetest.Pages() {
		name := strings.TrimSuffix(strings.TrimPrefix(p, "/p/"), ".html")
		if name == "frame" || name == "busy" {
			continue // a part of shift-inject; the benchmark's page
		}
		jobs = append(jobs, job{name: name, url: site + p})
	}
	jobs = append(jobs, job{name: "redirect", url: site + "/redirect/3/slow/700/p/text.html?redirected", inTrace: true})
	for _, d := range docs {
		jobs = append(jobs, job{name: d.name, url: site + d.path})
	}
	for _, j := range jobs {
		if len(want) > 0 && !want[j.name] {
			continue
		}
		file := filepath.Join(absOut, j.name+".json.gz")
		start := time.Now()
		if err := j.record(ctx, cs, file); err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		fi, _ := os.Stat(file)
		log.Printf("%s: %d bytes in %v", j.name, fi.Size(), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

type job struct {
	name, url string
	// inTrace makes the navigation happen while recording, rather than
	// recording a reload: a redirect chain is only seen when it is
	// followed, and a reload loads the URL it ended at.
	inTrace bool
}

func call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	text := mcptext.Of(res)
	if res.IsError {
		return "", fmt.Errorf("%s: %s", name, text)
	}
	return text, nil
}

var buttonUID = regexp.MustCompile(`uid=(\S+) button "(?:Compute|Tap me)"`)

func (j job) record(ctx context.Context, cs *mcp.ClientSession, file string) error {
	switch {
	case j.inTrace:
		if _, err := call(ctx, cs, "navigate_page", map[string]any{"type": "url", "url": "about:blank"}); err != nil {
			return err
		}
		if _, err := call(ctx, cs, "performance_start_trace", map[string]any{"reload": false, "autoStop": false}); err != nil {
			return err
		}
		if _, err := call(ctx, cs, "navigate_page", map[string]any{"type": "url", "url": j.url}); err != nil {
			return err
		}
		time.Sleep(3 * time.Second) // let the page finish, as autoStop would
		_, err := call(ctx, cs, "performance_stop_trace", map[string]any{"filePath": file})
		return err
	case j.name == "interaction", j.name == "mobile":
		if _, err := call(ctx, cs, "navigate_page", map[string]any{"type": "url", "url": j.url}); err != nil {
			return err
		}
		if j.name == "mobile" {
			// A phone: the page, which has no viewport meta tag, is laid
			// out for a desktop screen.
			if _, err := call(ctx, cs, "emulate", map[string]any{"viewport": "412x915x2.625,mobile,touch"}); err != nil {
				return err
			}
			defer call(ctx, cs, "emulate", map[string]any{})
		}
		if _, err := call(ctx, cs, "performance_start_trace", map[string]any{"reload": true, "autoStop": false, "ignoreCache": true}); err != nil {
			return err
		}
		snap, err := call(ctx, cs, "take_snapshot", nil)
		if err != nil {
			return err
		}
		m := buttonUID.FindStringSubmatch(snap)
		if m == nil {
			return fmt.Errorf("no Compute button in the snapshot:\n%s", snap)
		}
		if _, err := call(ctx, cs, "click", map[string]any{"uid": m[1]}); err != nil {
			return err
		}
		time.Sleep(time.Second)
		_, err = call(ctx, cs, "performance_stop_trace", map[string]any{"filePath": file})
		return err
	}
	if _, err := call(ctx, cs, "navigate_page", map[string]any{"type": "url", "url": j.url}); err != nil {
		return err
	}
	_, err := call(ctx, cs, "performance_start_trace", map[string]any{"reload": true, "autoStop": true, "ignoreCache": true, "filePath": file})
	return err
}
