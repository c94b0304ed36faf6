package main

// -walk-trace N: where a tab's time goes by Chromium's own account. For N
// tabs, each step of -walk-profile's sequence (each document's load and
// its first walk, and a warm walk) is traced (V8's compile, execute and GC
// events, Blink's context creation, style and layout), and the events are
// summed by name and step, means over the tabs: the renderer's main
// thread, V8's work on its other threads, and the browser process's
// threads ("[browser <thread>]", RunTask by the site that posted it). Run
// it with and without a feature (-features walker-doc against none, or
// walker-world) to see what that feature adds to each step.

import (
	"context"
	"encoding/json"
	"fmt"

	"os"
	"sort"
	"strings"

	"github.com/mafredri/cdp/protocol/io"
	"github.com/mafredri/cdp/protocol/tracing"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

var traceCategories = []string{
	"v8", "v8.execute", "disabled-by-default-v8.compile", "disabled-by-default-v8.gc",
	"devtools.timeline", "blink", "toplevel",
}

type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Dur  float64 `json:"dur"`
	PID  int     `json:"pid"`
	TID  int     `json:"tid"`
	Args struct {
		Name string `json:"name"`
		// RunTask's posting site.
		SrcFile string `json:"src_file"`
		SrcFunc string `json:"src_func"`
	} `json:"args"`
}

func (b *bench) traceWalks(ctx context.Context, tabs int) error {
	sums := map[string][]float64{} // kind: name → ms, one per tab
	for i := 0; i < tabs; i++ {
		if err := b.traceTab(ctx, sums); err != nil {
			return fmt.Errorf("tab %d: %w", i, err)
		}
	}
	type row struct {
		name string
		ms   float64
	}
	var rows []row
	for name, ms := range sums {
		var t float64
		for _, m := range ms {
			t += m
		}
		rows = append(rows, row{name, t / float64(tabs)})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ms > rows[j].ms })
	out := map[string]float64{}
	for i, r := range rows {
		if r.ms < 0.1 {
			break
		}
		if i < 40 {
			fmt.Fprintf(os.Stderr, "%7.2f ms  %s\n", r.ms, r.name)
		}
		out[r.name] = r.ms
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"tabs": tabs, "ms_per_tab": out})
}

func (b *bench) traceTab(ctx context.Context, sums map[string][]float64) error {
	p, err := b.open(ctx, "about:blank")
	if err != nil {
		return err
	}
	defer p.close(ctx)
	tc, err := cdpconn.Dial(ctx, "ws://"+b.wsHost+"/devtools/page/"+string(p.id), cdpconn.Options{Keep: func(m string) bool {
		return m == "Tracing.tracingComplete"
	}})
	if err != nil {
		return err
	}
	defer tc.Close()
	var trace func(kind string, fn func() error) error
	walk := func(kind string) error { return trace(kind, func() error { _, err := p.snapshot(ctx); return err }) }
	load := func(kind, path string) error {
		return trace(kind, func() error { return p.navigate(ctx, b.base+path) })
	}
	trace = func(kind string, fn func() error) error {
		args := tracing.NewStartArgs().SetTransferMode("ReturnAsStream").
			SetTraceConfig(tracing.TraceConfig{IncludedCategories: traceCategories})
		if err := tc.Client.Tracing.Start(ctx, args); err != nil {
			return err
		}
		werr := fn()
		if err := tc.Client.Tracing.End(ctx); err != nil {
			return err
		}
		var stream io.StreamHandle
		for stream == "" {
			for _, ev := range tc.Take() {
				var c tracing.CompleteReply
				if err := json.Unmarshal(ev.Params, &c); err != nil {
					return err
				}
				if c.Stream == nil {
					return fmt.Errorf("trace came without a stream")
				}
				stream = *c.Stream
			}
			if stream == "" {
				select {
				case <-tc.Ready():
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		data, err := readStream(ctx, tc, stream)
		if err != nil {
			return err
		}
		if werr != nil {
			return werr
		}
		var t struct {
			TraceEvents []traceEvent `json:"traceEvents"`
		}
		if err := json.Unmarshal(data, &t); err != nil {
			return fmt.Errorf("decode trace: %w", err)
		}
		addTrace(kind, t.TraceEvents, sums)
		return nil
	}
	return walkSequence(load, walk)
}

func readStream(ctx context.Context, c *cdpconn.Conn, h io.StreamHandle) ([]byte, error) {
	defer c.Client.IO.Close(ctx, io.NewCloseArgs(h))
	var sb strings.Builder
	for {
		r, err := c.Client.IO.Read(ctx, io.NewReadArgs(h))
		if err != nil {
			return nil, err
		}
		sb.WriteString(r.Data)
		if r.EOF {
			return []byte(sb.String()), nil
		}
	}
}

// addTrace sums the renderer main thread's complete events by name.
func addTrace(kind string, evs []traceEvent, sums map[string][]float64) {
	// The renderer's main thread is the one named CrRendererMain.
	main := map[[2]int]bool{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			main[[2]int{e.PID, e.TID}] = true
		}
	}
	got := map[string]float64{}
	{
		// The browser process's threads, by name: where relaying costs.
		names := map[[2]int]string{}
		browser := map[int]bool{}
		for _, e := range evs {
			if e.Ph == "M" && e.Name == "thread_name" {
				names[[2]int{e.PID, e.TID}] = e.Args.Name
				if e.Args.Name == "CrBrowserMain" {
					browser[e.PID] = true
				}
			}
		}
		for _, e := range evs {
			if e.Ph == "X" && browser[e.PID] {
				name := e.Name
				if e.Args.SrcFunc != "" {
					name += " " + e.Args.SrcFile + ":" + e.Args.SrcFunc
				}
				got[kind+": [browser "+names[[2]int{e.PID, e.TID}]+"] "+name] += e.Dur / 1000
			}
		}
	}
	renderer := map[int]bool{}
	for t := range main {
		renderer[t[0]] = true
	}
	for _, e := range evs {
		switch {
		case e.Ph != "X":
		case main[[2]int{e.PID, e.TID}]:
			got[kind+": "+e.Name] += e.Dur / 1000
		case renderer[e.PID] && strings.HasPrefix(e.Name, "V8."):
			// V8's work on the renderer's other threads (compile tasks, GC).
			got[kind+": (other thread) "+e.Name] += e.Dur / 1000
		}
	}
	for name, ms := range got {
		sums[name] = append(sums[name], ms)
	}
}
