package heap

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var fixtureBytes = sync.OnceValues(func() ([]byte, error) {
	f, err := os.Open(filepath.Join("testdata", "leaks-before.heapsnapshot.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
})

func fixtureData(t testing.TB) []byte {
	t.Helper()
	b, err := fixtureBytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLoadTruncated: a snapshot cut anywhere fails with ErrTruncated,
// whether the reader knows the size or not.
func TestLoadTruncated(t *testing.T) {
	data := fixtureData(t)
	cuts := []int{1, 20, 500, 1200, len(data) / 10, len(data) / 3, len(data) / 2, len(data) * 9 / 10, len(data) - 200, len(data) - 2}
	for _, cut := range cuts {
		for _, size := range []int64{0, int64(cut)} {
			_, err := Load(context.Background(), bytes.NewReader(data[:cut]), size, 0)
			if !errors.Is(err, ErrTruncated) {
				t.Errorf("cut at %d of %d (size %d): %v, want ErrTruncated", cut, len(data), size, err)
			}
		}
	}
}

// TestLoadNotSnapshot: files that are not heap snapshots fail with
// ErrNotSnapshot and a reason.
func TestLoadNotSnapshot(t *testing.T) {
	data := fixtureData(t)
	header := string(data[:bytes.Index(data, []byte(`"nodes"`))])
	tests := []struct{ name, in, why string }{
		{"html", "<!doctype html><p>hi</p>", "expected '{'"},
		{"empty object", "{}", `no "snapshot" member`},
		{"trace", `{"traceEvents":[]}`, `starts with "traceEvents"`},
		{"array", `[1,2,3]`, "expected '{'"},
		{"no meta", `{"snapshot":{"node_count":1,"edge_count":0},"nodes":[],"edges":[],"strings":[]}`, `no "meta"`},
		{"node past the end", header + `"nodes":[9,0,1,0,1,0],"edges":[1,0,6],"strings":[""]}`, "node_count says"},
		{"negative number", strings.Replace(header, `"node_count":36374`, `"node_count":1`, 1) + `"nodes":[-1],"edges":[],"strings":[]}`, "expected a non-negative integer"},
		{"huge number", strings.Replace(header, `"node_count":36374`, `"node_count":1`, 1) + `"nodes":[99999999999],"edges":[],"strings":[]}`, "number too large"},
	}
	for _, tt := range tests {
		_, err := Load(context.Background(), strings.NewReader(tt.in), 0, 0)
		if !errors.Is(err, ErrNotSnapshot) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("%s: %v, want ErrNotSnapshot saying %q", tt.name, err, tt.why)
		}
	}
}

// TestLoadBudget: a snapshot whose arrays need more than the budget is
// refused before they are allocated.
func TestLoadBudget(t *testing.T) {
	data := fixtureData(t)
	_, err := Load(context.Background(), bytes.NewReader(data), int64(len(data)), 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Budget != 1<<20 || tl.Need <= tl.Budget {
		t.Fatalf("Load with a 1 MB budget = %v, want a TooLargeError", err)
	}
	s, err := Load(context.Background(), bytes.NewReader(data), int64(len(data)), 64<<20)
	if err != nil {
		t.Fatalf("Load with a 64 MB budget: %v", err)
	}
	if b := s.Bytes(); b <= 0 || b > 64<<20 {
		t.Errorf("Bytes() = %d", b)
	}
}

// TestLoadCancelled: a cancelled context ends a load.
func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, bytes.NewReader(fixtureData(t)), 0, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("Load with a cancelled context = %v", err)
	}
}

// FuzzLoad: no input makes the loader panic or hang; whatever loads
// answers the summary queries.
func FuzzLoad(f *testing.F) {
	data := fixtureData(f)
	f.Add(data[:2000])
	f.Add([]byte(`{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object","synthetic"]],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"]]},"node_count":2,"edge_count":1},"nodes":[2,0,1,0,1,1,1,3,10,0],"edges":[2,1,5],"strings":["","x"]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Load(context.Background(), bytes.NewReader(in), int64(len(in)), 256<<20)
		if err != nil {
			return
		}
		s.Statistics()
		s.RetainedByContextSummary(bg)
		s.Aggregates(bg, "", nil)
		s.DuplicateStrings(bg)
		s.AnalyzeContexts(bg)
		for _, id := range []float64{1, 3} {
			s.RetainingPaths(bg, id, nil, nil, nil)
			s.Dominators(bg, id)
			s.Edges(bg, id, EdgeOptions{SortBy: "name"})
		}
	})
}

// BenchmarkLoad loads the fixture snapshot (3 MB, 36,000 nodes): the whole
// model, as a cold get_heapsnapshot_summary builds it.
func BenchmarkLoad(b *testing.B) {
	data := fixtureData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Load(context.Background(), bytes.NewReader(data), int64(len(data)), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse parses the fixture snapshot into columns, without the
// model.
func BenchmarkParse(b *testing.B) {
	data := fixtureData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parse(context.Background(), newScanner(bytes.NewReader(data)), int64(len(data)), 0); err != nil {
			b.Fatal(err)
		}
	}
}
