// Command analyze prints tabhive's analysis of a trace file: the summary
// performance_stop_trace replies with, and with -insights the analysis of
// every insight listed, as performance_analyze_insight gives it.
//
//	go run ./bench/trace/analyze [-insights] trace.json.gz
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tabhive/tabhive/internal/devtools/trace"
)

func main() {
	insights := flag.Bool("insights", false, "also print the analysis of each listed insight")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: analyze [-insights] TRACE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	r, err := trace.Analyze(f, trace.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(r.Summary())
	if !*insights {
		return
	}
	for _, s := range r.Sets {
		for _, name := range s.Flagged() {
			text, _, _ := r.Insight(s.ID, name)
			fmt.Printf("\n%s\n=== %s %s\n%s\n", strings.Repeat("=", 60), s.ID, name, text)
		}
	}
}
