package axsnapshot

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/snapshot"
)

// BenchmarkSnapshotTool measures take_snapshot on the actor as the tool
// runs it (walk, uids, text) on the harness's 2,000-item page: the whole
// snapshot ("full", the path every default call takes, to compare with
// the time before parts existed), and the parts (uid, depth, query,
// inViewport), which take the whole
// snapshot and print less of it. It also times the diff and the outline of
// that snapshot's text, which the transport computes.
//
//	go test -run '^$' -bench SnapshotTool -benchtime 10x ./page/axsnapshot/
func BenchmarkSnapshotTool(b *testing.B) {
	srv := browsertest.Serve(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(largeList(2000)))
	}))
	q, _ := snapshot.ParseQuery("button 1999")
	views := []struct {
		name string
		opts *Options // nil: Take
	}{
		{"full", nil},
		{"query", &Options{Query: q, Depth: 0}},
		{"depth-1", &Options{Depth: 1}},
		{"in-viewport", &Options{InViewport: true, Depth: -1}},
	}
	for _, v := range views {
		b.Run(v.name, func(b *testing.B) {
			a := open(b, srv.URL)
			durations := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				var err error
				if v.opts == nil {
					_, err = Take(ctx, a, false)
				} else {
					_, err = TakeView(ctx, a, *v.opts)
				}
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				durations = append(durations, time.Since(start))
			}
			b.ReportMetric(median(durations).Seconds()*1000, "p50-ms")
		})
	}
	b.Run("diff+outline", func(b *testing.B) {
		a := open(b, srv.URL)
		s1, err := Take(context.Background(), a, false)
		if err != nil {
			b.Fatal(err)
		}
		s2, err := Take(context.Background(), a, false)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			snapshot.Diff(s1.Text, s2.Text)
			snapshot.Outline(s2.Text, 14<<10)
		}
		b.ReportMetric(float64(len(s2.Text)), "snapshot-bytes")
	})
}
