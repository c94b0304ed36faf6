package jsfmt

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		name string
		f    float64
		want string
	}{
		{"zero", 0, "0"},
		{"negative zero", math.Copysign(0, -1), "0"},
		{"integer", 42, "42"},
		{"negative fraction", -1.5, "-1.5"},
		{"tenth", 0.1, "0.1"},
		{"fraction", 123.456, "123.456"},
		{"a trace's bound", 645366074.9999999, "645366074.9999999"},
		{"largest plain integer", 1e20, "100000000000000000000"},
		{"digits then zeros", 123456789012345680000, "123456789012345680000"},
		{"first exponent", 1e21, "1e+21"},
		{"exponent with digits", 1.5e300, "1.5e+300"},
		{"largest", math.MaxFloat64, "1.7976931348623157e+308"},
		{"smallest plain fraction", 0.000001, "0.000001"},
		{"first negative exponent", 1e-7, "1e-7"},
		{"negative exponent with digits", -1.25e-7, "-1.25e-7"},
		{"smallest", 5e-324, "5e-324"},
		{"NaN", math.NaN(), "NaN"},
		{"Infinity", math.Inf(1), "Infinity"},
		{"-Infinity", math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Number(tt.f); got != tt.want {
				t.Errorf("Number(%v) = %q, want %q", tt.f, got, tt.want)
			}
		})
	}
}

func TestToFixed(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		d    int
		want string
	}{
		{0.125, 2, "0.13"},    // a tie: JavaScript rounds it up
		{1.005, 2, "1.00"},    // 1.00499999...: no tie
		{0.0424, 4, "0.0424"}, // a layout shift's score
		{-2.5, 0, "-3"},
		{2.5, 0, "3"},
		{7, 2, "7.00"},
	} {
		if got := ToFixed(tt.f, tt.d); got != tt.want {
			t.Errorf("ToFixed(%v, %d) = %q, want %q", tt.f, tt.d, got, tt.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                   `""`,
		"café <&> '":         `"café <&> '"`,
		"\"\\/":              `"\"\\/"`,
		"\b\f\n\r\t\x01\x1f": `"\b\f\n\r\t\u0001\u001f"`,
		"\u2028\u2029\x7f😀":  "\"\u2028\u2029\x7f😀\"",
		"a\xffb":             "\"a\ufffdb\"", // not UTF-8: U+FFFD
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestStringify(t *testing.T) {
	dropTopErrorType := func(path []string) bool { return slices.Equal(path, []string{"errorType"}) }
	dropNestedID := func(path []string) bool { return slices.Equal(path, []string{"request", "requestId"}) }
	tests := []struct {
		name string
		raw  string
		skip func([]string) bool
		want string
	}{
		{"compact, in order", `{ "b" : 1 , "a" : [ true, false, null ] }`, nil, `{"b":1,"a":[true,false,null]}`},
		{"numbers as JavaScript prints them", `[1.50, 1e21, 1E-7, 0.000001, -0, 100]`, nil, `[1.5,1e+21,1e-7,0.000001,0,100]`},
		{"large integer", `12345678901234567890`, nil, `12345678901234567000`},
		{"strings escaped only where JSON requires", `"caf\u00e9 \u2028 <&> \/ \" \\ \b\f\n\r\t \u0001"`, nil, "\"café \u2028 <&> / \\\" \\\\ \\b\\f\\n\\r\\t \\u0001\""},
		{"keys escaped too", `{"a\"b": 1}`, nil, `{"a\"b":1}`},
		{"empty containers", `{"a": {}, "b": []}`, nil, `{"a":{},"b":[]}`},
		{"skip a top-level member", `{"errorType": "x", "frameId": "F", "errorTypes": 2}`, dropTopErrorType, `{"frameId":"F","errorTypes":2}`},
		{"skip only the first member", `{"errorType": "x", "b": 1}`, dropTopErrorType, `{"b":1}`},
		{"skip a nested member by path", `{"requestId": "1", "request": {"requestId": "2", "url": "u"}}`, dropNestedID, `{"requestId":"1","request":{"url":"u"}}`},
		{"array elements keep their object's path", `{"request": [{"requestId": "2"}]}`, dropNestedID, `{"request":[{}]}`},
		{"invalid JSON is returned as it is", `{"a": `, nil, `{"a": `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stringify(json.RawMessage(tt.raw), tt.skip); got != tt.want {
				t.Errorf("Stringify(%s) = %s, want %s", tt.raw, got, tt.want)
			}
		})
	}
}

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`""`:                "",
		`"plain"`:           "plain",
		`"\ud83d\ude00"`:    "😀",
		`"a\/b"`:            "a/b",
		`"\ud800x"`:         "\ufffdx", // a lone high surrogate
		`"\udc00\ud800"`:    "\ufffd\ufffd",
		`"\ud83d\u0041"`:    "\ufffdA", // a high surrogate, then no low one
		`"A\u00e9\""`:       "Aé\"",
		`"\b\f\n\r\t\\"`:    "\b\f\n\r\t\\",
		"\"raw\ttab\"":      "raw\ttab",
		"\"a\xff\xfeb\"":    "a\ufffdb", // a run of bad bytes, no escapes: one U+FFFD
		"\"a\xff\xfe\\nb\"": "a\ufffd\ufffd\nb",
	} {
		if got, ok := Unquote([]byte(in)); !ok || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{``, `"`, `abc`, `"abc`, `"\x41"`, `"\u12"`, `"\u12zz"`, `"a\"`, `"a"b"`} {
		if got, ok := Unquote([]byte(in)); ok {
			t.Errorf("Unquote(%s) = %q, true; want false", in, got)
		}
	}
}

func TestPrefix(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 2, "ab"},
		{"abc", 5, "abc"},
		{"a😀b", 2, "a"}, // the pair does not fit: left out whole
		{"a😀b", 3, "a😀"},
		{"😀", 0, ""},
		{"é€", 1, "é"},
	} {
		if got := Prefix(tt.s, tt.n); got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
	if got := Slice("a😀b", 2); got != "a\ufffd" {
		t.Errorf("Slice(a😀b, 2) = %q, want a and U+FFFD", got)
	}
}

