package trace

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// jsNumber formats f as JavaScript's Number.prototype.toString does, so
// that bounds and ids read as DevTools prints them ("645366074.9999999").
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e+07 / e-07; JavaScript writes e+7 / e-7.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

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
		return jsNumber(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// toFixed formats f with d decimals as JavaScript's toFixed does: the
// nearest decimal to the exact binary value, a tie going to the larger
// magnitude (strconv breaks ties to even).
func toFixed(f float64, d int) string {
	s := strconv.FormatFloat(f, 'f', d, 64)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return s
	}
	// A tie needs f×10^d to end in exactly .5; check it exactly.
	x := new(big.Float).SetPrec(2048).SetFloat64(math.Abs(f))
	x.Mul(x, new(big.Float).SetPrec(2048).SetFloat64(math.Pow(10, float64(d))))
	whole, _ := x.Int(nil)
	frac := new(big.Float).SetPrec(2048).Sub(x, new(big.Float).SetPrec(2048).SetInt(whole))
	if frac.Cmp(big.NewFloat(0.5)) != 0 {
		return s
	}
	whole.Add(whole, big.NewInt(1))
	digits := whole.String()
	for len(digits) <= d {
		digits = "0" + digits
	}
	out := digits
	if d > 0 {
		out = digits[:len(digits)-d] + "." + digits[len(digits)-d:]
	}
	if f < 0 {
		out = "-" + out
	}
	return out
}

// jsRound rounds as JavaScript's Math.round: half up, toward +Infinity.
func jsRound(f float64) float64 { return math.Floor(f + 0.5) }
