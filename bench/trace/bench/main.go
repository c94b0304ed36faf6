// Command bench measures tabhive's trace analysis beside
// chrome-devtools-mcp's on the same large trace: wall time and memory,
// each in a process of its own, alternating, several times.
//
//	go run ./bench/trace/bench -record 40s -trace /tmp/busy.json   # record one, then measure
//	go run ./bench/trace/bench -trace /tmp/busy.json -runs 5         # measure an existing one
//
// -record records the fixture page /p/busy.html (package tracetest: timers,
// animation frames, layout and fetches without pause) for the given time,
// uncompressed, with tabhive's page actor in this process. tabhive's side is internal/devtools/trace's
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
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/bench/internal/benchmcp"
	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/internal/devtools/trace"
	"github.com/tabhive/tabhive/internal/devtools/trace/tracetest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/performance"
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
	var cdmFailed []string
	for i := 0; i < *runs; i++ {
		var g result
		if err := runJSON(&g, self, "-child", "-trace", *file); err != nil {
			log.Fatalf("tabhive's analysis: %v", err)
		}
		goMs, goMB = append(goMs, g.Ms), append(goMB, g.GrowthMB)
		var c result
		start := time.Now()
		if err := runJSON(&c, "node", script, *file); err != nil {
			// Node's heap has a limit (about 4 GB here); a trace too large
			// for it is a result, not a failure of the benchmark.
			why := fmt.Sprintf("failed after %.0f s (%v)", time.Since(start).Seconds(), err)
			log.Printf("run %d: tabhive %v ms, +%v MB; chrome-devtools-mcp %s", i+1, g.Ms, g.GrowthMB, why)
			cdmFailed = append(cdmFailed, why)
			continue
		}
		log.Printf("run %d: tabhive %v ms, +%v MB; chrome-devtools-mcp %v ms, %v MB peak", i+1, g.Ms, g.GrowthMB, c.Ms, c.PeakMB)
		cdmMs, cdmMB = append(cdmMs, c.Ms), append(cdmMB, c.PeakMB)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Trace: %s, %.1f MB uncompressed. Machine: %d cores, %s. Load average at the end: %s\n",
		filepath.Base(*file), float64(fi.Size())/1e6, runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, strings.Fields(string(load))[0])
	fmt.Printf("\n| %d runs each, medians | tabhive (internal/devtools/trace) | chrome-devtools-mcp 1.11 | ratio |\n|---|---|---|---|\n", *runs)
	if len(cdmMs) == 0 {
		fmt.Printf("| analysis time, parse to summary | %.0f ms | %s | |\n", median(goMs), strings.Join(cdmFailed, "; "))
		fmt.Printf("| memory | +%.0f MB RSS growth | | |\n", median(goMB))
		return
	}
	fmt.Printf("| analysis time, parse to summary | %.0f ms | %.0f ms | %.1f× faster |\n", median(goMs), median(cdmMs), median(cdmMs)/median(goMs))
	fmt.Printf("| memory | +%.0f MB RSS growth | %.0f MB peak RSS | |\n", median(goMB), median(cdmMB))
	if len(cdmFailed) > 0 {
		fmt.Printf("\nchrome-devtools-mcp failed %d of %d runs: %s\n", len(cdmFailed), *runs, strings.Join(cdmFailed, "; "))
	}
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
	v, err := benchmcp.ProcStatus("self", key)
	if err != nil {
		return 0
	}
	var kb float64
	fmt.Sscanf(v, "%f", &kb)
	return kb
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// recordBusy records /p/busy.html for d, with tabhive's own page actor
// in this process (as performance_start_trace and performance_stop_trace
// do), under no budget but an hour's: Chrome takes minutes to hand over a
// 100 MB trace on a loaded machine, longer than the tool's budget, and the
// recording is not what is measured.
func recordBusy(file string, d time.Duration) error {
	ln, err := benchmcp.Serve(tracetest.NewHandler(tracetest.Config{}))
	if err != nil {
		return err
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Hour)
	defer cancel()
	sup := browser.New(browser.Config{Headless: true, Isolated: true, Logger: zerolog.New(os.Stderr).Level(zerolog.InfoLevel)})
	defer sup.Close()
	_, a, err := sup.NewPage(ctx, browser.NewPageOptions{})
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://%s/p/busy.html", ln.Addr())
	if _, err := a.Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: url}); err != nil {
		return err
	}
	lease, _, err := sup.Traces().Acquire(ctx, 1, a.Done())
	if err != nil {
		return err
	}
	if _, err := performance.Of(a).StartTrace(ctx, performance.TraceOptions{Reload: true, Lease: lease}); err != nil {
		return err
	}
	time.Sleep(d)
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	start := time.Now()
	res, err := performance.Of(a).StopTrace(ctx, performance.TraceStop{Out: w})
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	log.Printf("recorded %d bytes; stopping, saving and analysing took %v", res.Bytes, time.Since(start).Round(time.Second))
	return f.Close()
}
