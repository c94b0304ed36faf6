// Command bench measures tabhive's trace analysis beside
// chrome-devtools-mcp's on the same large trace: wall time and memory,
// each in a process of its own, alternating, several times.
//
//	go run ./bench/trace/bench -record 40s -trace /tmp/busy.json   # record one, then measure
//	go run ./bench/trace/bench -trace /tmp/busy.json -runs 5         # measure an existing one
//
// -record records the fixture page /p/busy.html (package tracetest: timers,
// animation frames, layout and fetches without pause) through the tabhive
// binary for the given time, uncompressed. tabhive's side is page/trace's
// Analyze streaming the file, then the summary it replies with; its memory
// is the growth of the process's peak RSS over its RSS before the
// analysis. chrome-devtools-mcp's side is bench/trace/cdm-analyze.mjs: its
// own parse of the file with DevTools' trace engine, then its summary, as
// performance_stop_trace does once Chrome has handed it the trace; its
// memory is the Node process's peak RSS.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/page/trace"
	"github.com/tabhive/tabhive/page/trace/tracetest"
)

func main() {
	file := flag.String("trace", filepath.Join(os.TempDir(), "tabhive-busy-trace.json"), "the trace to analyse")
	record := flag.Duration("record", 0, "record the busy page for this long into -trace first")
	runs := flag.Int("runs", 3, "measurements of each side")
	child := flag.Bool("child", false, "internal: analyse -trace in this process and print the measurement")
	flag.Parse()
	if *child {
		if err := measureChild(*file); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *record > 0 {
		if err := recordBusy(*file, *record); err != nil {
			log.Fatal(err)
		}
	}
	fi, err := os.Stat(*file)
	if err != nil {
		log.Fatal(err)
	}
	script, err := filepath.Abs("bench/trace/cdm-analyze.mjs")
	if err != nil {
		log.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	var goMs, goMB, cdmMs, cdmMB []float64
	for i := 0; i < *runs; i++ {
		var g result
		if err := runJSON(&g, self, "-child", "-trace", *file); err != nil {
			log.Fatalf("tabhive's analysis: %v", err)
		}
		var c result
		if err := runJSON(&c, "node", script, *file); err != nil {
			log.Fatalf("chrome-devtools-mcp's analysis: %v", err)
		}
		log.Printf("run %d: tabhive %v ms, +%v MB; chrome-devtools-mcp %v ms, %v MB peak", i+1, g.Ms, g.GrowthMB, c.Ms, c.PeakMB)
		goMs, goMB = append(goMs, g.Ms), append(goMB, g.GrowthMB)
		cdmMs, cdmMB = append(cdmMs, c.Ms), append(cdmMB, c.PeakMB)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Trace: %s, %.1f MB uncompressed. Machine: %d cores, %s. Load average at the end: %s\n",
		filepath.Base(*file), float64(fi.Size())/1e6, runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, strings.Fields(string(load))[0])
	fmt.Printf("\n| %d runs each, medians | tabhive (page/trace) | chrome-devtools-mcp 1.11 | ratio |\n|---|---|---|---|\n", *runs)
	fmt.Printf("| analysis time, parse to summary | %.0f ms | %.0f ms | %.1f× faster |\n", median(goMs), median(cdmMs), median(cdmMs)/median(goMs))
	fmt.Printf("| memory | +%.0f MB RSS growth | %.0f MB peak RSS | |\n", median(goMB), median(cdmMB))
}

type result struct {
	Ms       float64 `json:"ms"`
	GrowthMB float64 `json:"growthMB"`
	PeakMB   float64 `json:"peakMB"`
}

func runJSON(v any, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return json.Unmarshal([]byte(lines[len(lines)-1]), v)
}

// measureChild analyses the file and prints the time and the growth of
// the peak RSS.
func measureChild(file string) error {
	before := procStatus("VmRSS")
	start := time.Now()
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := trace.Analyze(bufio.NewReaderSize(f, 1<<20), trace.Options{})
	if err != nil {
		return err
	}
	sum := rep.Summary()
	ms := time.Since(start).Milliseconds()
	peak := procStatus("VmHWM")
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"ms": ms, "growthMB": (peak - before) / 1024, "summaryBytes": len(sum),
	})
}

// procStatus reads a kB figure from /proc/self/status.
func procStatus(key string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, key+":") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, key+":")), "%f", &kb)
			return kb
		}
	}
	return 0
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// recordBusy records /p/busy.html through the tabhive binary for d.
func recordBusy(file string, d time.Duration) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	go http.Serve(ln, tracetest.NewHandler(tracetest.Config{}))
	bin := filepath.Join(os.TempDir(), "tabhive-bench")
	if b, err := exec.Command("go", "build", "-o", bin, "./cmd/tabhive").CombinedOutput(); err != nil {
		return fmt.Errorf("build tabhive: %v\n%s", err, b)
	}
	defer os.Remove(bin)
	ctx := context.Background()
	cmd := exec.Command(bin, "--headless", "--isolated", "--allow-unrestricted-paths", "--log-level", "debug")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	call := func(name string, args map[string]any) error {
		cctx, cancel := context.WithTimeout(ctx, d+3*time.Minute)
		defer cancel()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err == nil && res.IsError {
			var b strings.Builder
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					b.WriteString(t.Text)
				}
			}
			err = fmt.Errorf("%s: %s", name, b.String())
		}
		return err
	}
	url := fmt.Sprintf("http://%s/p/busy.html", ln.Addr())
	if err := call("navigate_page", map[string]any{"type": "url", "url": url}); err != nil {
		return err
	}
	if err := call("performance_start_trace", map[string]any{"reload": true, "autoStop": false}); err != nil {
		return err
	}
	time.Sleep(d)
	abs, _ := filepath.Abs(file)
	return call("performance_stop_trace", map[string]any{"filePath": abs})
}
