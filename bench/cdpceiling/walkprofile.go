package main

// -walk-profile N: where a snapshot's cost to Chromium goes when the walker
// takes it (-features walker-doc, as tabhive does). N tabs, one after
// another, each through interact's three documents (/button-async, /nav-a,
// /nav-b), with V8's sampling profiler on around each walk: the first walk
// in a new tab (a new renderer: the walker's code runs cold), the first in
// each of the two next documents (the renderer's compilation cache serves
// the script), and a second walk in the last document (warm). It prints,
// per kind of walk, the median wall time and sampled CPU, and the functions
// that take most of it over all the tabs.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mafredri/cdp/protocol/profiler"
)

// walkKinds are the walks of one tab, in order.
var walkKinds = []string{"new tab (cold)", "2nd document", "3rd document", "same document again (warm)"}

type walkProfile struct {
	wall, cpu map[string][]float64 // ms, by kind
	self      map[string]float64   // ms of self time, by kind and function
}

func (b *bench) profileWalks(ctx context.Context, tabs int) error {
	if b.features.walker == "" {
		return fmt.Errorf("-walk-profile needs the walker: -features walker-doc")
	}
	wp := walkProfile{wall: map[string][]float64{}, cpu: map[string][]float64{}, self: map[string]float64{}}
	for i := 0; i < tabs; i++ {
		if err := b.profileTab(ctx, &wp); err != nil {
			return fmt.Errorf("tab %d: %w", i, err)
		}
	}
	out := map[string]any{"tabs": tabs}
	for _, k := range walkKinds {
		fmt.Fprintf(os.Stderr, "%-28s wall %6.1f ms, sampled CPU %6.1f ms (medians of %d)\n", k, median(wp.wall[k]), median(wp.cpu[k]), len(wp.cpu[k]))
		out[k] = map[string]float64{"wall_ms": median(wp.wall[k]), "cpu_ms": median(wp.cpu[k])}
	}
	type fn struct {
		name string
		ms   float64
	}
	var fns []fn
	for name, ms := range wp.self {
		fns = append(fns, fn{name, ms / float64(tabs)})
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].ms > fns[j].ms })
	fmt.Fprintln(os.Stderr, "self time per tab, by walk and function:")
	top := map[string]float64{}
	for _, f := range fns[:min(25, len(fns))] {
		fmt.Fprintf(os.Stderr, "%7.2f ms  %s\n", f.ms, f.name)
		top[f.name] = f.ms
	}
	out["self_ms_per_tab"] = top
	return json.NewEncoder(os.Stdout).Encode(out)
}

func (b *bench) profileTab(ctx context.Context, wp *walkProfile) error {
	p, err := b.open(ctx, "about:blank")
	if err != nil {
		return err
	}
	defer p.close(ctx)
	c := p.conn.Client
	if err := c.Profiler.Enable(ctx); err != nil {
		return err
	}
	if err := c.Profiler.SetSamplingInterval(ctx, profiler.NewSetSamplingIntervalArgs(100)); err != nil {
		return err
	}
	walk := func(kind string) error {
		if err := c.Profiler.Start(ctx); err != nil {
			return err
		}
		t := time.Now()
		_, werr := p.snapshot(ctx)
		wall := float64(time.Since(t).Microseconds()) / 1000
		r, err := c.Profiler.Stop(ctx)
		if werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
		wp.wall[kind] = append(wp.wall[kind], wall)
		wp.cpu[kind] = append(wp.cpu[kind], wp.add(kind, r.Profile))
		return nil
	}
	return walkSequence(func(_, path string) error { return p.navigate(ctx, b.base+path) }, walk)
}

// loadKinds are the loads of one tab, in order, before each of the first
// three walks.
var loadKinds = []string{"load in a new tab", "load of the 2nd document", "load of the 3rd document"}

// walkSequence is one tab's sequence, in a tab still at about:blank:
// interact's three documents, each loaded and walked, then the last one
// walked again (warm).
func walkSequence(load func(kind, path string) error, walk func(kind string) error) error {
	for i, path := range []string{"/button-async", "/nav-a", "/nav-b"} {
		if err := load(loadKinds[i], path); err != nil {
			return err
		}
		if err := walk(walkKinds[i]); err != nil {
			return err
		}
	}
	return walk(walkKinds[3])
}

// add adds a profile's self times under kind and returns its sampled CPU
// in ms (every sample but the idle ones).
func (wp *walkProfile) add(kind string, prof profiler.Profile) float64 {
	byID := make(map[int]profiler.ProfileNode, len(prof.Nodes))
	for _, n := range prof.Nodes {
		byID[n.ID] = n
	}
	var busy float64
	for i, id := range prof.Samples {
		if i+1 >= len(prof.TimeDeltas) {
			break
		}
		ms := float64(prof.TimeDeltas[i+1]) / 1000
		f := byID[id].CallFrame
		if f.FunctionName == "(idle)" {
			continue
		}
		busy += ms
		name := f.FunctionName
		if name == "" {
			name = "(anonymous)"
		}
		switch {
		case f.URL != "":
			name += fmt.Sprintf(" %s:%d", f.URL[strings.LastIndex(f.URL, "/")+1:], f.LineNumber+1)
		case f.ScriptID != "0":
			// A script with no URL (one of CDP's calls): its id and line.
			name += fmt.Sprintf(" script %s:%d:%d", f.ScriptID, f.LineNumber+1, f.ColumnNumber+1)
		}
		wp.self[kind+": "+name] += ms
	}
	return busy
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
