package jsfmt

import "testing"

// TestAppendEscape: each escape JSON has, how many bytes it reads, and
// what it leaves to the next call.
func TestAppendEscape(t *testing.T) {
	cases := []struct {
		in   string
		want string
		n    int
	}{
		{`\"x`, `"`, 2}, {`\\`, `\`, 2}, {`\/`, `/`, 2},
		{`\b`, "\b", 2}, {`\f`, "\f", 2}, {`\n`, "\n", 2}, {`\r`, "\r", 2}, {`\t`, "\t", 2},
		{`\u00e9!`, "é", 6},
		{`\ud83d\ude00`, "😀", 12},
		{`\ud83d\u0041`, "\ufffd", 6}, // the \u0041 is the next call's
		{`\ude00\ud83d`, "\ufffd", 6},
		{`\ud83d`, "\ufffd", 6},
		{`\ud83d\uzzzz`, "\ufffd", 6},
		{`\x`, "", 0}, {`\u12`, "", 0}, {`\u12g4`, "", 0}, {`\`, "", 0}, {`n`, "", 0},
	}
	for _, c := range cases {
		got, n := AppendEscape([]byte("<"), []byte(c.in))
		if string(got) != "<"+c.want || n != c.n {
			t.Errorf("AppendEscape(%q) = %q, %d; want %q, %d", c.in, got, n, "<"+c.want, c.n)
		}
	}
}
