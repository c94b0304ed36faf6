package main

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuSampler adds up the CPU time (user + system) of a process and its
// descendants, Chromium's tree, over the measured phase: it reads /proc
// every 200 ms and keeps each process's time as last seen, so that a
// renderer closed with its tab is still counted (less at most one
// interval). A loaded machine changes CPU time per iteration far less than
// it changes wall time. Linux only; elsewhere it reports zero.
//
// Its goroutine is started by start and ended by stop.
type cpuSampler struct {
	root int

	mu   sync.Mutex
	last map[string]int64  // "pid starttime" → ticks, as last seen
	base map[string]int64  // the same at start
	kind map[string]string // "pid starttime" → the process's kind (processKind)

	stopc chan struct{}
	done  chan struct{}
}

func newCPUSampler(root int) *cpuSampler {
	return &cpuSampler{root: root, last: map[string]int64{}, kind: map[string]string{}}
}

// start takes the baseline and samples until stop.
func (s *cpuSampler) start() {
	s.sample()
	s.mu.Lock()
	s.base = make(map[string]int64, len(s.last))
	for k, v := range s.last {
		s.base[k] = v
	}
	s.mu.Unlock()
	s.stopc, s.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.stopc:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
}

// stop ends the sampling and returns the CPU seconds spent since start,
// in all and by kind of process.
func (s *cpuSampler) stop() (float64, map[string]float64) {
	close(s.stopc)
	<-s.done
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	var ticks int64
	byKind := map[string]float64{}
	for k, v := range s.last {
		ticks += v - s.base[k]
		byKind[s.kind[k]] += float64(v-s.base[k]) / 100
	}
	return float64(ticks) / 100, byKind // USER_HZ
}

// processKind names a Chromium process by its command line's --type (and
// a utility process by its sub-type): browser, renderer, gpu-process,
// network, storage…
func processKind(pid string) string {
	b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
	kind := "browser"
	// Chromium rewrites its children's command lines with spaces.
	for _, arg := range strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == ' ' }) {
		if v, ok := strings.CutPrefix(arg, "--type="); ok {
			kind = v
		}
		if v, ok := strings.CutPrefix(arg, "--utility-sub-type="); ok {
			return v[:strings.IndexByte(v+".", '.')]
		}
	}
	return kind
}

// sample reads the tree's processes once.
func (s *cpuSampler) sample() {
	type proc struct {
		ppid  int
		key   string
		ticks int64
	}
	procs := map[int]proc{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		st := string(b)
		f := strings.Fields(st[strings.LastIndexByte(st, ')')+2:])
		if len(f) < 20 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		procs[pid] = proc{ppid, d.Name() + " " + f[19], utime + stime}
	}
	in := map[int]bool{s.root: true}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Parents have lower pids than their children, except after a pid
	// wraps: loop until nothing joins.
	for changed := true; changed; {
		changed = false
		for pid, p := range procs {
			if !in[pid] && in[p.ppid] {
				in[pid], changed = true, true
			}
		}
	}
	for pid := range in {
		if p, ok := procs[pid]; ok {
			s.last[p.key] = p.ticks
			if _, ok := s.kind[p.key]; !ok {
				s.kind[p.key] = processKind(strconv.Itoa(pid))
			}
		}
	}
}
