package memory

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHeapChunkDecoded: a chunk's text decodes as encoding/json decodes
// it, through the fast path or the fallback.
func TestHeapChunkDecoded(t *testing.T) {
	var hc heapCapture
	for _, text := range []string{
		``, `plain`, `{"snapshot":{"meta":{"node_fields":["type","name"]}},"nodes":[9,1,0,`,
		"quote \" backslash \\ slash / controls \b\f\n\r\t \x01 é ✓ \u2028",
		"emoji 😀 needs a surrogate pair", strings.Repeat(`"strings":["a\"b",`, 5000),
	} {
		for _, params := range [][]byte{
			mustMarshal(t, map[string]string{"chunk": text}),
			[]byte(`{"chunk":"` + strings.ReplaceAll(strings.ReplaceAll(string(mustMarshal(t, text)), `/`, `\/`), `é`, `\u00e9`)[1:] + `}`),
			[]byte(` { "chunk" : ` + string(mustMarshal(t, text)) + ` } `),
		} {
			got, err := hc.chunk(params)
			if err != nil || string(got) != text {
				t.Errorf("chunk(%.60q) = %.60q, %v; want %.60q", params, got, err, text)
			}
		}
	}
	// Escaped halves of surrogate pairs decode as encoding/json decodes
	// them: a pair as one character, a lone half as U+FFFD.
	for _, lit := range []string{`"\ud83d\ude00"`, `"\ud83d alone"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		if got, err := hc.chunk([]byte(`{"chunk":` + lit + `}`)); err != nil || string(got) != want {
			t.Errorf("chunk of %s = %q, %v; want %q", lit, got, err, want)
		}
	}
	for _, bad := range []string{`{"chunk":"a"b"}`, `{"chunk":"a\x"}`, `{"chunk":"a\`, `{"chunk":1}`} {
		if got, err := hc.chunk([]byte(bad)); err == nil {
			t.Errorf("chunk(%q) = %q, want an error", bad, got)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
