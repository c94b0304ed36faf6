package page_test

import (
	"context"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/input"
)

// benchClick measures Click on a button of the given page, as an agent's
// click is measured: from the call to the settled page.
func benchClick(b *testing.B, body string) {
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Bench", body))
	srv := browsertest.Serve(b, mux)
	br := browsertest.Chromium(b)
	tab := br.NewTab(b)
	a := page.Start(page.Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach})
	b.Cleanup(func() { a.Stop(nil) })
	ctx := context.Background()
	if _, err := a.Navigate(ctx, page.Navigation{Kind: page.NavigateURL, URL: srv.URL + "/"}); err != nil {
		b.Fatal(err)
	}
	s, err := axsnapshot.Take(ctx, a, false)
	if err != nil {
		b.Fatal(err)
	}
	uid := s.Text[len("uid=") : len("uid=")+len("1_0")]
	_ = uid
	var button string
	for _, line := range splitLines(s.Text) {
		if i := indexOf(line, ` button "`); i >= 0 {
			button = line[indexOf(line, "uid=")+4 : i]
		}
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := input.Click(ctx, a, button, false, page.InputOptions{}); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkClickNoop: a click that changes nothing settles once its input
// is delivered and the DOM has been quiet for the causal settle's short
// tail (ARCHITECTURE.md §8): tens of milliseconds, not a fixed window.
func BenchmarkClickNoop(b *testing.B) {
	benchClick(b, `<button>Nothing</button>`)
}

// BenchmarkClickDelayed: the harness's click-latency page, whose effect
// lands 50 ms after the click.
func BenchmarkClickDelayed(b *testing.B) {
	benchClick(b, `<button onclick="setTimeout(() => out.append('Done'), 50)">Run</button><div id=out></div>`)
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := indexOf(s, "\n")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return out
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
