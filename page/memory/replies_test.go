package memory_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/internal/devtools/heap/heaptest"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

// TestHeapRepliesMatchUpstream replays, against tabhive, the memory-tool
// calls bench/heap/oracle.mjs made to chrome-devtools-mcp 1.11 on the same
// snapshots, and holds tabhive's replies to upstream's, byte for byte.
func TestHeapRepliesMatchUpstream(t *testing.T) {
	t.Parallel()
	dir := heaptest.Unpack(t)
	var calls []struct {
		Tool    string         `json:"tool"`
		Args    map[string]any `json:"args"`
		Text    string         `json:"text"`
		IsError bool           `json:"isError"`
	}
	b, err := os.ReadFile(filepath.Join("testdata", "heap_replies.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &calls); err != nil || len(calls) < 40 {
		t.Fatalf("%d recorded calls: %v", len(calls), err)
	}
	srv := transporttest.Start(t, transporttest.Options{
		Config:  transport.Config{MemoryDebugging: true, Workspaces: []string{dir}},
		Browser: transporttest.NoBrowser(t),
	})
	cs := srv.Connect(t)
	for _, c := range calls {
		args := map[string]any{}
		for k, v := range c.Args {
			if s, ok := v.(string); ok {
				v = strings.ReplaceAll(s, "$DIR", dir)
			}
			args[k] = v
		}
		text, isErr := transporttest.Call(t, cs, c.Tool, args)
		text = strings.ReplaceAll(text, dir, "$DIR")
		if text != c.Text || isErr != c.IsError {
			t.Errorf("%s %v:\n%s\n(error %v)\nchrome-devtools-mcp 1.11 answered:\n%s\n(error %v)", c.Tool, c.Args, firstLines(diffFrom(text, c.Text), 30), isErr, firstLines(diffFrom(c.Text, text), 30), c.IsError)
		}
	}
}

// diffFrom returns a from the line where it first differs from b.
func diffFrom(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			if i > 0 {
				return fmt.Sprintf("[%d equal lines]\n%s", i, strings.Join(al[i:], "\n"))
			}
			return a
		}
	}
	return "[equal lines, then the other goes on]"
}

func firstLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = append(l[:n], "...")
	}
	return strings.Join(l, "\n")
}
