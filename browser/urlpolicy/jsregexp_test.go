package urlpolicy

import (
	"regexp"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		input string
		want  string // type:value tokens
	}{
		{"/foo/:bar(\\d+)?", "c:/ c:f c:o c:o c:/ n:bar r:\\d+ m:? e:"},
		{"{a*}+", "{:{ c:a *:* }:} m:+ e:"},
		{`\:x`, "x:: c:x e:"},
		{"(a(?:b))", "r:a(?:b) e:"},
		{":café", "n:café e:"},
	}
	names := map[tokenType]string{tokInvalidChar: "i", tokOpen: "{", tokClose: "}", tokRegexp: "r", tokName: "n", tokChar: "c", tokEscapedChar: "x", tokOtherModifier: "m", tokAsterisk: "*", tokEnd: "e"}
	for _, tt := range tests {
		tokens, err := tokenize([]rune(tt.input), false)
		if err != nil {
			t.Errorf("tokenize(%q): %v", tt.input, err)
			continue
		}
		var got []string
		for _, tok := range tokens {
			got = append(got, names[tok.typ]+":"+tok.value)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("tokenize(%q) = %q, want %q", tt.input, strings.Join(got, " "), tt.want)
		}
	}
	for _, bad := range []string{":", "a:", `\`, "(", "()", "(?x)", "(a(b))", "(é)", "(a"} {
		if _, err := tokenize([]rune(bad), false); err == nil {
			t.Errorf("tokenize(%q) in strict mode: no error", bad)
		}
		tokens, err := tokenize([]rune(bad), true)
		if err != nil || tokens[len(tokens)-1].typ != tokEnd {
			t.Errorf("tokenize(%q) in lenient mode = %v, %v; want tokens ending in end", bad, tokens, err)
		}
	}
}

func TestTranslateRegexp(t *testing.T) {
	tests := []struct {
		js, re2 string
	}{
		{`\d+`, `\d+`},
		{"a|b", "a|b"},
		{"(?:ab)*?", `(?:ab)*?`},
		{"(?<year>\\d{4})", `(\d{4})`},
		{"[a-z0-9_]", "[a-z0-9_]"},
		{`[\-.]`, `[\-\.]`},
		{"[^a]", "[^a]"},
		{"[[a-c]x]", "[a-cx]"},
		{`\u0041\u{1F600}\x41`, `A\x{1F600}A`},
		{`\uD83D\uDE00`, `\x{1F600}`},
		{`\/\.\*`, `\/\.\*`},
		{`\p{Lu}\P{Greek}\p{Script=Latin}`, `\p{Lu}\P{Greek}\p{Latin}`},
		{"(?i:abc)", "(?i:abc)"},
		{"^a$", "^a$"},
		{`\bword\B`, `\bword\B`},
		{`[\b]`, `[\x{8}]`},
		{`\cJ\0`, `\x{A}\x{0}`},
		{"a{2}b{1,}c{0,3}", "a{2}b{1,}c{0,3}"},
		{"[]", `[^\x00-\x{10FFFF}]`},
		{"[^]", `[\x00-\x{10FFFF}]`},
		{" ", `\x{20}`},
	}
	for _, tt := range tests {
		got, err := translateRegexp(tt.js)
		if err != nil {
			t.Errorf("translateRegexp(%q): %v", tt.js, err)
			continue
		}
		if got != tt.re2 {
			t.Errorf("translateRegexp(%q) = %q, want %q", tt.js, got, tt.re2)
		}
		if _, err := regexp.Compile(got); err != nil {
			t.Errorf("translateRegexp(%q) = %q, which RE2 refuses: %v", tt.js, got, err)
		}
	}
}

func TestTranslateRegexpErrors(t *testing.T) {
	tests := []struct {
		js, want string
	}{
		{"a(?=b)", "lookahead"},
		{"a(?!b)", "lookahead"},
		{"(?<=a)b", "lookbehind"},
		{"(?<!a)b", "lookbehind"},
		{`(a)\1`, "backreference"},
		{`(?<n>a)\k<n>`, "named backreference"},
		{`[\w--\d]`, "class set operation"},
		{"[a&&b]", "class set operation"},
		{`[\q{abc}]`, "string literals"},
		{"[a[^b]]", "negated class inside a class"},
		{`\p{Letter}`, "Unicode property"},
		{`\p{Script_Extensions=Latin}`, "Unicode property"},
		{`\m`, `invalid escape "\m"`},
		{`\-`, `invalid escape "\-"`},
		{"a**", "nothing to repeat"},
		{"*a", "nothing to repeat"},
		{"^*", "follows an assertion"},
		{"a{", `lone "{"`},
		{"a{x}", "invalid quantifier"},
		{"a{3,2}", "out of order"},
		{"a{1001}", "above 1000"},
		{"}", `lone "}"`},
		{"]", `lone "]"`},
		{"a)", `unmatched ")"`},
		{"(a", "not closed"},
		{"[a", "not closed"},
		{"[z-a]", "out of order"},
		{"[(]", "must be escaped"},
		{"[a-]", "must be escaped"},
		{"[a--]", "class set operation"},
		{"[aa!!]", "reserved"},
		{"(?<a>x)(?<a>y)", "used twice"},
		{"(?<1a>x)", "invalid group name"},
		{"(?x:a)", "invalid group"},
		{`\uD800`, "lone surrogate"},
		{`\u{110000}`, "beyond"},
		{`\x4`, "two hex digits"},
		{`\c1`, "followed by a letter"},
		{`\01`, "octal"},
		{strings.Repeat("(?:", 101) + "a" + strings.Repeat(")", 101), "nest"},
	}
	for _, tt := range tests {
		_, err := translateRegexp(tt.js)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("translateRegexp(%q) = %v, want an error containing %q", tt.js, err, tt.want)
		}
	}
}
