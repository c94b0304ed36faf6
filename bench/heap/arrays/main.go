// Command arrays loads a heap snapshot with tabhive's engine and prints, as
// one JSON line, its size, the bytes of the arrays the model holds, the
// time the load took and the process's peak RSS: what the heap benchmark
// compares the server's RSS with.
//
//	go run ./bench/heap/arrays [-cpuprofile F] FILE.heapsnapshot
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/tabhive/tabhive/internal/devtools/heap"
)

func main() {
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the load to this file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: arrays [-cpuprofile F] FILE.heapsnapshot")
		os.Exit(2)
	}
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(pf)
		defer pprof.StopCPUProfile()
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	fi, _ := f.Stat()
	start := time.Now()
	s, err := heap.Load(context.Background(), f, fi.Size(), 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	took := time.Since(start)
	runtime.KeepAlive(s)
	out := map[string]any{
		"fileBytes":   fi.Size(),
		"nodes":       s.NodeCount(),
		"edges":       s.EdgeCount(),
		"arrayBytes":  s.Bytes(),
		"loadSeconds": took.Seconds(),
		"peakRSSKB":   peakRSS(),
		// CPU time says what the load costs whatever else runs on the
		// machine; the wall time above depends on it.
		"cpuSeconds": cpuSeconds(),
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// cpuSeconds is the user and system CPU time the process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// peakRSS reads VmHWM from /proc/self/status, in kB (0 where there is no
// /proc).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb
		}
	}
	return 0
}
