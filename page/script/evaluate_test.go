package script_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/pagetest"
	"github.com/tabhive/tabhive/page/script"
)

// A result longer than MaxResult comes back as its head, cut at a
// character boundary within MaxResult bytes, with the whole size: one
// call must not take the server's memory.
func TestEvaluateResultBounded(t *testing.T) {
	t.Parallel()
	a := pagetest.Open(t, pagetest.Serve(t, map[string]http.Handler{"/": browsertest.HTML("Eval", `<p>x</p>`)})+"/")
	tests := []struct {
		name     string
		fn       string
		max      int
		wantJSON string // when not cut
		wantSize int64
		wantCut  bool
	}{
		{"fits", `() => "abc"`, 100, `"abc"`, 5, false},
		{"fits exactly", `() => "a".repeat(98)`, 100, `"` + strings.Repeat("a", 98) + `"`, 100, false},
		{"one byte over", `() => "a".repeat(99)`, 100, "", 101, true},
		{"undefined", `() => undefined`, 100, "undefined", 9, false},
		{"ascii", `() => "a".repeat(1000)`, 100, "", 1002, true},
		// "é" is 2 bytes, "€" 3, "😀" 4 (a surrogate pair in JavaScript):
		// the head never ends inside one.
		{"two-byte", `() => "é".repeat(1000)`, 100, "", 2002, true},
		{"three-byte", `() => "€".repeat(1000)`, 100, "", 3002, true},
		{"surrogate pairs", `() => "😀".repeat(1000)`, 101, "", 4002, true},
		{"object", `() => Array.from({length: 1000}, (_, i) => ({i}))`, 100, "", int64(len(jsonOfIndexes(1000))), true},
		{"short but wide", `() => "😀".repeat(30)`, 100, "", 122, true},
	}
	for _, tt := range tests {
		res, err := script.Evaluate(pagetest.Ctx(t), a, script.Script{Source: tt.fn, MaxResult: tt.max, SkipStableDOM: true})
		if err != nil {
			t.Errorf("%s: Evaluate = %v", tt.name, err)
			continue
		}
		if res.Size != tt.wantSize || res.Cut != tt.wantCut {
			t.Errorf("%s: Size, Cut = %d, %v; want %d, %v", tt.name, res.Size, res.Cut, tt.wantSize, tt.wantCut)
		}
		if !tt.wantCut {
			if res.JSON != tt.wantJSON {
				t.Errorf("%s: JSON = %q, want %q", tt.name, res.JSON, tt.wantJSON)
			}
			continue
		}
		if len(res.JSON) > tt.max || len(res.JSON) < tt.max-3 || !utf8.ValidString(res.JSON) {
			t.Errorf("%s: head of %d bytes (valid UTF-8: %v), want at most %d and whole characters", tt.name, len(res.JSON), utf8.ValidString(res.JSON), tt.max)
		}
	}
}

