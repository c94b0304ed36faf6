package trace

import (
	"math"
	"strconv"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// jsString formats an integer as JavaScript does.
func jsString(i int64) string { return strconv.FormatInt(i, 10) }

// jsAny formats a decoded JSON scalar as JavaScript's String() would.
func jsAny(v any) string {
	switch x := v.(type) {
	case nil:
		return "undefined"
	case string:
		return x
	case float64:
		return jsfmt.Number(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// jsRound rounds as JavaScript's Math.round: half up, toward +Infinity.
func jsRound(f float64) float64 { return math.Floor(f + 0.5) }
