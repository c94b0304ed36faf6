// Package model reads a Chrome trace file as a stream and keeps what its
// events say, as DevTools' trace handlers (front_end/models/trace/handlers)
// keep it: the processes, frames and navigations ([Meta]), the network
// requests ([Request]) with their timings and initiators, the paints and
// LCP candidates, the layout shifts and their session windows
// ([Cluster]), the user interactions ([Interaction]), the main threads'
// events (long tasks, layouts, forced reflows, DOM size, the time each
// site took) and the scripts with their source maps. Package trace builds
// the insights and their text from a [Trace].
//
//	t, err := model.Parse(f)
//
// [Parse] is a pure function of the file: no goroutines, no I/O but the
// reader. It reads the file with a scanner over its bytes, not a JSON
// tree, and keeps only what the insights need, so that its memory grows
// with the requests, shifts and tasks, not with the file.
//
// [PageScope] and [Filter] take out of a whole-browser trace what belongs
// to other pages than the one that recorded it.
//
// # Files
//
// scan.go reads the file; event.go parses one event. parse.go runs the
// handlers over the events: meta.go, network.go, metrics.go (paints and
// LCP), shifts.go, interactions.go, renderer.go (main threads: forced
// reflows, long tasks, DOM size, sites) and scripts.go follow the events,
// each as a DevTools handler does; entity.go names sites; search.go holds
// DevTools' searches and sorts, so that the choices match DevTools'.
// scope.go finds and keeps a page's part of a trace.
package model
