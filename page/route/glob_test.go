package route

import "testing"

func TestCompileGlob(t *testing.T) {
	for _, tc := range []struct {
		glob  string
		match []string
		miss  []string
	}{
		{"**/api/*", []string{"https://example.com/api/users", "http://127.0.0.1:8080/v1/api/x?y=1"},
			[]string{"https://example.com/api/users/1", "https://example.com/apis/x"}},
		{"**/*.{png,jpg}", []string{"https://cdn.test/a/b/c.png", "http://x.test/y.jpg"},
			[]string{"https://cdn.test/a.gif", "https://cdn.test/a.png/x"}},
		{"https://example.com/**", []string{"https://example.com/", "https://example.com/a/b"},
			[]string{"https://example.org/a"}},
		{"**/search?q=*", []string{"https://e.test/search?q=go"}, []string{"https://e.test/searchXq=go"}},
		{"**/a\\*b", []string{"https://e.test/a*b"}, []string{"https://e.test/axxb"}},
	} {
		re, err := compileGlob(tc.glob)
		if err != nil {
			t.Fatalf("compileGlob(%q) = %v", tc.glob, err)
		}
		for _, u := range tc.match {
			if !re.MatchString(u) {
				t.Errorf("%q does not match %q (%s)", tc.glob, u, re)
			}
		}
		for _, u := range tc.miss {
			if re.MatchString(u) {
				t.Errorf("%q matches %q (%s)", tc.glob, u, re)
			}
		}
	}
	for p, want := range map[string]bool{"**/api/*": true, "https://e.test/*.{png,jpg}": true,
		"https://e.test/:id{/details}?": false, "/api/*": false, "https://e.test/*": false} {
		if isGlob(p) != want {
			t.Errorf("isGlob(%q) = %v", p, !want)
		}
	}
	for _, bad := range []string{"**/{a,{b}}", "**/{a,b"} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("compileGlob(%q) succeeded", bad)
		}
	}
}
