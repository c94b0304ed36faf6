//go:build !race

package tabhivetest

// RaceEnabled reports that the tests run under the race detector.
const RaceEnabled = false