// FuzzNumber holds Number to encoding/json, which formats finite floats
// by ECMAScript's rules too (but keeps the sign of -0), and checks that
// the text reads back as the number.
func FuzzNumber(f *testing.F) {
	for _, x := range []float64{0, 1, -1.5, 1e21, 1e-7, 0.1, math.MaxFloat64, 5e-324, 645366074.9999999} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		got := Number(x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		back, err := strconv.ParseFloat(got, 64)
		if err != nil || back != x {
			t.Fatalf("Number(%v) = %q, which reads back as %v (%v)", x, got, back, err)
		}
		if x == 0 {
			return
		}
		if want, _ := json.Marshal(x); got != string(want) {
			t.Fatalf("Number(%v) = %q, encoding/json writes %s", x, got, want)
		}
	})
}

// FuzzQuote checks that Quote's text decodes back to the string and
// escapes nothing JSON.stringify leaves as it is.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "<&>\u2028", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Quote(s)
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("Quote(%q) = %s, not JSON: %v", s, got, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); utf8.ValidString(s) && back != want {
			t.Fatalf("Quote(%q) = %s, which decodes as %q", s, got, back)
		}
		for _, r := range s {
			if r >= 0x20 && r != '"' && r != '\\' && r != utf8.RuneError && !strings.ContainsRune(got, r) {
				t.Fatalf("Quote(%q) = %s escaped %q", s, got, r)
			}
		}
	})
}

// FuzzUnquote holds Unquote to encoding/json on the JSON string literals
// both read.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a\u00e9"`, `"\ud83d\ude00"`, `"\ud800\u0041"`, `"\/\b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
			return
		}
		var want string
		if json.Unmarshal([]byte(s), &want) != nil {
			return
		}
		if got, ok := Unquote([]byte(s)); !ok || got != want {
			t.Fatalf("Unquote(%s) = %q, %v; encoding/json reads %q", s, got, ok, want)
		}
	})
}

// FuzzUTF16 holds Length, Slice, Prefix and Compare to the string's UTF-16
// code units as unicode/utf16 encodes them.
func FuzzUTF16(f *testing.F) {
	f.Add("a😀b", "a\ue000", 2)
	f.Add("é", "è", 1)
	f.Add("😀", "𐀀", 1)
	f.Fuzz(func(t *testing.T, a, b string, n int) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // Slice keeps bad bytes as they are, utf16 would not
		}
		ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
		if got := Length(a); got != len(ua) {
			t.Fatalf("Length(%q) = %d, want %d", a, got, len(ua))
		}
		if got, want := Compare(a, b), slices.Compare(ua, ub); got != want {
			t.Fatalf("Compare(%q, %q) = %d, want %d", a, b, got, want)
		}
		n = max(0, min(n, len(ua)+1))
		want := string(utf16.Decode(ua[:min(n, len(ua))]))
		if got := Slice(a, n); got != want {
			t.Fatalf("Slice(%q, %d) = %q, want %q", a, n, got, want)
		}
		p := Prefix(a, n)
		if !strings.HasPrefix(a, p) || Length(p) > n || (p != a && Length(p)+unitsOf([]rune(a[len(p):])[0]) <= n) {
			t.Fatalf("Prefix(%q, %d) = %q", a, n, p)
		}
	})
}
