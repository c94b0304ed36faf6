package jsfmt

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Number formats f as JavaScript's Number.prototype.toString does (and so
// String(f), template literals and JSON.stringify for finite numbers): the
// shortest digits that read back as f, in plain notation from 1e-6 up to
// 1e21 and with an exponent ("1e+21", "1.5e-7") outside it. Negative zero
// is "0"; NaN, Infinity and -Infinity are spelled as JavaScript spells
// them.
func Number(f float64) string {
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
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// ECMAScript's Number::toString in its own terms: the shortest
	// round-trip digits d1..dk, and n such that f = 0.d1..dk × 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	s := digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	if n-1 >= 0 {
		return sign + s + "e+" + strconv.Itoa(n-1)
	}
	return sign + s + "e-" + strconv.Itoa(1-n)
}

// ToFixed formats f with d decimals as JavaScript's f.toFixed(d) does for
// |f| below 1e21: the decimal nearest to f's exact binary value, a tie
// going to the larger magnitude (strconv breaks ties to even, so a tie is
// found exactly and rounded here). NaN and the infinities are spelled as
// strconv spells them.
func ToFixed(f float64, d int) string {
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
