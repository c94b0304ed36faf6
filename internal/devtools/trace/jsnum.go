package trace

import "math"

// jsRound rounds as JavaScript's Math.round: half up, toward +Infinity.
func jsRound(f float64) float64 { return math.Floor(f + 0.5) }
