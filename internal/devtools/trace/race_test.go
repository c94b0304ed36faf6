//go:build race

package trace

// raceDetector is whether the tests run under the race detector, which
// makes reading a trace about ten times slower.
const raceDetector = true
