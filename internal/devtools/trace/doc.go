// Package trace analyses performance traces: Chrome's trace-event files, as
// performance_start_trace records them and DevTools saves them. It answers
// what DevTools' Performance panel answers, by its rules: per navigation of
// the page (an insight set, NAVIGATION_0, NAVIGATION_1, ...), the Largest
// Contentful Paint with its element and its subparts, First Contentful
// Paint, time to first byte, Cumulative Layout Shift by session windows,
// Interaction to Next Paint when the user interacted, the long tasks, and
// DevTools' insights ([InsightNames]): LCPBreakdown, LCPDiscovery,
// RenderBlocking, DocumentLatency, CLSCulprits, NetworkDependencyTree, Cache,
// DOMSize, ThirdParties, ForcedReflow, DuplicatedJavaScript, INPBreakdown,
// ImageDelivery, FontDisplay, Viewport, ModernHTTP.
//
//	rep, err := trace.Analyze(f, trace.Options{})
//	fmt.Print(rep.Summary())                                  // performance_stop_trace's text
//	text, _, _ := rep.Insight("NAVIGATION_0", "LCPBreakdown") // performance_analyze_insight's
//
// It is one of tabhive's offline engines (internal/devtools): it knows
// nothing of CDP sessions, actors or MCP. Package page records the trace
// and hands it over as a reader (keeping only the page's processes, with
// [model.PageScope] and [model.Filter]); transport puts the text in its
// replies.
//
// [Analyze] is a pure function of the file: no goroutines, no I/O but the
// reader, nothing shared between two analyses. Package [model] reads the
// file as a stream (a scanner over its bytes, not a JSON tree) and keeps
// only what the report needs: requests, paints, layout shifts,
// interactions, long tasks, the main threads' events with their sites,
// script sources that carry source maps. Its memory grows with those, not
// with the file; a 100 MB trace is analysed in a few tens of megabytes.
// This package computes the insights from that model and writes their
// text.
//
// # The rules
//
// The rules are DevTools' (its trace engine, front_end/models/trace):
// which events make a navigation, which LCP candidate wins, how a
// request's timings are derived, when a request blocked rendering, how
// layout shifts group into windows (a gap of 1 s, at most 5 s), which
// interactions count, and each insight's thresholds. The event keys in the
// text (r-123 for a trace event, s-123 for what DevTools derives from event
// 123) are DevTools' keys for the same events. A differential test holds
// the results to DevTools' own engine on recorded traces (see
// testdata/traces and bench/trace), and a shape test holds the text to
// chrome-devtools-mcp 1.11's replies.
//
// Where tabhive knows less than DevTools, it says so here:
//
//   - Estimated savings. DevTools simulates the page load with a change made
//     (its "Lantern" model); tabhive estimates from the trace: the time
//     render-blocking requests held the first paint, wasted bytes at the
//     throughput the trace's own downloads reached. The insights flagged
//     are the same; the milliseconds may differ.
//   - Sites. Third parties are named by their registrable domain
//     (example.com), not by the company DevTools' dataset names, and each
//     script's main-thread time is its trace events' own (DevTools adds CPU
//     samples).
//   - The critical request chains follow request initiators, which
//     DevTools' dependency graph is made of.
//   - Duplicated JavaScript is found from source maps the trace carries
//     (inline data: URLs, or a DevTools file's saved maps); DevTools also
//     fetches maps from their URLs.
//   - No CrUX field data, no call trees.
//
// # Files
//
// report.go builds the insight sets from a parsed trace, insights.go the
// insights, format.go the text, with JavaScript's number formats
// (internal/jsfmt, and jsRound in jsnum.go), so that it matches DevTools'
// to the digit. The model
// (model/) follows the events, each as a DevTools handler does. tracetest
// serves the pages the test traces were recorded on.
package trace