func jsonOfIndexes(n int) string {
	v := make([]map[string]int, n)
	for i := range v {
		v[i] = map[string]int{"i": i}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// With Output, the whole result is written, a chunk at a time, whatever its
// size and characters: chunks never split a surrogate pair.
func TestEvaluateOutput(t *testing.T) {
	t.Parallel()
	a := pagetest.Open(t, pagetest.Serve(t, map[string]http.Handler{"/": browsertest.HTML("Eval", `<p>x</p>`)})+"/")
	for _, tt := range []struct {
		name, fn string
		want     func() string
	}{
		{"small", `() => ({a: 1})`, func() string { return `{"a":1}` }},
		{"undefined", `() => undefined`, func() string { return "undefined" }},
		// 3 MB over several chunks; "x😀" makes chunk boundaries fall
		// between the halves of a pair, and the emoji is 4 bytes of UTF-8.
		{"mixed", `() => "x😀".repeat(1 << 20)`, func() string { return `"` + strings.Repeat("x😀", 1<<20) + `"` }},
	} {
		var buf bytes.Buffer
		// Reading 3 MB back a chunk at a time takes seconds under -race,
		// over a minute at load 30 on 2 cores: each call gets three.
		c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		res, err := script.Evaluate(c, a, script.Script{Source: tt.fn, Output: &buf, SkipStableDOM: true})
		cancel()
		if err != nil {
			t.Errorf("%s: Evaluate = %v", tt.name, err)
			continue
		}
		want := tt.want()
		if buf.String() != want {
			t.Errorf("%s: wrote %d bytes (valid UTF-8: %v), want %d", tt.name, buf.Len(), utf8.Valid(buf.Bytes()), len(want))
		}
		if res.Size != int64(len(want)) || res.JSON != "" {
			t.Errorf("%s: Size = %d and JSON %q, want %d and none", tt.name, res.Size, res.JSON, len(want))
		}
	}
	// Over MaxOutput: refused before anything is written.
	var buf bytes.Buffer
	_, err := script.Evaluate(pagetest.Ctx(t), a, script.Script{Source: `() => "a".repeat(5000)`, Output: &buf, MaxOutput: 4096, SkipStableDOM: true})
	var tl *script.ResultTooLargeError
	if !errors.As(err, &tl) || tl.Size != 5002 || tl.Max != 4096 || buf.Len() != 0 {
		t.Errorf("Evaluate(too large) = %v with %d bytes written, want ResultTooLargeError{5002, 4096} and nothing", err, buf.Len())
	}
	// The page is usable after all of it.
	if res, err := script.Evaluate(pagetest.Ctx(t), a, script.Script{Source: `() => 2`}); err != nil || res.JSON != "2" {
		t.Errorf("Evaluate after = %q, %v", res.JSON, err)
	}
}

// format "script": the completion value is serialised and bounded like a
// function's result, on a page whose Content-Security-Policy forbids eval
// too; var declarations become globals; a throw is the script's error.
func TestEvaluateClassicScript(t *testing.T) {
	t.Parallel()
	csp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "script-src 'self'")
		browsertest.HTML("Strict", `<p>x</p><script src="/own.js"></script>`).ServeHTTP(w, r)
	})
	own := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write([]byte(`try { eval("1"); window.ownEval = "allowed" } catch (e) { window.ownEval = e.name }`))
	})
	a := pagetest.Open(t, pagetest.Serve(t, map[string]http.Handler{"/": csp, "/own.js": own})+"/")
	for _, tt := range []struct {
		src, want string
		max       int
		cut       bool
	}{
		{`document.title`, `"Strict"`, 0, false},
		{`var tabhiveX = 41; tabhiveX + 1`, `42`, 0, false},
		{`tabhiveX`, `41`, 0, false},
		{`Promise.resolve({a: [1]})`, `{"a":[1]}`, 0, false},
		{`"b".repeat(1 << 20)`, "", 1000, true},
	} {
		res, err := script.Evaluate(pagetest.Ctx(t), a, script.Script{Source: tt.src, Format: "script", MaxResult: tt.max, SkipStableDOM: true})
		if err != nil {
			t.Errorf("Evaluate(%q) = %v", tt.src, err)
			continue
		}
		if tt.cut {
			if !res.Cut || len(res.JSON) != 1000 || res.Size != 1<<20+2 {
				t.Errorf("Evaluate(%q) = %d bytes, size %d, cut %v; want 1000 of %d", tt.src, len(res.JSON), res.Size, res.Cut, 1<<20+2)
			}
			continue
		}
		if res.JSON != tt.want {
			t.Errorf("Evaluate(%q) = %q, want %q", tt.src, res.JSON, tt.want)
		}
	}
	// The page's own eval stays forbidden: the policy holds for it.
	res, err := script.Evaluate(pagetest.Ctx(t), a, script.Script{Source: `() => window.ownEval`, SkipStableDOM: true})
	if err != nil || res.JSON != `"EvalError"` {
		t.Errorf("eval from the page's own script under CSP = %s, %v; want \"EvalError\"", res.JSON, err)
	}
	for _, src := range []string{`throw new Error("boom")`, `)(`} {
		_, err := script.Evaluate(pagetest.Ctx(t), a, script.Script{Source: src, Format: "script", SkipStableDOM: true})
		var se *page.ScriptError
		if !errors.As(err, &se) {
			t.Errorf("Evaluate(%q) = %v, want a ScriptError", src, err)
		}
	}
}
